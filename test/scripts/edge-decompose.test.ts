/**
 * scripts/edge-decompose.ts and scripts/edge-oracle.ts (the decomposition of scripts/edge-decompose-run.ts,
 * the oracle maker of scripts/edge-oracle-maker.ts). The oracle maker's quotes on hand-built views; the
 * scripts on tiny runs (one seed, 0.05 h × 2 markets): the parts of a run sum to its PnL, and the
 * plumbing, not the figures.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { strategyConfig } from '../../scripts/edge-decompose-run.ts';
import { CALIBRATED_FIT } from '../../src/sim/flow-presets.ts';
import { parseOracleMakerConfig, quoteOracleMaker, setOracleFair } from '../../scripts/edge-oracle-maker.ts';
import { MARKET, makeView, S } from '../strategy/make-view.ts';

const cfg = (o: object) => parseOracleMakerConfig(o, 'params');

test('the oracle maker quotes at least d from the fair value, on the tick, never crossing the book', (t) => {
  t.after(() => setOracleFair(undefined));
  assert.equal(quoteOracleMaker(makeView(), cfg({})), null, 'no fair value: no quotes');
  setOracleFair((id) => (id.toLowerCase() === MARKET.toLowerCase() ? 0.4537 : undefined));
  // book 48/52 (makeView's default); F 45.37¢, d 1¢: bid 44¢ (≥ 1¢ below), ask 47¢ would cross the 48¢ bid: 49¢
  assert.deepEqual(quoteOracleMaker(makeView(), cfg({ d: 0.01, size: 5 })), [
    { side: 'bid', price: 440_000, size: 5 * S },
    { side: 'ask', price: 490_000, size: 5 * S },
  ]);
  // d 0 on a wide book: the ticks around F
  assert.deepEqual(
    quoteOracleMaker(makeView({ bids: [{ price: 300_000, size: S }], asks: [{ price: 700_000, size: S }] }), cfg({ d: 0, size: 1 }))?.map((q) => q.price),
    [450_000, 460_000],
  );
});

test('the oracle maker opens only away from the nearer bound with sides: away, only below maxPQ, and flattens below flattenPQ', (t) => {
  t.after(() => setOracleFair(undefined));
  const wide = { bids: [{ price: 100_000, size: S }], asks: [{ price: 900_000, size: S }] };
  setOracleFair(() => 0.3);
  // below ½ the ask is away from the bound (0); the bid only takes a short position down
  assert.deepEqual(
    quoteOracleMaker(makeView(wide), cfg({ d: 0.02, size: 10, sides: 'away' }))?.map((q) => [q.side, q.size]),
    [['ask', 10 * S]],
  );
  assert.deepEqual(
    quoteOracleMaker(makeView({ ...wide, net: -4 * S }), cfg({ d: 0.02, size: 10, sides: 'away' }))?.map((q) => [q.side, q.size]),
    [
      ['bid', 4 * S],
      ['ask', 10 * S],
    ],
  );
  // maxPQ 0.2: at 0.3 it opens nothing, and only takes a position down
  assert.deepEqual(quoteOracleMaker(makeView(wide), cfg({ d: 0.02, maxPQ: 0.2 })), []);
  assert.deepEqual(
    quoteOracleMaker(makeView({ ...wide, net: 4 * S }), cfg({ d: 0.02, size: 10, maxPQ: 0.2 }))?.map((q) => [q.side, q.size]),
    [['ask', 4 * S]],
  );
  setOracleFair(() => 0.06);
  assert.deepEqual(quoteOracleMaker(makeView({ ...wide, net: 7 * S }), cfg({ flattenPQ: 0.08 })), [{ side: 'ask', price: 100_000, size: 7 * S, reduce: true }]);
  assert.deepEqual(quoteOracleMaker(makeView(wide), cfg({ flattenPQ: 0.08 })), []);
  assert.throws(() => cfg({ sides: 'one' }), /params\.sides: both or away/);
  assert.throws(() => cfg({ dd: 1 }), /params\.dd: unknown setting/);
  assert.throws(() => cfg({ d: -0.01 }), /params\.d: a number in range/);
});

test('strategyConfig: the strategy swapped into config/backtest.yaml, the guard appended, and the requote interval replaced when given', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'edge-decompose-cfg-'));
  try {
    const plain = await strategyConfig(dir, 'bands', '{ inventorySkew: 0.002 }');
    assert.equal(plain.bot.orders.requoteIntervalMs, 1000, "config/backtest.yaml's 1 s");
    const fast = await strategyConfig(dir, 'bands', '{ inventorySkew: 0.002 }', { guard: true, requoteSeconds: 0 });
    assert.equal(fast.bot.orders.requoteIntervalMs, 0);
    assert.equal((fast.doc as { defaults: { strategy: { params: { toxicity: unknown } } } }).defaults.strategy.params.toxicity, true);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

const script = (name: string, ...args: string[]) =>
  spawnSync(process.execPath, ['--import', 'tsx', `scripts/${name}`, '--seeds', '9301', '--hours', '0.05', '--markets', '2', ...args], {
    encoding: 'utf8',
    timeout: 180_000,
  });

test("edge-decompose: a run's parts sum to its PnL; a candidate fit file is read, a bad one refused", () => {
  const dir = mkdtempSync(join(tmpdir(), 'edge-decompose-'));
  try {
    const fit = join(dir, 'fit.json');
    writeFileSync(fit, JSON.stringify({ informedRatePerSec: 0.479, noiseRatePerSec: 0.0714 }));
    const r = script('edge-decompose.ts', '--strategies', 'oracle-anchored', '--fit', fit);
    assert.equal(r.status, 0, r.stderr);
    const line = JSON.parse(r.stdout.split('\n')[0]!) as { strategy: string; residual: number; runs: { fills: number; pnl: number }[] };
    assert.equal(line.strategy, 'oracle-anchored');
    assert.ok(line.runs[0]!.fills > 0, 'the run has fills to take apart');
    assert.ok(line.residual < 1e-4, `parts sum to the PnL (residual ${line.residual})`);
    assert.match(r.stdout, /\| oracle-anchored \| [+−]\d/);
    writeFileSync(fit, JSON.stringify({ noSuchSetting: 1 }));
    const bad = script('edge-decompose.ts', '--strategies', 'bands', '--fit', fit);
    assert.notEqual(bad.status, 0);
    assert.match(bad.stderr, /--fit: noSuchSetting is not a finite CalibratedFit setting/);
    const unknown = script('edge-decompose.ts', '--strategies', 'nope');
    assert.notEqual(unknown.status, 0);
    assert.match(unknown.stderr, /--strategies: nope is not one of/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("edge-decompose --fit: the fit's own taker rates are the flow's, and the shipped fit's file is the shipped preset", () => {
  const dir = mkdtempSync(join(tmpdir(), 'edge-decompose-fit-'));
  try {
    const fit = join(dir, 'fit.json');
    type Line = { runs: { fills: number; pnl: number }[] };
    const first = (r: ReturnType<typeof script>): Line => JSON.parse(r.stdout.split('\n')[0]!) as Line;
    // the fit's taker rates only (over the preset, the preset's rates came back: the same run as the preset's)
    writeFileSync(fit, JSON.stringify({ ...CALIBRATED_FIT, informedRatePerSec: 4 * CALIBRATED_FIT.informedRatePerSec, noiseRatePerSec: 0 }));
    const rates = script('edge-decompose.ts', '--strategies', 'oracle-anchored', '--fit', fit);
    assert.equal(rates.status, 0, rates.stderr);
    writeFileSync(fit, JSON.stringify(CALIBRATED_FIT));
    const shipped = script('edge-decompose.ts', '--strategies', 'oracle-anchored', '--fit', fit);
    const preset = script('edge-decompose.ts', '--strategies', 'oracle-anchored');
    assert.equal(shipped.status, 0, shipped.stderr);
    assert.equal(preset.status, 0, preset.stderr);
    assert.ok(first(preset).runs[0]!.fills > 0);
    assert.deepEqual(first(shipped).runs, first(preset).runs, 'the shipped fit given as a file is the calibrated preset');
    assert.notDeepEqual(first(rates).runs, first(preset).runs, "the fit's taker rates reach the flow");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('edge-oracle: the oracle maker trades on the fitted flow, its parts sum to its PnL; a bad --sides is refused', () => {
  const r = script('edge-oracle.ts', '--d', '0.02', '--size', '5');
  assert.equal(r.status, 0, r.stderr);
  const line = JSON.parse(r.stdout.split('\n')[0]!) as { d: number; residual: number; runs: { fills: number }[]; perShare: { spread: { mean: number } } };
  assert.equal(line.d, 0.02);
  assert.ok(line.runs[0]!.fills > 0, 'the oracle maker is filled');
  assert.ok(line.residual < 1e-4, `parts sum to the PnL (residual ${line.residual})`);
  assert.match(r.stdout, /\| 2\.0 \| 5 \| both \| – \|/);
  const bad = script('edge-oracle.ts', '--sides', 'one');
  assert.notEqual(bad.status, 0);
  assert.match(bad.stderr, /--sides: both or away, got one/);
});
