/**
 * reduceAll (the store's dispatchAll) against reduce event by event: a run of one market's own-order
 * events is reduced in one pass, and the state it reaches must be the one the single reductions
 * reach, whatever the run holds (orders placed, answered, cancelled, refused, adopted, shrunk), with
 * markouts coming due and the regime changing between two events of the run.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import type { Bytes32 } from '../../src/model/order.ts';
import type { PlannedOrder } from '../../src/model/venue.ts';
import type { StateEvent } from '../../src/state/events.ts';
import { emptyState, type StoreState } from '../../src/state/market-state.ts';
import { DEFAULT_LIMITS, reduce, reduceAll } from '../../src/state/reduce.ts';
import { StateStore } from '../../src/state/store.ts';
import { topOfBook } from '../support/quoting.ts';

const M1 = ('0x' + 'a1'.repeat(32)) as Bytes32;
const M2 = ('0x' + 'b2'.repeat(32)) as Bytes32;
const nonce = (i: number): Bytes32 => ('0x' + i.toString(16).padStart(64, '0')) as Bytes32;
const order = (m: Bytes32, i: number): PlannedOrder => ({
  marketId: m,
  outcomeIndex: 1,
  side: i % 2 === 0 ? 0 : 1,
  price: 400_000 + 10_000 * (i % 5),
  size: 5_000_000,
  nonce: nonce(i),
});

/** Everything a state holds, as plain values (the memos are derived, not state). */
function plain(s: StoreState): unknown {
  const markets = [...s.markets.entries()].map(([k, m]) => {
    const { memo: _memo, orders, denials, ...rest } = m;
    return [k, { ...rest, orders: [...orders.entries()], denials: [...denials.entries()] }];
  });
  const { memo: _memo, markets: _markets, ...rest } = s;
  return { ...rest, markets };
}

type Step = { kind: number; m: 0 | 1; i: number; dt: number; flag: boolean; price: number };

/** One generated step as a state event at time `ts`. */
function eventOf(st: Step, ts: number): StateEvent {
  const m = st.m === 0 ? M1 : M2;
  const n = nonce(st.i);
  switch (st.kind) {
    case 0:
      return topOfBook(m, st.price - 10_000, st.price + 10_000, ts);
    case 1:
      return { type: 'OrderFilled', marketId: m, nonce: n, outcomeIndex: 1, side: 0, price: st.price, size: 1_000_000, fee: 0, fillId: `f${ts}-${st.i}`, ts };
    case 2:
      return { type: 'OrderSubmitted', marketId: m, slot: `s${st.i % 3}`, nonce: n, order: order(m, st.i), retry: st.flag, ts };
    case 3:
      return { type: 'OrderAccepted', marketId: m, nonce: n, duplicate: st.flag, ts };
    case 4:
      return { type: 'CancelSubmitted', marketId: m, nonce: n, ts };
    case 5:
      return { type: 'OrderCancelled', marketId: m, nonce: n, alreadyCancelled: st.flag, ts };
    case 6:
      return { type: 'OrderParked', marketId: m, nonce: n, ts };
    case 7:
      return { type: 'OrderGone', marketId: m, nonce: n, ts };
    case 8:
      return { type: 'CancelFailed', marketId: m, nonce: n, reason: 'no-answer', retryable: st.flag, ts };
    case 9:
      return { type: 'OrderRejected', marketId: m, slot: 's0', nonce: n, reason: 'no-answer', retryable: st.flag, mayHaveLanded: st.flag, ts };
    case 10:
      return { type: 'OrderAdopted', marketId: m, slot: `s${st.i % 3}`, nonce: n, order: order(m, st.i), remaining: 3_000_000, ts };
    case 11:
      return { type: 'OrderRemainingChanged', marketId: m, nonce: n, remaining: st.flag ? 0 : 2_000_000, ts };
    case 12:
      return { type: 'VenueCallCompleted', call: 'batch', ok: st.flag, ms: 50, ts };
    default:
      return st.flag ? { type: 'MarketBlocked', marketId: m, reason: 'migration', ts } : { type: 'MarketUnblocked', marketId: m, ts };
  }
}

const step = fc.record({
  // own-order events most often, so runs of them form
  kind: fc.oneof({ weight: 1, arbitrary: fc.constantFrom(0, 1, 12, 13) }, { weight: 4, arbitrary: fc.integer({ min: 2, max: 11 }) }),
  m: fc.constantFrom<0 | 1>(0, 0, 0, 1),
  i: fc.integer({ min: 0, max: 6 }),
  // time moves within runs too: markouts (1 s, 5 s, ...) come due and event regimes end mid-run
  dt: fc.constantFrom(0, 0, 0, 1, 400, 1_000, 4_000, 31_000),
  flag: fc.boolean(),
  price: fc.constantFrom(300_000, 450_000, 500_000, 560_000),
});

function eventsOf(steps: readonly Step[]): StateEvent[] {
  let ts = 1_800_000_000_000;
  return steps.map((s) => eventOf(s, (ts += s.dt)));
}

describe('reduceAll', () => {
  it('reaches the state reduce reaches event by event, runs of own-order events included', () => {
    fc.assert(
      fc.property(fc.array(step, { minLength: 1, maxLength: 60 }), fc.array(fc.integer({ min: 1, max: 8 }), { minLength: 1, maxLength: 12 }), (steps, cuts) => {
        const events = eventsOf(steps);
        const one = events.reduce((s, e) => reduce(s, e, DEFAULT_LIMITS), emptyState());
        // the same events in batches of generated sizes (the store's dispatchAll)
        const store = new StateStore(DEFAULT_LIMITS);
        for (let at = 0, c = 0; at < events.length; c++) {
          const len = cuts[c % cuts.length]!;
          store.dispatchAll(events.slice(at, at + len));
          at += len;
        }
        assert.deepEqual(plain(store.state), plain(one));
        assert.deepEqual(plain(reduceAll(emptyState(), events, DEFAULT_LIMITS)), plain(one));
      }),
      { numRuns: 400 },
    );
  });

  it('a run across the end of an event regime and a markout horizon changes both at the event that crosses it', () => {
    let t = 1_800_000_000_000;
    let s = emptyState();
    // a 6-cent jump of the mid within 5 s: the event regime, for 30 s from t + 4 s
    for (const [dt, mid] of [
      [0, 500_000],
      [1_000, 500_000],
      [2_000, 500_000],
      [1_000, 560_000],
    ] as const) {
      t += dt;
      s = reduce(s, topOfBook(M1, mid - 10_000, mid + 10_000, t));
    }
    s = reduce(s, { type: 'OrderFilled', marketId: M1, nonce: null, outcomeIndex: 1, side: 0, price: 550_000, size: 2_000_000, fee: 0, fillId: 'f1', ts: t });
    assert.equal(s.markets.get(M1)!.edge.regime, 'event');
    const run: StateEvent[] = [
      { type: 'OrderSubmitted', marketId: M1, slot: 'bid:0', nonce: nonce(1), order: order(M1, 1), retry: false, ts: t + 500 },
      { type: 'OrderAccepted', marketId: M1, nonce: nonce(1), duplicate: false, ts: t + 31_000 },
      { type: 'CancelSubmitted', marketId: M1, nonce: nonce(1), ts: t + 31_000 },
    ];
    const one = run.reduce((x, e) => reduce(x, e), s);
    const all = reduceAll(s, run);
    assert.equal(one.markets.get(M1)!.edge.regime, 'trending', 'the event is over; the mid still stands 6 cents from where it was');
    assert.equal(one.markets.get(M1)!.edge.regimeSince, t + 31_000);
    assert.ok(one.markets.get(M1)!.edge.markouts[0]!.n > 0, 'the 1 s markout settled within the run');
    assert.deepEqual(plain(all), plain(one));
  });

  it('a run that changes nothing keeps the market map; one that changes the orders copies the market once', () => {
    const t = 1_800_000_000_000;
    const before = reduce(emptyState(), topOfBook(M1, 490_000, 510_000, t));
    const noop = reduceAll(before, [
      { type: 'OrderAccepted', marketId: M1, nonce: nonce(1), duplicate: false, ts: t },
      { type: 'OrderGone', marketId: M1, nonce: nonce(2), ts: t },
    ]);
    assert.equal(noop.markets, before.markets, 'orders it does not know: nothing changed');
    assert.equal(noop.version, before.version + 2);
    const placed = reduceAll(before, [
      { type: 'OrderSubmitted', marketId: M1, slot: 'bid:0', nonce: nonce(1), order: order(M1, 1), retry: false, ts: t },
      { type: 'OrderSubmitted', marketId: M1, slot: 'ask:0', nonce: nonce(2), order: order(M1, 2), retry: false, ts: t },
      { type: 'OrderAccepted', marketId: M1, nonce: nonce(1), duplicate: false, ts: t },
    ]);
    const m = placed.markets.get(M1)!;
    assert.deepEqual(
      [...m.orders.entries()].map(([k, o]) => [k, o.state]),
      [
        [nonce(1), 'working'],
        [nonce(2), 'in-flight'],
      ],
    );
    assert.equal(m.books, before.markets.get(M1)!.books, 'the rest of the market is shared');
    assert.equal(placed.version, before.version + 3);
  });
});
