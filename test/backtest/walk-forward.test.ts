/**
 * Walk-forward: the grid runs on the first part only, the choice follows the stated criterion and
 * cannot depend on the second part, the second part runs the choice alone; ranking by PnL per volume
 * and by the worst window with a volume floor; the split flag; the CLI's table, JSON and errors.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { polymarketRecording } from '../bench/fixtures.ts';
import { loadReplaySource } from '../../src/backtest/replay-source.ts';
import { runSweep } from '../../src/backtest/run-sweep.ts';
import { runSweepJob } from '../../src/backtest/sweep-job.ts';
import { parseSweepSpec, rank, windowPnl, type SweepResult } from '../../src/backtest/sweep-grid.ts';
import { formatWalkForward, parseSplit, partFigures, runWalkForward, walkForwardJson } from '../../src/backtest/walk-forward.ts';
import type { BacktestSummary } from '../../src/backtest/report-summary.ts';
import { BadInputError } from '../../src/model/errors.ts';
import { bookmaker } from '../support/cli.ts';
import { bestOnFirstPart, CAPTURE_CRITERION, GUARDS, PREVIOUS_CRITERION } from '../bench/capture-walk-forward.ts';
import { parseEdgeGuard } from '../../src/strategy/edge-adjust.ts';

const GRID = { 'defaults.strategy.params.minSpread': [0.02, 0.04], 'defaults.strategy.params.size': [10, 25] };

test('ranking by PnL per volume and by the worst window: runs below minVolume after the rest, failures last', () => {
  const s = (pnl: number, volume: number) => ({ pnl: { total: pnl }, volume }) as unknown as BacktestSummary;
  const r = (index: number, pnl: number, volume: number, w?: number[]): SweepResult => ({
    index,
    combo: { k: index },
    summary: s(pnl, volume),
    ...(w ? { windowPnl: w } : {}),
  });
  const results: SweepResult[] = [
    r(0, 10, 1000, [8, -6, 4, 4]), // 1 % of volume, worst window −6
    r(1, 3, 100, [1, 1, 0, 1]), // 3 %, worst 0
    r(2, 5, 40, [2, 2, 1, 0]), // 12.5 %, but under the floor
    { index: 3, combo: { k: 3 }, summary: null, error: 'boom' },
    r(4, -1, 500, [-1, 0, 0, 0]), // −0.2 %, worst −1
  ];
  assert.deepEqual(
    rank(results, 'pnlPerVolume', 50).map((x) => x.index),
    [1, 0, 4, 2, 3],
  );
  assert.deepEqual(
    rank(results, 'worstWindow', 50).map((x) => x.index),
    [1, 4, 0, 2, 3],
  );
  assert.deepEqual(
    rank(results, 'pnlPerVolume').map((x) => x.index),
    [2, 1, 0, 4, 3],
  );
  assert.deepEqual(
    rank(results, 'pnl', 50).map((x) => x.index),
    [0, 1, 4, 2, 3],
  );
});

test('windowPnl: each equal window from the PnL samples, summing to the last sample', () => {
  const t = [0, 10, 20, 30, 40];
  const pnl = [0, 1_000_000, -2_000_000, 500_000, 3_000_000];
  assert.deepEqual(windowPnl(t, pnl, 0, 40, 2), [-2, 5]);
  assert.deepEqual(windowPnl(t, pnl, 0, 40, 4), [1, -3, 2.5, 2.5]);
  assert.deepEqual(windowPnl([], [], 0, 40, 2), [0, 0]);
});

test('bad minVolume and windows in a sweep file are ConfigErrors', () => {
  assert.throws(() => parseSweepSpec({ grid: { 'a.x': [1] }, minVolume: -1 }, 's.yaml'), /minVolume: expected a volume/);
  assert.throws(() => parseSweepSpec({ grid: { 'a.x': [1] }, windows: 0 }, 's.yaml'), /windows: expected an integer/);
  assert.throws(() => parseSweepSpec({ grid: { 'a.x': [1] }, rankBy: 'luck' }, 's.yaml'), /pnlPerVolume, pnlPerVolumeLow, worstWindow/);
  assert.throws(() => parseSweepSpec({ grid: { 'a.x': [1] }, blockSeconds: 0 }, 's.yaml'), /blockSeconds: expected seconds from 1 to 86400/);
  const spec = parseSweepSpec({ grid: { 'a.x': [1] } }, 's.yaml');
  assert.equal(spec.minVolume, 0);
  assert.equal(spec.windows, 4);
  assert.equal(spec.blockSeconds, 60);
});

test('the split: a share of the window or a time, strictly inside its data', async () => {
  const data = await polymarketRecording();
  const src = loadReplaySource(data);
  const first = src.cols.lts[src.rows[0]!]!;
  const win = { from: first, to: first + 240_000 };
  const w = loadReplaySource(data, win);
  const last = w.cols.lts[w.rows[w.rows.length - 1]!]!;
  assert.deepEqual(parseSplit('50%', data, win, first), { split: Math.round((first + last) / 2), from: win.from, to: win.to });
  assert.equal(parseSplit('+1m', data, win, first).split, first + 60_000);
  for (const bad of ['0%', '100%', '150%', '+10m', 'soon'])
    assert.throws(
      () => parseSplit(bad, data, win, first),
      (e: unknown) => e instanceof BadInputError && /--walk-forward/.test(e.message),
      bad,
    );
});

test('walk-forward on a 2-minute window: chosen on the first part by the criterion, the choice alone run on the second, blind to it', async () => {
  const data = await polymarketRecording();
  const src = loadReplaySource(data);
  const from = src.cols.lts[src.rows[0]!]!;
  const split = from + 60_000;
  const to = from + 120_000;
  const spec = parseSweepSpec({ grid: GRID, rankBy: 'pnlPerVolume', minVolume: 1, fast: false, windows: 3 }, 'test');
  const wf = await runWalkForward({ configFile: 'config/backtest.yaml', data, from, to, split, spec, workers: 0, compareBy: 'pnlPerVolumeLow' });
  assert.equal(wf.total, 4);
  assert.equal(wf.ranked.length, 4);
  // the first part is exactly a sweep of [from, split), ranked by the criterion
  const plain = await runSweep({ configFile: 'config/backtest.yaml', data, from, to: split, spec, workers: 0 });
  assert.equal(JSON.stringify(wf.ranked), JSON.stringify(rank(plain, 'pnlPerVolume', 1)));
  for (const r of wf.ranked) assert.ok(r.summary && r.summary.recording.seconds <= 60, 'first part only');
  assert.ok(wf.chosen, 'a combination reached 1 USDC of volume');
  const eligible = plain.filter((r) => r.summary!.volume >= 1);
  const best = Math.max(...eligible.map((r) => r.summary!.pnl.total / r.summary!.volume));
  assert.equal(wf.chosen.summary!.pnl.total / wf.chosen.summary!.volume, best);
  // the second part: the chosen combination alone, on [split, to)
  const held = await runSweepJob({
    configFile: 'config/backtest.yaml',
    data,
    from: split,
    to,
    fast: false,
    windows: 3,
    index: wf.chosen.index,
    combo: wf.chosen.combo,
  });
  assert.equal(JSON.stringify(wf.heldOut!.summary), JSON.stringify(held.summary));
  assert.deepEqual(wf.heldOut!.windowPnl, held.windowPnl);
  assert.equal(wf.heldOut!.windowPnl!.length, 3);
  assert.ok(Date.parse(wf.heldOut!.summary!.recording.from) >= split);
  // the figures: windows sum to the part's PnL (the last sample is the end of the run)
  const p = partFigures(wf.heldOut!)!;
  assert.ok(Math.abs(p.windowPnl.reduce((a, b) => a + b, 0) - p.pnl) < 1e-6, `${p.windowPnl} vs ${p.pnl}`);
  // the blocks of the interval (1 minute: 2 of 30 s here are 1 block each… at least 2) sum to the part's PnL and volume
  for (const r of [...wf.ranked, wf.heldOut!]) {
    const b = r.blocks!;
    assert.ok(b.pnl.length >= 2 && b.pnl.length === b.volume.length);
    assert.ok(Math.abs(b.pnl.reduce((a, x) => a + x, 0) - r.summary!.pnl.total) < 1e-6 * b.pnl.length, `${b.pnl} vs ${r.summary!.pnl.total}`);
    assert.ok(Math.abs(b.volume.reduce((a, x) => a + x, 0) - r.summary!.volume) < 1e-6 * b.volume.length, `${b.volume} vs ${r.summary!.volume}`);
  }
  // blind to the second part: a longer second part changes nothing of the choice
  const longer = await runWalkForward({ configFile: 'config/backtest.yaml', data, from, to: from + 150_000, split, spec, workers: 0 });
  assert.deepEqual(longer.chosen!.combo, wf.chosen.combo);
  assert.equal(JSON.stringify(longer.ranked), JSON.stringify(wf.ranked));
  // the table and the JSON show the same figures (one function)
  const text = formatWalkForward(wf, spec);
  assert.match(text, /chosen by PnL per volume, among runs with volume ≥ 1 USDC/);
  const j = JSON.parse(walkForwardJson(wf, spec, data));
  assert.equal(j.format, 'bookmaker-walk-forward');
  assert.deepEqual(j.chosen.second.figures, JSON.parse(JSON.stringify(p)));
  assert.match(text, new RegExp(`second \\(held out\\)\\s+${p.pnl.toFixed(2)}\\s+${p.volume.toFixed(0)}\\s`));
  if (p.pnlPctOfVolumeCi) assert.ok(text.includes(`[${p.pnlPctOfVolumeCi.lo.toFixed(2)}, ${p.pnlPctOfVolumeCi.hi.toFixed(2)}] %`));
  // the ranked table's low95% column and the part's interval: one function (pnlPerVolumeBound)
  const c1 = partFigures(wf.chosen)!.pnlPctOfVolumeCi;
  if (c1) assert.match(text, new RegExp(`\\s${c1.lo.toFixed(2).replace('.', '\\.')}%\\s`));
  // another criterion for comparison (compareBy): the same first-part runs, its own choice scored on the second part
  const cmp = wf;
  const byLow = rank(wf.ranked, 'pnlPerVolumeLow', 1)[0]!;
  assert.equal(cmp.compared!.chosen!.index, byLow.index);
  assert.equal(cmp.compared!.heldOut!.index, byLow.index);
  assert.ok(Date.parse(cmp.compared!.heldOut!.summary!.recording.from) >= split);
  assert.equal(JSON.parse(walkForwardJson(cmp, spec, data)).compared.rankBy, 'pnlPerVolumeLow');
  // a floor nobody reaches: nothing chosen, nothing run on the second part
  const floor = { ...spec, grid: [['defaults.strategy.params.minSpread', [0.02]]] as const, minVolume: 1e9 };
  const none = await runWalkForward({ configFile: 'config/backtest.yaml', data, from, to, split, spec: floor, workers: 0 });
  assert.equal(none.chosen, null);
  assert.equal(none.heldOut, null);
  assert.match(formatWalkForward(none, floor), /chosen: none \(no combination reached 1000000000 USDC/);
  // every run failed (a misspelt key): said, with the first error
  const typo = { ...spec, grid: [['defaults.strategy.params.minSpreed', [0.02]]] as const };
  const failed = await runWalkForward({ configFile: 'config/backtest.yaml', data, from, to, split, spec: typo, workers: 0 });
  assert.equal(failed.chosen, null);
  assert.match(formatWalkForward(failed, typo), /chosen: none \(every run failed; the first: .*minSpreed: expected a known key/);
});

test('bookmaker backtest --walk-forward: the table on stdout, the JSON file, and its flag errors', async () => {
  const data = await polymarketRecording();
  const dir = mkdtempSync(join(tmpdir(), 'bookmaker-wfcli-'));
  try {
    const grid = join(dir, 'grid.yaml');
    writeFileSync(grid, 'grid:\n  defaults.strategy.params.minSpread: [0.02, 0.08]\nrankBy: worstWindow\nwindows: 2\nfast: false\n');
    const args = ['backtest', '-c', 'config/backtest.yaml', '--data', data, '--to', '+2m', '--sweep', grid, '--workers', '0'];
    const r = await bookmaker([...args, '--walk-forward', '50%', '--json', join(dir, 'wf.json')], { timeoutMs: 60_000 });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^walk-forward: 2 of 2 combinations on the first part \(2026-06-07T01:30/);
    assert.match(r.stdout, /chosen by the worst PnL of 2 equal windows.*; full mode \(queue model\)/);
    assert.match(r.stdout, /chosen: defaults\.strategy\.params\.minSpread = 0\.0[28]/);
    assert.match(r.stdout, /first \(chosen on\)/);
    assert.match(r.stdout, /second \(held out\)/);
    const j = JSON.parse(readFileSync(join(dir, 'wf.json'), 'utf8'));
    assert.equal(j.complete, true);
    assert.equal(j.ranked.length, 2);
    assert.equal(j.chosen.second.summary.settings.mode, 'full');
    // the split's own errors: the unit test above
    const e = await bookmaker([...args, '--walk-forward', '50%', '--shard', '0/2', '--json', join(dir, 'p.json')], { timeoutMs: 60_000 });
    assert.equal(e.code, 2, e.stderr);
    assert.match(e.stderr, /--walk-forward: expected a sweep on one machine/);
    const noSweep = await bookmaker(['backtest', '-c', 'config/backtest.yaml', '--data', data, '--walk-forward', '50%'], { timeoutMs: 60_000 });
    assert.equal(noSweep.code, 2);
    assert.match(noSweep.stderr, /--walk-forward: expected to be used with --sweep FILE/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the capture walk-forward chooses by the interval’s lower end: a strategy whose pick earned on a few lucky fills loses to one with many moderate ones', () => {
  assert.equal(CAPTURE_CRITERION.rankBy, 'pnlPerVolumeLow');
  assert.equal(PREVIOUS_CRITERION, 'pnlPerVolume');
  const pick = (s: string, pnl: number[], volume: number[]) => ({
    s,
    first: {
      index: 0,
      combo: {},
      summary: { pnl: { total: pnl.reduce((a, b) => a + b, 0) }, volume: volume.reduce((a, b) => a + b, 0) } as unknown as BacktestSummary,
      blocks: { pnl, volume },
    } satisfies SweepResult,
  });
  // ~a dozen fills: 1.15 on 76 (1.5 %), nearly all of it in two minutes
  const lucky = pick('lucky', [0.1, 0.9, -0.2, 0, 0.6, -0.3, 0.1, 0, -0.1, 0.05], [8, 20, 4, 0, 16, 8, 8, 0, 8, 4]);
  // many fills every minute: 1.1 % of 200, within ±0.5 % each minute
  const moderate = pick('moderate', [0.2, 0.25, 0.15, 0.3, 0.2, 0.2, 0.25, 0.2, 0.3, 0.15], [20, 20, 20, 20, 20, 20, 20, 20, 20, 20]);
  const { rankBy, minVolume } = CAPTURE_CRITERION;
  assert.equal(bestOnFirstPart([lucky, moderate], rankBy, minVolume)?.s, 'moderate');
  assert.equal(bestOnFirstPart([moderate, lucky], rankBy, minVolume)?.s, 'moderate');
  // the criterion before ranked the lucky one first
  assert.equal(bestOnFirstPart([lucky, moderate], PREVIOUS_CRITERION, minVolume)?.s, 'lucky');
  // below the floor: never the best, however it scored
  const small = pick('small', [0.5, 0.5], [20, 20]);
  assert.equal(bestOnFirstPart([small], rankBy, minVolume), null);
});

test('the capture walk-forward’s guard settings say what they do', () => {
  for (const g of GUARDS) {
    const cfg = parseEdgeGuard(g.value, 'toxicity');
    assert.equal(/off/.test(g.label), !cfg.enabled, g.label);
    if (!cfg.enabled) continue;
    // "ungated": every response on every tick; otherwise the measured markouts gate them
    assert.equal(/ungated/.test(g.label), cfg.gate === 'always', g.label);
    assert.equal(/event pull/.test(g.label), cfg.event.pull, g.label);
  }
});
