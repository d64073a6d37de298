/**
 * The sweep reaction (src/strategy/sweep-react.ts): after a taker sweep, the side it moved toward is
 * pulled and the rest moves toward the sweep's furthest price; every shipped market maker applies it
 * when `afterSweep` is set, and nothing changes without it.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { activeSweep, applySweepReact, parseSweepReact, SWEEP_REACT_OFF, sweepShift } from '../../src/strategy/sweep-react.ts';
import { loadStrategy } from '../../src/strategy/registry.ts';
import type { DesiredQuote, ViewTrade } from '../../src/strategy/types.ts';
import { makeView, NOW, S } from './make-view.ts';

const C = 10_000;
const trade = (agoMs: number, takerSide: 'buy' | 'sell', cents: number, shares = 200): ViewTrade => ({
  price: cents * C,
  size: shares * S,
  takerSide,
  ts: NOW - agoMs,
});
const q = (side: 'bid' | 'ask', cents: number, size = 25): DesiredQuote => ({ side, price: cents * C, size: size * S, level: 0 });
const sides = (qs: DesiredQuote[]) => qs.map((x) => `${x.side}@${x.price / C}`);
// the default book is 48 / 52 (mid 50); a buying sweep of 400 shares reaching 56 cents, 3 s ago
const buySweep = [trade(4_000, 'buy', 53), trade(3_000, 'buy', 56)];
const sellSweep = [trade(4_000, 'sell', 47), trade(3_000, 'sell', 44)];
const both = [q('bid', 48), q('ask', 52)];

describe('activeSweep / applySweepReact', () => {
  it('off (the default): quotes unchanged, no sweep seen', () => {
    const v = makeView({ trades: buySweep });
    assert.equal(activeSweep(v, SWEEP_REACT_OFF), null);
    assert.equal(applySweepReact(both, v, SWEEP_REACT_OFF), both);
    assert.equal(applySweepReact(both, v, parseSweepReact(undefined, 'p')), both);
  });
  it('a buying sweep pulls the asks and moves the bids all the way to its furthest price; a selling sweep the mirror', () => {
    const cfg = parseSweepReact({ seconds: 10 }, 'p');
    assert.deepEqual(activeSweep(makeView({ trades: buySweep }), cfg), { side: 'buy', price: 56 * C });
    // the bid moves by 56 − 50 = 6 cents, but stays a tick under the best ask (52)
    assert.deepEqual(sides(applySweepReact(both, makeView({ trades: buySweep }), cfg)), ['bid@51']);
    assert.deepEqual(sides(applySweepReact(both, makeView({ trades: sellSweep }), cfg)), ['ask@49']);
  });
  it('shift: a fraction of the way, in whole ticks; 0 only pulls', () => {
    const v = makeView({ trades: buySweep, bids: [{ price: 40 * C, size: 100 * S }], asks: [{ price: 60 * C, size: 100 * S }] });
    // mid 50, sweep 56: half the way is 3 cents
    const half = parseSweepReact({ seconds: 10, shift: 0.5 }, 'p');
    assert.equal(sweepShift(v, activeSweep(v, half)!, half), 3 * C);
    assert.deepEqual(sides(applySweepReact([q('bid', 45), q('ask', 55)], v, half)), ['bid@48']);
    assert.deepEqual(sides(applySweepReact([q('bid', 45), q('ask', 55)], v, parseSweepReact({ seconds: 10, shift: 0.45 }, 'p'))), ['bid@47']);
    assert.deepEqual(sides(applySweepReact([q('bid', 45), q('ask', 55)], v, parseSweepReact({ seconds: 10, shift: 0 }, 'p'))), ['bid@45']);
  });
  it('a book already past the sweep moves nothing; the swept-toward side is still pulled', () => {
    const v = makeView({ trades: buySweep, bids: [{ price: 57 * C, size: 100 * S }], asks: [{ price: 59 * C, size: 100 * S }] });
    assert.deepEqual(sides(applySweepReact([q('bid', 56), q('ask', 60)], v, parseSweepReact({ seconds: 10 }, 'p'))), ['bid@56']);
  });
  it('lasts `seconds` after the sweep’s last print; a run short of sweepShares is no sweep', () => {
    assert.deepEqual(sides(applySweepReact(both, makeView({ trades: buySweep }), parseSweepReact({ seconds: 2.9 }, 'p'))), ['bid@48', 'ask@52']);
    assert.deepEqual(sides(applySweepReact(both, makeView({ trades: buySweep }), parseSweepReact({ seconds: 3 }, 'p'))), ['bid@51']);
    assert.deepEqual(sides(applySweepReact(both, makeView({ trades: buySweep }), parseSweepReact({ seconds: 10, sweepShares: 401 }, 'p'))), [
      'bid@48',
      'ask@52',
    ]);
  });
  it('a small print after the sweep does not end the reaction; the newest sweep wins', () => {
    const cfg = parseSweepReact({ seconds: 10 }, 'p');
    assert.deepEqual(sides(applySweepReact(both, makeView({ trades: [...buySweep, trade(1_000, 'sell', 50, 5)] }), cfg)), ['bid@51']);
    assert.deepEqual(sides(applySweepReact(both, makeView({ trades: [...buySweep, trade(2_000, 'sell', 47), trade(1_000, 'sell', 46)] }), cfg)), ['ask@49']);
  });
  it('maxPosition: a side that would take the net position past it is left out, sweep or not', () => {
    const cfg = parseSweepReact({ seconds: 10, maxPosition: 30 }, 'p');
    assert.deepEqual(sides(applySweepReact(both, makeView({ net: 10 * S }), cfg)), ['ask@52']);
    assert.deepEqual(sides(applySweepReact(both, makeView({ net: 5 * S }), cfg)), ['bid@48', 'ask@52']);
    assert.deepEqual(sides(applySweepReact(both, makeView({ net: 10 * S, trades: buySweep }), cfg)), []);
    assert.deepEqual(sides(applySweepReact(both, makeView({ net: -10 * S, trades: sellSweep }), cfg)), []);
  });
  it('only: nothing is quoted without a recent sweep', () => {
    const cfg = parseSweepReact({ seconds: 10, only: true }, 'p');
    assert.deepEqual(sides(applySweepReact(both, makeView({ trades: [] }), cfg)), []);
    assert.deepEqual(sides(applySweepReact(both, makeView({ trades: [trade(1_000, 'buy', 53)] }), cfg)), []);
    assert.deepEqual(sides(applySweepReact(both, makeView({ trades: buySweep }), cfg)), ['bid@51']);
  });
  it('bad config is refused with its path', () => {
    assert.throws(() => parseSweepReact({ seconds: -1 }, 'p.afterSweep'), /p\.afterSweep\.seconds/);
    assert.throws(() => parseSweepReact({ seconds: 5, shift: 1.5 }, 'p.afterSweep'), /p\.afterSweep\.shift/);
    assert.throws(() => parseSweepReact({ seconds: 5, sweepShares: 0 }, 'p.afterSweep'), /p\.afterSweep\.sweepShares/);
    assert.throws(() => parseSweepReact({ seconds: 5, maxPosition: -1 }, 'p.afterSweep'), /p\.afterSweep\.maxPosition/);
    assert.throws(() => parseSweepReact({ seconds: 5, only: 'yes' }, 'p.afterSweep'), /p\.afterSweep\.only/);
    assert.throws(() => parseSweepReact({ second: 1 }, 'p.afterSweep'), /p\.afterSweep\.second/);
  });
});

describe('the market makers with afterSweep', () => {
  for (const [name, params] of [
    ['bands', { bands: [{ minMargin: 0.005, targetMargin: 0.01, maxMargin: 0.02, size: 25 }] }],
    ['oracle-anchored', { halfSpread: 0.01, size: 25 }],
    ['avellaneda', { gamma: 0.5, k: 150, minSpread: 0.02, size: 25 }],
    ['glft', { A: 0.05, k: 0.39, gamma: 0.05, minSpread: 0.02, size: 25 }],
    ['binary', { gamma: 0.5, k: 150, minSpread: 0.02, size: 25 }],
  ] as const) {
    it(`${name}: after a buying sweep the bid only, moved up; without afterSweep both sides`, async () => {
      const mod = await loadStrategy(name);
      const view = makeView({ trades: buySweep });
      const plain = mod.quote(view, mod.parseConfig(params, 'p')) ?? [];
      assert.deepEqual(plain.map((x) => x.side).sort(), ['ask', 'bid']);
      // without the key the parsed config is as before (the backtest report embeds it)
      assert.ok(!('afterSweep' in (mod.parseConfig(params, 'p') as object)));
      const reacted = mod.quote(view, mod.parseConfig({ ...params, afterSweep: { seconds: 10, shift: 0.5 } }, 'p')) ?? [];
      assert.deepEqual(
        reacted.map((x) => x.side),
        ['bid'],
      );
      const bid = plain.find((x) => x.side === 'bid')!.price;
      assert.ok(reacted[0]!.price > bid && reacted[0]!.price < 52 * C, `${reacted[0]!.price} vs ${bid}`);
    });
  }
});
