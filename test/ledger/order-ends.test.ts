/**
 * orderEnds (src/ledger/order-ends.ts): the ledger's orders by how they ended, the one count behind
 * `ledger summary`'s orderEnds and the run report's `orders` line. A cancel answered alreadyCancelled is
 * not an end (BotLedger): the order ends as the venue states it.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ledgerSummary } from '../../src/ledger/books.ts';
import { openLedger } from '../../src/ledger/ledger.ts';
import { orderEnds, orderEndsText } from '../../src/ledger/order-ends.ts';
import { formatRunReport, type RunReport } from '../../src/runtime/run-report.ts';
import { openBotLedger } from '../support/bot-ledger.ts';
import { hex32, MARKET, settableClock, T0, TRADER } from '../support/venue-order.ts';

test('orders by end: ended by their end, rejected and not-ended apart; a window counts the orders submitted in it', () => {
  const l = openLedger({ path: ':memory:', clock: settableClock() });
  const place = (c: string, ts: number) =>
    l.orderSubmitted({ nonce: hex32(c), marketId: MARKET, slot: 's', outcomeIndex: 1, side: 0, price: 500_000, size: 10_000_000, ts }, false);
  for (const [c, ts] of [
    ['1', T0],
    ['2', T0],
    ['3', T0 + 10],
    ['4', T0 + 10],
    ['5', T0 + 10],
    ['6', T0 + 20],
  ] as const)
    place(c, ts);
  l.orderAnswered(hex32('1'), 'accepted', 'created', T0);
  l.orderEnded(hex32('1'), 'cancelled', T0 + 1);
  l.orderAnswered(hex32('2'), 'accepted', 'created', T0);
  l.orderEnded(hex32('2'), 'filled', T0 + 1);
  l.orderAnswered(hex32('3'), 'accepted', 'created', T0 + 10);
  l.orderEnded(hex32('3'), 'filled', T0 + 11);
  l.orderAnswered(hex32('4'), 'rejected', 'bad-request', T0 + 10);
  l.orderAnswered(hex32('5'), 'accepted', 'created', T0 + 10); // open
  l.flush(); // 6: sent, no answer yet
  assert.deepEqual(orderEnds(l), { orders: 6, ended: { cancelled: 1, filled: 2 }, rejected: 1, unended: 2 });
  assert.deepEqual(orderEnds(l, { since: T0 + 10 }), { orders: 4, ended: { filled: 1 }, rejected: 1, unended: 2 });
  assert.deepEqual(ledgerSummary(l).orderEnds, orderEnds(l), '`ledger summary` shows this count');
  assert.equal(orderEndsText(orderEnds(l)), '6: cancelled 1, filled 2; rejected 1, not ended 2');
  l.close();
});

test("a cancel answered alreadyCancelled records the answer, not an end: the venue's word (the feed's OrderClosed) ends it", async () => {
  const dir = mkdtempSync(join(tmpdir(), 'bookmaker-order-ends-'));
  const clock = settableClock();
  const bl = await openBotLedger({ path: join(dir, 'l.sqlite'), clock, trader: TRADER });
  const l = bl.ledger;
  try {
    const n = hex32('7');
    bl.onEvent({
      type: 'OrderSubmitted',
      marketId: MARKET,
      slot: 's',
      nonce: n,
      order: { marketId: MARKET, outcomeIndex: 1, side: 0, price: 500_000, size: 10_000_000, nonce: n },
      retry: false,
      ts: T0,
    });
    bl.onEvent({ type: 'OrderAccepted', marketId: MARKET, nonce: n, duplicate: false, ts: T0 });
    bl.onEvent({ type: 'CancelSubmitted', marketId: MARKET, nonce: n, ts: T0 + 1 });
    bl.onEvent({ type: 'OrderCancelled', marketId: MARKET, nonce: n, alreadyCancelled: true, ts: T0 + 2 });
    l.flush();
    assert.deepEqual(orderEnds(l), { orders: 1, ended: {}, rejected: 0, unended: 1 }, 'not ended on the answer');
    bl.onEvent({ type: 'OrderClosed', marketId: MARKET, nonce: n, status: 'filled', ts: T0 + 3 });
    l.flush();
    assert.deepEqual(orderEnds(l), { orders: 1, ended: { filled: 1 }, rejected: 0, unended: 0 });
    assert.deepEqual(
      (l.db.prepare('SELECT result FROM cancels ORDER BY id').all() as { result: string }[]).map((r) => r.result),
      ['sent', 'already-cancelled'],
    );
  } finally {
    bl.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test("the run report's orders line is orderEndsText, as `ledger summary` prints it", () => {
  const orders = { orders: 3, ended: { cancelled: 2, filled: 1 }, rejected: 0, unended: 0 };
  const report = {
    startedAt: '',
    stoppedAt: '',
    seconds: 1,
    paper: false,
    stopReason: 'duration',
    exitCode: 0,
    process: 'stopped',
    haltedBecause: null,
    markets: [],
    totals: { fills: 0, volumeUsdc: '0', feesUsdc: '0', realisedPnlUsdc: '0', unrealisedPnlUsdc: '0' },
    orders,
  } as RunReport;
  assert.ok(formatRunReport(report).includes(`  orders: ${orderEndsText(orders)}`));
});
