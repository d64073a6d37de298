/**
 * scripts/edge-estimators.ts and its maker (scripts/edge-estimator-maker.ts): the estimators and the
 * quotes on hand-built views; the script on a tiny run (one seed, 0.05 h × 2 markets): the plumbing,
 * not the figures.
 */
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { emptyErrors, estimate, parseEstimatorMakerConfig, quoteEstimatorMaker, recordErrors, setEstimatorRun } from '../../scripts/edge-estimator-maker.ts';
import { MARKET, makeView, NOW, S } from '../strategy/make-view.ts';

const cfg = (o: object) => parseEstimatorMakerConfig(o, 'params');
// a lopsided book: 6¢ bid × 300, 9¢ ask × 100 (the others'), two trades
const book = { bids: [{ price: 60_000, size: 300 * S }], asks: [{ price: 90_000, size: 100 * S }] };
const trades = [
  { price: 90_000, size: 10 * S, takerSide: 'buy' as const, ts: NOW - 20_000 },
  { price: 60_000, size: 30 * S, takerSide: 'sell' as const, ts: NOW - 1_000 },
];

test('the estimators read the others’ book, the trades and the oracle; the EWMAs move with the time between calls', () => {
  const memory = new Map();
  const e = estimate(makeView({ ...book, trades, oracle: { probability: 0.1, confidence: 0.5, updatedAt: NOW, ageMs: 0 } }), memory, 0.074);
  assert.equal(e.fair, 0.074);
  assert.equal(e.mid, 0.075);
  // microprice: (6·100 + 9·300) / 400 = 8.25¢
  assert.ok(Math.abs(e.micro! - 0.0825) < 1e-12);
  assert.equal(e.touch, 0.06, 'below ½ the bid, the side toward the bound');
  assert.equal(e.last, 0.06);
  // size-weighted, decayed e^(−age/10 s): 10·e^−2 at 9¢, 30·e^−0.1 at 6¢
  const w1 = 10 * Math.exp(-2);
  const w2 = 30 * Math.exp(-0.1);
  assert.ok(Math.abs(e.trades! - (w1 * 0.09 + w2 * 0.06) / (w1 + w2)) < 1e-12);
  assert.equal(e.oracle, 0.1);
  assert.deepEqual([e.ewma1, e.ewma3, e.ewma10, e.smooth], [0.075, 0.075, 0.075, 0.075], 'the first call starts at the mid');
  // one second later the mid is 8¢ (bid 7¢): the 1 s EWMA moves 1 − e^−1 of the way, the 10 s one 1 − e^−0.1
  const later = estimate(makeView({ bids: [{ price: 70_000, size: S }], asks: [{ price: 90_000, size: S }], now: NOW + 1_000 }), memory, undefined);
  assert.ok(Math.abs(later.ewma1! - (0.075 + (1 - Math.exp(-1)) * 0.005)) < 1e-12);
  assert.ok(Math.abs(later.ewma10! - (0.075 + (1 - Math.exp(-0.1)) * 0.005)) < 1e-12);
  assert.equal(later.smooth, later.ewma1);
  // a jump of more than 1.5¢ restarts smooth at the mid; the EWMAs trail
  const jump = estimate(makeView({ bids: [{ price: 90_000, size: S }], asks: [{ price: 120_000, size: S }], now: NOW + 2_000 }), memory, undefined);
  assert.equal(jump.smooth, 0.105);
  assert.ok(jump.ewma1! < 0.1);
  assert.equal(later.fair, undefined);
  // above ½ the touch toward the bound is the ask; no book: no book estimators
  assert.equal(estimate(makeView({ bids: [{ price: 900_000, size: S }], asks: [{ price: 930_000, size: S }] }), new Map(), undefined).touch, 0.93);
  assert.equal(estimate(makeView({ book: null }), new Map(), undefined).mid, undefined);
});

test('errors are kept in the buckets of min(F, 1 − F) they fall in', () => {
  const errors = emptyErrors();
  recordErrors(errors, { ...estimate(makeView(book), new Map(), 0.07) }, 0.07);
  recordErrors(errors, { ...estimate(makeView(book), new Map(), 0.85) }, 0.85);
  recordErrors(errors, { ...estimate(makeView(book), new Map(), 0.5) }, 0.5);
  // F 7¢: both buckets; F 85¢ (1 − F = 0.15): ≤ 0.2 only; F ½: neither
  assert.deepEqual(
    errors.mid.map((s) => s.n),
    [1, 2],
  );
  assert.ok(Math.abs(errors.mid[0]!.sum - 0.005) < 1e-12, 'mid 7.5¢ against F 7¢');
  assert.equal(errors.oracle[1]!.n, 0, 'no oracle answer: nothing recorded');
});

test('the estimator maker quotes d from its estimate, opens only where the estimate is within maxPQ of a bound, and records errors', (t) => {
  t.after(() => setEstimatorRun(undefined, undefined));
  setEstimatorRun(undefined, undefined);
  // mid 7.5¢, d 0.5¢: bid 7¢, ask 8¢
  assert.deepEqual(quoteEstimatorMaker(makeView(book), cfg({ source: 'mid', d: 0.005, size: 5 })), [
    { side: 'bid', price: 70_000, size: 5 * S },
    { side: 'ask', price: 80_000, size: 5 * S },
  ]);
  // source fair without a fair value: pull
  assert.equal(quoteEstimatorMaker(makeView(book), cfg({ source: 'fair' })), null);
  const errors = emptyErrors();
  setEstimatorRun((id) => (id === MARKET ? 0.3 : undefined), errors);
  // F 30¢ (beyond maxPQ 0.2) but the mid 7.5¢ is within it: the mid maker opens
  assert.equal(quoteEstimatorMaker(makeView(book), cfg({ source: 'mid', maxPQ: 0.2 }))?.length, 2);
  // the fair maker opens nothing there, and only takes a position down
  assert.deepEqual(quoteEstimatorMaker(makeView(book), cfg({ source: 'fair', maxPQ: 0.2 })), []);
  assert.deepEqual(
    quoteEstimatorMaker(makeView({ ...book, net: 3 * S }), cfg({ source: 'fair', maxPQ: 0.2, size: 5 }))?.map((q) => [q.side, q.size]),
    [['ask', 3 * S]],
  );
  assert.equal(errors.mid[1]!.n, 0, 'F 30¢ is in neither bucket');
  setEstimatorRun(() => 0.08, errors);
  quoteEstimatorMaker(makeView(book), cfg({ source: 'mid' }));
  assert.equal(errors.mid[1]!.n, 1);
  // insideOnly: book 6¢/8¢, mid 7¢: bid 6¢ and ask 8¢ join the others' touch and are dropped; at 6¢/9¢ (bid 7¢, ask 8¢) both improve it
  const narrow = { bids: [{ price: 60_000, size: 300 * S }], asks: [{ price: 80_000, size: 100 * S }] };
  assert.equal(quoteEstimatorMaker(makeView(narrow), cfg({ source: 'mid' }))?.length, 2);
  assert.deepEqual(quoteEstimatorMaker(makeView(narrow), cfg({ source: 'mid', insideOnly: true })), []);
  assert.deepEqual(
    quoteEstimatorMaker(makeView(book), cfg({ source: 'mid', insideOnly: true }))?.map((q) => q.price),
    [70_000, 80_000],
  );
  assert.throws(() => cfg({ insideOnly: 1 }), /params\.insideOnly: true or false/);
  assert.throws(() => cfg({ source: 'nope' }), /params\.source: one of fair, mid/);
  assert.throws(() => cfg({ dd: 1 }), /params\.dd: unknown setting/);
  assert.throws(() => cfg({ maxPQ: 0 }), /params\.maxPQ: a number in range/);
});

test('edge-estimators: the maker trades around its estimate on the fitted flow, the tables print; a bad source is refused', () => {
  const run = (...args: string[]) =>
    spawnSync(process.execPath, ['--import', 'tsx', 'scripts/edge-estimators.ts', '--seeds', '9501', '--hours', '0.05', '--markets', '2', ...args], {
      encoding: 'utf8',
      timeout: 180_000,
    });
  const r = run('--sources', 'fair,mid', '--max-pq', '0.5');
  assert.equal(r.status, 0, r.stderr);
  const lines = r.stdout.split('\n').filter((l) => l.startsWith('{'));
  assert.equal(lines.length, 2);
  const first = JSON.parse(lines[0]!) as { source: string; residual: number; errors: { fair: { n: number; rms: number }[] } };
  assert.equal(first.source, 'fair');
  assert.ok(first.residual < 1e-4, `parts sum to the PnL (residual ${first.residual})`);
  assert.equal(first.errors.fair[1]!.rms, 0, 'the fair value has no error');
  assert.match(r.stdout, /\| mid \| [+−]\d/);
  assert.match(r.stdout, /\| smooth \| ≤ 0\.2 \|/);
  const bad = run('--sources', 'nope');
  assert.notEqual(bad.status, 0);
  assert.match(bad.stderr, /--sources: each one of fair, mid/);
});
