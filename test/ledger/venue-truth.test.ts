/**
 * Venue truth in the ledger: fee sources, venue-bound times, foreign fills, the cash and
 * positions `ledger summary` shows, and the inherited-inventory baseline (refused without
 * --new-ledger, adopted with it). On the code before this change: catch-up fills had fee 0 and the
 * restart's time, the feed's fee was 0, no fill had an origin, summary had no cashUsdc/positions/pnl,
 * and a new ledger on a wallet with holdings started as if it held nothing.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { withTmpLedger } from './tmp-ledger.ts';
import { join } from 'node:path';
import { test } from 'node:test';
import { ledgerSummary, listFills, replayPositions } from '../../src/ledger/books.ts';
import { accountFromLedger } from '../../src/ledger/books.ts';
import { catchUpFills } from '../../src/ledger/catch-up.ts';
import { openLedger } from '../../src/ledger/ledger.ts';
import { FillTracker } from '../../src/feeds/own-orders-feed.ts';
import { unrealisedScaled, toMicro } from '../../src/state/position.ts';
import { bytes32Of } from '../../src/model/ids.ts';
import type { Bytes32, VenueOrder } from '../../src/model/order.ts';
import { openBotLedger } from '../support/bot-ledger.ts';
import { Account } from '../../src/account/account.ts';
import { accountFill, fillOrigin } from '../../src/account/account-fill.ts';
import type { OrderFilled } from '../../src/state/events.ts';
import { MARKET as M, T0, TRADER, hex32 as n, ordersSource as source, settableClock, venueOrder } from '../support/venue-order.ts';

const clock = settableClock();
const FEES = { makerBps: 10, takerBps: 50 };

const order = (nonce: Bytes32, o: Partial<VenueOrder> = {}): VenueOrder => venueOrder({ nonce, ...o });

test('catch-up: the fee model with fee_source model, the time bounded by the venue and the last run, foreign orders apart', async () => {
  clock.t = T0;
  const l = openLedger({ path: ':memory:', clock });
  await catchUpFills({ client: source([]), trader: TRADER, ledger: l, clock });
  l.startup({ configHash: 'h', configFile: 'f', venue: 'v', trader: TRADER, markets: 1, latched: null }, 0);
  l.orderSubmitted({ nonce: n('a'), marketId: M, slot: 's', outcomeIndex: 1, side: 1, price: 600_000, size: 10_000_000, ts: T0 }, false);
  l.mark(T0 + 30_000, null, 0, 0n, 0n); // the previous run's last sign of life
  l.flush();
  clock.t = T0 + 3_600_000; // restarted an hour later
  const venue = [
    order(n('a'), { filledSize: 2_000_000, remainingSize: 8_000_000 }), // ours, resting: maker fee
    order(n('b'), {
      filledSize: 5_000_000,
      remainingSize: 5_000_000,
      status: 'cancelled',
      sv2TimeInForce: 1,
      insertedAt: new Date(T0 + 600_000).toISOString(),
    }), // someone else's IOC
  ];
  await catchUpFills({ client: source(venue), trader: TRADER, ledger: l, clock, fees: FEES });
  const f = new Map(listFills(l).map((x) => [x.nonce, x]));
  // 2 shares × 0.60 = 1.2 USDC; 10 bps → 0.0012
  assert.equal(f.get(n('a'))!.fee, 0.0012);
  assert.equal(f.get(n('a'))!.feeSource, 'model');
  assert.equal(f.get(n('a'))!.origin, 'own');
  assert.equal(f.get(n('a'))!.ts, T0 + 30_000, 'not before the last run was seen alive, not the restart');
  // 5 × 0.60 = 3 USDC; taker 50 bps → 0.015; inserted after the last sign of life: that time
  assert.equal(f.get(n('b'))!.fee, 0.015);
  assert.equal(f.get(n('b'))!.origin, 'foreign');
  assert.equal(f.get(n('b'))!.ts, T0 + 600_000);
  const s = ledgerSummary(l);
  assert.equal(s.foreign.fills, 1);
  assert.equal(s.foreign.volume, 3);
  assert.deepEqual(s.feesBySource, { venue: 0, model: 0.0162 });
  l.close();
});

test('an order whose record a crash lost (sent, then kill -9 before the batched write) is still own by its nonce tag; the tag outlives a reopen', async () => {
  await withTmpLedger(async ({ dir }) => {
    const file = join(dir, 'l.sqlite');
    clock.t = T0;
    let l = openLedger({ path: file, clock });
    await catchUpFills({ client: source([]), trader: TRADER, ledger: l, clock });
    l.startup({ configHash: 'h', configFile: 'f', venue: 'v', trader: TRADER, markets: 1, latched: null }, 0);
    const tag = l.nonceTag()!;
    assert.match(tag, /^[0-9a-f]{16}$/);
    l.flush();
    l.close();
    l = openLedger({ path: file, clock });
    assert.equal(l.nonceTag(), tag, 'drawn once, kept in the ledger');
    clock.t = T0 + 60_000;
    const lost = ('0x' + tag + '5'.repeat(48)) as Bytes32; // signed with the tag, never recorded
    const other = ('0x' + 'f'.repeat(16) + '5'.repeat(48)) as Bytes32; // another instance's tag
    await catchUpFills({
      client: source([order(lost, { filledSize: 4_000_000, remainingSize: 6_000_000 }), order(other, { filledSize: 1_000_000, remainingSize: 9_000_000 })]),
      trader: TRADER,
      ledger: l,
      clock,
    });
    const f = new Map(listFills(l).map((x) => [x.nonce, x.origin]));
    assert.equal(f.get(lost), 'own');
    assert.equal(f.get(other), 'foreign');
    // a nonce in any case is its normal form once it has entered (src/model/ids.ts)
    assert.equal(l.isTagged(bytes32Of(lost.toUpperCase().replace('0X', '0x'))!), true);
    l.close();
    const ro = openLedger({ path: file, clock, mustExist: true, readonly: true });
    assert.equal(ro.nonceTag(), tag, 'read-only commands see the same tag');
    ro.close();
  });
});

test('the fills feed: model fee and origin per fill; a foreign order is marked foreign', () => {
  const t = new FillTracker([], { fees: FEES, isOwn: (x) => x === n('a') });
  const ev = t.observe(
    [order(n('a'), { filledSize: 1_000_000, remainingSize: 9_000_000 }), order(n('c'), { filledSize: 3_000_000, remainingSize: 7_000_000, sv2TimeInForce: 2 })],
    T0,
  );
  const fills = ev.map((e) => e.event).filter((e) => e.type === 'OrderFilled');
  assert.deepEqual(
    fills.map((e) => [e.nonce, e.fee, e.feeSource, e.origin]),
    [
      [n('a'), 600, 'model', 'own'],
      [n('c'), 9_000, 'model', 'foreign'],
    ],
  );
});

test('cash and positions from the fills (the account books, src/account/account.ts): buys pay ⌈p·s⌉ + fee, sales from inventory receive ⌊p·s⌋, sales beyond the holding mint sets', () => {
  const l = openLedger({ path: ':memory:', clock });
  const fill = (id: string, outcomeIndex: number, side: number, price: number, size: number, fee: number, origin: 'own' | 'foreign' = 'own') =>
    l.fill({ fillId: id, nonce: null, marketId: M, outcomeIndex, side, price, size, fee, ts: T0, source: 'feed', origin });
  fill('1', 1, 0, 333_333, 3_000_001, 5); // buy 3.000001 YES at 0.333333: pays ⌈0.999999333333⌉ = 1000000 + 5
  fill('2', 1, 1, 500_001, 1_000_001, 0); // sell 1.000001 YES from inventory: receives ⌊0.500001500001⌋ = 500001
  fill('3', 0, 1, 400_000, 2_000_000, 0, 'foreign'); // sell 2 NO holding none: mints, pays ⌈0.6·2⌉ = 1200000, holds 2 more YES
  l.flush();
  const a = accountFromLedger(l);
  assert.equal(a.figures().cash, -1_000_005n + 500_001n - 1_200_000n);
  assert.deepEqual(a.positions(), [{ marketId: M.toLowerCase(), outcomeIndex: 1, shares: 4_000_000 }]);
  const s = ledgerSummary(l);
  assert.equal(s.cashUsdc, -1.700004);
  assert.deepEqual(s.positions, [{ marketId: M.toLowerCase(), outcomeIndex: 1, shares: 4 }]);
  assert.equal(s.pnl.markedAt, null);
  assert.equal(s.pnl.realised, Number(a.figures().realised) / 1e6, "the summary shows the account's figures");
  assert.equal(s.foreign.fills, 1);
  l.close();
});

function historyClient(yes: bigint, orders: VenueOrder[]) {
  return {
    ...source(orders),
    balance: {
      async summary() {
        return {
          address: TRADER,
          usdc: { tokenAddress: TRADER, balance: 50_000_000n, settlementBalance: 50_000_000n, walletBalance: 0n },
          outcomeTokens:
            yes > 0n
              ? [{ tokenAddress: TRADER, marketId: M, outcomeIndex: 1 as const, outcomeName: 'Yes', balance: yes, settlementBalance: yes, walletBalance: 0n }]
              : [],
        };
      },
    },
    markets: {
      async orderbook() {
        return {
          status: 200 as const,
          book: { marketId: M, outcomeIndex: 1 as const, bids: [{ price: 400_000, size: 1 }], asks: [{ price: 420_000, size: 1 }], venueTs: 0 },
        };
      },
    },
  };
}

test('a new or emptied ledger on a wallet with holdings is refused naming what would be lost; --new-ledger adopts them at the mark (PnL 0)', async () => {
  await withTmpLedger(async ({ file }) => {
    clock.t = T0;
    const client = historyClient(7_000_000n, [order(n('a'), { status: 'filled' })]);
    const open = (newLedger: boolean) => openBotLedger({ path: file, clock, trader: TRADER, client, fees: FEES, newLedger });
    await assert.rejects(open(false), (e: Error) => {
      assert.equal(e.name, 'ConfigError');
      assert.match(e.message, /is new/);
      assert.match(e.message, /1 holding\(s\) in 1 market\(s\) \(7\.000000 YES of 0x1111/);
      assert.match(e.message, /order and fill history/);
      assert.match(e.message, /--new-ledger/);
      return true;
    });
    assert.equal(existsSync(file), false, 'the refused start leaves no ledger file behind');
    const bl = await open(true);
    const b = bl.ledger.baseline()!;
    assert.equal(b.collateral, 50_000_000n);
    assert.deepEqual(b.holdings, [{ marketId: M.toLowerCase(), outcomeIndex: 1, shares: 7_000_000n, mark: 410_000 }]);
    const p = replayPositions(bl.ledger).get(M.toLowerCase())!;
    assert.equal(p.net, 7_000_000);
    assert.equal(toMicro(unrealisedScaled(p, 820_000)), 0n, 'at the adopted mark the inherited holding is worth its basis: PnL 0');
    assert.equal(ledgerSummary(bl.ledger).positions[0]!.shares, 7);
    bl.close();
    // a restart of that ledger is not refused (it has started once)
    (await open(false)).close();
  });
});

test('an emptied ledger file (truncated to 0 bytes) on a wallet with order history is refused', async () => {
  await withTmpLedger(async ({ file }) => {
    const { writeFileSync } = await import('node:fs');
    writeFileSync(file, '');
    const client = historyClient(0n, [order(n('a'), { status: 'cancelled' })]);
    await assert.rejects(openBotLedger({ path: file, clock, trader: TRADER, client, fees: FEES }), /is empty.*order and fill history.*--new-ledger/s);
    // a wallet with no history starts a new ledger as before
    const bl = await openBotLedger({ path: file, clock, trader: TRADER, client: historyClient(0n, []), fees: FEES });
    assert.deepEqual(bl.ledger.baseline()?.holdings, []);
    bl.close();
  });
});

test('a new ledger: orders closed before it began are history (in the baseline), never fills; one open then counts its later fills', async () => {
  clock.t = T0 + 10_000;
  const l = openLedger({ path: ':memory:', clock });
  const closedBefore = order(n('e'), { filledSize: 10_000_000, remainingSize: 0, status: 'filled', insertedAt: new Date(T0).toISOString() });
  const openThen = order(n('f'), { insertedAt: new Date(T0).toISOString() });
  await catchUpFills({ client: source([closedBefore, openThen]), trader: TRADER, ledger: l, clock });
  l.startup({ configHash: 'h', configFile: 'f', venue: 'v', trader: TRADER, markets: 1, latched: null }, 0);
  clock.t = T0 + 20_000;
  // the stop's sweep reads every order since the start less a minute of skew: both come back
  const later = order(n('f'), { filledSize: 3_000_000, remainingSize: 7_000_000, insertedAt: new Date(T0).toISOString() });
  await catchUpFills({ client: source([closedBefore, later]), trader: TRADER, ledger: l, clock, since: T0 + 10_000 });
  assert.deepEqual(
    listFills(l).map((x) => [x.nonce, x.size]),
    [[n('f'), 3]],
  );
  l.close();
});

test("an order that took liquidity: its fills are recorded at the venue's average fill price when it is all of the order's fills (never past the limit)", async () => {
  clock.t = T0;
  const l = openLedger({ path: ':memory:', clock });
  await catchUpFills({ client: source([]), trader: TRADER, ledger: l, clock });
  l.startup({ configHash: 'h', configFile: 'f', venue: 'v', trader: TRADER, markets: 1, latched: null }, 0);
  clock.t = T0 + 60_000;
  const ioc = order(n('1'), {
    side: 0,
    price: 950_000,
    filledSize: 3_000_000,
    remainingSize: 7_000_000,
    status: 'cancelled',
    sv2TimeInForce: 1,
    avgFillPrice: 640_000,
  });
  const wrongSide = order(n('2'), { side: 1, price: 600_000, filledSize: 2_000_000, remainingSize: 8_000_000, status: 'cancelled', avgFillPrice: 500_000 });
  await catchUpFills({ client: source([ioc, wrongSide]), trader: TRADER, ledger: l, clock, fees: FEES });
  const f = new Map(listFills(l).map((x) => [x.nonce, x]));
  assert.equal(f.get(n('1'))!.price, 0.64);
  assert.equal(f.get(n('1'))!.fee, 0.0096, 'taker 50 bps of 3 × 0.64');
  assert.equal(f.get(n('2'))!.price, 0.6, 'a sale never fills below its limit: the stated average is not taken');
  l.close();
});

test("the bot ledger records each resolution once and forgets a released market's payout (rotation does not grow its memory)", async () => {
  await withTmpLedger(async ({ file }) => {
    clock.t = T0;
    const bl = await openBotLedger({ path: file, clock, trader: TRADER, client: historyClient(0n, []), fees: FEES, newLedger: true });
    const payouts = () => (bl as unknown as { payouts: Map<string, number> }).payouts.size;
    for (let i = 0; i < 50; i++) {
      const id = `0x${i.toString(16).padStart(64, '0')}` as Bytes32;
      // a metadata poll repeats the resolution many times: one record
      for (let k = 0; k < 3; k++) bl.onEvent({ type: 'MarketMetadataUpdated', marketId: id, status: 'resolved', payoutYes: 1_000_000, ts: T0 + i });
      bl.onEvent({ type: 'MarketReleased', marketId: id, keepPosition: true, ts: T0 + i });
    }
    assert.equal(payouts(), 0, 'nothing kept for markets the bot released');
    bl.ledger.flush();
    assert.equal((bl.ledger.db.prepare('SELECT COUNT(*) AS n FROM resolutions').get() as { n: number }).n, 50);
    bl.close();
  });
});

test("a fill of no order (no origin, no nonce): the live books and the ledger's record both call it foreign (one function decides)", async () => {
  await withTmpLedger(async ({ file }) => {
    clock.t = T0;
    const bl = await openBotLedger({ path: file, clock, trader: TRADER, client: historyClient(0n, []), fees: FEES, newLedger: true });
    const live = new Account();
    const events: OrderFilled[] = [
      { type: 'OrderFilled', marketId: M, nonce: null, outcomeIndex: 1, side: 0, price: 400_000, size: 2_000_000, fee: 0, fillId: 'x:1', ts: T0 },
      { type: 'OrderFilled', marketId: M, nonce: n('a'), outcomeIndex: 1, side: 0, price: 400_000, size: 1_000_000, fee: 0, fillId: 'x:2', ts: T0 },
    ];
    for (const e of events) {
      bl.onEvent(e);
      live.applyFill(accountFill(e));
    }
    bl.ledger.flush();
    const recorded = new Map(listFills(bl.ledger).map((f) => [f.fillId, f.origin]));
    assert.deepEqual(
      [...recorded],
      [
        ['x:1', 'foreign'],
        ['x:2', 'own'],
      ],
      "the ledger's record (old code: 'own' for the fill of no order)",
    );
    assert.deepEqual(
      events.map((e) => fillOrigin(e)),
      ['foreign', 'own'],
    );
    const foreign = (a: Account) => a.market(M)?.foreignFills;
    assert.equal(foreign(live), 1);
    assert.equal(ledgerSummary(bl.ledger).foreign.fills, foreign(live), 'the summary counts what the live books count');
    assert.equal(foreign(accountFromLedger(bl.ledger)), foreign(live), 'the replayed books too');
    bl.close();
  });
});

test('the bot ledger keeps what a create answer showed filled (the order crossed on arrival) for the fills feed', async () => {
  await withTmpLedger(async ({ dir }) => {
    clock.t = T0;
    const bl = await openBotLedger({ path: join(dir, 'l.sqlite'), clock, trader: TRADER, client: historyClient(0n, []), fees: FEES, newLedger: true });
    bl.onEvent({ type: 'OrderAccepted', marketId: M, nonce: n('a'), duplicate: false, filledOnArrival: 2_412_000, ts: T0 });
    bl.onEvent({ type: 'OrderAccepted', marketId: M, nonce: n('b'), duplicate: false, ts: T0 });
    assert.equal(bl.arrival(n('a')), 2_412_000);
    assert.equal(bl.arrival(n('b')), undefined, 'rested on arrival, or not known: the fill is priced by how it filled later');
    bl.close();
  });
});
