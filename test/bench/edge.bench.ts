/**
 * edge: strategies × flows × guard on synthetic markets (src/backtest/synthetic-source.ts), with 95 %
 * intervals over seeds, and a walk-forward on the real Polymarket capture. The goals:
 *   calibrated: at least one strategy's mean PnL > 0 with its 95 % interval above 0 (net of fees);
 *   toxic: the guard cuts the loss by ≥ 50 %; benign: the guard costs ≤ 10 % of PnL;
 *   capture walk-forward (parameters chosen on the first half, scored on the second): the best
 *   strategy's PnL ≥ −1 % of its volume at ≥ 150 USDC volume. Chosen by the lower end of the 95 %
 *   interval of PnL per volume over 1-minute blocks (test/bench/capture-walk-forward.ts,
 *   CAPTURE_CRITERION); the choice by PnL per volume alone (the criterion before) is printed beside it.
 * Closed loop (src/backtest/synthetic-source.ts liveSyntheticSource): each run generates its (flow,
 * seed) markets as it goes, the counterparties seeing the bot's quotes (EDGE_LOOP=open: generated once
 * per (flow, seed) and replayed for every strategy and guard setting, the counterparties blind). The seeds
 * are the bench's own (1…N, never tuned on). Size by environment: EDGE_SEEDS (default 6), EDGE_HOURS
 * (0.5), EDGE_MARKETS (4), EDGE_FLOWS (benign,calibrated,toxic), EDGE_STRATEGIES (all seven: the five market
 * makers, follow, a taker that runs with its own risk lines and the guard off only, and lopsided, a
 * small maker near the bounds without a guard, run with it off only),
 * EDGE_CAPTURE=0 skips the walk-forward, EDGE_GUARDS=off runs the guard off only (default off,on), EDGE_GATE=always measures the guard without its gate,
 * EDGE_GUARD sets the guard's block (default 'true', e.g. '{ pooled: false }' or '{ marketSpread: 0.01 }'),
 * EDGE_FIRST_SEED (1) moves the seeds (tuning runs use 9001…, never the bench's own), EDGE_EXTRA
 * adds settings to the params of avellaneda, glft and binary, replacing a key they already set (e.g.
 * 'flowLean: 0.01' or 'minSpread: 0.01'; EDGE_EXTRA_FOR names
 * others, e.g. EDGE_EXTRA_FOR=bands EDGE_EXTRA='afterPrint: { seconds: 20 }'),
 * EDGE_AGENTS (JSON) overrides the preset's agent settings but the takers' rates (refused but with benign alone), merged per agent (e.g. '{"fair":{"jumpRatePerSec":0.05}}':
 * how a preset's parameters are tried before they are changed in src/sim/flow-presets.ts),
 * EDGE_WF_LEANS (0,0.1) the flow leans the capture walk-forward chooses from, EDGE_WF_MIN_VOLUME (75) its
 * volume floor on the first half, EDGE_WF_WORKERS (2) its worker threads, EDGE_WF_SPLIT (50%) its split.
 * `npm run bench -- edge`.
 * Figure: the best calibrated strategy's mean PnL per market-hour (USDC); the table has the rest.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadBacktestConfig, type LoadedBacktestConfig } from '../../src/backtest/backtest-config.ts';
import { buildSummary } from '../../src/backtest/report-summary.ts';
import { runBacktest } from '../../src/backtest/run-backtest.ts';
import type { ReplaySource } from '../../src/backtest/replay-source.ts';
import { liveSyntheticSource, syntheticSource } from '../../src/backtest/synthetic-source.ts';
import { formatMeanCi, meanCi } from '../../src/backtest/mean-ci.ts';
import { FLOW_PRESETS, type AgentOverrides, type FlowPreset } from '../../src/sim/flow-presets.ts';
import { captureWalkForward, STRATEGY_EXAMPLES } from './capture-walk-forward.ts';
import { polymarketRecording } from './fixtures.ts';
import { report } from './lib.ts';
import { guardGoal } from '../../scripts/edge-table.ts';

const SEEDS = Number(process.env.EDGE_SEEDS ?? 6);
const FIRST_SEED = Number(process.env.EDGE_FIRST_SEED ?? 1);
const EXTRA = process.env.EDGE_EXTRA ?? '';
const HOURS = Number(process.env.EDGE_HOURS ?? 0.5);
const MARKETS = Number(process.env.EDGE_MARKETS ?? 4);
const FLOWS = (process.env.EDGE_FLOWS?.split(',') ?? [...FLOW_PRESETS]) as FlowPreset[];
const OPEN_LOOP = process.env.EDGE_LOOP === 'open';
const AGENTS = process.env.EDGE_AGENTS ? (JSON.parse(process.env.EDGE_AGENTS) as AgentOverrides) : undefined;
// a preset other than benign keeps its own taker rates over a caller's (src/sim/counterparties.ts): refuse them rather than drop them unseen
if (AGENTS && FLOWS.some((f) => f !== 'benign') && (AGENTS.noise?.ratePerSec !== undefined || AGENTS.informed?.ratePerSec !== undefined))
  throw new Error('EDGE_AGENTS: a preset keeps its own taker rates (noise/informed ratePerSec); try a fit with scripts/edge-decompose.ts --fit');

/** Strategy params for the bench: one object with the capture walk-forward's grid base (test/bench/capture-walk-forward.ts). */
const STRATEGY_PARAMS: Record<string, string> = { ...STRATEGY_EXAMPLES };
/** The `risk:` lines a strategy needs instead of config/backtest.yaml's `maxPosition: 500` (follow takes liquidity: config/strategies/follow.yaml). */
const STRATEGY_RISK: Record<string, string> = { follow: 'maxPosition: 25\n    allowCrossing: true' };
/** Strategies without the toxicity helper: run with the guard off only. */
const GUARDLESS = new Set(['follow', 'lopsided']);
const STRATEGIES = process.env.EDGE_STRATEGIES?.split(',') ?? Object.keys(STRATEGY_PARAMS);
// EDGE_EXTRA_FOR: the strategies EDGE_EXTRA is appended to (default the three model strategies)
const EXTRA_FOR = process.env.EDGE_EXTRA_FOR?.split(',') ?? ['avellaneda', 'glft', 'binary'];
/** Top-level `key: value` parts of a flow mapping's inside, split at the commas outside brackets. */
function topLevelParts(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let from = 0;
  for (let i = 0; i <= text.length; i++) {
    const c = text[i];
    if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') depth--;
    else if ((c === ',' && depth === 0) || i === text.length) {
      parts.push(text.slice(from, i).trim());
      from = i + 1;
    }
  }
  return parts.filter(Boolean);
}
/** `params` with `extra`'s settings: a top-level key the params already have is replaced (e.g. 'minSpread: 0.01', or 'bands: [...]'), others appended. */
function withExtra(params: string, extra: string): string {
  const keyOf = (part: string) => part.slice(0, part.indexOf(':')).trim();
  const parts = topLevelParts(params.trim().replace(/^\{/, '').replace(/\}$/, ''));
  for (const part of topLevelParts(extra)) {
    const i = parts.findIndex((x) => keyOf(x) === keyOf(part));
    if (i >= 0) parts[i] = part;
    else parts.push(part);
  }
  return `{ ${parts.join(', ')} }`;
}
if (EXTRA) for (const s of EXTRA_FOR) if (STRATEGY_PARAMS[s]) STRATEGY_PARAMS[s] = withExtra(STRATEGY_PARAMS[s]!, EXTRA);

const work = mkdtempSync(join(tmpdir(), 'bookmaker-edge-bench-'));
const base = readFileSync('config/backtest.yaml', 'utf8');
const strategyBlock = /defaults:\n  strategy:\n(?: {4}.*\n)+/;

/** config/backtest.yaml with another strategy (and its params with the guard on or off). */
async function configFor(strategy: string, guard: boolean, params = STRATEGY_PARAMS[strategy]!): Promise<LoadedBacktestConfig> {
  // EDGE_GATE=always: the guard without its gate (acts on regimes and flow whatever the markouts)
  const block = process.env.EDGE_GATE === 'always' ? '{ gate: always }' : (process.env.EDGE_GUARD ?? 'true');
  const p = guard ? params.replace(/ }$/, `, toxicity: ${block} }`) : params;
  let text = base.replace(strategyBlock, `defaults:\n  strategy:\n    name: ${strategy}\n    params: ${p}\n`);
  if (STRATEGY_RISK[strategy]) text = text.replace(/maxPosition: 500 .*/, STRATEGY_RISK[strategy]);
  const file = join(work, `${strategy}-${guard ? 'guard' : 'plain'}-${Buffer.from(p).toString('hex').slice(0, 24)}.yaml`);
  writeFileSync(file, text);
  return loadBacktestConfig(file);
}

async function score(source: ReplaySource, cfg: LoadedBacktestConfig): Promise<{ pnl: number; volume: number; fills: number; mk10: number | null }> {
  const run = await runBacktest({ source, ranking: null, config: cfg.bot, settings: cfg.settings });
  const s = buildSummary(run);
  return { pnl: s.pnl.total, volume: s.volume, fills: s.fills, mk10: s.markouts['10s'].centsPerShare };
}

/** The size and settings of a run, on each `edge: run` line: runs pooled into one interval must share them. */
const SETUP = {
  hours: HOURS,
  markets: MARKETS,
  loop: OPEN_LOOP ? 'open' : 'closed',
  ...(EXTRA ? { extra: EXTRA, extraFor: EXTRA_FOR.join(',') } : {}),
  ...(process.env.EDGE_GATE ? { gate: process.env.EDGE_GATE } : {}),
  ...(process.env.EDGE_GUARD ? { guardBlock: process.env.EDGE_GUARD } : {}),
  ...(AGENTS ? { agents: AGENTS } : {}),
};
const t0 = performance.now();
type Key = `${FlowPreset}|${string}|${'guard' | 'plain'}`;
const results = new Map<Key, { pnl: number; volume: number; fills: number; mk10: number | null }[]>();
const configs = new Map<string, LoadedBacktestConfig>();
// EDGE_GUARDS (off,on): the guard settings run for the strategies that have one (e.g. 'off' halves a long run)
const GUARDS = (process.env.EDGE_GUARDS ?? 'off,on').split(',').map((g) => g.trim() === 'on');
for (const s of STRATEGIES) for (const g of GUARDLESS.has(s) ? [false] : GUARDS) configs.set(`${s}|${g ? 'guard' : 'plain'}`, await configFor(s, g));
for (const flow of FLOWS) {
  for (let seed = FIRST_SEED; seed < FIRST_SEED + SEEDS; seed++) {
    const opts = { seed, hours: HOURS, markets: MARKETS, flow, ...(AGENTS ? { agents: AGENTS } : {}) };
    const open = OPEN_LOOP ? await syntheticSource(opts) : null;
    for (const [k, cfg] of configs) {
      const key = `${flow}|${k}` as Key;
      const r = await score(open ?? (await liveSyntheticSource(opts)), cfg);
      results.set(key, [...(results.get(key) ?? []), r]);
      // one line a run, so runs of disjoint seeds (EDGE_FIRST_SEED) can be pooled into one interval
      // (with the run's size and settings, so scripts/edge-table.ts can check that pooled runs match)
      process.stderr.write(`edge: run ${JSON.stringify({ flow, seed, key: k, pnl: r.pnl, volume: r.volume, fills: r.fills, mk10: r.mk10, ...SETUP })}\n`);
    }
    process.stderr.write(`edge: ${flow} seed ${seed} done (${((performance.now() - t0) / 1000).toFixed(0)} s)\n`);
  }
}

const rows: [string, string | number][] = [];
const lines = ['| flow | strategy | guard | PnL USDC mean [95 % CI] | volume USDC | PnL % of volume | 10 s markout ¢ |', '|---|---|---|---|---|---|---|'];
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
for (const flow of FLOWS) {
  for (const s of STRATEGIES) {
    for (const g of ['plain', 'guard'] as const) {
      if (g === 'guard' && GUARDLESS.has(s)) continue;
      if (!results.has(`${flow}|${s}|${g}`)) continue;
      const rs = results.get(`${flow}|${s}|${g}`) ?? [];
      const pnl = meanCi(rs.map((r) => r.pnl));
      const vol = mean(rs.map((r) => r.volume));
      const mk = rs.map((r) => r.mk10).filter((v): v is number => v !== null);
      lines.push(
        `| ${flow} | ${s} | ${g === 'guard' ? 'on' : 'off'} | ${formatMeanCi(pnl)} | ${vol.toFixed(0)} | ${vol > 0 ? ((pnl.mean / vol) * 100).toFixed(2) : '–'} % | ${mk.length ? mean(mk).toFixed(2) : '–'} |`,
      );
    }
  }
}

// goals
const goal: string[] = [];
let bestCal = { s: '', pnl: meanCi([]) };
if (FLOWS.includes('calibrated')) {
  for (const s of STRATEGIES) {
    for (const g of ['plain', 'guard'] as const) {
      if ((g === 'guard' && GUARDLESS.has(s)) || !results.has(`calibrated|${s}|${g}`)) continue;
      const c = meanCi((results.get(`calibrated|${s}|${g}`) ?? []).map((r) => r.pnl));
      if (!Number.isFinite(bestCal.pnl.mean) || c.mean > bestCal.pnl.mean) bestCal = { s: `${s} (guard ${g === 'guard' ? 'on' : 'off'})`, pnl: c };
    }
  }
  goal.push(
    `calibrated: best ${bestCal.s} mean PnL ${formatMeanCi(bestCal.pnl)} → ${bestCal.pnl.lo !== null && bestCal.pnl.lo > 0 ? 'MET' : 'NOT met'} (interval above 0)`,
  );
}
const guardEffect = (flow: FlowPreset): string[] =>
  STRATEGIES.filter((s) => !GUARDLESS.has(s) && results.has(`${flow}|${s}|plain`) && results.has(`${flow}|${s}|guard`)).map((s) => {
    const off = mean((results.get(`${flow}|${s}|plain`) ?? []).map((r) => r.pnl));
    const on = mean((results.get(`${flow}|${s}|guard`) ?? []).map((r) => r.pnl));
    // the cut and the cost: scripts/edge-table.ts guardGoal, which docs/edge.md's table reads too
    const g = guardGoal(flow === 'toxic' ? 'toxic' : 'benign', off, on);
    if (flow === 'toxic')
      return g.percent !== null
        ? `${s}: loss ${off.toFixed(2)} → ${on.toFixed(2)} (cut ${g.percent.toFixed(0)} %, goal ≥ 50 %: ${g.met ? 'MET' : 'NOT met'})`
        : `${s}: no loss without the guard (${off.toFixed(2)} → ${on.toFixed(2)})`;
    return g.percent !== null
      ? `${s}: ${off.toFixed(2)} → ${on.toFixed(2)} (cost ${g.percent.toFixed(1)} %, goal ≤ 10 %: ${g.met ? 'MET' : 'NOT met'})`
      : `${s}: no profit to cost (${off.toFixed(2)} → ${on.toFixed(2)})`;
  });
if (FLOWS.includes('toxic')) goal.push('toxic, guard:', ...guardEffect('toxic').map((x) => `  ${x}`));
if (FLOWS.includes('benign')) goal.push('benign, guard:', ...guardEffect('benign').map((x) => `  ${x}`));

// walk-forward on the capture: test/bench/capture-walk-forward.ts (the grid, the criterion, the choice of strategy)
if (process.env.EDGE_CAPTURE !== '0') {
  const wf = await captureWalkForward({
    dir: await polymarketRecording(),
    params: STRATEGY_PARAMS,
    // each strategy's grid: test/bench/capture-walk-forward.ts (follow's without a guard)
    strategies: STRATEGIES,
    baseConfig: base,
    strategyBlock,
    work,
    ...(process.env.EDGE_WF_SPLIT ? { split: process.env.EDGE_WF_SPLIT } : {}),
    minVolume: Number(process.env.EDGE_WF_MIN_VOLUME ?? 75),
    leans: (process.env.EDGE_WF_LEANS ?? '0,0.1').split(',').map(Number),
    workers: Number(process.env.EDGE_WF_WORKERS ?? 2),
    onStrategy: (s, runs) => process.stderr.write(`edge: capture walk-forward ${s}: ${runs} runs (${((performance.now() - t0) / 1000).toFixed(0)} s)\n`),
  });
  lines.push('', ...wf.lines);
  goal.push(wf.goal, wf.previous);
}
rmSync(work, { recursive: true, force: true });

process.stdout.write(
  `edge bench: ${SEEDS} seeds (from ${FIRST_SEED}) × ${HOURS} h × ${MARKETS} markets per flow, ${OPEN_LOOP ? 'open' : 'closed'} loop${EXTRA ? ` (${EXTRA})` : ''}${process.env.EDGE_GUARD ? ` guard ${process.env.EDGE_GUARD}` : ''}${AGENTS ? ` agents ${JSON.stringify(AGENTS)}` : ''} (${((performance.now() - t0) / 1000).toFixed(0)} s)\n${lines.join('\n')}\n\n${goal.join('\n')}\n`,
);
rows.push(['seeds × hours × markets', `${SEEDS} × ${HOURS} × ${MARKETS}`], ['best calibrated', `${bestCal.s} ${formatMeanCi(bestCal.pnl)}`]);
const perMarketHour = Number.isFinite(bestCal.pnl.mean) ? bestCal.pnl.mean / (HOURS * MARKETS) : NaN;
report(rows, { name: 'edge', unit: 'USDC per market-hour (best calibrated strategy, mean)', value: Math.round(perMarketHour * 1000) / 1000 });
