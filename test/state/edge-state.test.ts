/**
 * Unit tables for the store's edge measures: markouts per horizon, the toxicity average, the
 * taker-flow imbalance, and the regime state machine (quiet, trending, event, reduce-only, halted).
 * Each row is a short event script reduced through the real store reducer.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { BookSnapshot } from '../../src/model/book.ts';
import type { Bytes32 } from '../../src/model/order.ts';
import { DEFAULT_EDGE, DEFAULT_REGIME, type EdgeSettings } from '../../src/state/edge-settings.ts';
import type { StateEvent } from '../../src/state/events.ts';
import { emptyState, type StoreState } from '../../src/state/market-state.ts';
import { selectMarketView } from '../../src/state/market-view.ts';
import { DEFAULT_LIMITS, reduce } from '../../src/state/reduce.ts';

const M = ('0x' + 'cd'.repeat(32)) as Bytes32;
const S = 1_000_000;
const C = 10_000; // one cent in price units

/** a YES book with best bid/ask around `midCents` (one cent either side) */
function book(ts: number, midCents: number): StateEvent {
  const b: BookSnapshot = {
    marketId: M,
    outcomeIndex: 1,
    bids: [{ price: (midCents - 1) * C, size: 100 * S }],
    asks: [{ price: (midCents + 1) * C, size: 100 * S }],
    venueTs: ts,
  };
  return { type: 'BookEventReceived', event: { type: 'snapshot', book: b, seq: ts, localTs: ts, source: 'stream' }, ts };
}
/** an own YES fill: buy (side 0) or sell (side 1) `shares` at `cents` */
const fill = (ts: number, side: 0 | 1, cents: number, shares: number, fee = 0): StateEvent => ({
  type: 'OrderFilled',
  marketId: M,
  nonce: null,
  outcomeIndex: 1,
  side,
  price: cents * C,
  size: shares * S,
  fee,
  fillId: `f${ts}`,
  ts,
});
const trade = (ts: number, takerSide: 'buy' | 'sell', shares: number, cents = 50): StateEvent => ({
  type: 'BookEventReceived',
  event: { type: 'trade', marketId: M, outcomeIndex: 1, seq: ts, price: cents * C, size: shares * S, takerSide, venueTs: ts, localTs: ts },
  ts,
});
const oracle = (ts: number, p: number): StateEvent => ({ type: 'OracleUpdated', marketId: M, probability: p, confidence: 1, updatedAt: ts, ts });
const meta = (ts: number, c: Partial<Extract<StateEvent, { type: 'MarketMetadataUpdated' }>>): StateEvent => ({
  type: 'MarketMetadataUpdated',
  marketId: M,
  ts,
  ...c,
});

function run(events: StateEvent[], edge: EdgeSettings = DEFAULT_EDGE): StoreState {
  let s = emptyState();
  for (const e of events) s = reduce(s, e, { ...DEFAULT_LIMITS, edge });
  return s;
}
const view = (s: StoreState, now: number) => selectMarketView(s, M, now)!.edge!;
const cents = (perShare: number | null) => (perShare === null ? null : Math.round(perShare / 100) / 100);

describe('markouts', () => {
  // one buy of 10 @ 49¢ at t = 1 000 with the mid at 50¢; the mid then moves; markouts in ¢/share
  const table: { name: string; mids: [number, number][]; now: number; want: Record<string, number | null> }[] = [
    {
      name: 'mid still: +1¢ at every horizon reached',
      mids: [[400_000, 50]],
      now: 400_000,
      want: { '1s': 1, '5s': 1, '10s': 1, '30s': 1, '60s': 1, '300s': 1 },
    },
    {
      name: 'mid up 3¢ at 3 s: 1 s sees 50, 5 s on see 53',
      mids: [
        [4_000, 53],
        [400_000, 53],
      ],
      now: 400_000,
      want: { '1s': 1, '5s': 4, '10s': 4, '30s': 4, '60s': 4, '300s': 4 },
    },
    {
      name: 'picked off: mid down to 45¢ at 1.5 s, back to 50¢ at 40 s',
      mids: [
        [2_500, 45],
        [41_000, 50],
        [400_000, 50],
      ],
      now: 400_000,
      want: { '1s': 1, '5s': -4, '10s': -4, '30s': -4, '60s': 1, '300s': 1 },
    },
    {
      name: 'horizons not reached yet stay empty',
      mids: [[8_000, 52]],
      now: 8_000,
      want: { '1s': 1, '5s': 1, '10s': null, '30s': null, '60s': null, '300s': null },
    },
  ];
  for (const row of table) {
    it(row.name, () => {
      const s = run([book(0, 50), fill(1_000, 0, 49, 10), ...row.mids.map(([t, c]) => book(t, c))]);
      const got = Object.fromEntries(view(s, row.now).markouts.map((k) => [`${k.horizonMs / 1000}s`, cents(k.perShare)]));
      assert.deepEqual(got, row.want);
    });
  }

  it('a sell is marked the other way, and markouts are size-weighted over fills', () => {
    // sell 10 @ 51 (mid 50 → +1¢), buy 30 @ 49 (mid 50 → +1¢); mid 46¢ from 1.2 s on: sell +5, buy −3
    const s = run([book(0, 50), fill(1_000, 1, 51, 10), fill(1_100, 0, 49, 30), book(1_200, 46), book(5_000, 46)]);
    const m = view(s, 5_000).markouts;
    assert.equal(m[0]!.n, 2);
    assert.equal(cents(m[0]!.perShare), (10 * 5 + 30 * -3) / 40);
  });

  it('custom horizons', () => {
    const s = run([book(0, 50), fill(1_000, 0, 49, 10), book(1_600, 60), book(3_000, 60)], {
      ...DEFAULT_EDGE,
      markoutHorizonsMs: [500, 2_000],
      toxicityHorizonMs: 500,
    });
    assert.deepEqual(
      view(s, 3_000).markouts.map((k) => [k.horizonMs, cents(k.perShare)]),
      [
        [500, 1],
        [2_000, 11],
      ],
    );
  });
});

describe('toxicity and flow', () => {
  it('the toxicity average decays older fills (half-life) and counts their weight', () => {
    const edge: EdgeSettings = { ...DEFAULT_EDGE, toxicityHorizonMs: 1_000, toxicityHalfLifeMs: 10_000 };
    // fill A: buy 10 @ 49, mid 45 at +1 s → −4¢; fill B 10 s later: buy 10 @ 49, mid 51 at +1 s → +2¢
    const s = run([book(0, 50), fill(1_000, 0, 49, 10), book(1_500, 45), book(2_500, 50), fill(11_000, 0, 49, 10), book(11_500, 51), book(12_500, 51)], edge);
    const v = view(s, 12_000);
    // at 12 s A's weight is one half of B's: (−4·0.5 + 2·1) / 1.5 = 0
    assert.ok(Math.abs(v.toxicity!) < 1e-6, `toxicity ${v.toxicity}`);
    assert.ok(Math.abs(v.toxicityWeight - 1.5) < 1e-9);
    assert.ok(Math.abs(view(s, 22_000).toxicityWeight - 0.75) < 1e-9, 'the weight halves 10 s later');
  });
  it('flow imbalance: +1 one-way buying, −1 one-way selling, decayed', () => {
    assert.equal(view(run([book(0, 50), trade(1, 'buy', 10), trade(2, 'buy', 5)]), 2).flowImbalance, 1);
    assert.equal(view(run([book(0, 50), trade(1, 'sell', 10)]), 2).flowImbalance, -1);
    const edge: EdgeSettings = { ...DEFAULT_EDGE, flowHalfLifeMs: 1_000 };
    // 30 bought at t=0, 10 sold at t=1 s: (15 − 10) / (15 + 10)
    const v = view(run([book(0, 50), trade(0, 'buy', 30), trade(1_000, 'sell', 10)], edge), 1_000);
    assert.ok(Math.abs(v.flowImbalance - 0.2) < 1e-12);
    assert.ok(Math.abs(v.flowSize - 25 * S) < 1);
  });
});

describe('regimes', () => {
  const R = { ...DEFAULT_EDGE, regime: { ...DEFAULT_REGIME, trendImbalance: 1.01 } };
  // [name, events, now, regime, cause]
  const table: [string, StateEvent[], number, string, string | null][] = [
    ['quiet: a still book', [book(0, 50), book(1_000, 50)], 2_000, 'quiet', null],
    ['event: the mid jumps 3¢ within 5 s', [book(0, 50), book(1_000, 50), book(3_000, 53)], 4_000, 'event', 'mid-jump'],
    ['the event holds 30 s after its trigger; the 3¢ move is then a trend', [book(0, 50), book(1_000, 50), book(3_000, 53)], 33_001, 'trending', 'mid-move'],
    ['which ends once the window no longer holds the move', [book(0, 50), book(1_000, 50), book(3_000, 53)], 63_001, 'quiet', null],
    ['event: an oracle jump of 5 points', [book(0, 50), oracle(10, 0.5), oracle(20, 0.56)], 1_000, 'event', 'oracle-jump'],
    ['a small oracle move is not an event', [book(0, 50), oracle(10, 0.5), oracle(20, 0.52)], 1_000, 'quiet', null],
    ['event: a burst of volume (5× the slow rate, ≥ 200 shares)', [book(0, 50), trade(1, 'buy', 300)], 1_000, 'event', 'volume-burst'],
    ['trending: a 3¢ drift over a minute, in 1¢ steps', [book(0, 50), book(20_000, 51), book(40_000, 52), book(60_000, 53)], 61_000, 'trending', 'mid-move'],
    [
      'a trend holds while the move stays above half (hysteresis)',
      [book(0, 50), book(20_000, 51), book(40_000, 52), book(60_000, 53), book(90_000, 53), book(121_000, 55)],
      121_000,
      'trending',
      'mid-move',
    ],
    [
      'and ends below half of it',
      [book(0, 50), book(20_000, 51), book(40_000, 52), book(60_000, 53), book(125_000, 53), book(185_000, 53)],
      186_000,
      'quiet',
      null,
    ],
    ['halted: the market closed', [book(0, 50), meta(10, { status: 'closed' })], 20, 'halted', 'status'],
    ['halted: trading blocked', [book(0, 50), { type: 'MarketBlocked', marketId: M, reason: 'halted', ts: 10 }], 20, 'halted', 'halted'],
    ['halted outranks an event', [book(0, 50), book(1_000, 50), book(3_000, 53), meta(3_100, { status: 'resolved' })], 4_000, 'halted', 'status'],
  ];
  for (const [name, events, now, regime, cause] of table) {
    it(name, () => {
      const v = view(run(events, R), now);
      assert.deepEqual([v.regime, v.regimeCause], [regime, cause]);
    });
  }

  it("an oracle jump is measured against the oracle's own noise once it has a few readings", () => {
    // readings scattering ±4¢ around 50¢: their mean |Δ| is ~8¢, so a 9¢ change is noise, not news
    const noisy = [0.5, 0.54, 0.5, 0.46, 0.5, 0.54].map((p, i) => oracle(10 + i * 30_000, p));
    const at = 10 + 6 * 30_000;
    const noise9 = [book(0, 50), ...noisy, oracle(at, 0.45)];
    assert.equal(view(run(noise9, R), at + 1).regime, 'quiet');
    // the same 9¢ with the noise bar off (oracleJumpNoise: 0) is an event, as a fixed threshold reads it
    const off = { ...R, regime: { ...R.regime, oracleJumpNoise: 0 } };
    assert.deepEqual([view(run(noise9, off), at + 1).regime, view(run(noise9, off), at + 1).regimeCause], ['event', 'oracle-jump']);
    // a 25¢ jump stands out of that noise
    const news = [book(0, 50), ...noisy, oracle(at, 0.79)];
    assert.deepEqual([view(run(news, R), at + 1).regime, view(run(news, R), at + 1).regimeCause], ['event', 'oracle-jump']);
    // a steady oracle: its first 5¢ move is an event as before
    const steady = [0.5, 0.5, 0.51, 0.5, 0.5].map((p, i) => oracle(10 + i * 30_000, p));
    const t = 10 + 5 * 30_000;
    assert.equal(view(run([book(0, 50), ...steady, oracle(t, 0.55)], R), t + 1).regime, 'event');
  });

  it('trending: one-way taker flow beyond trendImbalance', () => {
    const edge = { ...DEFAULT_EDGE, regime: { ...DEFAULT_REGIME, trendImbalance: 0.8, burstMinSize: 1e12 } };
    assert.deepEqual([view(run([book(0, 50), trade(1, 'buy', 50), trade(2, 'buy', 50)], edge), 10).regime], ['trending']);
    assert.deepEqual([view(run([book(0, 50), trade(1, 'buy', 50), trade(2, 'sell', 50)], edge), 10).regime], ['quiet']);
  });

  it('reduce-only: toxic own flow (markout ≤ −threshold over enough fills), and near the deadline', () => {
    const edge = {
      ...DEFAULT_EDGE,
      toxicityHorizonMs: 1_000,
      regime: { ...DEFAULT_REGIME, reduceOnlyMarkout: 2 * C, minFills: 2.5, midJump: 1e9, trendMove: 1e9 },
    };
    const evs: StateEvent[] = [book(0, 50)];
    // three buys at 49¢, each followed by the mid at 46¢ one second later (−3¢), then back to 50¢
    for (let k = 0; k < 3; k++) evs.push(fill(10_000 * k + 1_000, 0, 49, 10), book(10_000 * k + 1_500, 46), book(10_000 * k + 2_500, 50));
    const s = run(evs, edge);
    assert.deepEqual([view(s, 23_000).regime, view(s, 23_000).regimeCause], ['reduce-only', 'toxicity']);
    // two fills are not enough weight
    assert.equal(view(run(evs.slice(0, 7), edge), 13_000).regime, 'quiet');
    const dl = { ...DEFAULT_EDGE, regime: { ...DEFAULT_REGIME, reduceOnlyBeforeDeadlineMs: 60_000 } };
    const s2 = run([book(0, 50), meta(0, { deadline: 100_000 })], dl);
    assert.equal(view(s2, 39_999).regime, 'quiet');
    assert.deepEqual([view(s2, 40_000).regime, view(s2, 40_000).regimeCause], ['reduce-only', 'deadline']);
  });

  it('the store counts regime transitions and when the current one began', () => {
    const s = run([book(0, 50), book(1_000, 50), book(3_000, 53), book(40_000, 53), book(70_000, 53)]);
    const e = s.markets.get(M.toLowerCase())!.edge;
    // quiet → event at 3 s → trending at 40 s (first event after the hold) → quiet at 70 s
    assert.equal(e.transitions, 3);
    assert.equal(e.regime, 'quiet');
    assert.equal(e.regimeSince, 70_000);
  });
});

describe('edge: config section', () => {
  it('parses horizons and thresholds in human units, refuses bad ones with the path', async () => {
    const { parseEdge } = await import('../../src/config/parse-edge.ts');
    const e = parseEdge({ markoutHorizonsSeconds: [2, 20], toxicityHorizonSeconds: 20, regime: { midJump: 0.05, eventHoldSeconds: 10 } }, 'edge');
    assert.deepEqual(e.markoutHorizonsMs, [2_000, 20_000]);
    assert.equal(e.toxicityHorizonMs, 20_000);
    assert.equal(e.regime.midJump, 50_000);
    assert.equal(e.regime.eventHoldMs, 10_000);
    assert.equal(parseEdge(undefined, 'edge'), DEFAULT_EDGE);
    assert.throws(() => parseEdge({ markoutHorizonsSeconds: [10, 5] }, 'edge'), /edge\.markoutHorizonsSeconds\[1\]: expected horizons in increasing order/);
    assert.throws(() => parseEdge({ toxicityHorizonSeconds: 7 }, 'edge'), /edge\.toxicityHorizonSeconds: expected one of the markout horizons/);
    assert.throws(() => parseEdge({ regime: { midJump: 'big' } }, 'edge'), /edge\.regime\.midJump/);
    assert.throws(() => parseEdge({ horizons: [1] }, 'edge'), /horizons/);
  });
});

it('toxicityStdErr: the weighted standard error of the toxicity average (equal weights: s/√n)', async () => {
  const { toxicityStdErr } = await import('../../src/state/edge-view.ts');
  // markouts 1, 2, 3, 4 of one share each: mean 2.5, sample sd √(5/3), stderr √(5/3)/2
  assert.ok(Math.abs(toxicityStdErr({ toxNum: 10, toxDen: 4, toxSq: 30, toxW2: 4 })! - Math.sqrt(5 / 3) / 2) < 1e-12);
  assert.equal(toxicityStdErr({ toxNum: 1, toxDen: 1, toxSq: 1, toxW2: 1 }), null, 'one fill: unknown');
  assert.equal(toxicityStdErr({ toxNum: 0, toxDen: 0, toxSq: 0, toxW2: 0 }), null);
});

it('toxicityStdErr with pick-offs kept apart: the variance at the break-even share, c·J + (1 − π*)·var(rest) + π*·var(pick-offs)', async () => {
  const { toxicityStdErr } = await import('../../src/state/edge-view.ts');
  // rest: 1 and 3 (mean c = 2, var 1); pick-offs: −19 and −21 (mean loss J = 20, var 1); one share each
  const e = { toxNum: 1 + 3 - 19 - 21, toxDen: 4, toxSq: 1 + 9 + 361 + 441, toxW2: 4, toxCount: 4, toxPDen: 2, toxPNum: -40, toxPSq: 802 };
  const pi = 2 / 22;
  assert.ok(Math.abs(toxicityStdErr(e)! - Math.sqrt((2 * 20 + (1 - pi) * 1 + pi * 1) / 4)) < 1e-12);
  // no pick-offs, only pick-offs, or the rest losing too: the sample's variance
  const wald = toxicityStdErr({ toxNum: e.toxNum, toxDen: 4, toxSq: e.toxSq, toxW2: 4 });
  assert.equal(toxicityStdErr({ ...e, toxPDen: 0, toxPNum: 0, toxPSq: 0 }), wald);
  // fewer than two fills' worth of pick-offs (one of four here): the normal bound would be far off
  assert.equal(toxicityStdErr({ ...e, toxCount: 3 }), wald);
  assert.equal(toxicityStdErr({ ...e, toxPDen: 4, toxPNum: e.toxNum, toxPSq: e.toxSq }), wald);
  const losing = { toxNum: -1 - 3 - 19 - 21, toxDen: 4, toxSq: 812, toxW2: 4, toxCount: 4, toxPDen: 2, toxPNum: -40, toxPSq: 802 };
  assert.equal(toxicityStdErr(losing), toxicityStdErr({ toxNum: losing.toxNum, toxDen: 4, toxSq: 812, toxW2: 4 }));
});

it('the settled markouts keep picked-off fills apart (below −edge.pickoffMarkout, default 5¢), in the market and in the pool', async () => {
  const { foldMarkout, NO_TOXICITY } = await import('../../src/state/edge-state.ts');
  const { parseEdge } = await import('../../src/config/parse-edge.ts');
  assert.equal(DEFAULT_EDGE.pickoffMarkout, 50_000);
  let p = foldMarkout(NO_TOXICITY, 1_000, -60_000, 2, Infinity, 50_000);
  p = foldMarkout(p, 2_000, -50_000, 3, Infinity, 50_000); // at the bound: not picked off
  p = foldMarkout(p, 3_000, 10_000, 1, Infinity, 50_000);
  assert.deepEqual([p.den, p.pden, p.pnum, p.psq], [6, 2, -120_000, 2 * 3.6e9]);
  assert.equal(parseEdge({ pickoffMarkout: 0.03 }, 'edge').pickoffMarkout, 30_000);
  assert.throws(() => parseEdge({ pickoffMarkout: 0 }, 'edge'), /edge\.pickoffMarkout/);
});
