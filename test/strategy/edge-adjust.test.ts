/**
 * The adverse-selection helper (src/strategy/edge-adjust.ts): a unit table from view.edge to the
 * adjustment, and its use by the three shipped strategies (wider, smaller, one-sided, pulled).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  EDGE_GUARD_DEFAULTS,
  edgeAdjust,
  guardedLadder,
  markoutsAdverse,
  NEUTRAL,
  normalQuantile,
  parseEdgeGuard,
  sideExtraHalf,
  sideSize,
  toxicityEvidence,
  type EdgeGuardConfig,
} from '../../src/strategy/edge-adjust.ts';
import type { DesiredQuote, ViewEdge } from '../../src/strategy/types.ts';
import { loadStrategy } from '../../src/strategy/registry.ts';
import { makeView, NOW, S } from './make-view.ts';

const C = 10_000;
function edge(o: Partial<ViewEdge> = {}): ViewEdge {
  return { regime: 'quiet', regimeSince: 0, regimeCause: null, toxicity: null, toxicityWeight: 0, flowImbalance: 0, flowSize: 0, markouts: [], ...o };
}
// the table is the responses themselves, with the gate open whatever the markouts (gate: always),
// without the size cut on adverse markouts (adverseSize: 1; tested apart below)
const ON: EdgeGuardConfig = { ...EDGE_GUARD_DEFAULTS, enabled: true, gate: 'always', adverseSize: 1 };

describe('edgeAdjust: view.edge → widening, size, sides', () => {
  // [name, edge, net position (shares), config, extraHalf (¢), sizeFactor, bid, ask]
  const table: [string, Partial<ViewEdge>, number, EdgeGuardConfig, number, number, boolean, boolean][] = [
    ['quiet, no fills: neutral', {}, 0, ON, 0, 1, true, true],
    ['switched off: neutral whatever the edge', { regime: 'event', toxicity: -5 * C, toxicityWeight: 10 }, 0, EDGE_GUARD_DEFAULTS, 0, 1, true, true],
    ['halted: pull', { regime: 'halted' }, 0, ON, 0, 0, false, false],
    ['reduce-only long: ask only', { regime: 'reduce-only' }, 10, ON, 0, 1, false, true],
    ['reduce-only short: bid only', { regime: 'reduce-only' }, -10, ON, 0, 1, true, false],
    ['reduce-only flat: nothing', { regime: 'reduce-only' }, 0, ON, 0, 1, false, false],
    ['event: +2¢, half size', { regime: 'event' }, 0, ON, 2, 0.5, true, true],
    ['event with pull: nothing', { regime: 'event' }, 0, { ...ON, event: { ...ON.event, pull: true } }, 0, 0, false, false],
    ['trending: +1¢, half size', { regime: 'trending' }, 0, ON, 1, 0.5, true, true],
    ['toxic: −2.5¢ markout → +2¢ (beyond ½¢), size × (1 − 0.25·2)', { toxicity: -2.5 * C, toxicityWeight: 4 }, 0, ON, 2, 0.5, true, true],
    ['toxic but too few fills: neutral', { toxicity: -2.5 * C, toxicityWeight: 2 }, 0, ON, 0, 1, true, true],
    ['benign markout: neutral', { toxicity: 1 * C, toxicityWeight: 10 }, 0, ON, 0, 1, true, true],
    ['very toxic: capped at +5¢, size floor 0.25', { toxicity: -20 * C, toxicityWeight: 10 }, 0, ON, 5, 0.25, true, true],
    ['toxic in an event: widenings add, sizes multiply', { regime: 'event', toxicity: -1.5 * C, toxicityWeight: 10 }, 0, ON, 3, 0.5 * 0.75, true, true],
    ['one-way buying flow: no ask', { flowImbalance: 0.9, flowSize: 500 * S }, 0, ON, 0, 1, true, false],
    ['one-way selling flow: no bid', { flowImbalance: -0.85, flowSize: 500 * S }, 0, ON, 0, 1, false, true],
    ['one-way but thin flow: both sides', { flowImbalance: 1, flowSize: 50 * S }, 0, ON, 0, 1, true, true],
  ];
  for (const [name, e, net, cfg, extra, size, bid, ask] of table) {
    it(name, () => {
      const a = edgeAdjust(makeView({ edge: edge(e), net: net * S }), cfg);
      assert.deepEqual([a.extraHalf / C, Math.round(a.sizeFactor * 1e9) / 1e9, a.bid, a.ask], [extra, size, bid, ask]);
    });
  }
  it('a view without edge (hand-built) is neutral', () => {
    assert.deepEqual(edgeAdjust(makeView(), ON).reasons, []);
  });
  it('parses YAML units; a boolean is the switch alone', () => {
    const c = parseEdgeGuard({ markoutThreshold: 0.01, maxWiden: 0.03, trending: { widen: 0.02 }, event: { pull: true } }, 'p.toxicity');
    assert.equal(c.enabled, true);
    assert.equal(c.markoutThreshold, 10_000);
    assert.equal(c.maxWiden, 30_000);
    assert.deepEqual(c.trending, { widen: 20_000, size: 0.5, pull: false });
    assert.equal(c.event.pull, true);
    assert.equal(parseEdgeGuard(true, 'p').enabled, true);
    assert.equal(parseEdgeGuard(undefined, 'p').enabled, false);
    assert.throws(() => parseEdgeGuard({ trending: { size: 0 } }, 'p.toxicity'), /p\.toxicity\.trending\.size/);
  });
});

describe('the gate: the helper acts only on markouts shown adverse with the stated confidence', () => {
  const M: EdgeGuardConfig = { ...EDGE_GUARD_DEFAULTS, enabled: true, confidence: 0.9 }; // gate: measured
  const adj = (e: Partial<ViewEdge>, cfg = M) => edgeAdjust(makeView({ edge: edge(e) }), cfg);
  it('is the default, at 80 % confidence: −1¢ ± 1¢ opens it (z 0.84), −1¢ ± 1.5¢ does not', () => {
    assert.equal(EDGE_GUARD_DEFAULTS.gate, 'measured');
    assert.equal(EDGE_GUARD_DEFAULTS.confidence, 0.8);
    const D: EdgeGuardConfig = { ...EDGE_GUARD_DEFAULTS, enabled: true };
    assert.deepEqual(adj({ toxicity: -1 * C, toxicityWeight: 10, toxicityStdErr: 1 * C }, D).reasons, ['adverse', 'toxicity']);
    assert.deepEqual(adj({ toxicity: -1 * C, toxicityWeight: 10, toxicityStdErr: 1.5 * C }, D).reasons, []);
    assert.equal(parseEdgeGuard(true, 'p').gate, 'measured');
  });
  it('backs off on a regime change or one-way flow without adverse markouts', () => {
    assert.deepEqual(adj({ regime: 'event' }).reasons, []);
    assert.deepEqual(adj({ regime: 'trending', toxicity: 1 * C, toxicityWeight: 10, toxicityStdErr: 0.5 * C }).reasons, []);
    assert.deepEqual(adj({ flowImbalance: 1, flowSize: 1000 * S, toxicity: 0.3 * C, toxicityWeight: 10, toxicityStdErr: 0.1 * C }).reasons, []);
  });
  it('engages when mean + z·stderr < 0: −1¢ ± 0.5¢ at 90 % (z 1.28) yes, −1¢ ± 1¢ no, and at 80 % (z 0.84) yes', () => {
    assert.deepEqual(adj({ regime: 'event', toxicity: -1 * C, toxicityWeight: 10, toxicityStdErr: 0.5 * C }).reasons, ['adverse', 'event', 'toxicity']);
    assert.deepEqual(adj({ regime: 'event', toxicity: -1 * C, toxicityWeight: 10, toxicityStdErr: 1 * C }).reasons, []);
    assert.deepEqual(adj({ regime: 'event', toxicity: -1 * C, toxicityWeight: 10, toxicityStdErr: 1 * C }, { ...M, confidence: 0.8 }).reasons, [
      'adverse',
      'event',
      'toxicity',
    ]);
  });
  it('needs minFills behind the markout and a standard error (two fills); halted and reduce-only act regardless', () => {
    assert.deepEqual(adj({ toxicity: -5 * C, toxicityWeight: 2, toxicityStdErr: 0.1 * C }).reasons, []);
    assert.deepEqual(adj({ toxicity: -5 * C, toxicityWeight: 5, toxicityStdErr: null }).reasons, []);
    assert.deepEqual(adj({ regime: 'halted' }).reasons, ['halted']);
    assert.deepEqual(adj({ regime: 'reduce-only' }).reasons, ['reduce-only']);
  });
  it('while the markouts are shown adverse, every size × adverseSize (default ½) on top of the rest; not otherwise', () => {
    assert.equal(EDGE_GUARD_DEFAULTS.adverseSize, 0.5);
    const shown = { toxicity: -0.3 * C, toxicityWeight: 10, toxicityStdErr: 0.1 * C }; // −0.3¢ ± 0.1¢: adverse, within the ½¢ threshold
    const a = adj(shown);
    assert.deepEqual([a.reasons, a.sizeFactor, a.extraHalf], [['adverse'], 0.5, 0]);
    const ev = adj({ ...shown, regime: 'event' });
    assert.deepEqual([ev.reasons, ev.sizeFactor, ev.extraHalf / C], [['adverse', 'event'], 0.25, 2]);
    assert.equal(adj(shown, { ...M, adverseSize: 1 }).sizeFactor, 1);
    // not shown adverse (the interval reaches 0): no cut, with gate: always too (the trending response alone)
    assert.equal(adj({ regime: 'trending', toxicity: -0.3 * C, toxicityWeight: 10, toxicityStdErr: 1 * C }, { ...M, gate: 'always' }).sizeFactor, 0.5);
    assert.equal(parseEdgeGuard({ adverseSize: 0.3 }, 'p').adverseSize, 0.3);
    assert.throws(() => parseEdgeGuard({ adverseSize: 0 }, 'p.toxicity'), /p\.toxicity\.adverseSize/);
  });
  it('normalQuantile: z at 0.9 / 0.95 / 0.975', () => {
    assert.ok(Math.abs(normalQuantile(0.9) - 1.2815516) < 1e-6);
    assert.ok(Math.abs(normalQuantile(0.95) - 1.6448536) < 1e-6);
    assert.ok(Math.abs(normalQuantile(0.975) - 1.959964) < 1e-6);
    assert.ok(Math.abs(normalQuantile(0.01) + 2.3263479) < 1e-6);
  });
  it('parses gate and confidence; a bad gate names the field', () => {
    const c = parseEdgeGuard({ gate: 'always', confidence: 0.95 }, 'p.toxicity');
    assert.equal(c.gate, 'always');
    assert.equal(c.confidence, 0.95);
    assert.throws(() => parseEdgeGuard({ gate: 'sometimes' }, 'p.toxicity'), /p\.toxicity\.gate/);
    assert.throws(() => parseEdgeGuard({ confidence: 0.3 }, 'p.toxicity'), /p\.toxicity\.confidence/);
  });
});

describe('the pooled prior: the market’s markout shrunk toward the account’s other markets', () => {
  const M: EdgeGuardConfig = { ...EDGE_GUARD_DEFAULTS, enabled: true, confidence: 0.9 }; // pooled, marketSpread ½¢
  const ev = (e: Partial<ViewEdge>, cfg = M) => toxicityEvidence(edge(e), cfg);
  const pool = (toxicity: number, stdErr: number, weight = 20) => ({ toxicity, stdErr, weight });
  it('a fresh market: the pool’s average with sd √(stderr² + marketSpread²); adverse when mean + z·sd < 0', () => {
    const e = ev({ pool: pool(-1 * C, 0.3 * C) })!;
    assert.equal(e.from, 'pool');
    assert.equal(e.mean, -1 * C);
    assert.ok(Math.abs(e.sd! - Math.hypot(0.3 * C, 0.5 * C)) < 1e-9);
    // −1¢ + 1.28 × 0.583¢ < 0: guarded; −0.6¢: not (−0.6 + 0.75 > 0)
    assert.equal(markoutsAdverse(edge({ pool: pool(-1 * C, 0.3 * C) }), M), true);
    assert.equal(markoutsAdverse(edge({ pool: pool(-0.6 * C, 0.3 * C) }), M), false);
    // a wider marketSpread trusts the pool less
    assert.equal(markoutsAdverse(edge({ pool: pool(-1 * C, 0.3 * C) }), { ...M, marketSpread: 1 * C }), false);
  });
  it('a pool short of minFills, without a standard error, or pooled: false is no prior', () => {
    assert.equal(ev({ pool: pool(-5 * C, 0.1 * C, 2) }), null);
    assert.equal(ev({ pool: { toxicity: -5 * C, stdErr: null, weight: 10 } }), null);
    assert.equal(ev({ pool: pool(-5 * C, 0.1 * C) }, { ...M, pooled: false }), null);
    assert.deepEqual(ev({ toxicity: -1 * C, toxicityWeight: 10, toxicityStdErr: 0.5 * C }, { ...M, pooled: false }), {
      mean: -1 * C,
      sd: 0.5 * C,
      from: 'market',
    });
  });
  it('with the market’s own evidence: precisions add, means weighed by them', () => {
    const e = ev({ toxicity: 2 * C, toxicityWeight: 10, toxicityStdErr: 0.5 * C, pool: pool(-1 * C, 0) })!;
    // prior sd ½¢ (marketSpread alone), own ½¢: equal weights
    assert.equal(e.from, 'both');
    assert.ok(Math.abs(e.mean - 0.5 * C) < 1e-6);
    assert.ok(Math.abs(e.sd! - 0.5 * C * Math.SQRT1_2) < 1e-6);
    // own earning fills outweigh an adverse pool: not guarded; own adverse fills in a benign account: guarded once they outweigh it
    assert.equal(markoutsAdverse(edge({ toxicity: 2 * C, toxicityWeight: 10, toxicityStdErr: 0.2 * C, pool: pool(-1 * C, 0.1 * C) }), M), false);
    assert.equal(markoutsAdverse(edge({ toxicity: -3 * C, toxicityWeight: 10, toxicityStdErr: 0.2 * C, pool: pool(1 * C, 0.1 * C) }), M), true);
    // own fills below minFills do not count yet: the pool alone
    assert.equal(ev({ toxicity: 5 * C, toxicityWeight: 2, toxicityStdErr: 0.1 * C, pool: pool(-1 * C, 0.1 * C) })!.from, 'pool');
  });
  it('the toxicity widening reads the same estimate: a fresh market in a −2.5¢ account is 2¢ wider', () => {
    const a = edgeAdjust(makeView({ edge: edge({ pool: pool(-2.5 * C, 0.2 * C) }) }), M);
    assert.deepEqual(a.reasons, ['adverse', 'toxicity']);
    assert.equal(a.extraHalf, 2 * C);
  });
});

describe('the prints’ evidence: the market’s print markout beside the pool', () => {
  const P: EdgeGuardConfig = { ...EDGE_GUARD_DEFAULTS, enabled: true, prints: true, printSpread: 2 * C }; // 80 %, z = 0.84
  const ev = (e: Partial<ViewEdge>, cfg = P) => toxicityEvidence(edge(e), cfg);
  const prints = (toxicity: number, stdErr: number, weight = 25) => ({ toxicity, stdErr, weight });
  it('alone: N(print average, stderr² + printSpread²); −4¢ prints open the gate, +2.4¢ and −1.4¢ do not', () => {
    const e = ev({ prints: prints(-4 * C, 0.5 * C) })!;
    assert.equal(e.from, 'prints');
    assert.equal(e.mean, -4 * C);
    assert.ok(Math.abs(e.sd! - Math.hypot(0.5 * C, 2 * C)) < 1e-9);
    assert.equal(markoutsAdverse(edge({ prints: prints(-4 * C, 0.5 * C) }), P), true);
    assert.equal(markoutsAdverse(edge({ prints: prints(2.4 * C, 0.5 * C) }), P), false);
    assert.equal(markoutsAdverse(edge({ prints: prints(-1.4 * C, 0.5 * C) }), P), false);
    // off (the default), short of minPrints, or without a standard error: no evidence
    assert.equal(ev({ prints: prints(-4 * C, 0.5 * C) }, EDGE_GUARD_DEFAULTS), null);
    assert.equal(ev({ prints: prints(-4 * C, 0.5 * C, 5) }), null);
    assert.equal(ev({ prints: { toxicity: -4 * C, stdErr: null, weight: 25 } }), null);
  });
  it('with the pool and the market’s own fills: precisions add', () => {
    // prints sd 2¢ (spread alone), pool ½¢ (marketSpread alone), own 1¢: weights 1/4, 4, 1
    const e = ev({ prints: prints(-4 * C, 0), pool: { toxicity: 1 * C, stdErr: 0, weight: 20 }, toxicity: -1 * C, toxicityWeight: 10, toxicityStdErr: 1 * C })!;
    assert.equal(e.from, 'all');
    assert.ok(Math.abs(e.mean - ((-4 * 0.25 + 1 * 4 + -1 * 1) / 5.25) * C) < 1e-6);
    assert.ok(Math.abs(e.sd! - C / Math.sqrt(5.25)) < 1e-6);
    const f = ev({ prints: prints(-4 * C, 0), toxicity: -1 * C, toxicityWeight: 10, toxicityStdErr: 1 * C })!;
    assert.equal(f.from, 'prints+market');
    assert.ok(Math.abs(f.mean - ((-4 * 0.25 + -1) / 1.25) * C) < 1e-6);
    assert.equal(ev({ prints: prints(-4 * C, 0), pool: { toxicity: 1 * C, stdErr: 0, weight: 20 } })!.from, 'prints+pool');
  });
  it('parses prints, printSpread and minPrints', () => {
    const c = parseEdgeGuard({ prints: true, printSpread: 0.03, minPrints: 20 }, 'p.toxicity');
    assert.deepEqual([c.prints, c.printSpread, c.minPrints], [true, 30_000, 20]);
    assert.throws(() => parseEdgeGuard({ printSpread: -1 }, 'p.toxicity'), /p\.toxicity\.printSpread/);
  });
});

describe('the shipped strategies use it', () => {
  const toxic = edge({ toxicity: -2.5 * C, toxicityWeight: 5 }); // +2¢ half spread, half size, halved again (adverse)
  const prices = (qs: DesiredQuote[] | null) => (qs ?? []).map((q) => [q.side, q.price, q.size / S]);
  const cases: [string, object][] = [
    ['bands', { bands: [{ minMargin: 0.01, targetMargin: 0.02, maxMargin: 0.03, size: 10 }] }],
    ['avellaneda', { sigma: 0.0001, minSpread: 0.04, maxSpread: 0.04, size: 10 }],
    ['oracle-anchored', { halfSpread: 0.02, size: 10, oracleWeight: 0 }],
  ];
  for (const [name, params] of cases) {
    it(`${name}: off by default; with toxicity on, 2¢ wider each side at half size on toxic flow, one-sided on one-way flow, pulled when halted`, async () => {
      const mod = await loadStrategy(name);
      const plain = mod.parseConfig(params, 'p');
      const guarded = mod.parseConfig({ ...params, toxicity: true }, 'p');
      const v = makeView({ edge: toxic });
      // default: the helper is off, quotes as without edge data
      assert.deepEqual(prices(mod.quote(v, plain)), prices(mod.quote(makeView(), plain)));
      assert.deepEqual(prices(mod.quote(makeView(), plain)), [
        ['bid', 480_000, 10],
        ['ask', 520_000, 10],
      ]);
      assert.deepEqual(prices(mod.quote(v, guarded)), [
        ['bid', 460_000, 2.5],
        ['ask', 540_000, 2.5],
      ]);
      // one-way flow: one side, once the markouts say the flow is adverse (the gate); not on flow shown benign
      assert.deepEqual(prices(mod.quote(makeView({ edge: edge({ flowImbalance: 1, flowSize: 1000 * S, toxicity: -0.2 * C, toxicityWeight: 5 }) }), guarded)), [
        ['bid', 480_000, 5],
      ]);
      assert.deepEqual(prices(mod.quote(makeView({ edge: edge({ flowImbalance: 1, flowSize: 1000 * S, toxicity: 0.2 * C, toxicityWeight: 5 }) }), guarded)), [
        ['bid', 480_000, 10],
        ['ask', 520_000, 10],
      ]);
      assert.deepEqual(prices(mod.quote(makeView({ edge: edge({ regime: 'halted' }) }), guarded)), []);
      assert.deepEqual(
        prices(mod.quote(makeView({ edge: edge({ regime: 'reduce-only' }), net: 20 * S, now: NOW }), guarded)).map((q) => q[0]),
        ['ask'],
      );
    });
  }
});

describe('per side: the side that reduces the position is spared the cuts, the side that adds takes them', () => {
  const M: EdgeGuardConfig = { ...EDGE_GUARD_DEFAULTS, enabled: true }; // gate: measured, perSide
  const toxic = { toxicity: -2.5 * C, toxicityWeight: 5, toxicityStdErr: 0.2 * C }; // +2¢, size × ½ × ½ (adverse)
  it('long: the ask reduces (its own half spread, full size up to the position), the bid takes the cut; short: the bid', () => {
    assert.equal(EDGE_GUARD_DEFAULTS.perSide, true);
    const long = edgeAdjust(makeView({ edge: edge(toxic), net: 20 * S }), M);
    assert.deepEqual([long.reduce, long.extraHalf / C, long.sizeFactor, long.reduceExtraHalf, long.reduceShares / S], ['ask', 2, 0.25, 0, 20]);
    assert.deepEqual([sideExtraHalf(long, 'bid') / C, sideExtraHalf(long, 'ask')], [2, 0]);
    assert.deepEqual([sideSize(10 * S, long, 'bid', S) / S, sideSize(10 * S, long, 'ask', S) / S], [2.5, 10]);
    const short = edgeAdjust(makeView({ edge: edge(toxic), net: -20 * S }), M);
    assert.deepEqual([short.reduce, sideSize(10 * S, short, 'bid', S) / S, sideSize(10 * S, short, 'ask', S) / S], ['bid', 10, 2.5]);
  });
  it('the reducing side quotes full size only up to the position: beyond it the cut', () => {
    const a = edgeAdjust(makeView({ edge: edge(toxic), net: 4 * S }), M);
    assert.equal(sideSize(10 * S, a, 'ask', S) / S, 4);
    const tiny = edgeAdjust(makeView({ edge: edge(toxic), net: 1 * S }), M);
    assert.equal(sideSize(10 * S, tiny, 'ask', S) / S, 2.5);
  });
  it('flat, neutral, or perSide: false: both sides alike', () => {
    assert.equal(edgeAdjust(makeView({ edge: edge(toxic) }), M).reduce, null);
    assert.equal(edgeAdjust(makeView({ edge: edge({ toxicity: 1 * C, toxicityWeight: 5, toxicityStdErr: 0.2 * C }), net: 20 * S }), M).reduce, null);
    const off = edgeAdjust(makeView({ edge: edge(toxic), net: 20 * S }), { ...M, perSide: false });
    assert.deepEqual([off.reduce, sideSize(10 * S, off, 'ask', S) / S, sideExtraHalf(off, 'ask') / C], [null, 2.5, 2]);
    assert.equal(parseEdgeGuard({ perSide: false }, 'p').perSide, false);
  });
  it('reduceTighten narrows the reducing side, down to one tick of half spread', () => {
    const cfg = parseEdgeGuard({ reduceTighten: 0.01 }, 'p.toxicity');
    assert.equal(cfg.reduceTighten, 10_000);
    assert.throws(() => parseEdgeGuard({ reduceTighten: 0.5 }, 'p.toxicity'), /p\.toxicity\.reduceTighten/);
    const a = edgeAdjust(makeView({ edge: edge(toxic), net: 20 * S }), cfg);
    assert.equal(a.reduceExtraHalf, -10_000);
    const spec = { center: 0.5, half: 0.02, spacing: 0.01, levels: 1, size: 10 * S, tick: 10_000 };
    const q = guardedLadder(spec, a, S).map((x) => [x.side, x.price, x.size / S]);
    assert.deepEqual(q, [
      ['bid', 460_000, 2.5],
      ['ask', 510_000, 10],
    ]);
    const far = edgeAdjust(makeView({ edge: edge(toxic), net: 20 * S }), { ...cfg, reduceTighten: 50_000 });
    assert.deepEqual(
      guardedLadder(spec, far, S)
        .filter((x) => x.side === 'ask')
        .map((x) => x.price),
      [510_000],
    );
  });
  it('guardedLadder without a reducing side is the ladder widened and cut alike, sides dropped as the adjustment says', () => {
    const spec = { center: 0.5, half: 0.02, spacing: 0.01, levels: 2, size: 10 * S, tick: 10_000, tag: 't' };
    const a = edgeAdjust(makeView({ edge: edge(toxic) }), M);
    assert.deepEqual(
      guardedLadder(spec, a, S).map((x) => [x.side, x.price, x.size / S, x.level]),
      [
        ['bid', 460_000, 2.5, 0],
        ['ask', 540_000, 2.5, 0],
        ['bid', 450_000, 2.5, 1],
        ['ask', 550_000, 2.5, 1],
      ],
    );
    // per side, the same order: level by level, bid first
    const l = edgeAdjust(makeView({ edge: edge(toxic), net: 20 * S }), M);
    assert.deepEqual(
      guardedLadder(spec, l, S).map((x) => [x.side, x.price, x.size / S, x.level]),
      [
        ['bid', 460_000, 2.5, 0],
        ['ask', 520_000, 10, 0],
        ['bid', 450_000, 2.5, 1],
        ['ask', 530_000, 10, 1],
      ],
    );
    assert.deepEqual(guardedLadder(spec, { ...a, sizeFactor: 0 }, S), []);
  });
  for (const name of ['bands', 'avellaneda', 'oracle-anchored', 'glft', 'binary']) {
    it(`${name}: long on toxic flow, the ask is the unguarded ask; the bid is wider and cut`, async () => {
      const mod = await loadStrategy(name);
      const params = name === 'bands' ? { bands: [{ minMargin: 0.01, targetMargin: 0.02, maxMargin: 0.03, size: 10 }] } : { size: 10 };
      const plain = mod.parseConfig(params, 'p');
      const guarded = mod.parseConfig({ ...params, toxicity: true }, 'p');
      const v = makeView({ edge: edge(toxic), net: 20 * S });
      const side = (qs: DesiredQuote[] | null, s: 'bid' | 'ask') => (qs ?? []).filter((q) => q.side === s).map((q) => [q.price, q.size / S]);
      const plainQ = mod.quote(v, plain);
      const guardQ = mod.quote(v, guarded);
      assert.ok(side(plainQ, 'ask').length > 0 && side(plainQ, 'bid').length > 0);
      assert.deepEqual(side(guardQ, 'ask'), side(plainQ, 'ask'));
      const [gb, pb] = [side(guardQ, 'bid'), side(plainQ, 'bid')];
      assert.equal(gb.length, pb.length);
      gb.forEach(([price, size], i) => {
        assert.ok(price! <= pb[i]![0]! - 2 * C + 10_000, `${name}: bid ${price} vs plain ${pb[i]![0]}`);
        assert.equal(size, pb[i]![1]! / 4);
      });
      // perSide: false: the ask takes the cut too
      const both = mod.quote(v, mod.parseConfig({ ...params, toxicity: { perSide: false } }, 'p'));
      assert.ok(side(both, 'ask').every(([, size]) => size === 2.5));
    });
  }
});

describe('pullAdding: on flow shown adverse, the side that would add to the position is pulled', () => {
  const M: EdgeGuardConfig = { ...EDGE_GUARD_DEFAULTS, enabled: true, pullAdding: true };
  const toxic = { toxicity: -2.5 * C, toxicityWeight: 5, toxicityStdErr: 0.2 * C };
  it('long: no bid, the ask unloads; short: no ask; flat: both sides, cut', () => {
    const long = edgeAdjust(makeView({ edge: edge(toxic), net: 20 * S }), M);
    assert.deepEqual([long.bid, long.ask, long.reduce, long.reasons.includes('pull-adding')], [false, true, 'ask', true]);
    const short = edgeAdjust(makeView({ edge: edge(toxic), net: -20 * S }), M);
    assert.deepEqual([short.bid, short.ask], [true, false]);
    const flat = edgeAdjust(makeView({ edge: edge(toxic) }), M);
    assert.deepEqual([flat.bid, flat.ask, flat.sizeFactor], [true, true, 0.25]);
    const spec = { center: 0.5, half: 0.02, spacing: 0.01, levels: 1, size: 10 * S, tick: 10_000 };
    assert.deepEqual(
      guardedLadder(spec, long, S).map((x) => [x.side, x.price, x.size / S]),
      [['ask', 520_000, 10]],
    );
  });
  it('not while the gate is shut, and off by default', () => {
    const benign = { toxicity: 1 * C, toxicityWeight: 5, toxicityStdErr: 0.2 * C };
    assert.equal(edgeAdjust(makeView({ edge: edge(benign), net: 20 * S }), M), NEUTRAL);
    // gate: always with markouts not shown adverse: the regime's response, both sides
    const ev = edgeAdjust(makeView({ edge: edge({ ...benign, regime: 'event' }), net: 20 * S }), { ...M, gate: 'always' });
    assert.deepEqual([ev.bid, ev.ask], [true, true]);
    assert.equal(EDGE_GUARD_DEFAULTS.pullAdding, false);
    const d = edgeAdjust(makeView({ edge: edge(toxic), net: 20 * S }), { ...M, pullAdding: false });
    assert.deepEqual([d.bid, d.ask], [true, true]);
  });
  it('parses pullAdding; a non-boolean names the field', () => {
    assert.equal(parseEdgeGuard({ pullAdding: true }, 'p.toxicity').pullAdding, true);
    assert.equal(parseEdgeGuard(true, 'p.toxicity').pullAdding, false);
    assert.throws(() => parseEdgeGuard({ pullAdding: 3 }, 'p.toxicity'), /p\.toxicity\.pullAdding/);
  });
  for (const name of ['bands', 'avellaneda', 'oracle-anchored', 'glft', 'binary']) {
    it(`${name}: long on toxic flow with pullAdding, no bid; the ask is the unguarded ask`, async () => {
      const mod = await loadStrategy(name);
      const params = name === 'bands' ? { bands: [{ minMargin: 0.01, targetMargin: 0.02, maxMargin: 0.03, size: 10 }] } : { size: 10 };
      const v = makeView({ edge: edge(toxic), net: 20 * S });
      const plainQ = mod.quote(v, mod.parseConfig(params, 'p')) ?? [];
      const q = mod.quote(v, mod.parseConfig({ ...params, toxicity: { pullAdding: true } }, 'p')) ?? [];
      assert.equal(q.filter((x) => x.side === 'bid').length, 0);
      assert.deepEqual(
        q.filter((x) => x.side === 'ask'),
        plainQ.filter((x) => x.side === 'ask'),
      );
    });
  }
});
