/**
 * The holding term of a synthetic run taken apart: each of the bot's fills set against the hidden
 * fair value (lent by src/backtest/synthetic-source.ts's diagnostics accessor, as in
 * scripts/edge-attribution.ts), and what the position earned after it, split by
 *   - horizon: the fair value's move 0–60 s after the fill (what a 60 s markout against the fair
 *     value sees), 60–300 s, and from 300 s to the end of the market's life in the run;
 *   - the end: the payout against the fair value at the resolution (resolved markets), or the
 *     run's mark (the last mid) against the fair value (markets still open at the end);
 *   - per agent step, the position held times the fair value's move, by the time left until the
 *     market's resolution and by the sign of the position;
 *   - per market.
 * The fills' edge, the holding terms and the end terms sum to the run's PnL less its fees; the
 * residual is printed (it should be zero to rounding). Over the seeds: the PnL a run with its 95 %
 * interval (src/backtest/mean-ci.ts, as the edge bench prints it), the same mean with the resolutions
 * at their model variance (a YES draw with the fair value's probability, Σ position² p(1 − p), in
 * place of their sample spread: the interval a few rare payouts cannot narrow), and the fills' edge a run.
 *
 *   node --import tsx scripts/holding-trace.ts [--seeds 9001-9004] [--hours 1] [--markets 4]
 *     [--flow calibrated] [--strategy NAME] [--params '{ yaml }'] [--markets-out]
 * docs/edge.md, "The holding term, traced".
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadBacktestConfig } from '../src/backtest/backtest-config.ts';
import { buildSummary } from '../src/backtest/report-summary.ts';
import { runBacktest } from '../src/backtest/run-backtest.ts';
import { liveSyntheticSource } from '../src/backtest/synthetic-source.ts';
import { sampleIndex, traceHiddenFair } from './fair-trace.ts';
import { formatMeanCi, meanCi, t975 } from '../src/backtest/mean-ci.ts';
import { syntheticFlags } from './synthetic-flags.ts';
import { STRATEGY_EXAMPLES } from '../test/bench/capture-walk-forward.ts';

const { args, flag, flow, s0, s1: s1r, hours, markets } = syntheticFlags({ flow: 'calibrated', seeds: '9001-9004', hours: '1' });
const s1 = s1r ?? s0;
const name = flag('--strategy', 'bands');
const params = flag('--params', STRATEGY_EXAMPLES[name] ?? '{}');
const perMarket = args.includes('--markets-out');

const work = mkdtempSync(join(tmpdir(), 'bookmaker-holding-'));
const base = readFileSync('config/backtest.yaml', 'utf8');
const file = join(work, 'cfg.yaml');
writeFileSync(file, base.replace(/defaults:\n  strategy:\n(?: {4}.*\n)+/, `defaults:\n  strategy:\n    name: ${name}\n    params: ${params}\n`));
const cfg = await loadBacktestConfig(file);

// right: fills on the right side of the fair value (bought below it, sold above: noise takers); wrong: picked off
const sides = { right: { fills: 0, shares: 0, edge: 0 }, wrong: { fills: 0, shares: 0, edge: 0 } };
// the bot's taker fills (a crossing order, as touch.flattenPQ's): their count and their edge against the fair value
const taker = { fills: 0, shares: 0, edge: 0 };
const T = { pnl: 0, fees: 0, edge: 0, h60: 0, h300: 0, hRest: 0, resolution: 0, endMark: 0, residual: 0, fills: 0, shares: 0 };
// per-step holding, by time to resolution (minutes; 'open' = not resolved in the run) and by the position's sign
const byTtr = new Map<string, { hold: number; steps: number }>();
const bySign = { long: 0, short: 0 };
// Σ (position × the fair value's move)² over steps: the holding term's standard error if the moves are martingale increments
let holdSq = 0;
// resolution term by whether the position was on the payout's side
// resSq: Σ position² × p(1 − p) at the resolutions, the resolution term's variance (a YES draw with the fair value's probability)
const resolved = { markets: 0, held: 0, won: 0, lost: 0, sumWon: 0, sumLost: 0, resSq: 0 };
const ttrKey = (ms: number | undefined): string => {
  if (ms === undefined) return 'open at the end';
  const m = ms / 60_000;
  return m < 1 ? '0-1 min' : m < 5 ? '1-5 min' : m < 15 ? '5-15 min' : '15+ min';
};
const rows: string[] = [];
const seedRows: string[] = [];
// per seed: the PnL, the fills' edge, and the PnL less the resolutions' term (for the model-variance interval)
const perSeed = { pnl: [] as number[], edge: [] as number[], lessResolution: [] as number[] };

for (let seed = s0!; seed <= s1; seed++) {
  const source = await liveSyntheticSource({ seed, hours, markets, flow });
  const trace = traceHiddenFair(source);
  const bt = await runBacktest({ source, ranking: null, config: cfg.bot, settings: cfg.settings });
  const s = buildSummary(bt);
  const c = bt.collector;
  const seedT = { pnl: s.pnl.total, edge: 0, h60: 0, h300: 0, hRest: 0, resolution: 0, endMark: 0 };
  T.pnl += s.pnl.total;
  T.fees += s.pnl.attribution.fees;
  const at = sampleIndex;
  c.markets.forEach((mid, m) => {
    const tr = trace.get(mid.toLowerCase());
    const fills = c.fills.filter((f) => f.market === m);
    if (!tr || tr.t.length === 0) {
      if (fills.length) throw new Error(`fills in ${mid} without a fair-value trace`);
      return;
    }
    const payout = c.payout[m]!;
    // the resolution's time: the payout is the last mid change the collector booked
    const resT = payout >= 0 ? c.midT[m]![c.midT[m]!.length - 1]! : undefined;
    const lastI = resT !== undefined ? at(tr, resT) : tr.t.length - 1;
    const fairEnd = tr.p[lastI]!;
    const endT = tr.t[lastI]!;
    const mk = { fills: fills.length, edge: 0, hold: 0, end: 0, net: 0 };
    for (const f of fills) {
      const sgn = f.yesSide === 'bid' ? 1 : -1;
      const sh = f.size / 1e6;
      const i = at(tr, f.at);
      if (i < 0) throw new Error(`a fill before the market's first fair-value sample (${mid})`);
      const fair = tr.p[i]!;
      const e = sgn * sh * (fair - f.yesPrice / 1e6);
      const pAt = (dt: number): number => tr.p[Math.min(lastI, at(tr, Math.min(endT, f.at + dt)))]!;
      const p60 = i >= lastI ? fair : pAt(60_000);
      const p300 = i >= lastI ? fair : pAt(300_000);
      const h60 = sgn * sh * (p60 - fair);
      const h300 = sgn * sh * (p300 - p60);
      const hRest = sgn * sh * (fairEnd - p300);
      const endV = (payout >= 0 ? payout : c.lastMid[m]!) / 1e6;
      const end = sgn * sh * (endV - fairEnd);
      seedT.edge += e;
      const sd = e >= 0 ? sides.right : sides.wrong;
      sd.fills++;
      sd.shares += sh;
      sd.edge += e;
      if (!f.maker) {
        taker.fills++;
        taker.shares += sh;
        taker.edge += e;
      }
      seedT.h60 += h60;
      seedT.h300 += h300;
      seedT.hRest += hRest;
      if (payout >= 0) seedT.resolution += end;
      else seedT.endMark += end;
      mk.edge += e;
      mk.hold += h60 + h300 + hRest;
      mk.end += end;
      mk.net += sgn * sh;
      T.fills++;
      T.shares += sh;
    }
    // per step: the position held over (t[i], t[i+1]] is every fill before t[i+1]
    let k = 0;
    let pos = 0;
    const sorted = [...fills].sort((a, b) => a.at - b.at);
    for (let i = 0; i < lastI; i++) {
      while (k < sorted.length && sorted[k]!.at < tr.t[i + 1]!) {
        pos += (sorted[k]!.yesSide === 'bid' ? 1 : -1) * (sorted[k]!.size / 1e6);
        k++;
      }
      if (pos === 0) continue;
      const d = pos * (tr.p[i + 1]! - tr.p[i]!);
      holdSq += d * d;
      const key = ttrKey(resT !== undefined ? resT - tr.t[i]! : undefined);
      const b = byTtr.get(key) ?? { hold: 0, steps: 0 };
      b.hold += d;
      b.steps++;
      byTtr.set(key, b);
      if (pos > 0) bySign.long += d;
      else bySign.short += d;
    }
    if (payout >= 0) {
      resolved.markets++;
      if (Math.abs(mk.net) > 1e-9) {
        resolved.held++;
        resolved.resSq += mk.net * mk.net * fairEnd * (1 - fairEnd);
        if (mk.end >= 0) {
          resolved.won++;
          resolved.sumWon += mk.end;
        } else {
          resolved.lost++;
          resolved.sumLost += mk.end;
        }
      }
    }
    if (perMarket && fills.length)
      rows.push(
        `| ${seed} | ${mid.slice(0, 10)} | ${mk.fills} | ${mk.net.toFixed(0)} | ${payout >= 0 ? `${(fairEnd * 100).toFixed(1)}¢ → ${payout / 1e6}` : 'open'} | ${mk.edge.toFixed(2)} | ${mk.hold.toFixed(2)} | ${mk.end.toFixed(2)} |`,
      );
  });
  const sum = seedT.edge + seedT.h60 + seedT.h300 + seedT.hRest + seedT.resolution + seedT.endMark;
  T.edge += seedT.edge;
  T.h60 += seedT.h60;
  T.h300 += seedT.h300;
  T.hRest += seedT.hRest;
  T.resolution += seedT.resolution;
  T.endMark += seedT.endMark;
  T.residual += s.pnl.total - s.pnl.attribution.fees - sum;
  perSeed.pnl.push(s.pnl.total);
  perSeed.edge.push(seedT.edge);
  perSeed.lessResolution.push(s.pnl.total - seedT.resolution);
  seedRows.push(
    `| ${seed} | ${seedT.pnl.toFixed(2)} | ${seedT.edge.toFixed(2)} | ${seedT.h60.toFixed(2)} | ${seedT.h300.toFixed(2)} | ${seedT.hRest.toFixed(2)} | ${seedT.resolution.toFixed(2)} | ${seedT.endMark.toFixed(2)} | ${(s.pnl.total - s.pnl.attribution.fees - sum).toFixed(4)} |`,
  );
}
rmSync(work, { recursive: true, force: true });
const f2 = (x: number) => x.toFixed(2);
process.stdout.write(
  `${JSON.stringify({ strategy: name, params, flow, seeds: `${s0}-${s1}`, hours, markets, ...T, sides, taker, holdSe: Math.sqrt(holdSq), byTtr: Object.fromEntries(byTtr), bySign, resolved })}\n`,
);
process.stdout.write(
  `\n${name} ${params}\n${flow}, seeds ${s0}-${s1}, ${hours} h × ${markets} markets (USDC)\n` +
    '| seed | PnL | edge vs fair | hold 0–60 s | hold 60–300 s | hold 300 s–end | resolution (payout − fair) | end mark (mid − fair) | residual |\n|---|---|---|---|---|---|---|---|---|\n' +
    `${seedRows.join('\n')}\n| all | ${f2(T.pnl)} | ${f2(T.edge)} | ${f2(T.h60)} | ${f2(T.h300)} | ${f2(T.hRest)} | ${f2(T.resolution)} | ${f2(T.endMark)} | ${T.residual.toFixed(4)} |\n`,
);
process.stdout.write(`\nper step, by time to resolution: ${[...byTtr].map(([k, v]) => `${k} ${f2(v.hold)} (${v.steps} steps)`).join('; ')}\n`);
process.stdout.write(
  `holding (all horizons) ${f2(T.h60 + T.h300 + T.hRest)}, its standard error if the fair value's moves are martingale increments ±${f2(Math.sqrt(holdSq))}\n`,
);
process.stdout.write(
  `edge by side of the fair value: right ${sides.right.fills} fills (${sides.right.shares.toFixed(0)} shares, ${f2((100 * sides.right.edge) / Math.max(1, sides.right.shares))}¢), wrong ${sides.wrong.fills} (${sides.wrong.shares.toFixed(0)}, ${f2((100 * sides.wrong.edge) / Math.max(1, sides.wrong.shares))}¢)\n` +
    `of them the bot's taker fills: ${taker.fills} (${taker.shares.toFixed(0)} shares, ${f2(taker.edge)} USDC, ${f2((100 * taker.edge) / Math.max(1, taker.shares))}¢ a share)\n`,
);
process.stdout.write(`per step, by position sign: long ${f2(bySign.long)}, short ${f2(bySign.short)}\n`);
process.stdout.write(
  `resolved markets ${resolved.markets}, held at resolution ${resolved.held}: on the payout's side ${resolved.won} (${f2(resolved.sumWon)}), against ${resolved.lost} (${f2(resolved.sumLost)}); standard error ±${f2(Math.sqrt(resolved.resSq))}\n`,
);
{
  const pnl = meanCi(perSeed.pnl);
  const rest = meanCi(perSeed.lessResolution);
  const n = perSeed.pnl.length;
  // the mean's standard error with the resolutions' term at its model variance: the rest's sample variance, plus Σ position² p(1 − p)
  const se = Math.sqrt((rest.sd * rest.sd) / n + resolved.resSq / (n * n));
  const half = t975(n - 1) * se;
  process.stdout.write(
    `PnL a run ${formatMeanCi(pnl, 3)}; with the resolutions at their model variance ${pnl.mean.toFixed(3)} [${(pnl.mean - half).toFixed(3)}, ${(pnl.mean + half).toFixed(3)}]; ` +
      `the fills' edge a run ${formatMeanCi(meanCi(perSeed.edge), 3)} (positive on ${perSeed.edge.filter((e) => e > 0).length} of ${n} seeds)\n`,
  );
}
if (perMarket)
  process.stdout.write(
    `\n| seed | market | fills | net shares | fair at resolution → payout | edge | hold | end |\n|---|---|---|---|---|---|---|---|\n${rows.join('\n')}\n`,
  );
