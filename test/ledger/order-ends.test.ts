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
import { orderEnds, orderEndsOf, orderEndsText } from '../../src/ledger/order-ends.ts';
import { formatRunReport, type RunReport } from '../../src/runtime/run-report.ts';
import Database from 'better-sqlite3';
import { bindStoreMetrics } from '../../src/metrics/bind-store-metrics.ts';
import { createBotMetrics } from '../../src/metrics/bot-metrics.ts';
import { orphanSlot } from '../../src/orders/orphan-slot.ts';
import type { StateEvent } from '../../src/state/events.ts';
import { StateStore } from '../../src/state/store.ts';
import { openBotLedger } from '../support/bot-ledger.ts';
import { withTmpLedger } from './tmp-ledger.ts';
import { hex32, MARKET, settableClock, T0, TRADER, venueOrder } from '../support/venue-order.ts';

const line = (text: string, prefix: string): string | undefined =>
  text
    .split('\n')
    .find((x) => x.startsWith(prefix))
    ?.split(' ')
    .pop();

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
  assert.deepEqual(orderEnds(l), {
    orders: 6,
    adopted: 0,
    ended: { cancelled: 1, filled: 2 },
    rejected: 1,
    unended: 2,
    strangers: { orders: 0, cancelsSent: 0, cancelled: 0 },
  });
  assert.deepEqual(orderEnds(l, { since: T0 + 10 }), {
    orders: 4,
    adopted: 0,
    ended: { filled: 1 },
    rejected: 1,
    unended: 2,
    strangers: { orders: 0, cancelsSent: 0, cancelled: 0 },
  });
  assert.deepEqual(ledgerSummary(l).orderEnds, orderEnds(l), '`ledger summary` shows this count');
  assert.equal(orderEndsText(orderEnds(l)), '6: cancelled 1, filled 2; rejected 1, not ended 2');
  assert.deepEqual(orderEndsOf(l, ['1', '2', '3', '4', '5', '6', '9'].map(hex32)), orderEnds(l), 'over every order: the same count (9: not in the ledger)');
  assert.deepEqual(orderEndsOf(l, [hex32('2'), hex32('3'), hex32('5')]), {
    orders: 3,
    adopted: 0,
    ended: { filled: 2 },
    rejected: 0,
    unended: 1,
    strangers: { orders: 0, cancelsSent: 0, cancelled: 0 },
  });
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
    assert.deepEqual(
      orderEnds(l),
      { orders: 1, adopted: 0, ended: {}, rejected: 0, unended: 1, strangers: { orders: 0, cancelsSent: 0, cancelled: 0 } },
      'not ended on the answer',
    );
    bl.onEvent({ type: 'OrderClosed', marketId: MARKET, nonce: n, status: 'filled', ts: T0 + 3 });
    l.flush();
    assert.deepEqual(orderEnds(l), {
      orders: 1,
      adopted: 0,
      ended: { filled: 1 },
      rejected: 0,
      unended: 0,
      strangers: { orders: 0, cancelsSent: 0, cancelled: 0 },
    });
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
  const orders = { orders: 3, adopted: 0, ended: { cancelled: 2, filled: 1 }, rejected: 0, unended: 0, strangers: { orders: 0, cancelsSent: 0, cancelled: 0 } };
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

test("orders adopted: counted after they end, and an earlier run's order adopted in this run; `ledger summary`, the run report and orders_adopted_total agree", async () => {
  const dir = mkdtempSync(join(tmpdir(), 'bookmaker-order-ends-'));
  const clock = settableClock();
  const path = join(dir, 'l.sqlite');
  const order = (c: string) => ({ marketId: MARKET, outcomeIndex: 1 as const, side: 0 as const, price: 500_000, size: 10_000_000, nonce: hex32(c) });
  try {
    // an earlier run placed A; it was open at the venue when that run ended
    const first = await openBotLedger({ path, clock, trader: TRADER });
    first.onEvent({ type: 'OrderSubmitted', marketId: MARKET, slot: 'q:bid:0', nonce: hex32('a'), order: order('a'), retry: false, ts: clock.now() });
    first.onEvent({ type: 'OrderAccepted', marketId: MARKET, nonce: hex32('a'), duplicate: false, ts: clock.now() });
    first.close();
    clock.t += 60_000;
    // this run: reconciliation adopts A (the ledger's row), B (its create's record lost in a crash) and
    // takes in a stranger C only to cancel it; then A is cancelled and B fills
    // the start's catch-up reads A open at the venue
    const a = venueOrder({ nonce: hex32('a'), side: 0, price: 500_000 });
    const client = {
      orders: {
        async *iterate() {
          yield a;
        },
      },
    };
    const bl = await openBotLedger({ path, clock, trader: TRADER, client });
    const runStart = clock.now();
    const store = new StateStore();
    const metrics = createBotMetrics();
    const unbind = bindStoreMetrics(metrics, store);
    const now = clock.now();
    const events: StateEvent[] = [
      { type: 'OrderAdopted', marketId: MARKET, slot: 'q:bid:0', nonce: hex32('a'), order: order('a'), remaining: 10_000_000, ts: now },
      { type: 'OrderAdopted', marketId: MARKET, slot: 'q:ask:0', nonce: hex32('b'), order: order('b'), remaining: 10_000_000, ts: now },
      { type: 'OrderAdopted', marketId: MARKET, slot: orphanSlot(hex32('c')), nonce: hex32('c'), order: order('c'), remaining: 10_000_000, ts: now },
      { type: 'CancelSubmitted', marketId: MARKET, nonce: hex32('c'), stranger: true, ts: now },
      { type: 'OrderCancelled', marketId: MARKET, nonce: hex32('c'), alreadyCancelled: false, stranger: true, ts: now + 1 },
      { type: 'CancelSubmitted', marketId: MARKET, nonce: hex32('a'), ts: now + 2 },
      { type: 'OrderCancelled', marketId: MARKET, nonce: hex32('a'), alreadyCancelled: false, ts: now + 3 },
      { type: 'OrderClosed', marketId: MARKET, nonce: hex32('b'), status: 'filled', ts: now + 4 },
    ];
    for (const e of events) {
      store.dispatch(e);
      bl.onEvent(e);
    }
    clock.t += 10;
    const l = bl.ledger;
    l.flush();
    const text = await metrics.registry.metrics();
    const counted = Number(line(text, 'bookmaker_orders_adopted_total{'));
    unbind();
    // the stranger's cancel: counted apart by the metrics as by the ledger (src/orders/orphan-slot.ts isStrangerCancel)
    assert.equal(Number(line(text, 'bookmaker_strangers_cancelled_total{')), 1, 'the metric: the stranger C cancelled');
    assert.equal(Number(line(text, 'bookmaker_orders_cancelled_total{')), 1, "the metric: the bot's own cancelled, A alone");
    assert.equal(Number(line(text, `bookmaker_orders_sent_total{market="${MARKET}",action="cancel-stranger"}`)), 1);
    assert.equal(Number(line(text, `bookmaker_orders_sent_total{market="${MARKET}",action="cancel"}`)), 1);
    assert.equal(counted, 2, 'the metric: A and B, not the stranger');
    const run = bl.orderEndsOfRun()!;
    assert.equal(run.adopted, counted, "the run report's orders line counts the metric's adoptions");
    assert.equal(ledgerSummary(l, { since: runStart }).orders.adopted, counted, '`ledger summary --since` the run start: ordersAdopted');
    assert.equal(ledgerSummary(l).orders.adopted, counted, 'since inception: each order once');
    assert.equal(ledgerSummary(l, { market: MARKET }).orders.adopted, counted);
    // A (an earlier run's) is this run's order too: adopted in it; the stranger C is no order of this bot
    assert.deepEqual(run, {
      orders: 2,
      adopted: 2,
      ended: { cancelled: 1, filled: 1 },
      rejected: 0,
      unended: 0,
      strangers: { orders: 1, cancelsSent: 1, cancelled: 1 },
    });
    assert.equal(
      orderEndsText(run),
      '2 (adopted 2): cancelled 1, filled 1; rejected 0, not ended 0; strangers cancelled 1 (cancels sent 1, found with no record 1)',
    );
    assert.equal(ledgerSummary(l, { since: clock.now() }).orders.adopted, 0, 'a window after the adoptions has none');
    const summary = ledgerSummary(l, { since: runStart });
    assert.deepEqual(summary.orderEnds, run, '`ledger summary --since` the run start = the run report');
    assert.equal(summary.orders.cancels, 1, "cancelsSent: the bot's own (A's), not the stranger's");
    assert.equal(l.hasOrder(hex32('c')), false, "the stranger's row is no order of this bot (its fills are foreign)");
    assert.equal(l.hasOrder(hex32('b')), true);
    bl.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a ledger from before adopted_at: the rows its adoption inserted count, a stranger's do not", () =>
  withTmpLedger(({ file }) => {
    const clock = settableClock();
    const l = openLedger({ path: file, clock });
    const row = (c: string, slot: string) =>
      l.orderAdopted({ nonce: hex32(c), marketId: MARKET, slot, outcomeIndex: 1, side: 0, price: 500_000, size: 10_000_000, ts: T0 });
    row('1', 'q:bid:0');
    row('2', orphanSlot(hex32('2')));
    l.orderEnded(hex32('1'), 'filled', T0 + 1);
    l.close();
    // the file as version 4 left it: no adopted_at column
    const db = new Database(file);
    db.exec(
      'DROP INDEX orders_adopted; ALTER TABLE orders DROP COLUMN adopted_at; DROP INDEX orders_strangers; ALTER TABLE orders DROP COLUMN stranger_at; DROP INDEX cancels_stranger; ALTER TABLE cancels DROP COLUMN stranger',
    );
    db.pragma('user_version = 4');
    db.close();
    const again = openLedger({ path: file, clock });
    assert.equal(orderEnds(again).adopted, 1);
    assert.equal(ledgerSummary(again).orders.adopted, 1);
    // and (version 6) the stranger's row is a stranger's, apart from the bot's orders
    assert.equal(orderEnds(again).orders, 1);
    assert.equal(orderEnds(again).strangers.orders, 1);
    again.close();
  }));

test("a version-5 ledger: the rows and cancels of strangers it holds are strangers' once upgraded in place (version 6)", () =>
  withTmpLedger(({ file }) => {
    const clock = settableClock();
    const l = openLedger({ path: file, clock });
    const row = (c: string, slot: string) =>
      l.orderAdopted({ nonce: hex32(c), marketId: MARKET, slot, outcomeIndex: 1, side: 0, price: 500_000, size: 10_000_000, ts: T0 });
    l.orderSubmitted({ nonce: hex32('1'), marketId: MARKET, slot: 'q:bid:0', outcomeIndex: 1, side: 0, price: 500_000, size: 10_000_000, ts: T0 }, false);
    row('2', orphanSlot(hex32('2')));
    for (const c of ['1', '2']) {
      l.cancel(hex32(c), MARKET, 'sent', null, T0 + 1);
      l.cancel(hex32(c), MARKET, 'cancelled', null, T0 + 2);
      l.orderEnded(hex32(c), 'cancelled', T0 + 2);
    }
    l.close();
    // the file as version 5 left it: no stranger marks
    const db = new Database(file);
    db.exec('DROP INDEX orders_strangers; ALTER TABLE orders DROP COLUMN stranger_at; DROP INDEX cancels_stranger; ALTER TABLE cancels DROP COLUMN stranger');
    db.pragma('user_version = 5');
    db.close();
    const again = openLedger({ path: file, clock });
    assert.equal(again.db.pragma('user_version', { simple: true }), 6);
    const ends = orderEnds(again);
    assert.deepEqual(ends, {
      orders: 1,
      adopted: 0,
      ended: { cancelled: 1 },
      rejected: 0,
      unended: 0,
      strangers: { orders: 1, cancelsSent: 1, cancelled: 1 },
    });
    assert.equal(ledgerSummary(again).orders.cancels, 1, "cancelsSent: the bot's own");
    assert.equal(again.hasOrder(hex32('2')), false);
    again.close();
  }));
