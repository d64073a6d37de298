import { test } from 'node:test';
import assert from 'node:assert/strict';
import avellaneda from '../../strategies/avellaneda/index.ts';
import { horizonSeconds, optimalSpread, reservationPrice } from '../../strategies/avellaneda/model.ts';
import { ewmaSigma } from '../../src/strategy/volatility.ts';
import { ConfigError } from '../../src/model/errors.ts';
import { makeView, NOW, S } from '../strategy/make-view.ts';

const base = { sigma: 0.001 }; // γ 0.5, k 150, horizon cap 3600 s, unit 10 shares, size 10

test('avellaneda: model formulas', () => {
  const i = { s: 0.5, q: 2, gamma: 0.5, sigma: 0.01, tau: 100, k: 150 };
  assert.ok(Math.abs(reservationPrice(i) - (0.5 - 2 * 0.5 * 1e-4 * 100)) < 1e-12);
  assert.ok(Math.abs(optimalSpread(i) - (0.5 * 1e-4 * 100 + 4 * Math.log(1 + 0.5 / 150))) < 1e-12);
  assert.equal(horizonSeconds(NOW, NOW + 30_000, 60, 3600), 60, 'floor');
  assert.equal(horizonSeconds(NOW, NOW + 600_000, 60, 3600), 600);
  assert.equal(horizonSeconds(NOW, NOW + 86_400_000, 60, 3600), 3600, 'cap');
  assert.equal(horizonSeconds(NOW, null, 60, 3600), 3600, 'no deadline');
  assert.equal(horizonSeconds(NOW, NOW - 5000, 60, 3600), 60, 'past deadline');
});

test('avellaneda: quote table', () => {
  const rows: { name: string; params: object; view: ReturnType<typeof makeView>; want: [string, number][] | null }[] = [
    {
      name: 'flat inventory, symmetric',
      params: base,
      view: makeView(),
      want: [
        ['bid', 490_000],
        ['ask', 510_000],
      ],
    },
    {
      name: 'long 2 units: reservation price below mid',
      params: base,
      view: makeView({ net: 20 * S }),
      want: [
        ['bid', 480_000],
        ['ask', 510_000],
      ],
    },
    {
      name: 'short 2 units: reservation price above mid',
      params: base,
      view: makeView({ net: -20 * S }),
      want: [
        ['bid', 490_000],
        ['ask', 520_000],
      ],
    },
    {
      name: 'high σ far from deadline: wide',
      params: { sigma: 0.01 },
      view: makeView(),
      want: [
        ['bid', 400_000],
        ['ask', 600_000],
      ],
    },
    {
      name: 'high σ 100 s before deadline: narrow',
      params: { sigma: 0.01 },
      view: makeView({ deadline: NOW + 100_000 }),
      want: [
        ['bid', 490_000],
        ['ask', 510_000],
      ],
    },
    {
      name: 'maxSpread clamps',
      params: { sigma: 0.01, maxSpread: 0.1 },
      view: makeView(),
      want: [
        ['bid', 450_000],
        ['ask', 550_000],
      ],
    },
    {
      name: 'minSpread clamps',
      params: { sigma: 0.0001, minSpread: 0.06 },
      view: makeView(),
      want: [
        ['bid', 470_000],
        ['ask', 530_000],
      ],
    },
    {
      name: 'two levels',
      params: { ...base, levels: 2, levelSpacing: 0.02 },
      view: makeView(),
      want: [
        ['bid', 490_000],
        ['ask', 510_000],
        ['bid', 470_000],
        ['ask', 530_000],
      ],
    },
    {
      name: 'heavy long near the floor: only the ask survives, clamped to one tick',
      params: { sigma: 0.01 },
      view: makeView({ bids: [{ price: 20_000, size: S }], asks: [{ price: 40_000, size: S }], net: 100 * S }),
      want: [['ask', 10_000]],
    },
    { name: 'no book: pull', params: base, view: makeView({ book: null }), want: null },
    { name: 'size below market minimum: pull', params: { ...base, size: 0.5 }, view: makeView(), want: null },
  ];
  for (const r of rows) {
    const cfg = avellaneda.parseConfig(r.params, 'params');
    const got = avellaneda.quote(r.view, cfg);
    assert.deepEqual(got && got.map((q) => [q.side, q.price]), r.want, r.name);
    if (got) for (const q of got) assert.equal(q.size, cfg.size, r.name);
  }
});

test('avellaneda: σ from the mid history (EWMA) matches the fixed-σ quote', () => {
  const midHistory = Array.from({ length: 40 }, (_, i) => ({ ts: NOW - (40 - i) * 1000, mid: i % 2 ? 510_000 : 500_000 }));
  assert.ok(Math.abs(ewmaSigma(midHistory, { lambda: 0.94, minSigma: 0 }) - 0.01) < 1e-9);
  const cfg = avellaneda.parseConfig({}, 'p');
  const got = avellaneda.quote(makeView({ midHistory }), cfg);
  assert.deepEqual(
    got!.map((q) => q.price),
    [400_000, 600_000],
  );
  // no usable history → minSigma
  assert.equal(ewmaSigma([{ ts: NOW, mid: 1 }], { lambda: 0.9, minSigma: 0.002 }), 0.002);
  assert.equal(
    ewmaSigma(
      [
        { ts: NOW, mid: 1 },
        { ts: NOW, mid: 900_000 },
      ],
      { lambda: 0.9, minSigma: 0.002 },
    ),
    0.002,
    'zero dt ignored',
  );
});

test('avellaneda: config errors name the path', () => {
  const bad: [unknown, RegExp][] = [
    [{ gamma: 0 }, /^m\.gamma: expected a number in \(0, 1000\], got 0/],
    [{ k: 'fast' }, /^m\.k: expected a number in \(0, 1000000\], got "fast"/],
    [{ levels: 1.5 }, /^m\.levels: expected an integer in \[1, 10\], got 1\.5/],
    [{ minSpread: 0.1, maxSpread: 0.05 }, /^m\.maxSpread: expected a number in \[0\.1, 1\]/],
    [{ horizonFloorSeconds: 600, horizonCapSeconds: 60 }, /^m\.horizonCapSeconds: expected a number in \[600, 31536000\]/],
    [{ gama: 1 }, /^m\.gama: expected a known key/],
    [{ sigma: -1 }, /^m\.sigma: expected a number in \(0, 1\]/],
  ];
  for (const [raw, re] of bad) {
    assert.throws(
      () => avellaneda.parseConfig(raw, 'm'),
      (e: unknown) => e instanceof ConfigError && re.test(e.message),
      JSON.stringify(raw),
    );
  }
});
