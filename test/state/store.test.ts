import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { BookSnapshot } from '../../src/model/book.ts';
import type { Bytes32, OutcomeIndex } from '../../src/model/order.ts';
import type { PlannedOrder } from '../../src/model/venue.ts';
import { applyLevels, mirror, yesTermsLevels } from '../../src/state/book-state.ts';
import type { StateEvent } from '../../src/state/events.ts';
import { marketPnl, reservedCollateral, selectMarketView } from '../../src/state/market-view.ts';
import { reduce, DEFAULT_LIMITS } from '../../src/state/reduce.ts';
import { StateStore } from '../../src/state/store.ts';
import { emptyState } from '../../src/state/market-state.ts';

const M = ('0x' + 'ab'.repeat(32)) as Bytes32;
const S = 1_000_000;
const n = (i: number): Bytes32 => ('0x' + i.toString(16).padStart(64, '0')) as Bytes32;

function snapshot(outcomeIndex: OutcomeIndex, bids: [number, number][], asks: [number, number][], ts = 1000): StateEvent {
  const book: BookSnapshot = {
    marketId: M,
    outcomeIndex,
    bids: bids.map(([price, size]) => ({ price, size })),
    asks: asks.map(([price, size]) => ({ price, size })),
    venueTs: ts,
  };
  return { type: 'BookEventReceived', event: { type: 'snapshot', book, seq: 1, localTs: ts, source: 'stream' }, ts };
}
const planned = (i: number, outcomeIndex: OutcomeIndex, side: 0 | 1, price: number, size = 10 * S, inventoryMode: 0 | 1 | 2 = 0): PlannedOrder => ({
  marketId: M,
  outcomeIndex,
  side,
  price,
  size,
  nonce: n(i),
  inventoryMode,
});

describe('book state', () => {
  it('applies absolute-size deltas and keeps sides sorted', () => {
    const bids = applyLevels(
      [
        { price: 500, size: 1 },
        { price: 400, size: 2 },
      ],
      [
        { price: 450, size: 5 },
        { price: 500, size: 0 },
      ],
      true,
    );
    assert.deepEqual(bids, [
      { price: 450, size: 5 },
      { price: 400, size: 2 },
    ]);
  });
  it('YES-terms view: YES book when present, else the mirrored NO book (never both)', () => {
    const no = { marketId: M, outcomeIndex: 0 as const, bids: [{ price: 400_000, size: 1 }], asks: [{ price: 450_000, size: 2 }], venueTs: 0 };
    assert.deepEqual(yesTermsLevels({ yes: null, no }), { bids: [{ price: 550_000, size: 2 }], asks: [{ price: 600_000, size: 1 }], venueTs: 0 });
    const yes = { ...no, outcomeIndex: 1 as const };
    assert.equal(yesTermsLevels({ yes, no })!.bids, yes.bids);
    assert.deepEqual(mirror([{ price: 1, size: 1 }]), [{ price: 999_999, size: 1 }]);
  });
});

describe('StateStore', () => {
  it('updates the state before notifying, once per dispatch', () => {
    const store = new StateStore();
    const seen: number[] = [];
    const sub = store.changes$.subscribe(({ state }) => {
      assert.equal(state, store.state);
      seen.push(state.version);
    });
    store.dispatch(snapshot(1, [[400_000, S]], [[420_000, S]]));
    store.dispatchAll([
      { type: 'BalanceUpdated', collateral: 5n, ts: 2 },
      { type: 'BalanceUpdated', collateral: 7n, ts: 3 },
    ]);
    sub.unsubscribe();
    assert.deepEqual(seen, [1, 3]);
    assert.equal(store.state.collateral, 7n);
  });

  it('snapshots are immutable: an old state does not change when new events arrive', () => {
    const store = new StateStore();
    store.dispatch(snapshot(1, [[400_000, S]], [[420_000, S]]));
    const before = store.state;
    const beforeBook = before.markets.get(M)!.books.yes;
    store.dispatch({
      type: 'BookEventReceived',
      event: { type: 'delta', marketId: M, outcomeIndex: 1, seq: 2, bids: [{ price: 410_000, size: 3 }], asks: [], venueTs: 2000, localTs: 2000 },
      ts: 2000,
    });
    assert.equal(before.markets.get(M)!.books.yes, beforeBook);
    assert.equal(beforeBook!.bids.length, 1);
    assert.equal(store.state.markets.get(M)!.books.yes!.bids[0]!.price, 410_000);
  });

  it('fills update positions and PnL; a repeated fill id is counted once', () => {
    let s = emptyState();
    s = reduce(s, snapshot(1, [[440_000, S]], [[460_000, S]]));
    const f: StateEvent = { type: 'OrderFilled', marketId: M, nonce: null, outcomeIndex: 1, side: 0, price: 400_000, size: 10 * S, fee: 0, fillId: 'a', ts: 5 };
    s = reduce(s, f);
    s = reduce(s, f);
    const m = s.markets.get(M)!;
    assert.equal(m.position.net, 10 * S);
    assert.deepEqual(marketPnl(m), { realised: 0n, unrealised: 500_000n });
    s = reduce(s, { type: 'OrderFilled', marketId: M, nonce: null, outcomeIndex: 0, side: 0, price: 550_000, size: 10 * S, fee: 0, fillId: 'b', ts: 6 });
    assert.deepEqual(marketPnl(s.markets.get(M)!), { realised: 500_000n, unrealised: 0n });
  });

  it('a balance read of the holdings the market already has leaves the market map as it was', () => {
    let s = emptyState();
    s = reduce(s, snapshot(1, [[440_000, S]], [[460_000, S]]));
    // the market's first read is recorded (src/state/held-read.ts): once
    s = reduce(s, { type: 'PositionSynced', marketId: M, yes: 0, no: 0, ts: 1000 });
    s = reduce(s, { type: 'OrderFilled', marketId: M, nonce: null, outcomeIndex: 1, side: 0, price: 400_000, size: 10 * S, fee: 0, fillId: 'a', ts: 1000 });
    const same = reduce(s, { type: 'PositionSynced', marketId: M, yes: 10 * S, no: 0, ts: 1000 });
    // the same map and market objects: the account totals and the health model see no change
    assert.equal(same.markets, s.markets);
    assert.equal(same.version, s.version + 1);
    const moved = reduce(same, { type: 'PositionSynced', marketId: M, yes: 12 * S, no: 0, ts: 1000 });
    assert.notEqual(moved.markets, same.markets);
    assert.equal(moved.markets.get(M)!.position.yes, 12 * S);
  });

  it('resolution marks at the payout', () => {
    let s = emptyState();
    s = reduce(s, { type: 'OrderFilled', marketId: M, nonce: null, outcomeIndex: 1, side: 0, price: 400_000, size: 10 * S, fee: 0, ts: 5 });
    s = reduce(s, { type: 'MarketMetadataUpdated', marketId: M, status: 'resolved', payoutYes: 1_000_000, ts: 6 });
    assert.equal(marketPnl(s.markets.get(M)!).unrealised, 6_000_000n);
  });

  it('own order lifecycle: submitted → working → partially filled → cancelling → gone', () => {
    let s = emptyState();
    const o = planned(1, 1, 0, 400_000);
    s = reduce(s, { type: 'OrderSubmitted', marketId: M, slot: `${M}:bid:0`, nonce: o.nonce, order: o, retry: false, ts: 1 });
    assert.equal(s.markets.get(M)!.orders.get(o.nonce)!.state, 'in-flight');
    s = reduce(s, { type: 'OrderAccepted', marketId: M, nonce: o.nonce, duplicate: false, ts: 2 });
    s = reduce(s, { type: 'OrderFilled', marketId: M, nonce: o.nonce, outcomeIndex: 1, side: 0, price: 400_000, size: 4 * S, fee: 0, ts: 3 });
    assert.equal(s.markets.get(M)!.orders.get(o.nonce)!.remaining, 6 * S);
    s = reduce(s, { type: 'CancelSubmitted', marketId: M, nonce: o.nonce, ts: 4 });
    assert.equal(s.markets.get(M)!.orders.get(o.nonce)!.state, 'cancelling');
    s = reduce(s, { type: 'OrderCancelled', marketId: M, nonce: o.nonce, alreadyCancelled: false, ts: 5 });
    assert.equal(s.markets.get(M)!.orders.size, 0);
  });

  it('a rejected create that may have landed stays in flight; a plain rejection is dropped', () => {
    let s = emptyState();
    const a = planned(1, 1, 0, 400_000);
    const b = planned(2, 1, 0, 390_000);
    for (const o of [a, b]) s = reduce(s, { type: 'OrderSubmitted', marketId: M, slot: 's', nonce: o.nonce, order: o, retry: false, ts: 1 });
    s = reduce(s, { type: 'OrderRejected', marketId: M, slot: 's', nonce: a.nonce, reason: 'server-error', retryable: true, mayHaveLanded: true, ts: 2 });
    s = reduce(s, { type: 'OrderRejected', marketId: M, slot: 's', nonce: b.nonce, reason: 'bad-request', retryable: false, mayHaveLanded: false, ts: 2 });
    assert.deepEqual([...s.markets.get(M)!.orders.keys()], [a.nonce]);
  });

  it('a cancel refused for good keeps the order counted (cancelling) until the manager reports it gone', () => {
    let s = emptyState();
    const a = planned(1, 1, 1, 600_000);
    s = reduce(s, { type: 'OrderSubmitted', marketId: M, slot: 's', nonce: a.nonce, order: a, retry: false, ts: 1 });
    s = reduce(s, { type: 'OrderAccepted', marketId: M, nonce: a.nonce, duplicate: false, ts: 2 });
    s = reduce(s, { type: 'CancelFailed', marketId: M, nonce: a.nonce, reason: 'conflict', retryable: false, ts: 3 });
    assert.equal(s.markets.get(M)!.orders.get(a.nonce)?.state, 'cancelling', 'its fills may still be on the way');
    s = reduce(s, { type: 'OrderGone', marketId: M, nonce: a.nonce, ts: 4 });
    assert.equal(s.markets.get(M)!.orders.size, 0);
  });

  it('reserved collateral: buys lock price × size + fee cap, sells without inventory lock (1 − price) × size', () => {
    let s = emptyState();
    const buy = { ...planned(1, 1, 0, 370_000, 12_345_678), maxFee: 45_679 };
    const mint = planned(2, 0, 1, 620_000, 10 * S, 2);
    const inv = planned(3, 1, 1, 610_000, 7 * S, 1);
    for (const o of [buy, mint, inv]) s = reduce(s, { type: 'OrderAdopted', marketId: M, slot: o.nonce, nonce: o.nonce, order: o, remaining: o.size, ts: 1 });
    assert.equal(reservedCollateral(s.markets.get(M)!), 4_613_580n + 3_862_000n, 'each its signed maxCollateralIn (docs/venue.md examples 1 and 3)');
  });

  it('keeps histories bounded', () => {
    let s = emptyState();
    s = reduce(s, snapshot(1, [[400_000, S]], [[420_000, S]]));
    for (let i = 0; i < 200; i++) {
      s = reduce(
        s,
        {
          type: 'BookEventReceived',
          event: { type: 'trade', marketId: M, outcomeIndex: 1, seq: i + 2, price: 410_000, size: S, takerSide: 'buy', venueTs: i, localTs: i },
          ts: i,
        },
        { ...DEFAULT_LIMITS, trades: 10 },
      );
    }
    assert.equal(s.markets.get(M)!.trades.length, 10);
  });
});

describe('selectMarketView', () => {
  it('builds the YES-terms view: book, quotes (a NO buy is an ask), position, PnL, account, flags', () => {
    const store = new StateStore();
    store.dispatchAll([
      snapshot(1, [[440_000, 2 * S]], [[460_000, S]], 1000),
      { type: 'MarketMetadataUpdated', marketId: M, tick: 10_000, minSize: S, deadline: 9_999_000, status: 'active', slug: 'will-it', ts: 1000 },
      { type: 'OrderAdopted', marketId: M, slot: `${M.toLowerCase()}:ask:0`, nonce: n(9), order: planned(9, 0, 0, 530_000, 5 * S), remaining: 5 * S, ts: 1000 },
      { type: 'OrderFilled', marketId: M, nonce: null, outcomeIndex: 1, side: 0, price: 400_000, size: 10 * S, fee: 0, ts: 1000 },
      { type: 'OracleUpdated', marketId: M, probability: 0.6, confidence: 0.8, updatedAt: 500, ts: 1000 },
      { type: 'BalanceUpdated', collateral: 100n * BigInt(S), ts: 1000 },
      { type: 'MarketBlocked', marketId: M, reason: 'migration', ts: 1000 },
      { type: 'VenueCallCompleted', call: 'batch', ok: false, ms: 5, ts: 1000 },
      { type: 'VenueCallCompleted', call: 'batch', ok: true, ms: 5, ts: 1000 },
    ]);
    const v = selectMarketView(store.state, M, 2000)!;
    assert.equal(v.book!.bestBid, 440_000);
    assert.equal(v.book!.mid, 450_000);
    assert.deepEqual(
      v.quotes.map((q) => [q.side, q.price, q.size, q.level, q.venueSide, q.outcomeIndex]),
      [['ask', 470_000, 5 * S, 0, 'buy', 0]],
    );
    assert.deepEqual(v.position, { yes: 10 * S, no: 0, net: 10 * S, avgEntry: 400_000 });
    assert.deepEqual(v.pnl, { realised: 0, unrealised: 500_000 });
    assert.equal(v.oracle!.ageMs, 1500);
    assert.equal(v.account.collateral, 100_000_000n);
    assert.equal(v.account.worstCasePosition, 10 * S);
    assert.deepEqual(v.venue, { requests: 2, errors: 1, windowMs: 60_000 });
    assert.equal(v.flags.migrationActive, true);
    assert.equal(v.slug, 'will-it');
    assert.equal(selectMarketView(store.state, ('0x' + '00'.repeat(32)) as Bytes32, 0), null);
  });

  it('worst case counts working, in-flight and cancelling orders as if filled', () => {
    const store = new StateStore();
    const bid1 = planned(1, 1, 0, 400_000, 3 * S);
    const bid2 = planned(2, 0, 1, 600_000, 2 * S, 1); // sell NO = YES-terms bid
    const ask = planned(3, 1, 1, 600_000, 5 * S, 2);
    store.dispatchAll([
      { type: 'OrderFilled', marketId: M, nonce: null, outcomeIndex: 1, side: 0, price: 400_000, size: 1 * S, fee: 0, ts: 1 },
      { type: 'OrderSubmitted', marketId: M, slot: 'b0', nonce: bid1.nonce, order: bid1, retry: false, ts: 1 },
      { type: 'OrderAdopted', marketId: M, slot: 'b1', nonce: bid2.nonce, order: bid2, remaining: bid2.size, ts: 1 },
      { type: 'OrderAdopted', marketId: M, slot: 'a0', nonce: ask.nonce, order: ask, remaining: ask.size, ts: 1 },
      { type: 'CancelSubmitted', marketId: M, nonce: ask.nonce, ts: 2 },
    ]);
    const v = selectMarketView(store.state, M, 3)!;
    assert.deepEqual(v.quotes.map((q) => [q.side, q.state]).sort(), [
      ['ask', 'cancelling'],
      ['bid', 'in-flight'],
      ['bid', 'working'],
    ]);
    // long: 1 + 3 + 2 = 6 shares; short: −1 + 5 = 4 shares → 6
    assert.equal(v.account.worstCasePosition, 6 * S);
  });

  it('memoises the view book: unchanged books give the same object', () => {
    const store = new StateStore();
    store.dispatch(snapshot(1, [[440_000, S]], [[460_000, S]]));
    const a = selectMarketView(store.state, M, 1)!.book;
    store.dispatch({ type: 'BalanceUpdated', collateral: 1n, ts: 2 });
    assert.equal(selectMarketView(store.state, M, 2)!.book, a);
  });
});

describe('applyLevels (property)', () => {
  it('matches a map-and-sort reference for any changes', async () => {
    const fc = (await import('fast-check')).default;
    const level = fc.record({ price: fc.integer({ min: 1, max: 60 }), size: fc.integer({ min: 0, max: 5 }) });
    fc.assert(
      fc.property(fc.array(level), fc.array(level), fc.boolean(), (start, changes, descending) => {
        const ref = (base: { price: number; size: number }[], ch: { price: number; size: number }[]) => {
          const m = new Map<number, number>();
          for (const l of base) m.set(l.price, l.size);
          for (const c of ch) c.size > 0 ? m.set(c.price, c.size) : m.delete(c.price);
          return [...m].map(([price, size]) => ({ price, size })).sort((a, b) => (descending ? b.price - a.price : a.price - b.price));
        };
        const base = ref(
          [],
          start.filter((l) => l.size > 0),
        );
        assert.deepEqual(applyLevels(base, changes, descending), ref(base, changes));
      }),
      { numRuns: 1000 },
    );
  });
});

describe('stream liveness', () => {
  it('only a live or polling source resets the silence timer; reconnect and stale statuses do not', () => {
    const status = (state: 'live' | 'polling' | 'reconnecting' | 'stale' | 'connecting', ts: number): StateEvent => ({
      type: 'BookEventReceived',
      event: { type: 'status', marketId: M, outcomeIndex: 1, state, localTs: ts },
      ts,
    });
    let s = reduce(emptyState(), status('live', 1_000));
    assert.equal(s.markets.get(M.toLowerCase())!.streamLastEventAt, 1_000);
    for (const [i, st] of (['reconnecting', 'connecting', 'stale'] as const).entries()) s = reduce(s, status(st, 2_000 + i));
    assert.equal(s.markets.get(M.toLowerCase())!.streamLastEventAt, 1_000, 'a failing stream stays silent');
    assert.equal(s.markets.get(M.toLowerCase())!.streamState, 'stale');
    s = reduce(s, status('polling', 5_000));
    assert.equal(s.markets.get(M.toLowerCase())!.streamLastEventAt, 5_000, 'a 304 keep-alive of the polling fallback is alive');
  });
});
