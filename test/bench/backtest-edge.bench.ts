/**
 * backtest-edge: what the edge bookkeeping (markouts, toxicity, regimes, attribution)
 * costs a backtest. The full backtest of the Polymarket capture with config/backtest.yaml, this
 * tree against a checkout of the code before it (BOOKMAKER_BASE_TREE, default ../h15-base: e.g.
 * `git worktree add ../h15-base 1d73146` with a node_modules link), both loaded in this process and
 * run alternately, so load on the shared machine hits both alike. Figure: recorded events per
 * wall-second of this tree, best of N alternating pairs; baseline: the same for the base tree.
 * `npm run bench -- backtest-edge [pairs]` (default 5); BOOKMAKER_BASE_FIRST=1 loads and runs the base first.
 *
 * `npm run bench -- backtest-edge [pairs] --processes`: each tree in processes of its own instead (one V8
 * heap per tree: in one process the tree loaded second can inherit the first's allocation-site and JIT
 * decisions, which made the in-process ratio swing with the load order). Per pair one process per tree,
 * the order alternating; each process warms up twice and keeps the best of three runs. Figures: the
 * median over the pairs of each tree's best, and the median of the per-pair ratios.
 *
 * `npm run bench -- backtest-edge [pairs] --lockstep [--bot full|quotes-nothing|no-markets]`: one process
 * per tree, both alive for the whole bench, each warmed up three times; then the runs alternate one
 * by one (this, base; base, this; ...), so the two runs of a pair are a fraction of a second apart
 * and the load on a shared machine hits them alike. Figures: each tree's least CPU per run, the median
 * of the per-pair CPU ratios (this / base: below 1 is faster). `--bot` picks what the bot does:
 * the full config, every market ticked by a strategy that quotes nothing (the plumbing), or no
 * market quoted (the replay alone), as `npm run bench -- backtest` breaks a run down.
 * Two checks of what the pair median reads (docs/performance/backtest.md, "What the pair median reads"): BACKTEST_EDGE_LOCKSTEP_WARM=N
 * warms each process up N times instead of three (is a tree still compiling in the first pairs?), and
 * BACKTEST_EDGE_LOCKSTEP_NODE='flags' starts both processes with these node flags (e.g.
 * `--initial-old-space-size=512`: are full collections inside the runs what the median reads?). The
 * medians of the first and the second half of the pairs are printed too. `--both-ways` runs half the pairs
 * with this tree's process spawned first and half (two fresh processes) with the base's spawned first, and
 * reads the geometric mean of the two halves' medians, in which a bias of the spawn order (if any: same-code
 * controls have read 0.95-1.16) cancels.
 *
 * `npm run bench -- backtest-edge --alloc [--bot ...]`: what one run allocates, a figure the machine's load
 * does not move. One process per tree; V8's sampling heap profiler (one sample per ~1 KB allocated,
 * objects collected since counted too) over the third run (the first two warm up): the sampled bytes
 * estimate the bytes the run allocated, within a fraction of a percent. The ratio is the claim
 * (this / base: below 1 allocates less).
 *
 * `npm run bench -- backtest-edge [pairs] --instructions [--bot ...] [--jobs N]`: the instructions one warm
 * run executes, a figure the machine's load does not move (docs/performance/backtest.md, "The benchmarks"). Per
 * tree and pair one process under valgrind's callgrind, started with instrumentation off: it warms up
 * three times (uninstrumented, ~5× slower than native), runs a full collection (`--expose-gc`), then
 * turns instrumentation on for one run with `callgrind_control`, which waits for callgrind's answer,
 * and dumps the counts after it; a second dump of an empty region measures the two control calls,
 * subtracted. Node runs with V8's `--single-threaded` (compiler and collector on the main thread):
 * valgrind runs one thread at a time, and on a loaded machine every hand-over between V8's helper
 * threads waited for a scheduler slot (a process gained ~2 s of CPU a minute). Default 2 pairs (a tree's two
 * runs show the spread); the processes run side by side (`--jobs N` to run fewer at once), each
 * 5–15 minutes on the shared machine. Figures: each tree's median instructions a run and the median
 * of the per-pair ratios (this / base: below 1 runs fewer).
 *
 * `npm run bench -- backtest-edge --counts [--bot ...]`: what one run of this tree does, layer by layer, counted
 * rather than timed (a figure no load moves): rows by kind, each cursor's rows one at a time and in one-pass
 * runs, book writes per cursor (and those past the tenth level, which no publication shows), publications and
 * their unchanged sides, store updates, ticks by cause, syncs, timers, venue calls, the collector's mids and
 * samples. The layers' entry points are wrapped with counters in this process only; no base tree.
 *
 * `npm run bench -- backtest-edge [runs] --layers [--tree DIR]`: where a warm run's CPU goes, by layer. This tree (or
 * DIR's code, e.g. a base tree's, charged by the same rules) in this process: five warm-up runs, then a CPU profile (200 µs sampling) over `runs` runs (default 20). Each sample is
 * charged to the layer of its function's file (src/backtest/sim-exchange.ts: the simulated exchange; src/state:
 * the store; ...), and a sample in shared code (src/core, src/model, Node's own) to the nearest caller that
 * has a layer, so L2Book's writes count for the cursor that made them. Figures: each layer's share of the
 * samples, and the functions with the most samples (self time). Shares, not times: the load does not move them much.
 * BACKTEST_EDGE_PROFILE=FILE also writes the profile itself (V8's .cpuprofile, for DevTools or speedscope).
 *
 * `npm run bench -- backtest-edge [pairs] --cli`: the backtest as `bookmaker backtest` runs it, one run
 * in a fresh process: per pair one process per tree (the order alternating) runs its tree's CLI command
 * (`main(['backtest', ...])` of src/cli/main.ts: whatever the command sets up, V8 flags included) on
 * the capture with the tree's config/backtest.yaml. Figures: the command's CPU time (config, replay,
 * summary, JSON; not the loading of the modules) and the process's, median of each tree and of the
 * per-pair ratios. Both trees run the same way: their own CLI command, no flag of the bench's.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { BotConfig } from '../../src/config/types.ts';
import type { Bytes32 } from '../../src/model/order.ts';
import { polymarketRecording } from './fixtures.ts';
import { report, versus } from './lib.ts';

const baseTree = resolve(process.env.BOOKMAKER_BASE_TREE ?? '../h15-base');
// --counts and --layers run this tree only
if (!process.argv.includes('--counts') && !process.argv.includes('--layers') && !existsSync(`${baseTree}/src/backtest/run-backtest.ts`)) {
  process.stderr.write(`backtest-edge: no base tree at ${baseTree} (set BOOKMAKER_BASE_TREE)\n`);
  process.exit(2);
}
// the pairs: the first bare number (not the value of --jobs)
const pairsArg = process.argv.slice(2).find((a, i, all) => /^\d+$/.test(a) && all[i - 1] !== '--jobs');
const pairs = Number(pairsArg ?? 5);
const dir = await polymarketRecording();

interface Tree {
  label: string;
  run: () => Promise<{ secs: number; cpu: number; rows: number; fills: number; pnl: number }>;
}

type BotChoice = 'full' | 'quotes-nothing' | 'no-markets';
const botArg = process.argv.indexOf('--bot');
const botChoice = (process.env.BACKTEST_EDGE_BOT ?? (botArg > 0 ? process.argv[botArg + 1] : 'full')) as BotChoice;
if (!['full', 'quotes-nothing', 'no-markets'].includes(botChoice)) {
  process.stderr.write(`backtest-edge: --bot full | quotes-nothing | no-markets (got ${botChoice})\n`);
  process.exit(2);
}

/** The config's bot as `--bot` asks (see the header); either tree's config has this shape. */
function botOf(bot: BotConfig, choice: BotChoice): BotConfig {
  if (choice === 'quotes-nothing')
    return { ...bot, markets: bot.markets.map((m) => ({ ...m, strategy: { ...m.strategy, module: { ...m.strategy.module, quote: () => null } } })) };
  if (choice === 'no-markets') return { ...bot, markets: bot.markets.map((m) => ({ ...m, select: { by: 'id' as const, id: '0x00' as Bytes32 } })) };
  return bot;
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
      const r = await runBacktest({ source: loadReplaySource(dir), config: botOf(cfg.bot, botChoice), settings: cfg.settings });
      const s = buildSummary(r);
      const secs = (performance.now() - t0) / 1000;
      const c = process.cpuUsage(c0);
      return { secs, cpu: (c.user + c.system) / 1e6, rows: r.rowsReplayed, fills: s.fills, pnl: s.pnl.total };
    },
  };
}

if (process.argv.includes('--counts')) {
  // what one run of this tree does, layer by layer, counted (not timed): each layer's entry points are
  // wrapped with a counter, in this process only (docs/performance/backtest.md, "What one run does")
  type Proto = Record<string, unknown>;
  const n = new Map<string, number>();
  const inc = (k: string, by = 1): void => void n.set(k, (n.get(k) ?? 0) + by);
  /** the cursor whose call is running: the book writes are counted per cursor */
  let cursor = '';
  const wrap = (proto: Proto, name: string, label: string | null, on?: (args: unknown[], ret: unknown) => void, who?: string): void => {
    const f = proto[name] as (...a: unknown[]) => unknown;
    if (typeof f !== 'function') throw new Error(`backtest-edge --counts: no method ${name}`);
    proto[name] = function (this: unknown, ...args: unknown[]): unknown {
      if (label !== null) inc(label);
      const outer = cursor;
      if (who !== undefined) cursor = who;
      try {
        const ret = f.apply(this, args);
        on?.(args, ret);
        return ret;
      } finally {
        cursor = outer;
      }
    };
  };
  const src = async (p: string) => import(pathToFileURL(`${process.cwd()}/src/${p}`).href);
  const { L2Book } = await src('core/l2-book.ts');
  const { SimExchange } = await src('backtest/sim-exchange.ts');
  const { ReplayFeed } = await src('backtest/replay-feed.ts');
  const { StateStore } = await src('state/store.ts');
  const { OrderManager } = await src('orders/order-manager.ts');
  const { RunCollector } = await src('backtest/run-collector.ts');
  const { VirtualClock } = await src('backtest/virtual-clock.ts');
  const { QuotingKernel } = await src('kernel/quoting-kernel.ts');
  const { loadReplaySource } = await src('backtest/replay-source.ts');
  type Book = { levels(side: 'bid' | 'ask', depth: number): { price: number }[] };
  // a write at a price past the side's tenth level, before and after: nothing a publication (depth 10) shows
  const deep = (b: Book, bid: boolean, price: number): boolean => {
    const lv = b.levels(bid ? 'bid' : 'ask', 10);
    return lv.length === 10 && (bid ? price < lv[9]!.price : price > lv[9]!.price);
  };
  for (const [name, bid] of [
    ['setBid', true],
    ['setAsk', false],
  ] as const) {
    const f = L2Book.prototype[name] as (this: Book, price: number, size: number) => number;
    L2Book.prototype[name] = function (this: Book, price: number, size: number): number {
      const was = deep(this, bid, price);
      const prev = f.call(this, price, size);
      inc(`book writes: ${cursor}`);
      if (was && deep(this, bid, price)) inc(`book writes past the tenth level: ${cursor}`);
      return prev;
    };
  }
  {
    // set(side, price, size): the row passes' one call site for both sides (0 bid)
    const f = L2Book.prototype.set as (this: Book, side: number, price: number, size: number) => number;
    L2Book.prototype.set = function (this: Book, side: number, price: number, size: number): number {
      const was = deep(this, side === 0, price);
      const prev = f.call(this, side, price, size);
      inc(`book writes: ${cursor}`);
      if (was && deep(this, side === 0, price)) inc(`book writes past the tenth level: ${cursor}`);
      return prev;
    };
  }
  wrap(L2Book.prototype, 'levelsSince', null, (args, ret) => {
    inc('publication sides');
    if (ret === args[2]) inc('publication sides unchanged');
  });
  const ex = SimExchange.prototype as Proto;
  wrap(ex, 'applyRow', 'exchange rows one at a time', undefined, 'exchange');
  wrap(ex, 'applySilent', 'exchange one-pass runs', (args, ret) => inc('exchange rows in one-pass runs', (ret as number) - (args[1] as number)), 'exchange');
  wrap(ex, 'place', 'venue places');
  wrap(ex, 'cancel', 'venue cancels');
  const feed = ReplayFeed.prototype as Proto;
  wrap(feed, 'row', 'feed rows one at a time', undefined, 'feed');
  wrap(feed, 'skipSilent', 'feed passes', (args, ret) => inc('feed rows in passes', (ret as number) - (args[1] as number)), 'feed');
  wrap(feed, 'publish', 'feed publications');
  wrap(feed, 'scheduleTrailing', 'feed trailing publications scheduled');
  wrap(StateStore.prototype as Proto, 'dispatch', 'store updates: single');
  wrap(StateStore.prototype as Proto, 'dispatchAll', 'store updates: batches', (args) => inc('store updates: batched events', (args[0] as unknown[]).length));
  wrap(OrderManager.prototype as Proto, 'sync', 'order-manager syncs');
  wrap(RunCollector.prototype as Proto, 'onMid', 'collector mids');
  wrap(RunCollector.prototype as Proto, 'sample', 'collector samples');
  wrap(VirtualClock.prototype as Proto, 'runNext', 'timers run');
  wrap(QuotingKernel.prototype as Proto, 'runTick', null, (args) => inc(`ticks: ${String(args[1])}`));
  const t = await tree(process.cwd(), 'this tree');
  const r = await t.run();
  const cols = loadReplaySource(dir).cols as { rows: number; kind: Uint8Array };
  // the kinds' names in the order of their codes (src/backtest/recording/columns.ts KIND_*)
  const KINDS = ['level', 'clear', 'trade', 'top of book', 'drop-copy level', 'drop-copy clear', 'taker'];
  const kinds = new Map<string, number>();
  for (let i = 0; i < cols.rows; i++) kinds.set(KINDS[cols.kind[i]!] ?? '?', (kinds.get(KINDS[cols.kind[i]!] ?? '?') ?? 0) + 1);
  const ticks = (n.get('ticks: throttled') ?? 0) + (n.get('ticks: housekeeping') ?? 0) + (n.get('ticks: event') ?? 0);
  const rows: [string, string | number][] = [
    ['recording', `polymarket-tickscope, ${r.rows.toLocaleString('en-US')} rows; bot: ${botChoice}`],
    ['rows by kind', [...kinds].map(([k, c]) => `${k} ${c.toLocaleString('en-US')}`).join(', ')],
    ...[...n].sort((x, y) => x[0].localeCompare(y[0])).map(([k, v]): [string, string] => [k, v.toLocaleString('en-US')]),
    ['fills / PnL', `${r.fills} / ${r.pnl}`],
  ];
  report(
    rows,
    versus({ name: 'backtest-edge', unit: 'kernel ticks per run', value: ticks, baseline: 'none (counts)', baselineValue: 0, ratio: 1 }, Object.fromEntries(n)),
  );
  process.exit(0);
}

if (process.argv.includes('--layers')) {
  // where a warm run's CPU goes, by layer (see the header; docs/performance/backtest.md, "Where a run's CPU goes")
  const { Session } = await import('node:inspector/promises');
  const runs = pairsArg !== undefined ? pairs : 20;
  // --tree DIR: another tree's layers (a base tree), by this tree's rules
  const treeArg = process.argv.indexOf('--tree');
  const root = treeArg > 0 ? resolve(process.argv[treeArg + 1]!) : process.cwd();
  const t = await tree(root, root);
  for (let i = 0; i < 5; i++) await t.run();
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 200 });
  await session.post('Profiler.start');
  let cpu = 0;
  let rows = 0;
  for (let i = 0; i < runs; i++) {
    const r = await t.run();
    cpu += r.cpu;
    rows = r.rows;
  }
  const { profile } = await session.post('Profiler.stop');
  // BACKTEST_EDGE_PROFILE=FILE keeps the profile (V8's .cpuprofile: Chrome DevTools or speedscope open it)
  if (process.env.BACKTEST_EDGE_PROFILE) (await import('node:fs')).writeFileSync(process.env.BACKTEST_EDGE_PROFILE, JSON.stringify(profile));
  const { layerShares } = await import('./backtest-layers.ts');
  const { layers, functions, samples } = layerShares(profile);
  const pct = (x: number): string => `${(100 * x).toFixed(1)} %`;
  report(
    [
      ['recording', `polymarket-tickscope, ${rows.toLocaleString('en-US')} rows; bot: ${botChoice}; ${runs} warm runs profiled`],
      ['tree', root],
      ['CPU ms per run (profiled)', (1000 * cpu) / runs],
      ['samples', samples],
      ...layers.map(([l, x]): [string, string] => [`layer: ${l}`, pct(x)]),
      ...functions.slice(0, 25).map(([f, x]): [string, string] => [`self: ${f}`, pct(x)]),
    ],
    versus(
      { name: 'backtest-edge', unit: 'CPU ms per run (profiled)', value: (1000 * cpu) / runs, baseline: 'none (shares)', baselineValue: 0, ratio: 1 },
      Object.fromEntries(layers.map(([l, x]) => [l, Number((100 * x).toFixed(2))])),
    ),
  );
  process.exit(0);
}

const ALLOC_CHILD = process.env.BACKTEST_EDGE_ALLOC;
if (ALLOC_CHILD !== undefined) {
  // child of --alloc: the sampling heap profiler over one warm run (see the header)
  const { Session } = await import('node:inspector/promises');
  const session = new Session();
  session.connect();
  await session.post('HeapProfiler.enable');
  const t = await tree(ALLOC_CHILD, ALLOC_CHILD);
  await t.run();
  await t.run();
  // the collected objects' flags are V8's (not in Node's typings)
  const sampling = { samplingInterval: 1024, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true };
  await session.post('HeapProfiler.startSampling', sampling as { samplingInterval: number });
  const r = await t.run();
  const { profile } = await session.post('HeapProfiler.stopSampling');
  type Node = { selfSize: number; children: Node[] };
  const sum = (n: Node): number => n.children.reduce((x, c) => x + sum(c), n.selfSize);
  process.stdout.write(JSON.stringify({ mb: sum(profile.head as Node) / 2 ** 20, rows: r.rows }) + '\n');
  process.exit(0);
}

if (process.argv.includes('--alloc')) {
  const { execFileSync } = await import('node:child_process');
  const here = new URL(import.meta.url).pathname;
  const child = (root: string): { mb: number; rows: number } =>
    JSON.parse(
      execFileSync(process.execPath, ['--import', 'tsx', here], {
        cwd: process.cwd(),
        env: { ...process.env, BACKTEST_EDGE_ALLOC: root, BACKTEST_EDGE_BOT: botChoice },
        encoding: 'utf8',
      })
        .trim()
        .split('\n')
        .pop()!,
    );
  const a = child(process.cwd());
  const b = child(baseTree);
  report(
    [
      ['recording', `polymarket-tickscope, ${a.rows.toLocaleString('en-US')} rows; bot: ${botChoice}; sampled allocation of a warm run`],
      ['this tree: MB allocated per run', a.mb],
      ['base tree: MB allocated per run', b.mb],
      ['ratio this / base (< 1 allocates less)', a.mb / b.mb],
    ],
    versus(
      {
        name: 'backtest-edge',
        unit: 'MB allocated per run',
        value: a.mb,
        baseline: `the base tree (${baseTree}), a process each (bot: ${botChoice})`,
        baselineValue: b.mb,
        ratio: a.mb / b.mb,
      },
      { thisMb: Number(a.mb.toFixed(2)), baseMb: Number(b.mb.toFixed(2)) },
      3,
    ),
  );
  process.exit(0);
}

const INSTR_CHILD = process.env.BACKTEST_EDGE_INSTR;
if (INSTR_CHILD !== undefined) {
  // child of --instructions, under callgrind with instrumentation off: warm-ups, then instrumentation on
  // for one run only (callgrind_control waits for callgrind's answer), its counts dumped, then an empty
  // region dumped the same way (the cost of the two control calls, subtracted by the parent)
  const { execFileSync } = await import('node:child_process');
  const ctl = (...args: string[]) => execFileSync('callgrind_control', [...args, String(process.pid)], { stdio: 'ignore' });
  const t = await tree(INSTR_CHILD, INSTR_CHILD);
  const warm = Number(process.env.BACKTEST_EDGE_INSTR_WARM ?? 3);
  for (let i = 0; i < warm; i++) await t.run();
  // a full collection first, so the run starts on the same heap in every process and a major GC
  // during it depends on what the run itself allocates
  (globalThis as { gc?: () => void }).gc?.();
  ctl('--instr=on');
  const r = await t.run();
  ctl('--dump=run');
  ctl('--dump=empty');
  process.stdout.write(JSON.stringify({ rows: r.rows, fills: r.fills, pnl: r.pnl }) + '\n');
  process.exit(0);
}

if (process.argv.includes('--instructions')) {
  const { execFile: execFileCb } = await import('node:child_process');
  const { promisify } = await import('node:util');
  const execFile = promisify(execFileCb);
  const { mkdtempSync, readdirSync, readFileSync, rmSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const here = new URL(import.meta.url).pathname;
  const tmp = mkdtempSync(`${tmpdir()}/backtest-edge-instr-`);
  // pairs: 2 unless given (a tree's two runs show the figure's spread)
  const ipairs = pairsArg !== undefined ? pairs : 2;
  type Out = { instr: number; overhead: number; rows: number; fills: number; pnl: number; secs: number };
  // the instructions one dump counted (callgrind's `summary:` line, the Ir event)
  const summary = (file: string): number => Number(/^summary:\s*(\d+)/m.exec(readFileSync(file, 'utf8'))![1]);
  const child = async (root: string, n: number): Promise<Out> => {
    const dir = `${tmp}/${n}`;
    const t0 = performance.now();
    const args = ['--tool=callgrind', '--smc-check=all-non-file', '--instr-atstart=no', `--callgrind-out-file=${dir}.cg`];
    const { stdout } = await execFile('valgrind', [...args, process.execPath, '--single-threaded', '--expose-gc', '--import', 'tsx', here], {
      cwd: process.cwd(),
      env: { ...process.env, BACKTEST_EDGE_INSTR: root, BACKTEST_EDGE_BOT: botChoice },
      encoding: 'utf8',
      maxBuffer: 1 << 26,
    });
    const secs = (performance.now() - t0) / 1000;
    const o = JSON.parse(stdout.trim().split('\n').pop()!) as Omit<Out, 'instr' | 'overhead' | 'secs'>;
    // dumps: <file>.1 the run, <file>.2 the empty region, <file> the end of the process
    const files = readdirSync(tmp).filter((f) => f.startsWith(`${n}.cg`));
    if (!files.includes(`${n}.cg.1`) || !files.includes(`${n}.cg.2`)) throw new Error(`backtest-edge: no callgrind dumps for ${root}`);
    const overhead = summary(`${dir}.cg.2`);
    return { ...o, instr: summary(`${dir}.cg.1`) - overhead, overhead, secs };
  };
  // The counts do not depend on the machine's load, so the processes run side by side (`--jobs N`,
  // default all of them): the order of the pairs still alternates, for the record.
  const jobsArg = process.argv.indexOf('--jobs');
  const jobs = jobsArg > 0 ? Math.max(1, Number(process.argv[jobsArg + 1])) : 2 * ipairs;
  const plan: { root: string; mine: boolean; pair: number }[] = [];
  for (let i = 0; i < ipairs; i++) {
    const order = i % 2 === 0 ? [true, false] : [false, true];
    for (const m of order) plan.push({ root: m ? process.cwd() : baseTree, mine: m, pair: i });
  }
  const results: Out[] = new Array(plan.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < plan.length) {
      const n = next++;
      const p = plan[n]!;
      results[n] = await child(p.root, n);
      process.stderr.write(
        `${p.mine ? 'this' : 'base'} (pair ${p.pair + 1}): ${(results[n]!.instr / 1e9).toFixed(4)} G instructions (${results[n]!.secs.toFixed(0)} s)\n`,
      );
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(jobs, plan.length) }, worker));
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  const mine = plan.flatMap((p, n) => (p.mine ? [results[n]!] : []));
  const theirs = plan.flatMap((p, n) => (p.mine ? [] : [results[n]!]));
  const median = (xs: number[]) => {
    const s = [...xs].sort((x, y) => x - y);
    const m = s.length >> 1;
    return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
  };
  const spread = (xs: Out[]) => (Math.max(...xs.map((o) => o.instr)) / Math.min(...xs.map((o) => o.instr)) - 1) * 100;
  const g = (x: number) => (x / 1e9).toFixed(4);
  const ia = median(mine.map((o) => o.instr));
  const ib = median(theirs.map((o) => o.instr));
  const rows = mine[0]!.rows;
  report(
    [
      ['recording', `polymarket-tickscope, ${rows.toLocaleString('en-US')} rows; bot: ${botChoice}; ${ipairs} pairs of processes under callgrind`],
      ['this tree: G instructions per run (median; runs)', `${g(ia)}; ${mine.map((o) => g(o.instr)).join(' ')}`],
      ['base tree: G instructions per run (median; runs)', `${g(ib)}; ${theirs.map((o) => g(o.instr)).join(' ')}`],
      ["spread of a tree's runs, % (this; base)", `${spread(mine).toFixed(2)}; ${spread(theirs).toFixed(2)}`],
      ['instructions per event (this; base)', `${(ia / rows).toFixed(0)}; ${(ib / rows).toFixed(0)}`],
      ['ratio this / base (median of pairs; < 1 runs fewer)', median(mine.map((o, i) => o.instr / theirs[i]!.instr))],
      ["control calls' instructions (subtracted)", mine[0]!.overhead],
      ['fills / PnL (this, base)', `${mine[0]!.fills} / ${mine[0]!.pnl} · ${theirs[0]!.fills} / ${theirs[0]!.pnl}`],
    ],
    versus(
      {
        name: 'backtest-edge',
        unit: 'instructions per run',
        value: ia,
        baseline: `the base tree (${baseTree}), a process each under callgrind (bot: ${botChoice})`,
        baselineValue: ib,
        ratio: ia / ib,
      },
      { instrRatio: Number(median(mine.map((o, i) => o.instr / theirs[i]!.instr)).toFixed(4)) },
      4,
    ),
  );
  process.exit(0);
}

const CLI_CHILD = process.env.BACKTEST_EDGE_CLI;
if (CLI_CHILD !== undefined) {
  // child of --cli: this tree's `bookmaker backtest` command, once, in this fresh process
  const { readFileSync, writeFileSync } = await import('node:fs');
  const { main } = await import(pathToFileURL(`${CLI_CHILD}/src/cli/main.ts`).href);
  const json = `${process.env.BACKTEST_EDGE_OUT}.summary.json`;
  const c0 = process.cpuUsage();
  const code = await main(['backtest', '-c', `${CLI_CHILD}/config/backtest.yaml`, '--data', dir, '--json', json]);
  const c = process.cpuUsage(c0);
  const all = process.cpuUsage();
  const s = JSON.parse(readFileSync(json, 'utf8')) as { fills: number; pnl: { total: number }; recording: { rows: number } };
  const out = { code, cpu: (c.user + c.system) / 1e6, processCpu: (all.user + all.system) / 1e6, fills: s.fills, pnl: s.pnl.total, rows: s.recording.rows };
  writeFileSync(process.env.BACKTEST_EDGE_OUT!, JSON.stringify(out));
  process.exit(0);
}

if (process.argv.includes('--cli')) {
  const { execFileSync } = await import('node:child_process');
  const { mkdtempSync, readFileSync, rmSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const here = new URL(import.meta.url).pathname;
  const tmp = mkdtempSync(`${tmpdir()}/backtest-edge-cli-`);
  type Out = { code: number; cpu: number; processCpu: number; fills: number; pnl: number; rows: number };
  const child = (root: string): Out => {
    const out = `${tmp}/out.json`;
    // the command's own output (progress, summary) is not the bench's; a failure throws with its stderr
    execFileSync(process.execPath, ['--import', 'tsx', here], {
      cwd: process.cwd(),
      env: { ...process.env, BACKTEST_EDGE_CLI: root, BACKTEST_EDGE_OUT: out },
      stdio: ['ignore', 'ignore', 'pipe'],
      maxBuffer: 1 << 26,
    });
    const o = JSON.parse(readFileSync(out, 'utf8')) as Out;
    if (o.code !== 0) throw new Error(`backtest-edge: the CLI of ${root} exited ${o.code}`);
    return o;
  };
  const mine: Out[] = [];
  const theirs: Out[] = [];
  try {
    for (let i = 0; i < pairs; i++) {
      if (i % 2 === 0) {
        mine.push(child(process.cwd()));
        theirs.push(child(baseTree));
      } else {
        theirs.push(child(baseTree));
        mine.push(child(process.cwd()));
      }
      process.stderr.write(`pair ${i + 1}/${pairs}: command CPU ${(mine[i]!.cpu / theirs[i]!.cpu).toFixed(3)}x\n`);
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  const median = (xs: number[]) => {
    const s = [...xs].sort((x, y) => x - y);
    const m = s.length >> 1;
    return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
  };
  const ms = (x: number): string => (x * 1000).toFixed(0);
  const rc = median(mine.map((o, i) => o.cpu / theirs[i]!.cpu));
  const rp = median(mine.map((o, i) => o.processCpu / theirs[i]!.processCpu));
  const rows = mine[0]!.rows;
  report(
    [
      [
        'recording',
        `polymarket-tickscope, ${rows.toLocaleString('en-US')} rows; ${pairs} pairs of fresh processes, each running its tree's backtest command once`,
      ],
      ['this tree: command CPU ms (median; least)', `${ms(median(mine.map((o) => o.cpu)))}; ${ms(Math.min(...mine.map((o) => o.cpu)))}`],
      ['base tree: command CPU ms (median; least)', `${ms(median(theirs.map((o) => o.cpu)))}; ${ms(Math.min(...theirs.map((o) => o.cpu)))}`],
      ['this tree / base tree: process CPU ms (median)', `${ms(median(mine.map((o) => o.processCpu)))} / ${ms(median(theirs.map((o) => o.processCpu)))}`],
      ['command CPU ratio this / base (median of pairs; < 1 is faster)', rc],
      ['process CPU ratio (median of pairs)', rp],
      ['pair ratios (command CPU)', mine.map((o, i) => (o.cpu / theirs[i]!.cpu).toFixed(3)).join(' ')],
      ['fills / PnL (this, base)', `${mine[0]!.fills} / ${mine[0]!.pnl} · ${theirs[0]!.fills} / ${theirs[0]!.pnl}`],
    ],
    versus(
      {
        name: 'backtest-edge',
        unit: 'events/CPU-s',
        value: rows / median(mine.map((o) => o.cpu)),
        baseline: `the base tree (${baseTree}): its backtest command, one run in a fresh process`,
        baselineValue: rows / median(theirs.map((o) => o.cpu)),
        ratio: 1 / rc,
      },
      { cpuRatio: Number(rc.toFixed(4)), processCpuRatio: Number(rp.toFixed(4)) },
      4,
    ),
  );
  process.exit(0);
}

const LOCKSTEP_CHILD = process.env.BACKTEST_EDGE_LOCKSTEP;
if (LOCKSTEP_CHILD !== undefined) {
  // child of --lockstep: one tree, three warm-ups (or BACKTEST_EDGE_LOCKSTEP_WARM), then one run per line read, one JSON line each
  const t = await tree(LOCKSTEP_CHILD, LOCKSTEP_CHILD);
  const warm = Number(process.env.BACKTEST_EDGE_LOCKSTEP_WARM ?? 3);
  if (!(Number.isInteger(warm) && warm >= 0)) throw new Error(`backtest-edge: BACKTEST_EDGE_LOCKSTEP_WARM is a whole number (got ${warm})`);
  for (let i = 0; i < warm; i++) await t.run();
  process.stdout.write('ready\n');
  const { createInterface } = await import('node:readline');
  for await (const _ of createInterface({ input: process.stdin })) process.stdout.write(JSON.stringify(await t.run()) + '\n');
  process.exit(0);
}

if (process.argv.includes('--lockstep')) {
  const { spawn } = await import('node:child_process');
  const { createInterface } = await import('node:readline');
  const here = new URL(import.meta.url).pathname;
  type Run = Awaited<ReturnType<Tree['run']>>;
  const start = (root: string) => {
    // node flags for both children (the goal's runs give none)
    const flags = (process.env.BACKTEST_EDGE_LOCKSTEP_NODE ?? '').split(' ').filter((f) => f !== '');
    const p = spawn(process.execPath, [...flags, '--import', 'tsx', here], {
      cwd: process.cwd(),
      env: { ...process.env, BACKTEST_EDGE_LOCKSTEP: root, BACKTEST_EDGE_BOT: botChoice },
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    const lines = createInterface({ input: p.stdout })[Symbol.asyncIterator]();
    const line = async (): Promise<string> => {
      const r = await lines.next();
      if (r.done) throw new Error(`backtest-edge: the child for ${root} ended early`);
      return r.value;
    };
    return {
      p,
      ready: line,
      run: async (): Promise<Run> => {
        p.stdin.write('run\n');
        return JSON.parse(await line()) as Run;
      },
    };
  };
  const bothWays = process.argv.includes('--both-ways');
  const a: Run[] = [];
  const b: Run[] = [];
  /** one round: a process per tree (`thisFirst`: this tree's spawned and run first), `n` pairs */
  const round = async (n: number, thisFirst: boolean): Promise<void> => {
    const first = start(thisFirst ? process.cwd() : baseTree);
    const second = start(thisFirst ? baseTree : process.cwd());
    const [mine, theirs] = thisFirst ? [first, second] : [second, first];
    await Promise.all([first.ready(), second.ready()]);
    for (let i = 0; i < n; i++) {
      if ((i % 2 === 0) === thisFirst) {
        a.push(await mine.run());
        b.push(await theirs.run());
      } else {
        b.push(await theirs.run());
        a.push(await mine.run());
      }
    }
    mine.p.stdin.end();
    theirs.p.stdin.end();
    await Promise.all([first.p, second.p].map((p) => new Promise((done) => (p.exitCode === null ? p.once('exit', done) : done(null)))));
  };
  const median = (xs: number[]) => {
    const s = [...xs].sort((x, y) => x - y);
    const m = s.length >> 1;
    return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
  };
  // --both-ways: half the pairs with this tree's process spawned (and run) first, half with the base's; the
  // figure is the geometric mean of the two rounds' medians, in which a bias of the spawn order cancels
  // (docs/performance/backtest.md, "What the pair median reads")
  const half = bothWays ? pairs >> 1 : pairs;
  await round(half, true);
  if (bothWays) await round(pairs - half, false);
  const least = (xs: Run[]) => Math.min(...xs.map((r) => r.cpu));
  const ratios = a.map((r, i) => r.cpu / b[i]!.cpu);
  const thisFirstMedian = median(ratios.slice(0, half));
  const baseFirstMedian = bothWays ? median(ratios.slice(half)) : Number.NaN;
  const rc = bothWays ? Math.sqrt(thisFirstMedian * baseFirstMedian) : median(ratios);
  const rows = a[0]!.rows;
  report(
    [
      ['recording', `polymarket-tickscope, ${rows.toLocaleString('en-US')} rows; bot: ${botChoice}; ${pairs} pairs run in lockstep`],
      ...(bothWays
        ? ([['median of the pair ratios, this tree spawned first / the base first', `${thisFirstMedian.toFixed(4)} / ${baseFirstMedian.toFixed(4)}`]] as [
            string,
            string,
          ][])
        : []),
      ['this tree: CPU ms per run (least / median)', `${(least(a) * 1000).toFixed(1)} / ${(median(a.map((r) => r.cpu)) * 1000).toFixed(1)}`],
      ['base tree: CPU ms per run (least / median)', `${(least(b) * 1000).toFixed(1)} / ${(median(b.map((r) => r.cpu)) * 1000).toFixed(1)}`],
      ['this tree: events per CPU-second (least CPU)', rows / least(a)],
      ['base tree: events per CPU-second (least CPU)', rows / least(b)],
      [
        bothWays
          ? "CPU ratio this / base (geometric mean of the two rounds' medians; < 1 is faster)"
          : 'CPU ratio this / base (median of pairs; < 1 is faster)',
        rc,
      ],
      [
        'pair ratios, sorted',
        [...ratios]
          .sort((x, y) => x - y)
          .map((r) => r.toFixed(3))
          .join(' '),
      ],
      // with --both-ways the two halves are the two rounds, printed above
      ...(bothWays
        ? []
        : ([
            [
              'median of the pair ratios, first / second half of the pairs',
              pairs < 2 ? '—' : `${median(ratios.slice(0, pairs >> 1)).toFixed(4)} / ${median(ratios.slice(pairs >> 1)).toFixed(4)}`,
            ],
          ] as [string, string][])),
      ['fills / PnL (this, base)', `${a[0]!.fills} / ${a[0]!.pnl} · ${b[0]!.fills} / ${b[0]!.pnl}`],
    ],
    versus(
      {
        name: 'backtest-edge',
        unit: 'events/CPU-s',
        value: rows / least(a),
        baseline: `the base tree (${baseTree}), runs alternated one by one (bot: ${botChoice})`,
        baselineValue: rows / least(b),
        ratio: least(b) / least(a),
      },
      { cpuRatio: Number(rc.toFixed(4)) },
      4,
    ),
  );
  process.exit(0);
}

const CHILD = process.env.BACKTEST_EDGE_CHILD;
if (CHILD !== undefined) {
  // child of --processes: one tree, two warm-ups, best of three, one JSON line
  const t = await tree(CHILD, CHILD);
  await t.run();
  await t.run();
  const runs = [await t.run(), await t.run(), await t.run()];
  const wall = runs.reduce((p, q) => (q.secs < p.secs ? q : p));
  const cpu = runs.reduce((p, q) => (q.cpu < p.cpu ? q : p));
  process.stdout.write(JSON.stringify({ wall: wall.rows / wall.secs, cpu: cpu.rows / cpu.cpu, rows: wall.rows, fills: wall.fills, pnl: wall.pnl }) + '\n');
  process.exit(0);
}

if (process.argv.includes('--processes')) {
  const { execFileSync } = await import('node:child_process');
  const here = new URL(import.meta.url).pathname;
  type Out = { wall: number; cpu: number; rows: number; fills: number; pnl: number };
  const child = (root: string): Out => {
    const out = execFileSync(process.execPath, ['--import', 'tsx', here], {
      cwd: process.cwd(),
      env: { ...process.env, BACKTEST_EDGE_CHILD: root },
      encoding: 'utf8',
      maxBuffer: 1 << 26,
    });
    return JSON.parse(out.trim().split('\n').pop()!) as Out;
  };
  const mine: Out[] = [];
  const theirs: Out[] = [];
  for (let i = 0; i < pairs; i++) {
    if (i % 2 === 0) {
      mine.push(child(process.cwd()));
      theirs.push(child(baseTree));
    } else {
      theirs.push(child(baseTree));
      mine.push(child(process.cwd()));
    }
    process.stderr.write(`pair ${i + 1}/${pairs}: wall ${(mine[i]!.wall / theirs[i]!.wall).toFixed(3)}x, cpu ${(mine[i]!.cpu / theirs[i]!.cpu).toFixed(3)}x\n`);
  }
  const median = (xs: number[]) => {
    const s = [...xs].sort((x, y) => x - y);
    const m = s.length >> 1;
    return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
  };
  const wa = median(mine.map((o) => o.wall));
  const wb = median(theirs.map((o) => o.wall));
  const ca = median(mine.map((o) => o.cpu));
  const cb = median(theirs.map((o) => o.cpu));
  const rw = median(mine.map((o, i) => o.wall / theirs[i]!.wall));
  const rc = median(mine.map((o, i) => o.cpu / theirs[i]!.cpu));
  report(
    [
      ['recording', `polymarket-tickscope, ${mine[0]!.rows.toLocaleString('en-US')} rows; ${pairs} pairs of processes, order alternating`],
      ['this tree: events/s wall (median of bests)', wa],
      ['base tree: events/s wall (median of bests)', wb],
      ['this tree: events/s per CPU-second (median of bests)', ca],
      ['base tree: events/s per CPU-second (median of bests)', cb],
      ['ratio wall (median of pair ratios)', rw],
      ['ratio CPU (median of pair ratios)', rc],
      ['pair ratios wall', mine.map((o, i) => (o.wall / theirs[i]!.wall).toFixed(3)).join(' ')],
      ['fills / PnL (this, base)', `${mine[0]!.fills} / ${mine[0]!.pnl} · ${theirs[0]!.fills} / ${theirs[0]!.pnl}`],
    ],
    versus(
      {
        name: 'backtest-edge',
        unit: 'events/s',
        value: wa,
        baseline: 'the same backtest before the edge bookkeeping (1d73146), processes of its own',
        baselineValue: wb,
        ratio: rw,
      },
      { cpuRatio: Number(rc.toFixed(4)) },
      4,
    ),
  );
  process.exit(0);
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
  versus(
    {
      name: 'backtest-edge',
      unit: 'events/s',
      value: ra,
      baseline: 'the same backtest before the edge bookkeeping (1d73146)',
      baselineValue: rb,
      ratio: ra / rb,
    },
    { cpuRatio: Number((ca / cb).toFixed(4)) },
    4,
  ),
);
