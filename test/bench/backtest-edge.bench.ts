/**
 * backtest-edge: what the edge bookkeeping (markouts, toxicity, regimes, attribution, issue 15)
 * costs a backtest. The full backtest of the Polymarket capture with config/backtest.yaml, this
 * tree against a checkout of the code before it (BOOKMAKER_BASE_TREE, default ../h15-base: e.g.
 * `git worktree add ../h15-base 1d73146` with a node_modules link), both loaded in this process and
 * run alternately, so load on the shared machine hits both alike. Figure: recorded events per
 * wall-second of this tree, best of N alternating pairs; baseline: the same for the base tree.
 * `npm run bench -- backtest-edge [pairs]` (default 5); BOOKMAKER_BASE_FIRST=1 loads and runs the base first.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { polymarketRecording } from './fixtures.ts';
import { report } from './lib.ts';

const baseTree = resolve(process.env.BOOKMAKER_BASE_TREE ?? '../h15-base');
if (!existsSync(`${baseTree}/src/backtest/run-backtest.ts`)) {
  process.stderr.write(`backtest-edge: no base tree at ${baseTree} (set BOOKMAKER_BASE_TREE)\n`);
  process.exit(2);
}
const pairs = Number(process.argv[2] ?? 5);
const dir = await polymarketRecording();

interface Tree {
  label: string;
  run: () => Promise<{ secs: number; cpu: number; rows: number; fills: number; pnl: number }>;
}

async function tree(root: string, label: string): Promise<Tree> {
  const imp = (p: string) => import(pathToFileURL(`${root}/src/backtest/${p}`).href);
  const { loadBacktestConfig } = await imp('backtest-config.ts');
  const { loadReplaySource } = await imp('replay-source.ts');
  const { runBacktest } = await imp('run-backtest.ts');
  const { buildSummary } = await imp('report-summary.ts');
  const cfg = await loadBacktestConfig(`${root}/config/backtest.yaml`, {}, {});
  return {
    label,
    async run() {
      const c0 = process.cpuUsage();
      const t0 = performance.now();
      const r = await runBacktest({ source: loadReplaySource(dir), config: cfg.bot, settings: cfg.settings });
      const s = buildSummary(r);
      const secs = (performance.now() - t0) / 1000;
      const c = process.cpuUsage(c0);
      return { secs, cpu: (c.user + c.system) / 1e6, rows: r.rowsReplayed, fills: s.fills, pnl: s.pnl.total };
    },
  };
}

// load order can favour one tree (JIT warm-up, shared dependencies): BOOKMAKER_BASE_FIRST=1 reverses it
const baseFirst = process.env.BOOKMAKER_BASE_FIRST === '1';
const before = baseFirst ? await tree(baseTree, `base ${baseTree}`) : null;
const after = await tree(process.cwd(), 'this tree');
const base = before ?? (await tree(baseTree, `base ${baseTree}`));
if (baseFirst) await base.run();
await after.run();
if (!baseFirst) await base.run();
const a: Awaited<ReturnType<Tree['run']>>[] = [];
const b: Awaited<ReturnType<Tree['run']>>[] = [];
for (let i = 0; i < pairs; i++) {
  // alternate which goes first, so neither always runs on a warmer or cooler machine
  if ((i % 2 === 0) !== baseFirst) {
    a.push(await after.run());
    b.push(await base.run());
  } else {
    b.push(await base.run());
    a.push(await after.run());
  }
}
const best = (xs: typeof a) => xs.reduce((p, q) => (q.secs < p.secs ? q : p));
const bestCpu = (xs: typeof a) => xs.reduce((p, q) => (q.cpu < p.cpu ? q : p));
const ra = best(a).rows / best(a).secs;
const rb = best(b).rows / best(b).secs;
const ca = bestCpu(a).rows / bestCpu(a).cpu;
const cb = bestCpu(b).rows / bestCpu(b).cpu;
report(
  [
    ['recording', `polymarket-tickscope, ${best(a).rows.toLocaleString('en-US')} rows; ${pairs} alternating pairs`],
    ['this tree: events/s wall (best)', ra],
    ['base tree: events/s wall (best)', rb],
    ['this tree: events/s per CPU-second (best)', ca],
    ['base tree: events/s per CPU-second (best)', cb],
    ['ratio wall (this / base)', ra / rb],
    ['ratio CPU (this / base)', ca / cb],
    ['fills / PnL (this, base)', `${best(a).fills} / ${best(a).pnl} · ${best(b).fills} / ${best(b).pnl}`],
  ],
  { name: 'backtest-edge', unit: 'events/s', value: Math.round(ra), baseline: 'the same backtest before issue 15 (1d73146)', baselineValue: Math.round(rb), ratio: Number((ra / rb).toFixed(4)), cpuRatio: Number((ca / cb).toFixed(4)) },
);
