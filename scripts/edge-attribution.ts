/**
 * Where a strategy loses on synthetic flow: each of the bot's fills set against the hidden fair
 * value of the closed-loop run (which the bot never sees; the diagnostics accessor of
 * src/backtest/synthetic-source.ts lends it to this script only).
 *
 *   node --import tsx scripts/edge-attribution.ts [--flow calibrated] [--seeds 9001-9003] [--hours 0.5]
 *     [--markets 4] [--agents '{ json }'] [--risk 'maxPosition: 25, allowCrossing: true']
 *     [--strategy NAME --params '{ yaml }'] ... [--base config/backtest.yaml]
 *
 * Per strategy, summed over the seeds:
 *   - the summary's attribution: spread capture (against the book's mid), inventory, fees;
 *   - the same PnL against the fair value: edge = Σ (fair − price) per share bought (price − fair
 *     per share sold) at the fill, and the rest (holding the position while the fair value moves,
 *     and the mark at the mid rather than the fair value at the end);
 *   - fills on the right side of the fair value (only noise takers trade there: an informed taker
 *     never buys above or sells below it) and on the wrong side (picked off: informed takers, or
 *     noise takers that happened to cross a stale quote), their shares and the mean distance of the
 *     bot's price from the fair value, and how far the oracle and the book's mid stood from it then;
 *   - the share of wrong-side fills within 30 s after a jump of the fair value (≥ 0.2 in logit
 *     within one agent step);
 *   - the fills, shares and edge by the fair value's distance from the nearer bound, min(p, 1 − p), and
 *     split by the side: toward the nearer bound (a bid below ½, an ask above) or away from it.
 * Prints one JSON line per strategy and a markdown table. docs/edge.md, "Where they lose".
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadBacktestConfig } from '../src/backtest/backtest-config.ts';
import { buildSummary } from '../src/backtest/report-summary.ts';
import { runBacktest } from '../src/backtest/run-backtest.ts';
import { liveSyntheticSource } from '../src/backtest/synthetic-source.ts';
import { sampleIndex, traceHiddenFair } from './fair-trace.ts';
import type { AgentOverrides } from '../src/sim/flow-presets.ts';
import { syntheticFlags } from './synthetic-flags.ts';

const { args, flag, flow, s0, s1, hours, markets } = syntheticFlags({ flow: 'calibrated', seeds: '9001-9003', hours: '0.5' });
// --agents JSON: the preset's agent settings overridden, merged per agent (as the edge bench's EDGE_AGENTS)
const agentsFlag = flag('--agents', '');
const agents = agentsFlag ? (JSON.parse(agentsFlag) as AgentOverrides) : undefined;
// --risk: `risk:` settings in place of config/backtest.yaml's `maxPosition: 500` (e.g. follow's, which takes liquidity)
const riskFlag = flag('--risk', '');

const DEFAULTS: [string, string][] = [
  ['bands', '{ fair: microprice, inventorySkew: 0.0005, bands: [{ minMargin: 0.005, targetMargin: 0.01, maxMargin: 0.02, size: 25 }] }'],
  ['oracle-anchored', '{ book: microprice, oracleWeight: 0.6, halfSpread: 0.01, inventorySkew: 0.0005, size: 25 }'],
  ['avellaneda', '{ fair: mid, gamma: 0.5, k: 150, inventoryUnit: 50, minSpread: 0.02, maxSpread: 0.2, size: 25 }'],
];
const given: [string, string][] = [];
for (let i = 0; i < args.length; i++)
  if (args[i] === '--strategy') given.push([args[i + 1]!, args[args.indexOf('--params', i)] === '--params' ? args[args.indexOf('--params', i) + 1]! : '{}']);
const runs = given.length ? given : DEFAULTS;

const work = mkdtempSync(join(tmpdir(), 'bookmaker-edge-attr-'));
// --base: the config the strategy block is swapped into (default the bench's, config/backtest.yaml)
const base = readFileSync(flag('--base', 'config/backtest.yaml'), 'utf8');
const strategyBlock = /defaults:\n  strategy:\n(?: {4}.*\n)+/;

interface Side {
  fills: number;
  shares: number;
  /** Σ shares × signed distance of the price from the fair value (− = against the bot), USDC */
  edge: number;
  /** Σ shares × |price − fair|, for the mean distance */
  dist: number;
  /** Σ shares × |oracle − fair| and |mid − fair| at the fill */
  oracleDist: number;
  oracleN: number;
  midDist: number;
  afterJump: number;
  /** fills by the bot's distance from the mid before the fill, in half-ticks (index 0…6, the last: 6 or more) */
  fromMid: number[];
}
/** the lower ends of the buckets of min(p, 1 − p) the fills are counted in */
const PQ_EDGES = [0, 0.06, 0.07, 0.08, 0.09, 0.1, 0.15, 0.25];
const side = (): Side => ({ fills: 0, shares: 0, edge: 0, dist: 0, oracleDist: 0, oracleN: 0, midDist: 0, afterJump: 0, fromMid: [0, 0, 0, 0, 0, 0, 0] });

const table: string[] = [
  '| strategy | PnL | spread capture | inventory | fees | edge vs fair | rest (holding) | right-side fills (shares, mean ¢ from fair) | wrong-side fills (shares, mean ¢) | wrong side ≤ 30 s after a jump | oracle ¢ from fair (wrong side) | mid ¢ from fair (wrong side) |',
  '|---|---|---|---|---|---|---|---|---|---|---|---|',
];
for (const run of runs) {
  const [name, params] = run;
  const file = join(work, `${runs.indexOf(run)}.yaml`);
  const text = base.replace(strategyBlock, `defaults:\n  strategy:\n    name: ${name}\n    params: ${params}\n`);
  writeFileSync(file, riskFlag ? text.replace(/maxPosition: 500 .*/, riskFlag.split(/,\s*/).join('\n    ')) : text);
  const cfg = await loadBacktestConfig(file);
  const tot = { pnl: 0, spread: 0, inventory: 0, fees: 0, volume: 0 };
  const right = side();
  const wrong = side();
  const perSeed: number[] = [];
  const drift = { after10s: 0, after60s: 0 };
  // fills by the fair value's distance from the nearer bound, min(p, 1 − p), in buckets of PQ_EDGES: fills, shares, edge (USDC)
  const byBound = PQ_EDGES.map(() => ({ fills: 0, shares: 0, edge: 0 }));
  // the same, by the side: toward the nearer bound (bought below ½, sold above) or away from it
  const byBoundSide = { toward: PQ_EDGES.map(() => ({ fills: 0, shares: 0, edge: 0 })), away: PQ_EDGES.map(() => ({ fills: 0, shares: 0, edge: 0 })) };
  for (let seed = s0!; seed <= (s1 ?? s0!); seed++) {
    const source = await liveSyntheticSource({ seed, hours, markets, flow, ...(agents ? { agents } : {}) });
    // the hidden fair value, sampled 1 ms after every agent step and kept under the step's time (the
    // value the step's takers traded on), and the times of its jumps: scripts/fair-trace.ts
    const trace = traceHiddenFair(source);
    const bt = await runBacktest({ source, ranking: null, config: cfg.bot, settings: cfg.settings });
    const s = buildSummary(bt);
    perSeed.push(s.pnl.total);
    tot.pnl += s.pnl.total;
    tot.spread += s.pnl.attribution.spreadCapture;
    tot.inventory += s.pnl.attribution.inventory;
    tot.fees += s.pnl.attribution.fees;
    tot.volume += s.volume;
    const oracles = source.side.filter((e) => e.t === 'oracle');
    const c = bt.collector;
    c.fills.forEach((f, i) => {
      const tr = trace.get(f.marketId.toLowerCase());
      if (!tr || tr.t.length === 0) return;
      // (a fill before the first sample reads the first)
      const lo = Math.max(0, sampleIndex(tr, f.at));
      const fair = tr.p[lo]!;
      // the fair value's move after the fill, in the bot's favour (what holding the fill earned)
      for (const [k, h] of [
        ['after10s', 20],
        ['after60s', 120],
      ] as const) {
        const later = tr.p[Math.min(tr.p.length - 1, lo + h)]!;
        drift[k] += (f.size / 1e6) * (f.yesSide === 'bid' ? later - fair : fair - later);
      }
      const price = f.yesPrice / 1e6;
      const sh = f.size / 1e6;
      const e = f.yesSide === 'bid' ? fair - price : price - fair;
      const near = Math.min(fair, 1 - fair);
      const bucket = Math.max(
        0,
        PQ_EDGES.findLastIndex((x) => near >= x),
      );
      const bb = byBound[bucket]!;
      bb.fills++;
      bb.shares += sh;
      bb.edge += sh * e;
      const bs = byBoundSide[(f.yesSide === 'bid') === fair < 0.5 ? 'toward' : 'away'][bucket]!;
      bs.fills++;
      bs.shares += sh;
      bs.edge += sh * e;
      const b = e >= 0 ? right : wrong;
      b.fills++;
      b.shares += sh;
      b.edge += sh * e;
      b.dist += sh * Math.abs(e);
      const o = oracles.filter((x) => x.m.toLowerCase() === f.marketId.toLowerCase() && x.vts <= f.at).pop();
      if (o && o.t === 'oracle') {
        b.oracleDist += sh * Math.abs(o.probability / 1e6 - fair);
        b.oracleN += sh;
      }
      const mid2 = c.fillMid2[i]!;
      if (Number.isFinite(mid2)) {
        b.midDist += sh * Math.abs(mid2 / 2e6 - fair);
        const tick = 0.01;
        const halfTicks = Math.round(Math.abs(mid2 / 2e6 - price) / (tick / 2));
        b.fromMid[Math.min(6, halfTicks)]!++;
      }
      if (tr.jump.some((j) => j <= f.at && f.at - j <= 30_000)) b.afterJump++;
    });
  }
  const edge = right.edge + wrong.edge;
  const cents = (x: number, n: number) => (n > 0 ? ((x / n) * 100).toFixed(2) : '–');
  const out = {
    strategy: name,
    params,
    flow,
    seeds: `${s0}-${s1 ?? s0}`,
    hours,
    markets,
    pnl: tot.pnl,
    perSeed,
    volume: tot.volume,
    attribution: { spreadCapture: tot.spread, inventory: tot.inventory, fees: tot.fees },
    edgeVsFair: edge,
    rest: tot.pnl - edge - tot.fees,
    fairMoveAfterFills: drift,
    right,
    wrong,
    byBound: Object.fromEntries(PQ_EDGES.map((x, i) => [`${x}-${PQ_EDGES[i + 1] ?? 0.5}`, byBound[i]])),
    byBoundToward: Object.fromEntries(PQ_EDGES.map((x, i) => [`${x}-${PQ_EDGES[i + 1] ?? 0.5}`, byBoundSide.toward[i]])),
    byBoundAway: Object.fromEntries(PQ_EDGES.map((x, i) => [`${x}-${PQ_EDGES[i + 1] ?? 0.5}`, byBoundSide.away[i]])),
  };
  process.stdout.write(JSON.stringify(out) + '\n');
  const buckets = (o: Record<string, { fills: number; shares: number; edge: number }>): string =>
    Object.entries(o)
      .filter(([, v]) => v.fills > 0)
      .map(([k, v]) => `${k} ${v.fills} fills (${v.shares.toFixed(0)} sh, ${((100 * v.edge) / v.shares).toFixed(2)}¢, ${v.edge.toFixed(2)} USDC)`)
      .join('; ');
  process.stdout.write(`by min(p, 1 − p) at the fill: ${buckets(out.byBound)}\n`);
  process.stdout.write(`  toward the nearer bound: ${buckets(out.byBoundToward)}\n  away from it: ${buckets(out.byBoundAway)}\n`);
  table.push(
    `| ${name} | ${tot.pnl.toFixed(2)} | ${tot.spread.toFixed(2)} | ${tot.inventory.toFixed(2)} | ${tot.fees.toFixed(2)} | ${edge.toFixed(2)} | ${(tot.pnl - edge - tot.fees).toFixed(2)} | ${right.fills} (${right.shares.toFixed(0)}, +${cents(right.dist, right.shares)}) | ${wrong.fills} (${wrong.shares.toFixed(0)}, −${cents(wrong.dist, wrong.shares)}) | ${wrong.fills ? ((wrong.afterJump / wrong.fills) * 100).toFixed(0) : '–'} % | ${cents(wrong.oracleDist, wrong.oracleN)} | ${cents(wrong.midDist, wrong.shares)} |`,
  );
}
rmSync(work, { recursive: true, force: true });
process.stdout.write(`\n${flow}, seeds ${s0}-${s1 ?? s0}, ${hours} h × ${markets} markets (USDC, summed over seeds)\n${table.join('\n')}\n`);
