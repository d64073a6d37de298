import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MatchingEngine } from '../../../src/engine/matching-engine.ts';
import type { EngineEvent } from '../../../src/engine/types.ts';
import { DEFAULT_MAKER, initMaker, stepMaker } from '../../../src/sim/agents/background-maker.ts';
import { DEFAULT_FAIR_VALUE, fairProbability, initFairValue, stepFairValue } from '../../../src/sim/agents/fair-value.ts';
import { createMarketAgents, stepMarketAgents, type MarketAgentsConfig } from '../../../src/sim/agents/market-agents.ts';
import { generateMarket } from '../../../src/sim/agents/market-metadata.ts';
import { snapPrice, toSubmitOrder } from '../../../src/sim/agents/order-builder.ts';
import { deriveSeed } from '../../../src/sim/agents/random-draws.ts';
import { createRng } from '../../../src/sim/rng.ts';

const T0 = 1_763_700_000_000;

function json(x: unknown): string {
  return JSON.stringify(x, (_k, v) => (typeof v === 'bigint' ? `${v}n` : v));
}

/** Drive one market's agents against a fresh engine for `steps` half-second steps. */
function run(seed: number, steps: number, extra: Partial<MarketAgentsConfig> = {}, markets = 1) {
  const events: EngineEvent[] = [];
  const engine = new MatchingEngine({ sink: (e) => events.push(e) });
  for (let i = 0; i < markets; i++) engine.addMarket();
  const traders = { maker: 0, noise: 1, informed: 2, otherMakers: [3] };
  for (let i = 0; i < 4; i++) {
    engine.addTrader();
    engine.deposit(i, 10_000_000_000_000n);
  }
  const agents = Array.from({ length: markets }, (_, m) => createMarketAgents({ seed, market: m, traders, initialProbability: 0.4, ...extra }, T0));
  const log: string[] = [];
  const oracle: number[] = [];
  const fairs: number[] = [];
  let rejected = 0;
  for (let s = 1; s <= steps; s++) {
    const nowMs = T0 + s * 500;
    for (const a of agents) {
      const m = a.market;
      const view = { market: m, tick: 10_000, bestBid: engine.bestBid(m), bestAsk: engine.bestAsk(m) };
      const r = stepMarketAgents(a, nowMs, view);
      if (m === 0) {
        for (const c of r.commands) log.push(json(c));
        if (r.oracle) oracle.push(r.oracle.probability);
        fairs.push(r.fairProbability);
      }
      for (const c of r.commands) {
        const res = engine.apply(c);
        if (!res.ok) rejected++;
      }
    }
  }
  return { engine, events, log, oracle, fairs, rejected, agents };
}

describe('simulated counterparties', () => {
  it('are deterministic by seed, and differ across seeds', () => {
    const a = run(42, 600);
    const b = run(42, 600);
    const c = run(43, 600);
    assert.ok(a.log.length > 100);
    assert.deepEqual(a.log, b.log);
    assert.deepEqual(a.oracle, b.oracle);
    assert.equal(json(a.events), json(b.events));
    assert.notDeepEqual(a.log, c.log);
  });

  it("a market's agents do not depend on other markets", () => {
    const one = run(7, 300, {}, 1);
    const three = run(7, 300, {}, 3);
    assert.deepEqual(one.log, three.log);
  });

  it('give every feed traffic: a two-sided book, fills of every agent, oracle updates near fair value', () => {
    const r = run(42, 1200); // 10 minutes
    const book = r.engine.book(0);
    assert.ok(book.bids.length >= 2 && book.asks.length >= 2, 'maker ladder on both sides');
    assert.ok(book.bids[0]!.price < book.asks[0]!.price);
    const fills = r.events.filter((e): e is Extract<EngineEvent, { type: 'fill' }> => e.type === 'fill');
    const takers = new Set(fills.map((f) => f.taker.trader));
    assert.ok(takers.has(1), 'noise taker traded');
    assert.ok(fills.length > 50, `fills: ${fills.length}`);
    assert.ok(r.oracle.length >= 5, `oracle updates: ${r.oracle.length}`);
    for (const p of r.oracle) assert.ok(p >= 0.01 && p <= 0.99);
    assert.equal(r.rejected, 0, 'agents only send orders the engine accepts');
    assert.deepEqual(r.engine.checkInvariants(), []);
  });

  it('the informed taker trades toward fair value', () => {
    // a stale resting ask far below fair value gets taken by the informed taker
    const engine = new MatchingEngine();
    const m = engine.addMarket();
    for (let i = 0; i < 4; i++) {
      engine.addTrader();
      engine.deposit(i, 10_000_000_000n);
    }
    engine.submit(toSubmitOrder({ market: m, trader: 3, outcome: 0, side: 'buy', price: 800_000, size: 5_000_000, nowMs: T0 })); // YES ask at 20¢
    const a = createMarketAgents(
      {
        seed: 1,
        market: m,
        traders: { maker: 0, noise: 1, informed: 2 },
        initialProbability: 0.7,
        informed: { ratePerSec: 10 },
        noise: { ratePerSec: 0 },
        maker: { refreshMs: 1e12 },
      },
      T0,
    );
    a.makers[0]!.state = { nextMs: Infinity };
    const r = stepMarketAgents(a, T0 + 5_000, { market: m, tick: 10_000, bestBid: engine.bestBid(m), bestAsk: engine.bestAsk(m) });
    assert.equal(r.commands.length, 1);
    const c = r.commands[0]!;
    assert.equal(c.type, 'submit');
    if (c.type === 'submit') {
      assert.equal(c.order.trader, 2);
      assert.equal(c.order.outcome, 1);
      assert.ok(c.order.price > 200_000 && c.order.price < r.fairProbability * 1e6);
    }
  });

  it('resolves at the deadline with payoutPcts 100/0, voiding the open ladder', () => {
    const r = run(5, 40, { endTimeMs: T0 + 10_000 });
    const info = r.engine.market(0)!;
    assert.equal(info.status, 'resolved');
    assert.ok(info.payoutYes === 0 || info.payoutYes === 1_000_000);
    assert.equal(r.engine.openOrders({ market: 0 }).length, 0);
    assert.ok(r.agents[0]!.resolved);
    assert.ok(r.events.some((e) => e.type === 'done' && e.voidReason === 'MARKET_RESOLVED'));
    assert.deepEqual(r.engine.checkInvariants(), []);
  });
});

describe('agent building blocks', () => {
  it('fair value stays inside its bounds and jumps', () => {
    const rng = createRng(9);
    const cfg = { ...DEFAULT_FAIR_VALUE, jumpRatePerSec: 0.05, jumpStd: 3 };
    let s = initFairValue(0.5, cfg, rng, 0);
    let maxMove = 0;
    for (let t = 1; t <= 2000; t++) {
      const before = fairProbability(s);
      s = stepFairValue(s, cfg, rng, t * 1000);
      const p = fairProbability(s);
      maxMove = Math.max(maxMove, Math.abs(p - before));
      assert.ok(p >= cfg.bound - 1e-12 && p <= 1 - cfg.bound + 1e-12);
    }
    assert.ok(maxMove > 0.1, 'a jump moved the fair value');
  });

  it('a lagging maker trails a jump of the fair value: part at once, the rest over lagSeconds', () => {
    const view = { market: 0, tick: 10_000, bestBid: 0, bestAsk: 0 };
    const cfg = { ...DEFAULT_MAKER, trader: 0, levels: 1, halfSpreadTicks: 1, fairNoise: 0, refreshMs: 1000, lagSeconds: 20, lagShare: 0.5 };
    /** the maker's bid (YES terms) after quoting at t with the fair value p */
    const bidAt = (st: ReturnType<typeof initMaker>, t: number, p: number) => {
      const r = stepMaker(cfg, st, createRng(1), t, view, p);
      const sub = r.commands.find((c) => c.type === 'submit' && c.order.outcome === 1);
      return { state: r.state, bid: sub && sub.type === 'submit' ? sub.order.price : NaN };
    };
    let st = initMaker(0);
    ({ state: st } = bidAt(st, 0, 0.4));
    // the fair value jumps 0.4 → 0.6: half of it at once, the other half still 0.2 behind
    let r = bidAt(st, 1000, 0.6);
    const trailing = 0.2 * Math.exp(-1 / 20);
    assert.equal(r.bid, snapPrice((0.6 - 0.5 * trailing) * 1e6 - 10_000, 10_000, 'down'));
    // 100 s later (5 lags) it has (nearly) caught up: 0.6 − 0.5·0.2·e^(−101/20) ≈ 0.5994
    for (let t = 2000; t <= 101_000; t += 1000) r = bidAt(r.state, t, 0.6);
    assert.equal(r.bid, snapPrice((0.6 - 0.1 * Math.exp(-101 / 20)) * 1e6 - 10_000, 10_000, 'down'));
    assert.ok(r.bid > bidAt(st, 1000, 0.6).bid);
    // no lag (the default): the quote follows the fair value at once
    const plain = stepMaker({ ...cfg, lagSeconds: 0 }, initMaker(0), createRng(1), 0, view, 0.4);
    const jumped = stepMaker({ ...cfg, lagSeconds: 0 }, plain.state, createRng(1), 1000, view, 0.6);
    assert.ok(jumped.commands.some((c) => c.type === 'submit' && c.order.outcome === 1 && c.order.price === 590_000));
  });

  it('maps high-level orders to the SDK V2 limits (docs/venue.md#from-a-limit-order-to-a-v2-order worked examples)', () => {
    const base = { market: 0, trader: 0, nowMs: 0 };
    const buy = toSubmitOrder({ ...base, outcome: 1, side: 'buy', price: 370_000, size: 12_345_678 });
    assert.deepEqual(
      [buy.kind, buy.maxShares, buy.minSharesOut, buy.maxCollateralIn, buy.minCollateralOut, buy.maxFee],
      [0, 0, 12_345_678, 4_613_580, 0, 45_679],
    );
    const inv = toSubmitOrder({ ...base, outcome: 1, side: 'sell', price: 610_000, size: 7_333_333 });
    assert.deepEqual([inv.kind, inv.maxShares, inv.maxCollateralIn, inv.minCollateralOut], [1, 7_333_333, 0, 4_428_600]);
    const mint = toSubmitOrder({ ...base, outcome: 0, side: 'sell', price: 620_000, size: 10_000_000, mode: 'mint' });
    assert.deepEqual([mint.kind, mint.maxShares, mint.maxCollateralIn, mint.minCollateralOut], [2, 10_000_000, 3_862_000, 0]);
  });

  it('snaps prices to the tick inside the valid range', () => {
    assert.equal(snapPrice(123_456, 10_000, 'down'), 120_000);
    assert.equal(snapPrice(123_456, 10_000, 'up'), 130_000);
    assert.equal(snapPrice(-5, 10_000), 10_000);
    assert.equal(snapPrice(2_000_000, 10_000), 990_000);
  });

  it('generates reproducible market metadata', () => {
    const a = generateMarket(createRng(3), T0);
    const b = generateMarket(createRng(3), T0);
    assert.deepEqual(a, b);
    assert.match(a.marketId, /^0x[0-9a-f]{64}$/);
    assert.ok(a.endTimeMs > T0 && a.initialProbability > 0 && a.initialProbability < 1);
    assert.match(a.question, /^Will .+\?$/);
    assert.notEqual(deriveSeed(1, 0, 'maker'), deriveSeed(1, 0, 'noise'));
    assert.notEqual(deriveSeed(1, 0, 'maker'), deriveSeed(1, 1, 'maker'));
  });

  it('gives every (seed, market) pair its own streams: no two seeds share a market', () => {
    // seeds 1-64 × markets 0-63 (as XORed together they drew only 64 distinct streams among 4,096)
    for (const name of ['fair', 'churn-market']) {
      const seen = new Map<number, string>();
      for (let seed = 1; seed <= 64; seed++)
        for (let market = 0; market < 64; market++) {
          const d = deriveSeed(seed, market, name);
          assert.equal(seen.get(d), undefined, `${name}: seed ${seed} market ${market} draws the streams of ${seen.get(d)}`);
          seen.set(d, `seed ${seed} market ${market}`);
        }
    }
  });
});
