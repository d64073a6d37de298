/**
 * Where the money goes: each shipped strategy's PnL on synthetic flow taken apart against the hidden
 * fair value (scripts/edge-decompose-run.ts): the spread its fills captured against the fair value,
 * the fair value's move after them (to 1, 10, 60 s), the inventory carried past a minute, the
 * resolutions, the marks of markets still open at the end, and the fees. Per run (mean over the
 * seeds with its 95 % interval, src/backtest/mean-ci.ts) and per share of a fill (¢, cumulative,
 * mean over the fills with its interval; fills of one run are not independent, so that interval is
 * narrower than it should be). Each strategy as the edge bench runs it (test/bench/edge.bench.ts:
 * STRATEGY_EXAMPLES of test/bench/capture-walk-forward.ts, the guard on, follow with its own risk
 * lines and no guard).
 *
 *   node --import tsx scripts/edge-decompose.ts [--seeds 9301-9340] [--hours 1] [--markets 4]
 *     [--flow calibrated] [--fit FILE.json] [--strategies bands,avellaneda,...] [--guard on|off]
 *
 * `--fit FILE`: a candidate `calibrated` fit (CalibratedFit settings over the shipped CALIBRATED_FIT,
 * as scripts/flow-calibrate.ts's `--out` writes) in place of the preset's agents.
 * Prints one JSON line per strategy, then the tables. docs/edge-feasibility.md.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { STRATEGY_EXAMPLES } from '../test/bench/capture-walk-forward.ts';
import { ci, decomposeRun, fitAgentsFromFile, type FillParts, type RunParts, strategyConfig, summariseParts } from './edge-decompose-run.ts';
import { seedRanges, syntheticFlags } from './synthetic-flags.ts';

const { flag, flow, hours, markets } = syntheticFlags({ flow: 'calibrated', seeds: '9301-9340', hours: '1' });
const seeds = seedRanges('--seeds', flag('--seeds', '9301-9340'));
const fitFile = flag('--fit', '');
const agents = fitFile ? fitAgentsFromFile(fitFile) : undefined;
const guard = flag('--guard', 'on');
if (guard !== 'on' && guard !== 'off') throw new Error('--guard: on or off');
const names = flag('--strategies', Object.keys(STRATEGY_EXAMPLES).join(',')).split(',');
for (const n of names) if (!STRATEGY_EXAMPLES[n]) throw new Error(`--strategies: ${n} is not one of ${Object.keys(STRATEGY_EXAMPLES).join(', ')}`);
// as the edge bench: follow takes liquidity with its own risk lines and has no guard, nor has lopsided
const RISK: Record<string, string> = { follow: 'maxPosition: 25\n    allowCrossing: true' };
const GUARDLESS = new Set(['follow', 'lopsided']);

const work = mkdtempSync(join(tmpdir(), 'bookmaker-edge-decompose-'));
const runRows: string[] = [];
const shareRows: string[] = [];
try {
  for (const name of names) {
    const cfg = await strategyConfig(work, name, STRATEGY_EXAMPLES[name]!, {
      guard: guard === 'on' && !GUARDLESS.has(name),
      ...(RISK[name] ? { risk: RISK[name] } : {}),
    });
    const runs: RunParts[] = [];
    const fills: FillParts[] = [];
    for (const seed of seeds) {
      const r = await decomposeRun({ seed, hours, markets, flow, cfg, ...(agents ? { agents } : {}) });
      runs.push(r.run);
      process.stderr.write(`seed ${seed}: PnL ${r.run.pnl.toFixed(2)}, ${r.run.fills} fills\n`);
      fills.push(...r.fills);
    }
    const s = summariseParts(runs, fills);
    process.stdout.write(
      `${JSON.stringify({ strategy: name, guard, flow, fit: fitFile || null, seeds: flag('--seeds', '9301-9340'), hours, markets, ...s, runs })}\n`,
    );
    const r = s.perRun;
    runRows.push(
      `| ${name} | ${ci(r.pnl)} | ${ci(r.spread)} | ${ci(r.m1)} | ${ci(r.m10)} | ${ci(r.m60)} | ${ci(r.carried)} | ${ci(r.resolution)} (${s.heldResolutions}) | ${ci(r.endMark)} | ${ci(r.fee)} | ${r.volume.mean.toFixed(0)} | ${r.fills.mean.toFixed(1)} | ${s.residual.toFixed(4)} |`,
    );
    const p = s.perShare;
    shareRows.push(`| ${name} | ${fills.length} | ${ci(p.spread)} | ${ci(p.at1s)} | ${ci(p.at10s)} | ${ci(p.at60s)} | ${ci(p.atEnd)} | ${ci(p.all)} |`);
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
process.stdout.write(
  `\n${flow}${fitFile ? ` (fit ${fitFile})` : ''}, seeds ${flag('--seeds', '9301-9340')}, ${hours} h × ${markets} markets, guard ${guard}: a run's PnL and its parts, USDC, mean [95 %] over the seeds\n` +
    '| strategy | PnL | spread vs fair | move 0–1 s | 1–10 s | 10–60 s | carried 60 s–end | resolutions (markets held) | end mark | fees | volume | fills | Σ |residual| |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|\n' +
    `${runRows.join('\n')}\n\nper share of a fill, ¢, cumulative: mean [95 %] over the fills\n` +
    '| strategy | fills | spread vs fair | + move to 1 s | to 10 s | to 60 s | to the end | + payout or mark − fee |\n|---|---|---|---|---|---|---|---|\n' +
    `${shareRows.join('\n')}\n`,
);
