/**
 * Start-up queries use indexes: every statement a start runs against the ledger (the
 * account check, the catch-up's reads, the risk state, the day's opening mark, the start-up record)
 * and `ledger summary`'s, captured as they run, then EXPLAIN QUERY PLAN: no full scan of orders,
 * cancels or marks (the fills replay reads every fill by design). On 2e8e4dd the unended orders
 * were a full scan of orders.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ledgerSummary } from '../../src/ledger/books.ts';
import { replayBooks } from '../../src/ledger/books-checkpoint.ts';
import { openLedger } from '../../src/ledger/ledger.ts';
import { openIntegrityCheck } from '../../src/ledger/integrity.ts';
import { settableClock, TRADER } from '../support/venue-order.ts';
import type { Bytes32 } from '../../src/model/order.ts';

/** A ledger in memory whose prepared statements are noted in `seen` until `stopWatching()`. */
function watchedLedger() {
  const l = openLedger({ path: ':memory:', clock: settableClock() });
  const seen = new Set<string>();
  const prepare = l.db.prepare.bind(l.db);
  (l.db as { prepare: unknown }).prepare = (sql: string) => {
    seen.add(sql);
    return prepare(sql);
  };
  return { l, seen, stopWatching: () => ((l.db as { prepare: unknown }).prepare = prepare) };
}

test('no full scan of orders, cancels or marks in the start-up queries and the summary', () => {
  const { l, seen, stopWatching } = watchedLedger();
  // a start (see BotLedger.open, catchUpFills, BotLedger.initialRisk)
  l.meta('account');
  l.isFresh();
  l.lastStartup();
  l.unendedOrders();
  l.filledByNonce();
  l.filledFor([`0x${'1'.padStart(64, '0')}` as Bytes32]);
  l.risk();
  l.db.prepare('SELECT pnl FROM marks WHERE market_id IS NULL AND ts < ? ORDER BY id DESC LIMIT 1').get(0);
  l.startup({ configHash: 'h', configFile: 'f', venue: 'v', trader: TRADER, markets: 1, latched: null }, 0);
  ledgerSummary(l);
  replayBooks(l);
  stopWatching();
  const scans: string[] = [];
  for (const sql of seen) {
    const plan = (
      l.db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...Array.from({ length: (sql.match(/\?/g) ?? []).length }, () => 0)) as { detail: string }[]
    ).map((r) => r.detail);
    // (a partial index holds only its few rows: the unended orders, the strangers' rows and cancels)
    for (const d of plan)
      if (/^SCAN (orders|cancels|marks)\b/.test(d) && !/USING (COVERING )?INDEX (orders_unended|orders_strangers|cancels_stranger)\b/.test(d))
        scans.push(`${d}  <-  ${sql.replace(/\s+/g, ' ').slice(0, 120)}`);
  }
  assert.ok(seen.size >= 8, `captured ${seen.size} statements`);
  // the summary's order counts read every order by design (one pass; no index helps a SUM of all rows), as do
  // its orders by status (src/ledger/order-ends.ts)
  const allowed = scans.filter((s) => !/SUM\(sends\)/.test(s) && !/SELECT status, COUNT\(\*\) AS n FROM orders GROUP BY status/.test(s));
  assert.deepEqual(allowed, []);
  // …from the covering index alone, not the table's pages
  for (const s of scans) assert.match(s, /USING COVERING INDEX orders_counts/);
  l.close();
});

test('the integrity check at open sizes each table from the ends of its rowid b-tree, not by reading it', () => {
  const { l, seen, stopWatching } = watchedLedger();
  openIntegrityCheck(l.db, 150);
  stopWatching();
  const sizing = [...seen].filter((s) => /rowid/i.test(s));
  assert.ok(sizing.length >= 5, sizing.join('\n'));
  // on 704fe2c `SELECT MAX(rowid) - MIN(rowid)` read every row (0.5 s of every start on 1 M orders)
  for (const sql of sizing) {
    const plan = (l.db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all() as { detail: string }[]).map((r) => r.detail);
    assert.ok(!plan.some((d) => /^SCAN (?!CONSTANT ROW)/.test(d)), `${sql}: ${plan.join('; ')}`);
  }
  l.close();
});
