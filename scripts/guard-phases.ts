/**
 * Where a strategy's loss sits against the toxicity guard's gate: each strategy run in closed loop on
 * synthetic markets, its quote wrapped to read the gate (markoutsAdverse, as edgeAdjust does) on every
 * tick, and its PnL set against the hidden fair value (as scripts/edge-attribution.ts does), split by
 * the gate's state in the fill's market at the time:
 *   - pre:  before the market's gate first opened (the guard waits for evidence);
 *   - open: while it is open (the guard acts: what is lost here, the response did not stop);
 *   - shut: after it opened once and closed again.
 * Each phase has the fills' edge against the fair value (split into fills within 30 s after a jump of
 * the fair value, ≥ 0.2 in logit within one agent step, and the rest) and the holding term (the
 * position times the fair value's moves); `end` is the position's last mark (the payout of a resolved
 * market, or the last mid) against the last fair value, and the fees.
 *
 *   node --import tsx scripts/guard-phases.ts [--flow toxic] [--seeds 9001-9003] [--hours 0.5]
 *     [--markets 4] [--guard '{ yaml }'] [--strategies avellaneda,binary,...]
 *
 * `--guard '{ enabled: false }'` runs without the guard and still reads the gate it would have had.
 * USDC summed over the seeds. docs/edge.md, "The guard".
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadBacktestConfig } from '../src/backtest/backtest-config.ts';
import { buildSummary } from '../src/backtest/report-summary.ts';
import { runBacktest } from '../src/backtest/run-backtest.ts';
import { liveSyntheticSource } from '../src/backtest/synthetic-source.ts';
import { sampleIndex, traceHiddenFair } from './fair-trace.ts';
import { guardTraceConfig } from './guard-trace-config.ts';
import { syntheticFlags } from './synthetic-flags.ts';

const { flag, flow, s0, s1, hours, markets } = syntheticFlags({ flow: 'toxic', seeds: '9001-9003', hours: '0.5' });
const guard = flag('--guard', 'true');
const strategies = flag('--strategies', 'avellaneda,oracle-anchored,binary').split(',');

interface Tick {
  readonly t: number;
  readonly open: boolean;
  readonly size: number;
  readonly extra: number;
  readonly sides: number;
}
const g = globalThis as { __gateTrace?: Map<string, Tick[]> };
const work = mkdtempSync(join(tmpdir(), 'bookmaker-guard-phases-'));
type Phase = 'pre' | 'open' | 'shut';
const PHASES: Phase[] = ['pre', 'open', 'shut'];
const table = [
  '| strategy | PnL | fees | end mark | phase | fills | shares | edge after jumps | edge, rest | holding | phase total | size factor (mean) | extra half ¢ (mean) | one side % |',
  '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|',
];
for (const name of strategies) {
  // the shipped module, its quote wrapped to record the gate and the adjustment it would make
  const file = guardTraceConfig({
    work,
    name,
    guard,
    imports: 'markoutsAdverse, edgeAdjust',
    when: '',
    record: `const a = edgeAdjust(view, { ...cfg.toxicity, enabled: true });
    l.push({ t: view.now, open: markoutsAdverse(view.edge, cfg.toxicity), size: a.sizeFactor, extra: a.extraHalf, sides: (a.bid ? 1 : 0) + (a.ask ? 1 : 0) });`,
  });
  const cfg = await loadBacktestConfig(file);
  const acc = { pnl: 0, fees: 0, end: 0 };
  const ph = Object.fromEntries(PHASES.map((p) => [p, { fills: 0, shares: 0, jump: 0, rest: 0, hold: 0, ticks: 0, size: 0, extra: 0, one: 0 }]));
  for (let seed = s0!; seed <= (s1 ?? s0!); seed++) {
    g.__gateTrace = new Map();
    const source = await liveSyntheticSource({ seed, hours, markets, flow });
    // the hidden fair value after every agent step and its jumps (scripts/fair-trace.ts)
    const fair = traceHiddenFair(source);
    const run = await runBacktest({ source, ranking: null, config: cfg.bot, settings: cfg.settings });
    const s = buildSummary(run);
    acc.pnl += s.pnl.total;
    acc.fees += s.pnl.attribution.fees;
    const c = run.collector;
    const gates = new Map([...g.__gateTrace.entries()].map(([k, v]) => [k.toLowerCase(), v]));
    // the gate's phase of market id at time t (the last tick strictly before t)
    const phaseAt = (ticks: Tick[] | undefined, t: number, firstOpen: number): Phase => {
      if (!ticks || ticks.length === 0) return 'pre';
      let lo = -1;
      let hi = ticks.length - 1;
      while (lo < hi) {
        const m = (lo + hi + 1) >> 1;
        if (ticks[m]!.t < t) lo = m;
        else hi = m - 1;
      }
      if (lo < 0) return 'pre';
      if (ticks[lo]!.open) return 'open';
      return ticks[lo]!.t >= firstOpen ? 'shut' : 'pre';
    };
    for (const [id, ticks] of gates) {
      let firstOpen = Infinity;
      for (let i = 0; i < ticks.length; i++) {
        const k = ticks[i]!;
        if (k.open && firstOpen === Infinity) firstOpen = k.t;
        const p = k.open ? 'open' : k.t >= firstOpen ? 'shut' : 'pre';
        ph[p]!.ticks++;
        ph[p]!.size += k.size;
        ph[p]!.extra += k.extra;
        if (k.sides === 1) ph[p]!.one++;
      }
      (ticks as Tick[] & { firstOpen?: number }).firstOpen = firstOpen;
      void id;
    }
    c.markets.forEach((mid, m) => {
      const id = mid.toLowerCase();
      const tr = fair.get(id);
      const ticks = gates.get(id) as (Tick[] & { firstOpen?: number }) | undefined;
      const fo = ticks?.firstOpen ?? Infinity;
      const fills = c.fills.filter((f) => f.market === m);
      if (!tr || tr.t.length === 0) {
        if (fills.length) process.stderr.write(`market ${id}: ${fills.length} fills without a fair trace\n`);
        return;
      }
      let pos = 0;
      let j = 0;
      let lastFair = tr.p[0]!;
      // (a fill before the first sample reads the first)
      const idxAt = (t: number): number => Math.max(0, sampleIndex(tr, t));
      // walk the fair samples, the fills between them
      for (let i = 0; i < tr.t.length; i++) {
        const t = tr.t[i]!;
        while (j < fills.length && fills[j]!.at < t) {
          const f = fills[j++]!;
          const fv = tr.p[idxAt(f.at)]!;
          const q = (f.yesSide === 'bid' ? 1 : -1) * (f.size / 1e6);
          const e = q * (fv - f.yesPrice / 1e6);
          const p = phaseAt(ticks, f.at, fo);
          ph[p]!.fills++;
          ph[p]!.shares += f.size / 1e6;
          if (tr.jump.some((x) => x <= f.at && f.at - x <= 30_000)) ph[p]!.jump += e;
          else ph[p]!.rest += e;
          // the fill at fv; the holding from fv on
          // priced at the sample before it (fv); its holding runs from there
          pos += q;
        }
        if (i > 0) {
          const d = tr.p[i]! - tr.p[i - 1]!;
          ph[phaseAt(ticks, tr.t[i - 1]!, fo)]!.hold += pos * d;
        }
        lastFair = tr.p[i]!;
      }
      while (j < fills.length) {
        const f = fills[j++]!;
        const q = (f.yesSide === 'bid' ? 1 : -1) * (f.size / 1e6);
        const p = phaseAt(ticks, f.at, fo);
        ph[p]!.fills++;
        ph[p]!.shares += f.size / 1e6;
        ph[p]!.rest += q * (lastFair - f.yesPrice / 1e6);
        pos += q;
      }
      const payout = c.payout[m]!;
      const markPx = payout >= 0 ? payout / 1e6 : c.lastMid[m]! / 1e6;
      if (pos !== 0 && Number.isFinite(markPx)) acc.end += pos * (markPx - lastFair);
    });
  }
  const fmt = (x: number) => x.toFixed(2);
  let first = true;
  for (const p of PHASES) {
    const x = ph[p]!;
    const tot = x.jump + x.rest + x.hold;
    const n = Math.max(1, x.ticks);
    table.push(
      `| ${first ? name : ''} | ${first ? fmt(acc.pnl) : ''} | ${first ? fmt(acc.fees) : ''} | ${first ? fmt(acc.end) : ''} | ${p} | ${x.fills} | ${x.shares.toFixed(0)} | ${fmt(x.jump)} | ${fmt(x.rest)} | ${fmt(x.hold)} | ${fmt(tot)} | ${(x.size / n).toFixed(2)} | ${(x.extra / n / 1e4).toFixed(2)} | ${((x.one / n) * 100).toFixed(0)} % of ${x.ticks} |`,
    );
    first = false;
  }
  process.stderr.write(`${name} done\n`);
}
rmSync(work, { recursive: true, force: true });
process.stdout.write(
  `guard phases: ${flow}, seeds ${s0}-${s1 ?? s0}, ${hours} h × ${markets} markets, guard ${guard} (USDC, summed over seeds)\n${table.join('\n')}\n`,
);
