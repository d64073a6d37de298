/**
 * The account's pooled toxicity (src/state/edge-state.ts ToxicitySums, the store's toxicityPool) and
 * the guard reading it (src/strategy/edge-adjust.ts): fills picked off in one market leave a fresh
 * market guarded; fills that earn do not; the pool forgets with its half-life; a market's own fills
 * are not counted twice. Each case is an event script through the real reducer and view.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Bytes32 } from '../../src/model/order.ts';
import { DEFAULT_EDGE } from '../../src/state/edge-settings.ts';
import type { StateEvent } from '../../src/state/events.ts';
import { emptyState, type StoreState } from '../../src/state/market-state.ts';
import { selectMarketView } from '../../src/state/market-view.ts';
import { poolView, poolWithout } from '../../src/state/edge-view.ts';
import { DEFAULT_LIMITS, reduce } from '../../src/state/reduce.ts';
import { anyFill, topOfBook } from '../support/quoting.ts';
import { EDGE_GUARD_DEFAULTS, edgeAdjust, markoutsAdverse, parseEdgeGuard } from '../../src/strategy/edge-adjust.ts';

const A = ('0x' + 'a1'.repeat(32)) as Bytes32;
const B = ('0x' + 'b2'.repeat(32)) as Bytes32;
const S = 1_000_000;
const C = 10_000;
const GUARD = parseEdgeGuard(true, 'p.toxicity');

/** a YES book one cent either side of `midCents` */
const book = (m: Bytes32, ts: number, midCents: number): StateEvent => topOfBook(m, (midCents - 1) * C, (midCents + 1) * C, ts);
/** an own YES buy of `shares` at `cents` */
const buy = (m: Bytes32, ts: number, cents: number, shares = 10): StateEvent => anyFill(m, 1, 0, cents * C, shares * S, ts, `f${m.slice(2, 4)}${ts}`);
const release = (m: Bytes32, ts: number): StateEvent => ({ type: 'MarketReleased', marketId: m, keepPosition: false, ts });

/**
 * Market A: `n` buys 20 s apart, each at 50¢ with the mid at 50¢, the mid then `moveCents` away by
 * its 10 s markout (and back before the next buy): each fill's 10 s markout is `moveCents` + a
 * little noise (± 0.2¢ by turns, so the average has a standard error). Then A is released.
 */
function marketA(n: number, moveCents: number): StateEvent[] {
  const ev: StateEvent[] = [];
  for (let i = 0; i < n; i++) {
    const t = 1_000 + i * 20_000;
    ev.push(book(A, t - 500, 50), buy(A, t, 49), book(A, t + 5_000, 49 + moveCents + (i % 2 === 0 ? 0.2 : -0.2)), book(A, t + 11_000, 50));
  }
  ev.push(release(A, 1_000 + n * 20_000));
  return ev;
}

function run(events: StateEvent[]): StoreState {
  let s = emptyState();
  for (const e of events) s = reduce(s, e, DEFAULT_LIMITS);
  return s;
}
const edgeOf = (s: StoreState, m: Bytes32, now: number) => selectMarketView(s, m, now)!.edge!;

describe('the account pool: a fresh market starts from the account’s evidence', () => {
  it('after fills picked off elsewhere (A released), a fresh market B is guarded from its first tick', () => {
    const end = 1_000 + 8 * 20_000;
    const s = run([...marketA(8, -2), book(B, end + 1_000, 50)]);
    assert.equal(s.markets.has(A.toLowerCase()) || s.markets.has(A), false, 'A left the store');
    const e = edgeOf(s, B, end + 1_000);
    assert.equal(e.toxicity, null, 'B has no fills of its own');
    assert.ok(e.pool !== undefined && e.pool.toxicity !== null);
    assert.ok(Math.abs(e.pool.toxicity / C - -2) < 0.05, `pool average ${e.pool.toxicity / C}¢`);
    assert.ok(e.pool.weight > 7 && e.pool.weight <= 8);
    assert.equal(markoutsAdverse(e, GUARD), true);
    const adj = edgeAdjust(selectMarketView(s, B, end + 1_000)!, GUARD);
    assert.deepEqual(adj.reasons, ['adverse', 'toxicity']);
    assert.ok(adj.sizeFactor < 0.5 && adj.extraHalf > 0);
    // without the pool (the earlier gate): B is unguarded until its own fills prove it
    assert.deepEqual(edgeAdjust(selectMarketView(s, B, end + 1_000)!, { ...GUARD, pooled: false }).reasons, []);
  });

  it('fills that earned elsewhere leave a fresh market unguarded', () => {
    const end = 1_000 + 8 * 20_000;
    const s = run([...marketA(8, 2), book(B, end + 1_000, 50)]);
    const e = edgeOf(s, B, end + 1_000);
    assert.ok(e.pool!.toxicity! > 1.9 * C);
    assert.equal(markoutsAdverse(e, GUARD), false);
    assert.deepEqual(edgeAdjust(selectMarketView(s, B, end + 1_000)!, GUARD).reasons, []);
  });

  it('an adverse pool of too few fills (below minFills) does not engage', () => {
    const end = 1_000 + 2 * 20_000;
    const s = run([...marketA(2, -2), book(B, end + 1_000, 50)]);
    assert.ok(edgeOf(s, B, end + 1_000).pool!.weight < GUARD.minFills);
    assert.equal(markoutsAdverse(edgeOf(s, B, end + 1_000), GUARD), false);
  });

  it('forgets at edge.poolHalfLifeSeconds (default 30 min): the weight halves per half-life, and the guard lets go below minFills', () => {
    assert.equal(DEFAULT_EDGE.poolHalfLifeMs, 1_800_000);
    const end = 1_000 + 8 * 20_000;
    const s = run([...marketA(8, -2), book(B, end + 1_000, 50)]);
    const w0 = edgeOf(s, B, end).pool!.weight;
    const hl = DEFAULT_EDGE.poolHalfLifeMs;
    assert.ok(Math.abs(edgeOf(s, B, end + hl).pool!.weight / w0 - 0.5) < 1e-9);
    assert.ok(Math.abs(edgeOf(s, B, end + 2 * hl).pool!.weight / w0 - 0.25) < 1e-9);
    assert.equal(markoutsAdverse(edgeOf(s, B, end), GUARD), true);
    assert.ok(edgeOf(s, B, end + 2 * hl).pool!.weight < GUARD.minFills);
    assert.equal(markoutsAdverse(edgeOf(s, B, end + 2 * hl), GUARD), false);
  });

  it('a market’s own fills are not counted twice: alone in the account, its pool is empty', () => {
    const ev = marketA(8, -2);
    ev.pop(); // A stays
    const s = run(ev);
    const e = edgeOf(s, A, 200_000);
    assert.ok(s.toxicityPool.count > 7, 'the account pool holds A’s fills');
    assert.equal(e.pool!.weight, 0);
    assert.equal(e.pool!.toxicity, null);
    // its own evidence alone then decides, as without the pool
    assert.equal(markoutsAdverse(e, GUARD), markoutsAdverse(e, { ...GUARD, pooled: false }));
  });

  it('a market whose own fills earn backs off despite an adverse pool, as its evidence outweighs the prior', () => {
    const end = 1_000 + 8 * 20_000;
    const ev = marketA(8, -2);
    // B: ten buys, each 10 s markout +3¢ (± 0.2¢)
    for (let i = 0; i < 10; i++) {
      const t = end + 1_000 + i * 20_000;
      ev.push(book(B, t - 500, 50), buy(B, t, 49), book(B, t + 5_000, 52 + (i % 2 === 0 ? 0.2 : -0.2)), book(B, t + 11_000, 50));
    }
    const s = run(ev);
    const e = edgeOf(s, B, end + 1_000 + 10 * 20_000);
    assert.ok(e.toxicity! > 2.9 * C && e.pool!.toxicity! < -1.9 * C);
    assert.equal(markoutsAdverse(e, GUARD), false);
  });

  it('heavy tails: three pick-offs (−20¢) among thirteen fills earning +1.5¢ open the gate at 90 % (break-even variance), where the sample variance kept it shut', async () => {
    const { toxicityStdErr } = await import('../../src/state/edge-view.ts');
    const marks = [1.5, 1.5, 1.5, 1.5, -20, 1.5, 1.5, 1.5, 1.5, -20, 1.5, 1.5, 1.5, 1.5, -20, 1.5];
    const ev: StateEvent[] = [];
    marks.forEach((m, i) => {
      const t = 1_000 + i * 20_000;
      ev.push(book(A, t - 500, 50), buy(A, t, 49), book(A, t + 5_000, 49 + m), book(A, t + 11_000, 50));
    });
    const end = 1_000 + marks.length * 20_000;
    ev.push(release(A, end), book(B, end + 1_000, 50));
    const s = run(ev);
    const p = s.toxicityPool;
    assert.ok(Math.abs(p.pden / p.den - 3 / 16) < 0.01, 'three of sixteen fills kept apart as picked off');
    const e = edgeOf(s, B, end + 1_000);
    assert.ok(Math.abs(e.pool!.toxicity! / C - -2.53) < 0.05, `pool ${e.pool!.toxicity! / C}¢`);
    // break-even share 1.5 / 21.5; variance c·J = 1.5¢ × 20¢ = 30 ¢², over 16 fills' weight
    assert.ok(Math.abs(e.pool!.stdErr! / C - Math.sqrt(30 / p.den / (p.den / p.w2))) < 1e-6, `stderr ${e.pool!.stdErr! / C}¢`);
    // at 90 % (z 1.28): the break-even variance opens the gate ...
    const at90 = { ...GUARD, confidence: 0.9 };
    assert.equal(markoutsAdverse(e, at90), true);
    // ... where the sample's variance (no pick-offs kept apart: ±2.2¢) left the bound above zero
    const wald = toxicityStdErr({ toxNum: p.num, toxDen: p.den, toxSq: p.sq, toxW2: p.w2 })!;
    assert.ok(wald > 2.1 * C, `sample stderr ${wald / C}¢`);
    assert.equal(markoutsAdverse({ ...e, pool: { ...e.pool!, stdErr: wald } }, at90), false);
  });

  it('heavy tails, pick-offs rarer than break-even (1 in 24): the mean earns, and the break-even variance is no narrower than the sample’s', async () => {
    const { toxicityStdErr } = await import('../../src/state/edge-view.ts');
    const marks = [...Array<number>(12).fill(1.5), -20, ...Array<number>(11).fill(1.5)];
    const ev: StateEvent[] = [];
    marks.forEach((m, i) => {
      const t = 1_000 + i * 20_000;
      ev.push(book(A, t - 500, 50), buy(A, t, 49), book(A, t + 5_000, 49 + m), book(A, t + 11_000, 50));
    });
    const end = 1_000 + marks.length * 20_000;
    ev.push(release(A, end), book(B, end + 1_000, 50));
    const s = run(ev);
    const p = s.toxicityPool;
    const e = edgeOf(s, B, end + 1_000);
    assert.ok(e.pool!.toxicity! > 0);
    assert.ok(e.pool!.stdErr! >= toxicityStdErr({ toxNum: p.num, toxDen: p.den, toxSq: p.sq, toxW2: p.w2 })!);
    assert.equal(markoutsAdverse(e, GUARD), false);
  });

  it('a market with fills of its own: the others’ share is taken out once per pool and share (kept in its memo), the view decays it to each tick', () => {
    const end = 1_000 + 8 * 20_000;
    const ev = marketA(8, -2);
    ev.pop(); // A stays: the pool holds A's fills and B's
    for (let i = 0; i < 4; i++) {
      const t = end + 1_000 + i * 20_000;
      ev.push(book(B, t - 500, 50), buy(B, t, 49), book(B, t + 5_000, 51), book(B, t + 11_000, 50));
    }
    const s = run(ev);
    const mB = s.markets.get(B)!;
    assert.ok(mB.edge.pooled.den > 0, 'B has settled markouts of its own');
    const hl = mB.edge.settings.poolHalfLifeMs;
    const at = [end + 100_000, end + 101_000, end + 900_000];
    for (const now of at) assert.deepEqual(edgeOf(s, B, now).pool, poolView(poolWithout(s.toxicityPool, mB.edge.pooled, hl), now, hl), `at ${now}`);
    const rest = mB.memo.rest;
    assert.ok(rest !== null && rest.den > 0);
    edgeOf(s, B, end + 2_000_000);
    assert.equal(mB.memo.rest, rest, 'the same pool and share: not taken out again');
  });

  it('the guard default is pooled with marketSpread ½¢; both parse and a bad value names its field', () => {
    assert.equal(EDGE_GUARD_DEFAULTS.pooled, true);
    assert.equal(EDGE_GUARD_DEFAULTS.marketSpread, 5_000);
    const c = parseEdgeGuard({ pooled: false, marketSpread: 0.01 }, 'p.toxicity');
    assert.deepEqual([c.pooled, c.marketSpread], [false, 10_000]);
    assert.throws(() => parseEdgeGuard({ marketSpread: -1 }, 'p.toxicity'), /p\.toxicity\.marketSpread/);
    assert.throws(() => parseEdgeGuard({ pooled: 'yes' }, 'p.toxicity'), /p\.toxicity\.pooled/);
  });
});
