/**
 * The ledger: batched writes, fill de-duplication by venue id, the latch across reopen,
 * books replayed exactly from the fills, the catch-up's arithmetic, and schema versions.
 */
import { tradingDay } from '../../src/account/trading-day.ts';
import assert from 'node:assert/strict';
import { withTmpLedger } from './tmp-ledger.ts';
import { test } from 'node:test';
import { asyncScheduler } from 'rxjs';
import type { Clock } from '../../src/core/clock.ts';
import { ledgerSummary, listFills, MARKS_META, pnlByMarket, replayPositions } from '../../src/ledger/books.ts';
import { catchUpFills } from '../../src/ledger/catch-up.ts';
import { openLedger, type Ledger, type LedgerFill } from '../../src/ledger/ledger.ts';
import { LedgerDamagedError } from '../../src/ledger/integrity.ts';
import { SCHEMA_VERSION } from '../../src/ledger/schema.ts';
import { ConfigError } from '../../src/model/errors.ts';
import { parseSince } from '../../src/cli/commands/ledger.ts';
import type { Address, Bytes32, VenueOrder } from '../../src/model/order.ts';
import { openBotLedger } from '../support/bot-ledger.ts';
import { TRADER, ordersSource, venueOrder } from '../support/venue-order.ts';

const M = ('0x' + '11'.repeat(32)) as Bytes32;
const M2 = ('0x' + '22'.repeat(32)) as Bytes32;
const T0 = 1_800_000_000_000;

/** A clock whose timers only run when the test says so. */
function manualClock(): Clock & { t: number; timers: (() => void)[]; fire(): void } {
  const c = {
    t: T0,
    timers: [] as (() => void)[],
    now: () => c.t,
    scheduler: asyncScheduler,
    setTimeout(fn: () => void) {
      c.timers.push(fn);
      return () => {
        c.timers = c.timers.filter((f) => f !== fn);
      };
    },
    fire() {
      const ts = c.timers;
      c.timers = [];
      for (const f of ts) f();
    },
  };
  return c;
}

const fill = (o: Partial<LedgerFill> & { fillId: string }): LedgerFill => ({
  nonce: null,
  marketId: M,
  outcomeIndex: 1,
  side: 0,
  price: 400_000,
  size: 10_000_000,
  fee: 0,
  ts: T0,
  source: 'feed',
  ...o,
});
const count = (l: Ledger, table: string): number => (l.db.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number }).n;

test('records are queued off the hot path and written in one transaction per flush', () => {
  const clock = manualClock();
  const l = openLedger({ path: ':memory:', clock });
  for (let i = 0; i < 100; i++)
    l.orderSubmitted(
      { nonce: `0x${i.toString(16).padStart(64, '0')}` as Bytes32, marketId: M, slot: 's', outcomeIndex: 1, side: 0, price: 400_000, size: 1_000_000, ts: T0 },
      false,
    );
  assert.equal(count(l, 'orders'), 0, 'nothing written before the flush');
  assert.equal(l.pending, 100);
  assert.equal(clock.timers.length, 1, 'one flush timer, not one per record');
  clock.fire();
  assert.equal(count(l, 'orders'), 100);
  assert.equal(l.batches, 1);
  l.close();
});

test('a full queue is written in the next turn, not the one that queued it, at most maxBatch records a turn', () => {
  const clock = manualClock();
  const delays: number[] = [];
  const timed: Clock = { ...clock, now: () => clock.t, setTimeout: (fn, ms) => (delays.push(ms), clock.setTimeout(fn, ms)) };
  const l = openLedger({ path: ':memory:', clock: timed, maxBatch: 10 });
  for (let i = 0; i < 25; i++) l.fill(fill({ fillId: `f${i}` }));
  // the turn that queued them (a tick emitting its orders) writes nothing
  assert.equal(count(l, 'fills'), 0);
  assert.equal(clock.timers.length, 1, 'one write due');
  assert.equal(delays.at(-1), 0, 'due in the next turn, not after flushMs');
  clock.fire();
  assert.equal(count(l, 'fills'), 10, "the writer's turn writes maxBatch records");
  assert.equal(delays.at(-1), 0, 'the backlog goes on in the turn after');
  clock.fire();
  assert.equal(count(l, 'fills'), 20);
  // fewer than maxBatch left: written on the flushMs timer
  assert.equal(delays.at(-1), 200);
  clock.fire();
  assert.equal(count(l, 'fills'), 25);
  assert.equal(l.batches, 3);
  l.flush();
  l.close();
});

test('flush() writes the whole queue at once (close, latch and readers rely on it)', () => {
  const clock = manualClock();
  const l = openLedger({ path: ':memory:', clock, maxBatch: 10 });
  for (let i = 0; i < 25; i++) l.fill(fill({ fillId: `f${i}` }));
  l.flush();
  assert.equal(count(l, 'fills'), 25);
  assert.equal(l.batches, 1);
  assert.equal(clock.timers.length, 0, 'nothing left due');
  l.close();
});

test('a fill is recorded once by its venue id, however often it is seen', () => {
  const l = openLedger({ path: ':memory:', clock: manualClock() });
  const f = fill({ fillId: '0xabc:10000000', nonce: `0x${'abc'.padStart(64, '0')}` as Bytes32 });
  l.fill(f);
  l.fill(f);
  l.flush();
  l.fill({ ...f, source: 'catch-up' });
  l.flush();
  assert.equal(count(l, 'fills'), 1);
  assert.equal(listFills(l)[0]!.source, 'feed');
  l.close();
});

test('the latch survives a reopen; a clear resets the peak and the day and is recorded', () => {
  withTmpLedger((t) => {
    const clock = manualClock();
    let l = openLedger({ path: t.file, clock });
    l.saveRiskFigures(5_000_000n, 7, 3_000_000n);
    l.setLatch('KILL_DRAWDOWN', 'drawdown 60 from peak 100', M);
    l.setLatch('KILL_LOSS', 'second reason is ignored', null);
    l.close();
    l = openLedger({ path: t.file, clock });
    const r = l.risk();
    assert.deepEqual(r.latch, { reason: 'KILL_DRAWDOWN', detail: 'drawdown 60 from peak 100', at: T0 });
    assert.equal(r.peakPnl, 5_000_000n);
    const was = l.clearLatch('reviewed', 'cli');
    assert.equal(was?.reason, 'KILL_DRAWDOWN');
    assert.deepEqual(l.risk(), { latch: null, peakPnl: null, day: null, dayStartPnl: null });
    assert.deepEqual(l.db.prepare('SELECT action, reason, source, result FROM operator_actions').all(), [
      { action: 'clear-kill', reason: 'reviewed', source: 'cli', result: 'cleared KILL_DRAWDOWN' },
    ]);
    assert.equal(l.clearLatch('again', 'cli'), null);
    l.close();
  });
});

test('books: positions and realised PnL replayed exactly (average cost, YES terms, fees)', () => {
  const l = openLedger({ path: ':memory:', clock: manualClock() });
  // buy 10 YES at 0.40, buy 10 NO at 0.50 (= sell 10 YES at 0.50), fee 0.02: realised 1.00 − 0.02
  l.fill(fill({ fillId: 'a', ts: T0 }));
  l.fill(fill({ fillId: 'b', outcomeIndex: 0, price: 500_000, fee: 20_000, ts: T0 + 1000 }));
  // another market: buy 3 YES at 0.333333 and sell 1 at 0.5: realised 0.166667 (rounded toward −∞)
  l.fill(fill({ fillId: 'c', marketId: M2, price: 333_333, size: 3_000_000, ts: T0 + 2000 }));
  l.fill(fill({ fillId: 'd', marketId: M2, side: 1, price: 500_000, size: 1_000_000, ts: T0 + 3000 }));
  l.flush();
  const pos = replayPositions(l);
  assert.equal(pos.get(M)!.net, 0);
  assert.equal(pos.get(M2)!.net, 2_000_000);
  const s = ledgerSummary(l);
  assert.equal(s.fills, 4);
  assert.equal(s.fees, 0.02);
  assert.equal(s.volume, 10.499999);
  assert.equal(s.realisedPnl, 1.146667);
  const byM = pnlByMarket(l, { market: M2 });
  assert.deepEqual(
    byM.map((b) => [b.fills, b.realisedPnl, b.position]),
    [[2, 0.166667, 2]],
  );
  // since: the period's realised PnL closes against the cost carried in from before
  const since = ledgerSummary(l, { since: T0 + 1000 });
  assert.equal(since.fills, 3);
  assert.equal(since.realisedPnl, 1.146667);
  assert.equal(ledgerSummary(l, { since: T0 + 3000 }).realisedPnl, 0.166667);
  l.close();
});

test('ledger summary --since: a market that resolved in the period with no fill in it counts its resolution PnL, as the books do', () => {
  const l = openLedger({ path: ':memory:', clock: manualClock() });
  // 10 YES bought at 0.40 before the period; the market resolves YES in it: +6.00 realised then
  l.fill(fill({ fillId: 'a', ts: T0 }));
  l.resolution(M, 1_000_000, T0 + 5_000);
  l.flush();
  const since = ledgerSummary(l, { since: T0 + 1000 });
  assert.equal(since.fills, 0);
  assert.equal(since.realisedPnl, 6, "the period's realised PnL: the resolution");
  assert.deepEqual(
    pnlByMarket(l, { since: T0 + 1000 }).map((b) => [b.fills, b.realisedPnl]),
    [[0, 6]],
  );
  // the whole ledger says the same
  assert.equal(ledgerSummary(l).realisedPnl, 6);
  l.close();
});

test("ledger pnl: a market flat since its last mark row shows the books' unrealised (0), and the rows add up to the summary's pnl", () => {
  const l = openLedger({ path: ':memory:', clock: manualClock() });
  // 10 YES at 0.40, marked at 0.45 (+0.50 unrealised); then sold at 0.45, flat, released and folded
  // before the next mark: no row of the market in the stop's mark
  l.fill(fill({ fillId: 'a', ts: T0 }));
  l.mark(T0 + 1, M, 10_000_000, 0n, 500_000n);
  l.fill(fill({ fillId: 'b', side: 1, price: 450_000, ts: T0 + 2 }));
  l.mark(T0 + 3, null, 0, 500_000n, 0n);
  l.setMeta(MARKS_META, '{}');
  l.flush();
  const rows = pnlByMarket(l);
  assert.deepEqual(
    rows.map((r) => [r.realisedPnl, r.unrealisedPnl ?? 0]),
    [[0.5, 0]],
  );
  assert.equal(
    rows.reduce((a, r) => a + r.realisedPnl + (r.unrealisedPnl ?? 0), 0),
    ledgerSummary(l).pnl.total,
  );
  l.close();
});

test('a ledger from a newer bookmaker is refused, not rewritten', () => {
  withTmpLedger((t) => {
    const l = openLedger({ path: t.file, clock: manualClock() });
    l.db.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
    l.close();
    assert.throws(() => openLedger({ path: t.file, clock: manualClock() }), /newer than this bookmaker/);
  });
});

function order(nonce: string, filledSize: number, status: VenueOrder['status'], insertedAt = new Date(T0).toISOString()): VenueOrder {
  return venueOrder({ nonce: nonce as Bytes32, marketId: M, filledSize, status, insertedAt, sv2OrderKind: null, sv2TimeInForce: null });
}
const source = (orders: VenueOrder[]) => ordersSource(orders, { newestFirst: true });

test("catch-up: a fresh ledger takes baselines; later, the fills made while down are recorded once with the feed's ids", async () => {
  const clock = manualClock();
  const l = openLedger({ path: ':memory:', clock });
  const A = ('0x' + 'a'.repeat(64)) as Bytes32;
  const B = ('0x' + 'b'.repeat(64)) as Bytes32;
  // first start: A is open with 4 shares filled before the ledger existed
  let r = await catchUpFills({ client: source([order(A, 4_000_000, 'open')]), trader: TRADER, ledger: l, clock });
  assert.equal(r.recorded, 0);
  assert.deepEqual(
    r.openOrders.map((o) => [o.nonce, o.filled]),
    [[A, 4_000_000]],
  );
  l.startup({ configHash: 'h', configFile: 'f', venue: 'v', trader: TRADER, markets: 1, latched: null }, 0);
  // the feed saw A fill to 6; B was placed; then a crash lost nothing but the bot was down while A filled to 10 and B to 3
  l.fill(fill({ fillId: `${A}:6000000`, nonce: A, size: 2_000_000 }));
  l.orderSubmitted({ nonce: B, marketId: M, slot: 's', outcomeIndex: 1, side: 1, price: 600_000, size: 10_000_000, ts: T0 }, false);
  l.flush();
  clock.t = T0 + 60_000;
  const venue = [order(A, 10_000_000, 'filled'), order(B, 3_000_000, 'cancelled', new Date(T0 + 10_000).toISOString())];
  r = await catchUpFills({ client: source(venue), trader: TRADER, ledger: l, clock });
  assert.equal(r.recorded, 2);
  assert.deepEqual(
    listFills(l)
      .map((f) => [f.fillId, f.size, f.source])
      .sort(),
    [
      [`${A}:10000000`, 4, 'catch-up'],
      [`${A}:6000000`, 2, 'feed'],
      [`${B}:3000000`, 3, 'catch-up'],
    ],
  );
  // again (a second restart): nothing new, nothing doubled
  r = await catchUpFills({ client: source(venue), trader: TRADER, ledger: l, clock });
  assert.equal(r.recorded, 0);
  assert.equal(count(l, 'fills'), 3);
  assert.deepEqual([...l.filledByNonce()].sort(), [
    [A, 10_000_000],
    [B, 3_000_000],
  ]);
  l.close();
});

test('ledger --since: ISO times, durations ago, days, epoch ms; anything else is a clear error', () => {
  assert.equal(parseSince('2026-11-25T00:00:00Z', T0), Date.parse('2026-11-25T00:00:00Z'));
  assert.equal(parseSince('90m', T0), T0 - 5_400_000);
  assert.equal(parseSince('7d', T0), T0 - 7 * 86_400_000);
  assert.equal(parseSince('1800000000000', 0), 1_800_000_000_000);
  assert.throws(() => parseSince('yesterday-ish', T0), /--since: expected/);
});

test('BotLedger: the books carry on into the store; a ledger of another account is refused', async () => {
  await withTmpLedger(async (t) => {
    const clock = manualClock();
    const open = (trader: Address) => openBotLedger({ path: t.file, clock, trader });
    let bl = await open(TRADER);
    const A = '0x' + 'a'.repeat(64);
    // buy 10 YES at 0.40 then sell 4 at 0.50: realised 0.40, net 6
    const bought = {
      type: 'OrderFilled',
      marketId: M,
      nonce: A as Bytes32,
      outcomeIndex: 1,
      side: 0,
      price: 400_000,
      size: 10_000_000,
      fee: 0,
      fillId: `${A}:10000000`,
      ts: T0,
    } as const;
    bl.onEvent(bought);
    bl.onEvent(bought); // heard twice (same fill id): one fill
    bl.onEvent({
      type: 'OrderFilled',
      marketId: M,
      nonce: null,
      outcomeIndex: 1,
      side: 1,
      price: 500_000,
      size: 4_000_000,
      fee: 0,
      fillId: 'B:4000000',
      ts: T0 + 1,
    });
    bl.onEvent({ type: 'QuoteDenied', marketId: M, reason: 'POSITION_LIMIT', detail: '', quote: null, ts: T0 });
    bl.markNow(bl.books(), { peakPnl: 7_000_000, day: Math.floor(T0 / 86_400_000), dayStartPnl: 1_000_000 });
    bl.close();
    bl = await open(TRADER);
    const quoted = bl.initialState([M]).markets.get(M)!.position;
    assert.equal(quoted.net, 6_000_000);
    assert.equal(quoted.realised, 400_000n * 1_000_000n);
    const unquoted = bl.initialState([]).markets.get(M)!.position;
    assert.equal(unquoted.net, 0, 'a market not quoted is carried flat');
    assert.equal(unquoted.realised, quoted.realised, '…with its realised PnL');
    assert.deepEqual(bl.initialRisk(tradingDay('UTC')), { peakPnl: 7_000_000, day: Math.floor(T0 / 86_400_000), dayStartPnl: 1_000_000 });
    assert.deepEqual(bl.ledger.db.prepare("SELECT reason, count FROM risk_events WHERE kind = 'denials'").all(), [{ reason: 'POSITION_LIMIT', count: 1 }]);
    bl.close();
    await assert.rejects(open(('0x' + '44'.repeat(20)) as Address), /holds the books of 0x3333333333333333333333333333333333333333@testnet/);
  });
});

test('BotLedger: a fills row whose market is no 32-byte id is damage, a clear error, not a market of the store', async () => {
  await withTmpLedger(async (t) => {
    const clock = manualClock();
    let bl = await openBotLedger({ path: t.file, clock, trader: TRADER });
    const ins = bl.ledger.db.prepare(
      'INSERT INTO fills (fill_id, nonce, market_id, outcome, side, price, size, fee, ts, source) VALUES (?, NULL, ?, 1, 0, 400000, 1000000, 0, ?, ?)',
    );
    ins.run('b', M, T0, 'feed');
    bl.close();
    bl = await openBotLedger({ path: t.file, clock, trader: TRADER });
    assert.equal(bl.initialState([M]).markets.get(M)!.position.net, 1_000_000);
    bl.ledger.db
      .prepare('INSERT INTO fills (fill_id, nonce, market_id, outcome, side, price, size, fee, ts, source) VALUES (?, NULL, ?, 1, 0, 400000, 1000000, 0, ?, ?)')
      .run('c', 'rain-tomorrow', T0 + 1, 'feed');
    bl.close();
    bl = await openBotLedger({ path: t.file, clock, trader: TRADER });
    assert.throws(
      () => bl.initialState([M]),
      (e: unknown) => e instanceof ConfigError && /damaged.*market id "rain-tomorrow" is not a 32-byte hex id/.test(e.message),
    );
    bl.close();
  });
});

test('BotLedger.initialRisk: the day opens at the first mark of a new day after downtime, at the first PnL after a clear', async () => {
  await withTmpLedger(async (t) => {
    const clock = manualClock();
    const open = () => openBotLedger({ path: t.file, clock, trader: TRADER });
    const utc = tradingDay('UTC');
    const day0 = utc.of(T0);
    // day 0: figures saved, an account mark at +5
    let bl = await open();
    bl.ledger.mark(T0, null, 0, 5_000_000n, 0n);
    bl.ledger.saveRiskFigures(9_000_000n, day0, 7_000_000n);
    bl.close();
    // three days later, with no mark since: the day opens at the first PnL seen (not at day 0's +5 or +7)
    clock.t = T0 + 3 * 86_400_000;
    bl = await open();
    assert.deepEqual(bl.initialRisk(utc), { peakPnl: 9_000_000 });
    // a mark already recorded in the new day (a crash before the figures were saved): the day opens there
    bl.ledger.mark(clock.t - 1000, null, 0, 2_000_000n, 0n);
    bl.ledger.mark(clock.t - 500, null, 0, 1_000_000n, 0n);
    bl.ledger.flush();
    assert.deepEqual(bl.initialRisk(utc), { peakPnl: 9_000_000, day: day0 + 3, dayStartPnl: 2_000_000 });
    // an operator's clear resets the figures: the day opens at the first PnL of the next run,
    // not at the (pre-clear) mark of today
    bl.ledger.saveRiskFigures(9_000_000n, day0 + 3, 2_000_000n);
    bl.ledger.clearLatch('reviewed', 'cli');
    bl.close();
    bl = await open();
    assert.deepEqual(bl.initialRisk(utc), { peakPnl: null });
    bl.close();
  });
});

test('a baseline holding row without a market id reads as a damaged ledger, not as a market with an empty id', () => {
  const l = openLedger({ path: ':memory:', clock: manualClock() });
  const M = ('0x' + 'ab'.repeat(32)) as Bytes32;
  l.adoptBaseline({ at: 1_799_000_000_000, collateral: 1n, holdings: [{ marketId: M, outcomeIndex: 1, shares: 2n, mark: null }] });
  assert.deepEqual(
    l.baseline()!.holdings.map((h) => h.marketId),
    [M],
  );
  l.db.prepare("UPDATE baseline SET market_id = NULL WHERE kind = 'holding'").run();
  assert.throws(
    () => l.baseline(),
    (e: unknown) => e instanceof LedgerDamagedError && /baseline row \d+: a holding without a market id/.test(e.message),
  );
  l.close();
});
