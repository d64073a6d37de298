/**
 * Fail closed: the watch holds the bot once the ledger has been unwritable for the grace,
 * not before, and lets it go once writes succeed again (it retries them itself).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { asyncScheduler } from 'rxjs';
import { openLedger } from '../../src/ledger/ledger.ts';
import { LedgerWatch } from '../../src/ledger/ledger-watch.ts';

test('held after the grace of failing writes, released once a retried write succeeds', () => {
  const dir = mkdtempSync(join(tmpdir(), 'bookmaker-ledger-watch-'));
  try {
    const clock = { t: 1_800_000_000_000, now: () => clock.t, scheduler: asyncScheduler, setTimeout: () => () => undefined };
    const l = openLedger({ path: join(dir, 'l.sqlite'), clock });
    const events: string[] = [];
    const w = new LedgerWatch({ ledger: l, clock, graceMs: 10_000, onDown: (r) => events.push(`down ${r}`), onUp: () => events.push('up') });
    const prepare = l.db.prepare.bind(l.db);
    let broken = true;
    (l.db as { prepare: unknown }).prepare = (sql: string) => {
      if (broken && /^\s*(INSERT|UPDATE)/i.test(sql)) throw Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' });
      return prepare(sql);
    };
    assert.throws(() => l.saveRiskFigures(1n, 1, 1n), /disk is full/);
    w.check();
    assert.deepEqual(events, [], 'within the grace');
    clock.t += 9_999;
    w.check();
    assert.deepEqual(events, []);
    clock.t += 1;
    w.check();
    assert.deepEqual(events, ['down writes fail: database or disk is full']);
    assert.equal(w.down, 'writes fail: database or disk is full');
    clock.t += 5_000;
    w.check();
    assert.equal(events.length, 1, 'held once');
    broken = false;
    w.check();
    assert.deepEqual(events.slice(1), ['up'], 'the watch retried a write itself');
    assert.equal(w.down, null);
    assert.equal(l.problem(), null);
    l.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
