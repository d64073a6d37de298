/**
 * When the toxicity guard's gate opens, and why it closes: each strategy run with the guard on, in
 * closed loop on synthetic markets, its quote wrapped to read the gate (markoutsAdverse, the same
 * test edgeAdjust applies) on every tick of every market.
 *
 *   node --import tsx scripts/gate-trace.ts [--flow toxic] [--seeds 9001-9003] [--hours 0.5]
 *     [--markets 4] [--guard '{ yaml }'] [--strategies avellaneda,binary,...]
 *
 * Per strategy, summed over the seeds: PnL; the share of quoting ticks with the gate open; the time
 * from a run's start to the first open (the account's evidence, any market), and per market from its
 * first quoting tick; the fills (position changes between ticks) made while it was shut and while
 * open, before the market's first open; how often it closed again, and whether the estimate rose
 * above the bound's reach (the mean moved up) or the bound widened (the sd grew); and, per market at its
 * last tick with 5 fills' weight, the bot's own decayed markout against the market's print markout
 * (the passive side of every trade): their mean difference, its root mean square, and the spread
 * left once the two estimates' own errors are taken out, √(mean d² − mean (se_own² + se_prints²)):
 * the estimate behind `toxicity.printSpread`. docs/edge.md,
 * "The guard".
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadBacktestConfig } from '../src/backtest/backtest-config.ts';
import { buildSummary } from '../src/backtest/report-summary.ts';
import { runBacktest } from '../src/backtest/run-backtest.ts';
import { liveSyntheticSource } from '../src/backtest/synthetic-source.ts';
import { guardTraceConfig } from './guard-trace-config.ts';
import { GUARD_TRACE_PARAMS, syntheticFlags } from './synthetic-flags.ts';

const { flag, flow, s0, s1, hours, markets } = syntheticFlags({ flow: 'toxic', seeds: '9001-9003', hours: '0.5' });
const guard = flag('--guard', 'true');
const strategies = flag('--strategies', Object.keys(GUARD_TRACE_PARAMS).join(',')).split(',');

interface Tick {
  readonly t: number;
  readonly open: boolean;
  readonly mean: number | null;
  readonly sd: number | null;
  readonly net: number;
  /** the market's own decayed markout and its standard error, the fills' weight behind it; the prints' markout and error (null: none) */
  readonly own: number | null;
  readonly ownSe: number | null;
  readonly ownW: number;
  readonly pr: number | null;
  readonly prSe: number | null;
}
const g = globalThis as { __gateTrace?: Map<string, Tick[]> };

const work = mkdtempSync(join(tmpdir(), 'bookmaker-gate-trace-'));
const table = [
  '| strategy | PnL / seed | open ticks | run start → first open s | market start → open s (median) | markets never open | fills shut / open | fills before a market first opens | closes | closed by mean / by sd | markets compared | prints ¢ | own − prints ¢ | rms ¢ | spread ¢ |',
  '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|',
];
for (const name of strategies) {
  // the shipped module, its quote wrapped to record the gate
  const file = guardTraceConfig({
    work,
    name,
    guard,
    imports: 'markoutsAdverse, toxicityEvidence',
    when: ' && view.book && view.book.bids.length > 0 && view.book.asks.length > 0',
    record: `const e = view.edge;
    const ev = toxicityEvidence(e, cfg.toxicity);
    l.push({ t: view.now, open: markoutsAdverse(e, cfg.toxicity), mean: ev ? ev.mean : null, sd: ev ? ev.sd : null, net: view.position.net,
      own: e.toxicity, ownSe: e.toxicityStdErr ?? null, ownW: e.toxicityWeight, pr: e.prints?.toxicity ?? null, prSe: e.prints?.stdErr ?? null });`,
  });
  const cfg = await loadBacktestConfig(file);
  const acc = {
    pnl: 0,
    ticks: 0,
    open: 0,
    firstOpen: [] as number[],
    marketOpen: [] as number[],
    never: 0,
    mkts: 0,
    fillsShut: 0,
    fillsOpen: 0,
    before: 0,
    closes: 0,
    byMean: 0,
    bySd: 0,
    /** per market, at its last tick with ≥ 5 fills' weight: own − prints markout, and the two errors² (the spread's estimate) */
    diffs: [] as { d: number; v: number; pr: number }[],
  };
  for (let seed = s0!; seed <= (s1 ?? s0!); seed++) {
    g.__gateTrace = new Map();
    const source = await liveSyntheticSource({ seed, hours, markets, flow });
    const run = await runBacktest({ source, ranking: null, config: cfg.bot, settings: cfg.settings });
    acc.pnl += buildSummary(run).pnl.total;
    let first = Infinity;
    for (const ticks of g.__gateTrace.values()) {
      acc.mkts++;
      let opened = -1;
      for (let i = 0; i < ticks.length; i++) {
        const k = ticks[i]!;
        acc.ticks++;
        if (k.open) acc.open++;
        if (k.open && opened < 0) {
          opened = i;
          first = Math.min(first, k.t);
          acc.marketOpen.push((k.t - ticks[0]!.t) / 1000);
        }
        if (i === 0) continue;
        const p = ticks[i - 1]!;
        if (k.net !== p.net) {
          if (p.open) acc.fillsOpen++;
          else acc.fillsShut++;
          if (opened < 0) acc.before++;
        }
        if (p.open && !k.open) {
          acc.closes++;
          // the bound mean + z·sd crossed zero: by the mean rising, or by the sd growing
          if (k.mean !== null && p.mean !== null && k.sd !== null && p.sd !== null && k.mean - p.mean >= 0 && k.sd - p.sd <= 0) acc.byMean++;
          else acc.bySd++;
        }
      }
      if (opened < 0) acc.never++;
      for (let i = ticks.length - 1; i >= 0; i--) {
        const k = ticks[i]!;
        if (k.own === null || k.ownSe === null || k.ownW < 5 || k.pr === null || k.prSe === null) continue;
        acc.diffs.push({ d: k.own - k.pr, v: k.ownSe * k.ownSe + k.prSe * k.prSe, pr: k.pr });
        break;
      }
      if (process.env.GATE_TRACE_DETAIL)
        process.stderr.write(
          `  market ${((ticks[0]!.t - run.start) / 1000).toFixed(0)}-${((ticks[ticks.length - 1]!.t - run.start) / 1000).toFixed(0)} s, ${ticks.length} ticks, open at ${opened < 0 ? 'never' : ((ticks[opened]!.t - run.start) / 1000).toFixed(0)}, open ${ticks.filter((x) => x.open).length}, fills ${ticks
            .filter((x, i) => i > 0 && x.net !== ticks[i - 1]!.net)
            .map((x, i) => ((x.t - run.start) / 1000).toFixed(0))
            .join(' ')}\n`,
        );
    }
    if (Number.isFinite(first)) acc.firstOpen.push((first - run.start) / 1000);
  }
  const seeds = (s1 ?? s0!) - s0! + 1;
  const med = (xs: number[]) => (xs.length ? [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!.toFixed(0) : '–');
  // the prints' spread: how far a market's own markout sits from its prints', beyond the two estimates' errors:
  // √(mean (own − prints)² − mean (se_own² + se_prints²)), over the markets (docs/edge.md, "The guard")
  const nd = Math.max(1, acc.diffs.length);
  const bias = acc.diffs.reduce((a, x) => a + x.d, 0) / nd;
  const ms = acc.diffs.reduce((a, x) => a + x.d * x.d, 0) / nd;
  const noise = acc.diffs.reduce((a, x) => a + x.v, 0) / nd;
  const prMean = acc.diffs.reduce((a, x) => a + x.pr, 0) / nd;
  const c = (v: number) => (v / 10_000).toFixed(2);
  const spreadCols = `${acc.diffs.length} | ${c(prMean)} | ${c(bias)} | ${c(Math.sqrt(ms))} | ${c(Math.sqrt(Math.max(0, ms - noise)))}`;
  const row = `| ${name} | ${(acc.pnl / seeds).toFixed(2)} | ${((acc.open / Math.max(1, acc.ticks)) * 100).toFixed(1)} % of ${acc.ticks} | ${acc.firstOpen.map((x) => x.toFixed(0)).join(', ') || '–'} | ${med(acc.marketOpen)} | ${acc.never} of ${acc.mkts} | ${acc.fillsShut} / ${acc.fillsOpen} | ${acc.before} | ${acc.closes} | ${acc.byMean} / ${acc.bySd} | ${spreadCols} |`;
  table.push(row);
  process.stderr.write(`${row}\n`);
}
rmSync(work, { recursive: true, force: true });
process.stdout.write(`gate trace: ${flow}, seeds ${s0}-${s1 ?? s0}, ${hours} h × ${markets} markets, guard ${guard}\n${table.join('\n')}\n`);
