/**
 * `bookmaker ledger orders` names the strangers the bot cancelled (docs/ledger-operations.md, "Strangers the bot
 * cancels"), as an operator runs it (the CLI in a child process), in its text, CSV and JSON output: an order the
 * ledger had no row of (`orders.stranger_at`) is `no-record`, an earlier run's order cancelled as a stranger
 * (`cancels.stranger`) is `earlier-run`, the bot's own orders have none. Before, only their `orphan:` slot told a
 * stranger's row, and an earlier run's order cancelled as a stranger was not told at all.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { ledgerSummary } from '../../src/ledger/books.ts';
import { openLedger } from '../../src/ledger/ledger.ts';
import { orphanSlot } from '../../src/orders/orphan-slot.ts';
import type { StateEvent } from '../../src/state/events.ts';
import { openBotLedger } from '../support/bot-ledger.ts';
import { bookmaker } from '../support/cli.ts';
import { hex32, MARKET, settableClock, TRADER, venueOrder } from '../support/venue-order.ts';

test("ledger orders: a stranger found with no record is `no-record`, an earlier run's order cancelled as a stranger `earlier-run`, the bot's own none (text, CSV, JSON)", async () => {
  const dir = mkdtempSync(join(tmpdir(), 'bookmaker-ledger-orders-'));
  const clock = settableClock();
  const path = join(dir, 'l.sqlite');
  const order = (c: string) => ({ marketId: MARKET, outcomeIndex: 1 as const, side: 0 as const, price: 500_000, size: 10_000_000, nonce: hex32(c) });
  const [a, c, d] = [hex32('a'), hex32('c'), hex32('d')];
  try {
    // an earlier run placed A and D; both were open at the venue when that run ended
    const first = await openBotLedger({ path, clock, trader: TRADER });
    for (const [n, slot] of [
      ['a', 'q:bid:0'],
      ['d', 'q:ask:0'],
    ] as const) {
      first.onEvent({ type: 'OrderSubmitted', marketId: MARKET, slot, nonce: hex32(n), order: order(n), retry: false, ts: clock.now() });
      first.onEvent({ type: 'OrderAccepted', marketId: MARKET, nonce: hex32(n), duplicate: false, ts: clock.now() });
    }
    first.close();
    clock.t += 60_000;
    // this run: reconciliation adopts A into its slot, takes in C (another trader's: no row) and D (no longer
    // wanted) only to cancel them, as strangers; then it cancels A, its own
    const open = [venueOrder({ nonce: a, side: 0, price: 500_000 }), venueOrder({ nonce: d, side: 0, price: 500_000 })];
    const client = {
      orders: {
        async *iterate() {
          yield* open;
        },
      },
    };
    const bl = await openBotLedger({ path, clock, trader: TRADER, client });
    const now = clock.now();
    const events: StateEvent[] = [
      { type: 'OrderAdopted', marketId: MARKET, slot: 'q:bid:0', nonce: a, order: order('a'), remaining: 10_000_000, ts: now },
      { type: 'OrderAdopted', marketId: MARKET, slot: orphanSlot(c), nonce: c, order: order('c'), remaining: 10_000_000, ts: now },
      { type: 'OrderAdopted', marketId: MARKET, slot: orphanSlot(d), nonce: d, order: order('d'), remaining: 10_000_000, ts: now },
      { type: 'CancelSubmitted', marketId: MARKET, nonce: c, stranger: true, ts: now + 1 },
      { type: 'OrderCancelled', marketId: MARKET, nonce: c, alreadyCancelled: false, stranger: true, ts: now + 2 },
      { type: 'CancelSubmitted', marketId: MARKET, nonce: d, stranger: true, ts: now + 3 },
      { type: 'OrderCancelled', marketId: MARKET, nonce: d, alreadyCancelled: false, stranger: true, ts: now + 4 },
      { type: 'CancelSubmitted', marketId: MARKET, nonce: a, ts: now + 5 },
      { type: 'OrderCancelled', marketId: MARKET, nonce: a, alreadyCancelled: false, ts: now + 6 },
    ];
    for (const e of events) bl.onEvent(e);
    clock.t += 10;
    bl.close();

    // JSON: one field per order
    const json = await bookmaker(['ledger', 'orders', '--ledger', path, '--json']);
    assert.equal(json.code, 0, json.stderr);
    const rows = JSON.parse(json.stdout) as { nonce: string; slot: string; stranger: string | null }[];
    const stranger = new Map(rows.map((r) => [r.nonce, r.stranger]));
    assert.deepEqual(
      [a, c, d].map((n) => stranger.get(n)),
      [null, 'no-record', 'earlier-run'],
      'A own, C found with no record, D an earlier run’s order cancelled as a stranger',
    );
    assert.equal(rows.find((r) => r.nonce === d)!.slot, 'q:ask:0', "D's row keeps its own slot: the slot alone did not tell it");
    // the `no-record` rows are the summary's "found with no record" (the same ledger column, stranger_at)
    const l = openLedger({ path, clock, mustExist: true, readonly: true });
    try {
      const summary = ledgerSummary(l);
      assert.equal(rows.filter((r) => r.stranger === 'no-record').length, summary.orderEnds.strangers.orders);
      assert.equal(summary.orderEnds.strangers.cancelsSent, 2, "C's and D's cancels are strangers' cancels");
    } finally {
      l.close();
    }

    // text: a `stranger` column, the last, blank for the bot's own orders
    const text = await bookmaker(['ledger', 'orders', '--ledger', path]);
    assert.equal(text.code, 0, text.stderr);
    const lines = text.stdout.trimEnd().split('\n');
    assert.match(lines[0]!, /\sstranger$/, lines[0]);
    const lineOf = (n: string) => lines.find((x) => x.includes(n))!;
    assert.match(lineOf(c), /\sno-record$/);
    assert.match(lineOf(d), /\searlier-run$/);
    assert.doesNotMatch(lineOf(a), /no-record|earlier-run/);

    // CSV: the same column
    const csv = await bookmaker(['ledger', 'orders', '--ledger', path, '--csv']);
    assert.equal(csv.code, 0, csv.stderr);
    const [head, ...body] = csv.stdout.trimEnd().split('\n');
    const col = head!.split(',').indexOf('stranger');
    assert.ok(col >= 0, head);
    const csvOf = (n: string) => body.find((x) => x.includes(n))!.split(',')[col];
    assert.deepEqual([a, c, d].map(csvOf), ['', 'no-record', 'earlier-run']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
