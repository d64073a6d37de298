/** binary: p(1 − p) variance, quotes inside (0, 1), inventory risk growing toward the deadline, jump premium near it. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import binary from '../../strategies/binary/index.ts';
import { deadlineWeight, halfSpread, jumpPremium, priceSigma, reservation } from '../../strategies/binary/model.ts';
import { makeView, NOW, S } from '../strategy/make-view.ts';

const HOUR = 3_600_000;
const spread = (qs: ReturnType<typeof binary.quote>) => {
  const b = qs!.find((x) => x.side === 'bid');
  const a = qs!.find((x) => x.side === 'ask');
  return { bid: b?.price, ask: a?.price, width: a && b ? a.price - b.price : NaN };
};

test('binary model: σ scales with p(1 − p); deadline weight; terms', () => {
  assert.equal(priceSigma(0.5, 0.1), 0.025);
  assert.ok(Math.abs(priceSigma(0.9, 0.1) - 0.009) < 1e-15);
  assert.equal(deadlineWeight(NOW, NOW + 2 * HOUR, 3600), 0);
  assert.equal(deadlineWeight(NOW, NOW + HOUR / 2, 3600), 0.5);
  assert.equal(deadlineWeight(NOW, NOW - 1, 3600), 1);
  assert.equal(deadlineWeight(NOW, null, 3600), 0);
  const i = { p: 0.5, q: 2, gamma: 0.5, k: 150, sigmaLogit: 0.01, tau: 100, terminalRisk: 0.002, jumpPremium: 0.02, w: 0.5 };
  const s = 0.0025;
  assert.ok(Math.abs(reservation(i) - (0.5 - 2 * (0.5 * s * s * 100 + 0.002 * 0.25 * 0.5))) < 1e-15);
  assert.ok(Math.abs(halfSpread(i) - ((0.5 * s * s * 100) / 2 + 2 * Math.log(1 + 0.5 / 150))) < 1e-15);
  assert.ok(Math.abs(jumpPremium(i) - 0.02 * 0.5 * 0.5) < 1e-15);
});

test('binary quotes: wider near ½ than near the bounds, inside (0, 1), inventory risk and jump premium grow toward the deadline', () => {
  const cfg = binary.parseConfig({ sigmaLogit: 0.02, minSpread: 0.0, gamma: 0.5, size: 10, horizonCapSeconds: 3600 }, 'p');
  const mid = spread(binary.quote(makeView(), cfg));
  const edge = spread(binary.quote(makeView({ bids: [{ price: 940_000, size: 100 * S }], asks: [{ price: 960_000, size: 100 * S }] }), cfg));
  assert.ok(mid.width > edge.width, `σ ∝ p(1 − p): ${mid.width} at ½ > ${edge.width} at 0.95`);
  // at the upper bound the ask stays at or below 1 − tick
  const top = binary.quote(
    makeView({ bids: [{ price: 980_000, size: 100 * S }], asks: [{ price: 990_000, size: 100 * S }] }),
    binary.parseConfig({ minSpread: 0.1, size: 10 }, 'p'),
  )!;
  assert.ok(
    top.every((x) => x.price >= 10_000 && x.price <= 990_000),
    JSON.stringify(top),
  );
  // inventory: the same long position skews more an hour before the deadline than a week before
  const risk = binary.parseConfig({ sigmaLogit: 0.0005, terminalRisk: 0.01, jumpPremium: 0, size: 10 }, 'p');
  const far = spread(binary.quote(makeView({ net: 50 * S }), risk));
  const near = spread(binary.quote(makeView({ net: 50 * S, deadline: NOW + 60_000 }), risk));
  assert.ok(near.ask! < far.ask!, `long near the deadline: ask ${near.ask} below ${far.ask}`);
  // jump premium: wider close to resolution, flat inventory
  const jp = binary.parseConfig({ sigmaLogit: 0.0005, jumpPremium: 0.04, size: 10 }, 'p');
  assert.ok(spread(binary.quote(makeView({ deadline: NOW + 60_000 }), jp)).width > spread(binary.quote(makeView(), jp)).width);
  assert.throws(() => binary.parseConfig({ jumpPremium: 2 }, 'p'), /p\.jumpPremium/);
});

test('binary: σ_L is estimated in logit space', async () => {
  const { ewmaLogitSigma } = await import('../../strategies/binary/model.ts');
  // logit steps of 0.1 every second: σ_L = 0.1 per √s, wherever p is
  const logistic = (x: number) => Math.round(1e6 / (1 + Math.exp(-x)));
  const hist = Array.from({ length: 30 }, (_, i) => ({ ts: NOW - 30_000 + i * 1000, mid: logistic(2 + 0.1 * (i % 2)) }));
  assert.ok(Math.abs(ewmaLogitSigma(hist, 0.94, 0) - 0.1) < 1e-3);
  assert.equal(ewmaLogitSigma(hist.slice(0, 1), 0.94, 0.0005), 0.0005);
});
