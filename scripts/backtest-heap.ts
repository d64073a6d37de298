/**
 * Where a whole-capture backtest allocates, and what its garbage collection costs, per warm run:
 *
 *   node --import tsx scripts/backtest-heap.ts [TREE] [--runs N] [--bot full|quotes-nothing|no-markets]
 *
 * runs TREE's backtest of the Polymarket capture with TREE's config/backtest.yaml in this process
 * (default: this checkout), three runs to warm up, then:
 * - N runs (default 4) under V8's sampling heap profiler, garbage included: MB allocated per run,
 *   by source file (a builtin's bytes, e.g. Array.prototype.push, go to the file that called it);
 * - N runs (default 4, at least 8) observed for garbage collections: scavenges and full collections
 *   per run and their pause time (wall time: a loaded machine stretches it; the counts do not move).
 * Node flags go before the script (`node --max-semi-space-size=32 --import tsx scripts/...`), so a
 * young-generation size can be compared (docs/performance/backtest.md, "Garbage collection").
 */
import { Session } from 'node:inspector/promises';
import { resolve } from 'node:path';
import { PerformanceObserver, constants } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';

const args = process.argv.slice(2);
const flag = (name: string, dflt: string): string => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] !== undefined ? args[i + 1]! : dflt;
};
const tree = resolve(args.find((a, i) => !a.startsWith('--') && !(i > 0 && args[i - 1]!.startsWith('--'))) ?? '.');
const runs = Math.max(1, Number(flag('runs', '4')));
const bot = flag('bot', 'full');
if (!['full', 'quotes-nothing', 'no-markets'].includes(bot)) {
  process.stderr.write(`backtest-heap: --bot full | quotes-nothing | no-markets (got ${bot})\n`);
  process.exit(2);
}

type Mod = Record<string, any>;
const imp = (p: string): Promise<Mod> => import(pathToFileURL(`${tree}/${p}`).href);
const { loadBacktestConfig } = await imp('src/backtest/backtest-config.ts');
const { loadReplaySource } = await imp('src/backtest/replay-source.ts');
const { runBacktest } = await imp('src/backtest/run-backtest.ts');
const { buildSummary } = await imp('src/backtest/report-summary.ts');
const { polymarketRecording } = await imp('test/bench/fixtures.ts');
const dir: string = await polymarketRecording();
const cfg = await loadBacktestConfig(`${tree}/config/backtest.yaml`, {}, {});
let config = cfg.bot;
// the same bot choices as backtest-edge --bot
if (bot === 'quotes-nothing')
  config = { ...config, markets: config.markets.map((m: Mod) => ({ ...m, strategy: { ...m.strategy, module: { ...m.strategy.module, quote: () => null } } })) };
if (bot === 'no-markets') config = { ...config, markets: config.markets.map((m: Mod) => ({ ...m, select: { by: 'id', id: '0x00' } })) };
const run = async (): Promise<{ fills: number; pnl: number }> => {
  const s = buildSummary(await runBacktest({ source: loadReplaySource(dir), config, settings: cfg.settings }));
  return { fills: s.fills, pnl: s.pnl.total };
};
for (let i = 0; i < 3; i++) await run();

// Collections: counted per run by kind.
let scavenges = 0;
let fulls = 0;
let pause = 0;
const gcs = new PerformanceObserver((list) => {
  for (const e of list.getEntries()) {
    const kind = (e as unknown as { detail?: { kind?: number } }).detail?.kind;
    if (kind === constants.NODE_PERFORMANCE_GC_MINOR) scavenges++;
    else if (kind === constants.NODE_PERFORMANCE_GC_MAJOR) fulls++;
    pause += e.duration;
  }
});
gcs.observe({ entryTypes: ['gc'] });
const gcRuns = Math.max(8, runs);
const c0 = process.cpuUsage();
let last = { fills: 0, pnl: 0 };
for (let i = 0; i < gcRuns; i++) last = await run();
const c = process.cpuUsage(c0);
await new Promise((r) => setImmediate(r)); // the observer's last entries
gcs.disconnect();

// Allocation: sampled (one sample per 1 KB allocated on average), collected objects included.
const session = new Session();
session.connect();
await session.post('HeapProfiler.enable');
await session.post('HeapProfiler.startSampling', { samplingInterval: 1024, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
for (let i = 0; i < runs; i++) await run();
const { profile } = await session.post('HeapProfiler.stopSampling');
session.disconnect();

interface Node {
  callFrame: { url: string; functionName: string };
  selfSize: number;
  children: Node[];
}
const byFile = new Map<string, number>();
let total = 0;
const fileOf = (url: string): string | null => {
  if (url === '' || url.startsWith('node:')) return null;
  const m = /\/((?:src|strategies|test|scripts)\/.*)$/.exec(url);
  return m ? m[1]! : url;
};
const walk = (n: Node, caller: string): void => {
  const own = fileOf(n.callFrame.url) ?? caller;
  byFile.set(own, (byFile.get(own) ?? 0) + n.selfSize);
  total += n.selfSize;
  for (const ch of n.children) walk(ch, own);
};
walk(profile.head as unknown as Node, '(runtime)');

const mb = (b: number): string => (b / runs / 1e6).toFixed(2);
process.stdout.write(`tree ${tree}; bot ${bot}; fills ${last.fills}, PnL ${last.pnl}\n`);
process.stdout.write(
  `per run (${gcRuns} warm runs): CPU ${((c.user + c.system) / 1000 / gcRuns).toFixed(1)} ms; ${(scavenges / gcRuns).toFixed(2)} scavenges, ${(fulls / gcRuns).toFixed(2)} full collections, GC pause ${(pause / gcRuns).toFixed(1)} ms\n`,
);
process.stdout.write(`allocated per run (${runs} runs sampled): ${mb(total)} MB\n`);
for (const [file, bytes] of [...byFile].sort((a, b) => b[1] - a[1]).slice(0, 40)) {
  if (bytes / runs < 10_000) break;
  process.stdout.write(`${mb(bytes).padStart(8)}  ${file}\n`);
}
