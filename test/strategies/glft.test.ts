/** glft: the closed form (checked against hftbacktest's formulas by hand), and its quotes: width, inventory skew, clamps, the guard. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import glft from '../../strategies/glft/index.ts';
import { glftCoefficients, glftQuotes } from '../../strategies/glft/model.ts';
import { makeView, S } from '../strategy/make-view.ts';

test('glft: c1, c2, half spread and skew', () => {
  // A 0.05 /s, k 0.4 /tick, γ = ξ = 0.05, Δ 1
  const c = glftCoefficients({ A: 0.05, k: 0.4, gamma: 0.05, xi: 0.05, delta: 1 });
  const c1 = 20 * Math.log(1 + 0.05 / 0.4);
  const c2 = Math.sqrt((0.05 / (2 * 0.05 * 0.4)) * Math.pow(1 + 0.05 / 0.4, 0.4 / 0.05 + 1));
  assert.ok(Math.abs(c.c1 - c1) < 1e-12 && Math.abs(c.c2 - c2) < 1e-12);
  const q = glftQuotes(c, 0.2, 1);
  assert.ok(Math.abs(q.half - (c1 + 0.5 * 0.2 * c2)) < 1e-12);
  assert.ok(Math.abs(q.skew - 0.2 * c2) < 1e-12);
  // more risk aversion: wider and more skew
  const risky = glftQuotes(glftCoefficients({ A: 0.05, k: 0.4, gamma: 0.5, xi: 0.5, delta: 1 }), 0.2, 1);
  assert.ok(risky.skew > q.skew);
});

test('glft: quotes around the mid, skewed by inventory, within the spread bounds', () => {
  const base = { A: 0.05, k: 0.4, gamma: 0.05, sigma: 0.002, size: 10, minSpread: 0.02, maxSpread: 0.2 };
  const cfg = glft.parseConfig(base, 'p');
  const flat = glft.quote(makeView(), cfg)!;
  const c = glftCoefficients({ A: 0.05, k: 0.4, gamma: 0.05, xi: 0.05, delta: 1 });
  const { half } = glftQuotes(c, 0.2, 1); // σ 0.002 = 0.2 ticks of 1¢
  const bid = flat.find((x) => x.side === 'bid')!.price;
  const ask = flat.find((x) => x.side === 'ask')!.price;
  assert.equal(bid, Math.floor((0.5 - half * 0.01) * 100) * 10_000, 'bid snapped down');
  assert.equal(ask, Math.ceil((0.5 + half * 0.01) * 100) * 10_000, 'ask snapped up');
  const long = glft.quote(makeView({ net: 50 * S }), cfg)!;
  assert.ok(long.find((x) => x.side === 'ask')!.price < ask, 'long: the ask comes down to sell');
  assert.ok(long.find((x) => x.side === 'bid')!.price < bid);
  const tight = glft.quote(makeView(), glft.parseConfig({ ...base, maxSpread: 0.02 }, 'p'))!;
  assert.deepEqual(
    tight.map((x) => x.price),
    [490_000, 510_000],
    'maxSpread clamps',
  );
  assert.equal(glft.quote(makeView({ bids: [], asks: [] }), cfg), null, 'no book: pull');
  assert.throws(() => glft.parseConfig({ A: 0 }, 'p'), /p\.A/);
});
