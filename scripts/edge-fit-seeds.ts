/**
 * The flow fit's statistics seed by seed (docs/edge.md, "The fit and check seeds disagree"): for each seed
 * of each group, the 25-share quote's markouts at 1/10/60 s and the size-weighted passive markouts
 * (src/backtest/flow-stats.ts, open loop: nobody quoting, as scripts/flow-fit.ts and
 * scripts/flow-calibrate.ts measure them), the trade rate and the 5¢ jumps; then per group the mean
 * over its seeds with its 95 % interval (src/backtest/mean-ci.ts) and the seeds' standard deviation,
 * the difference of the groups' means (Welch), and how many of the groups' markets are distinct (the
 * manifest's market ids: seeds that share markets are not independent draws).
 *
 *   node --import tsx scripts/edge-fit-seeds.ts [--groups 9001-9003,1-8] [--hours 0.5] [--markets 4]
 *     [--flow calibrated] [--via preset|fit] [--fit FILE.json]
 *
 * `--via fit` builds the flow as scripts/flow-calibrate.ts does (`benign` with the shipped
 * CALIBRATED_FIT's agents), `preset` as scripts/flow-fit.ts and the edge bench do (the `calibrated` preset).
 * `--fit FILE` (implies `--via fit`): a candidate's settings over CALIBRATED_FIT, a JSON object as
 * scripts/flow-calibrate.ts's `--out` writes.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { flowStats, type FlowStats } from '../src/backtest/flow-stats.ts';
import { formatMeanCi, meanCi, t975 } from '../src/backtest/mean-ci.ts';
import { syntheticSource } from '../src/backtest/synthetic-source.ts';
import { CALIBRATED_FIT, type CalibratedFit, calibratedAgents, isFlowPreset } from '../src/sim/flow-presets.ts';
import { seedRanges } from './synthetic-flags.ts';

const { values } = parseArgs({
  options: {
    groups: { type: 'string', default: '9001-9003,1-8' },
    hours: { type: 'string', default: '0.5' },
    markets: { type: 'string', default: '4' },
    flow: { type: 'string', default: 'calibrated' },
    via: { type: 'string', default: 'preset' },
    fit: { type: 'string' },
  },
});
if (values.fit) values.via = 'fit';
const fit: CalibratedFit = { ...CALIBRATED_FIT, ...(values.fit ? (JSON.parse(readFileSync(values.fit, 'utf8')) as Partial<CalibratedFit>) : {}) };
for (const k of Object.keys(fit) as (keyof CalibratedFit)[])
  if (!(k in CALIBRATED_FIT) || !Number.isFinite(fit[k])) throw new Error(`--fit: ${k} is not a finite CalibratedFit setting`);
const flow = values.flow!;
if (!isFlowPreset(flow)) throw new Error(`--flow: unknown preset ${flow}`);
if (values.via !== 'preset' && values.via !== 'fit') throw new Error('--via: preset or fit');
if (values.via === 'fit' && flow !== 'calibrated') throw new Error('--via fit: the fit is of the calibrated preset');
const hours = Number(values.hours);
const markets = Number(values.markets);
const groups = values.groups!.split(',').map((g) => ({ name: g, seeds: seedRanges('--groups', g) }));

const STATS = {
  'quote 1s': (s: FlowStats) => s.quoteMarkouts['1s'].centsPerShare,
  'quote 10s': (s: FlowStats) => s.quoteMarkouts['10s'].centsPerShare,
  'quote 60s': (s: FlowStats) => s.quoteMarkouts['60s'].centsPerShare,
  'passive 1s': (s: FlowStats) => s.passiveMarkouts['1s'].centsPerShare,
  'passive 10s': (s: FlowStats) => s.passiveMarkouts['10s'].centsPerShare,
  'passive 60s': (s: FlowStats) => s.passiveMarkouts['60s'].centsPerShare,
  'trades/mkt-min': (s: FlowStats) => s.tradesPerMarketMinute,
  'jumps/mkt-h': (s: FlowStats) => s.jumpsPerMarketHour,
} as const;
type Stat = keyof typeof STATS;
const names = Object.keys(STATS) as Stat[];

const f = (v: number, d = 2) => (Number.isFinite(v) ? v.toFixed(d) : '–');
const out = (line: string) => process.stdout.write(`${line}\n`);
out(`${flow} via ${values.via}${values.fit ? ` (${values.fit})` : ''}, ${hours} h × ${markets} markets a seed, open loop (nobody quoting)\n`);
out(`| group | seed | ${names.join(' | ')} | markets |`);
out(`|---|---|${names.map(() => '---|').join('')}---|`);
const results = new Map<string, { values: Record<Stat, number[]>; ids: string[] }>();
for (const g of groups) {
  const r = { values: Object.fromEntries(names.map((n) => [n, [] as number[]])) as Record<Stat, number[]>, ids: [] as string[] };
  for (const seed of g.seeds) {
    const agents = values.via === 'fit' ? calibratedAgents(fit) : undefined;
    const src = await syntheticSource({ seed, hours, markets, flow: values.via === 'fit' ? 'benign' : flow, ...(agents ? { agents } : {}) });
    const s = flowStats(src);
    const ids = src.manifest.markets.map((m) => m.id);
    r.ids.push(...ids);
    for (const n of names) r.values[n].push(STATS[n](s));
    out(`| ${g.name} | ${seed} | ${names.map((n) => f(STATS[n](s))).join(' | ')} | ${ids.length} |`);
  }
  results.set(g.name, r);
}
out("\nPer group: the mean over its seeds [95 %], and the seeds' standard deviation\n");
out(`| group | seeds | markets (distinct) | ${names.join(' | ')} |`);
out(`|---|---|---|${names.map(() => '---|').join('')}`);
for (const g of groups) {
  const r = results.get(g.name)!;
  const cells = names.map((n) => {
    const c = meanCi(r.values[n]);
    return `${formatMeanCi(c)}, sd ${f(c.sd)}`;
  });
  out(`| ${g.name} | ${g.seeds.length} | ${r.ids.length} (${new Set(r.ids).size}) | ${cells.join(' | ')} |`);
}
if (groups.length >= 2) {
  const [a, b] = [results.get(groups[0]!.name)!, results.get(groups[1]!.name)!];
  out(`\n${groups[1]!.name} − ${groups[0]!.name} (Welch: the difference of the means, its 95 % interval, t)\n`);
  for (const n of names) {
    const x = meanCi(a.values[n]);
    const y = meanCi(b.values[n]);
    const va = x.sd ** 2 / x.n;
    const vb = y.sd ** 2 / y.n;
    const se = Math.sqrt(va + vb);
    const df = (va + vb) ** 2 / ((va * va) / Math.max(1, x.n - 1) + (vb * vb) / Math.max(1, y.n - 1));
    const d = y.mean - x.mean;
    const half = t975(Math.max(1, Math.floor(df))) * se;
    out(`- ${n}: ${f(d)} [${f(d - half)}, ${f(d + half)}], t ${f(d / se)} (df ${f(df, 1)})`);
  }
}
