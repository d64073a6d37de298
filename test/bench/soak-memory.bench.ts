/**
 * soak-memory: the bot's resident memory while it quotes 50 markets of the local exchange, each
 * with at least 5 book updates per second, for 10 minutes (`--minutes N`: 40 to read the criterion, below).
 *
 * The exchange and its simulated counterparties (stepping every 200 ms) run in this process; the
 * bot runs as `bookmaker run` in a child process (as operators run it), so its RSS is read alone
 * from /proc/<pid>/status every 5 s. Reported: peak RSS, RSS at half time and at the end, the mean
 * RSS of the second half and its growth over the second half (least-squares slope × duration),
 * against the 200 MB target.
 *
 * RSS alone cannot tell a leak from V8 letting its heap grow: the bot also runs with `--trace-gc`,
 * and the heap left after each full (mark-compact) collection — what the bot really keeps alive —
 * is reported the same way (first and last, second-half growth). A structure that grows with time
 * shows there even when the RSS saw-tooth hides it.
 *
 * `--trace-gc`'s live heap leaves out typed arrays' stores (ArrayBuffers), where the bounded id windows
 * keep their entries. So the bot also preloads test/bench/heap-probe.mjs, which reads V8's heap spaces and
 * the array buffers after each of the bot's own full collections (the old generation: young space is left
 * out). The criterion's figure (flat: ≤ +0.5 MB over the second half) is that reading's heap plus array
 * buffers, its growth over the second half; the table also gives each space's change and the figure
 * without code space (V8 compiling hot functions later in the run, not the bot's data). `--probe forced`
 * reads instead, every minute, the heap after two forced full collections (every space; the readings of
 * session 29 and before): each forced collection makes V8 discard and rebuild optimised code the bot
 * would have kept (docs/performance/reoptimisation.md), so that figure includes the probe's own work.
 *
 * `--heap-mb N` runs the bot with NODE_OPTIONS=--max-old-space-size=N: V8 otherwise lets the old
 * space grow to about twice the live set between major collections, so RSS saw-tooths well above
 * what the bot keeps alive; a capped run that neither dies nor slows down shows the live set fits.
 *
 * The fill-id windows and kept fills fill for 15 minutes at this bench's rates (~1,400 orders and
 * ~230-450 fills a minute over the 50 markets): the books' (src/account: the fills and ids of the last
 * 15 minutes by the fills' times, twice with the ledger's checkpoint copy from minute 5) and the
 * store's (src/state/fill-ids.ts), each id 48 bytes of numbers (src/core/fill-id-slots.ts). So the
 * criterion needs a run whose second half starts after them: `--minutes 40` (a 10-minute run's second
 * half is not flat by construction). The mid history, the own-orders feed's closed orders and the
 * nonce windows take their whole memory at the start (docs/performance.md, "Memory over a long run").
 *
 * RSS is what a container's limit watches, and it can grow while the heap does not: every 5 s the bench also
 * reads the bot's /proc/<pid>/smaps and sums its resident kB by kind of mapping (test/bench/soak-memory-maps.ts:
 * malloc's thread arenas, the main arena `[heap]`, stacks, anonymous code, other anonymous mappings — V8's pages
 * and malloc's mmapped blocks —, files), with each kind's second-half growth; the heap probe adds V8's own
 * resident pages and malloc'd bytes. `--malloc-arena-max N` runs the bot with MALLOC_ARENA_MAX=N and
 * `--semi-space-mb N` with --max-semi-space-size=N, `--bot-env NAME=VALUE` with more of its environment (glibc's
 * MALLOC_TRIM_THRESHOLD_, say), to measure what a setting bounds and costs.
 *
 * A heap snapshot (below) raises RSS by tens of MB for the rest of the run (the snapshot's working memory, freed
 * to malloc, not to the system): a run with snapshots in its second half does not measure RSS growth.
 *
 * `--snapshots 2,5` writes a heap snapshot of the bot at each of those minutes of the soak (SIGUSR2
 * with `--heapsnapshot-signal`) into `--snapshot-dir DIR` (default: a new directory under the system's
 * temp dir, printed), to diff what grows between them; the bot's watchdog is switched off for such a
 * run, as writing a snapshot stops its event loop for seconds. It is off in every run (as in rotation-soak): a
 * 60-minute run's bot exited 5 at its first minute, the watchdog seeing the main thread starved of CPU at load 21.
 *
 * `--tree DIR` runs the bot of another checkout (e.g. the baseline's) against this file's exchange,
 * counterparties and readings, so two trees are measured by the same harness. The table ends with
 * the live-heap series itself (minute:MB after each full collection): a slope over the second half
 * cannot tell a steady growth from one high reading near the end (a collection that lands while the
 * run's books checkpoint holds its pieces, every 5 minutes).
 *
 *   npm run bench -- soak-memory [--minutes N] [--heap-mb N] [--snapshots M,M…] [--snapshot-dir DIR] [--tree DIR]
 *     [--malloc-arena-max N] [--semi-space-mb N] [--bot-env NAME=VALUE …] [--probe major|forced]
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startCounterparties } from '../../src/sim/counterparties.ts';
import { createLocalExchange } from '../../src/sim/local-exchange.ts';
import { generatedMarketInput } from '../../src/sim/market-factory.ts';
import { toSubmitOrder } from '../../src/sim/agents/order-builder.ts';
import type { Address } from '../../src/model/order.ts';
import { markCompact, probeModeArg, probeSecondHalf, readProbes, report, secondHalf } from './lib.ts';
import { cpuSeconds, type MapReading, mapsSecondHalf, probeV8, readMaps, v8SecondHalfRows } from './soak-memory-maps.ts';
import { bandsDefaultsYaml, venueYaml } from '../support/bot-yaml.ts';

const arg = (name: string, d: number): number => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : d;
};
const MINUTES = arg('minutes', 10);
/** which heap readings the criterion reads: the bot's own full collections (default) or forced probes (`--probe forced`) */
const PROBE_MODE = probeModeArg();
const HEAP_MB = arg('heap-mb', 0);
/** glibc's MALLOC_ARENA_MAX for the bot (0: unset, glibc's default of 8 a core) */
const ARENA_MAX = arg('malloc-arena-max', 0);
/** V8's --max-semi-space-size for the bot, MB (0: node's default) */
const SEMI_MB = arg('semi-space-mb', 0);
/** `--bot-env NAME=VALUE` (repeatable): more of the bot's environment, e.g. glibc's MALLOC_TRIM_THRESHOLD_ */
const BOT_ENV: Record<string, string> = {};
for (let i = process.argv.indexOf('--bot-env'); i >= 0; i = process.argv.indexOf('--bot-env', i + 1)) {
  const m = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/.exec(process.argv[i + 1] ?? '');
  if (!m) throw new Error(`--bot-env takes NAME=VALUE, got ${process.argv[i + 1]}`);
  BOT_ENV[m[1]!] = m[2]!;
}
const strArg = (name: string): string | undefined => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
const SNAPSHOTS = (strArg('snapshots') ?? '')
  .split(',')
  .filter((m) => m !== '')
  .map(Number)
  .sort((a, b) => a - b);
if (SNAPSHOTS.some((m) => !(m >= 0))) throw new Error('--snapshots takes minutes, comma-separated: 2,5');
const SNAPSHOT_DIR = SNAPSHOTS.length > 0 ? (strArg('snapshot-dir') ?? mkdtempSync(join(tmpdir(), 'bookmaker-soak-heap-'))) : '';
// the bot writes into it and exits on ENOENT when it is missing (a 30-minute run lost at its first snapshot)
if (SNAPSHOT_DIR !== '') mkdirSync(SNAPSHOT_DIR, { recursive: true });
const ROOT = strArg('tree') ?? new URL('../../', import.meta.url).pathname;
const MARKETS = 50;
const KEY = 'soak-bot-key';

const ex = createLocalExchange({
  seed: 11,
  markets: Array.from({ length: MARKETS }, (_, i) => generatedMarketInput(i + 1)),
  apiKeys: [{ key: KEY }],
  rateLimit: { capacity: 100_000, refillPerSecond: 100_000 },
  expirySweepMs: 1000,
});
let updates = 0;
const publish = ex.hub.publishChanges.bind(ex.hub);
ex.hub.publishChanges = (...a: Parameters<typeof publish>) => {
  updates++;
  publish(...a);
};
const agents = startCounterparties(ex, { seed: 11, intervalMs: 200, newMarketEveryMs: 0, marketLifetimeMs: 24 * 3_600_000 });
const baseUrl = await ex.start(0);

// The counterparties alone move a book about once every two seconds; a driver account adds a
// resting bid deep in every book and takes it away again, one change per market every 200 ms
// (5 book updates/s per market on top of the agents), without touching the prices near the top.
const host = ex.state.engine;
const driver = host.ensureTrader('0x00000000000000000000000000000000000d71e5' as Address);
host.deposit(driver, 10n ** 15n);
const marketIdx = [...ex.state.stores.markets.values()].map((m) => host.marketIndex(m.id)!);
const resting = new Map<number, number>();
let step = 0;
const drive = setInterval(() => {
  const now = ex.state.clock.now();
  for (const mi of marketIdx) {
    const id = resting.get(mi);
    if (id !== undefined) {
      host.cancel(id as never, now);
      resting.delete(mi);
      continue;
    }
    const price = 50_000 + ((step + mi) % 10) * 10_000;
    const r = host.submit(toSubmitOrder({ market: mi, trader: driver, outcome: 1, side: 'buy', price, size: 1_000_000 + (step % 7) * 1_000_000, nowMs: now }));
    if (r.ok && r.status === 'open') resting.set(mi, r.id as unknown as number);
  }
  step++;
}, 200);
const pk = ex.state.keys.get(KEY)!.privateKey!;

const dir = mkdtempSync(join(tmpdir(), 'bookmaker-soak-'));
const cfg = join(dir, 'soak.yaml');
writeFileSync(
  cfg,
  `${venueYaml(baseUrl)}${bandsDefaultsYaml(
    [
      { minMargin: 0.01, targetMargin: 0.02, maxMargin: 0.03, size: 5 },
      { minMargin: 0.03, targetMargin: 0.05, maxMargin: 0.07, size: 10 },
    ],
    'microprice',
  )}  risk:
    maxPosition: 200
    maxNotional: 150
    maxOrderSize: 50
    maxBookAgeSeconds: 30
    maxStreamSilenceSeconds: 15
account:
  maxDrawdown: 0              # off: informed takers win against a demo strategy, and this run is about memory
markets: all
orders:
  requoteIntervalSeconds: 0.25
feeds:
  balancePollSeconds: 2
  oraclePollSeconds: 60
metrics:
  port: 0
watchdog:
  blockedLimitSeconds: 0     # off: a heap snapshot stops the loop for seconds, and a memory soak must not end on a shared machine's CPU starvation
`,
);

const spawnedAt = Date.now();
const PROBE_FILE = join(dir, 'heap-probe.jsonl');
const PROBE = new URL('./heap-probe.mjs', import.meta.url).pathname;
const child = spawn(
  process.execPath,
  ['--trace-gc', '--import', 'tsx', '--import', PROBE, 'src/cli/main.ts', 'run', '-c', cfg, '--api-key', KEY, '--log-level', 'error', '--summary-seconds', '0'],
  {
    cwd: ROOT,
    env: {
      ...process.env,
      BOOKMAKER_PRIVATE_KEY: pk,
      BOOKMAKER_HEAP_PROBE: PROBE_FILE,
      BOOKMAKER_HEAP_PROBE_MAJOR: PROBE_MODE === 'major' ? '1' : '',
      ...(ARENA_MAX > 0 ? { MALLOC_ARENA_MAX: String(ARENA_MAX) } : {}),
      ...BOT_ENV,
      NODE_OPTIONS: [
        process.env.NODE_OPTIONS ?? '',
        HEAP_MB > 0 ? `--max-old-space-size=${HEAP_MB}` : '',
        SEMI_MB > 0 ? `--max-semi-space-size=${SEMI_MB}` : '',
        SNAPSHOTS.length > 0 ? `--heapsnapshot-signal=SIGUSR2 --diagnostic-dir=${SNAPSHOT_DIR}` : '',
      ]
        .join(' ')
        .trim(),
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  },
);
let out = '';
/** heap after each full collection: `<ms since the isolate started> ms: Mark-Compact a (b) -> LIVE (d) MB` */
const majors: { isolate: string | null; at: number; live: number }[] = [];
let partial = '';
child.stdout.on('data', (b: Buffer) => {
  const text = partial + b.toString();
  const lines = text.split('\n');
  partial = lines.pop()!;
  for (const line of lines) {
    const g = markCompact(line);
    if (g) majors.push({ isolate: g.isolate, at: spawnedAt + g.ms, live: g.live });
    // the GC trace is most of the output; keep only the bot's own lines
    else if (!line.includes(' ms: ')) out += line + '\n';
  }
});
const exited = new Promise<number | null>((r) => child.on('exit', (c) => r(c)));

function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : Number.NaN;
}
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

while (!/quoting \d+ market/.test(out)) {
  if (child.exitCode !== null) throw new Error(`bot exited early: ${out}`);
  await sleep(200);
}
const quotedMarkets = Number(/quoting (\d+) market/.exec(out)![1]);
const samples: { t: number; rss: number; maps: MapReading | null; cpu: number }[] = [];
const cpu0 = cpuSeconds(child.pid!);
const t0 = Date.now();
const u0 = updates;
const end = t0 + MINUTES * 60_000;
const snapAt = SNAPSHOTS.filter((m) => m <= MINUTES);
// `--probe forced`: a heap probe (test/bench/heap-probe.mjs) every minute from the start; in both modes one at the end
// (`--probe major`: none until the end; the bot's own full collections are read instead)
let nextProbe = PROBE_MODE === 'major' ? Number.POSITIVE_INFINITY : t0;
while (Date.now() < end) {
  if (Date.now() >= nextProbe) {
    child.kill('SIGWINCH');
    nextProbe += 60_000;
  }
  await sleep(Math.max(0, Math.min(5_000, nextProbe - Date.now(), snapAt.length > 0 ? t0 + snapAt[0]! * 60_000 - Date.now() : 5_000)));
  if (snapAt.length > 0 && Date.now() >= t0 + snapAt[0]! * 60_000) {
    process.stderr.write(`soak ${snapAt.shift()} min: heap snapshot of the bot into ${SNAPSHOT_DIR}\n`);
    child.kill('SIGUSR2');
    continue;
  }
  if (child.exitCode !== null) throw new Error(`the bot exited during the soak (code ${child.exitCode})`);
  const s = { t: (Date.now() - t0) / 60_000, rss: rssMb(child.pid!), maps: readMaps(child.pid!), cpu: cpuSeconds(child.pid!) };
  samples.push(s);
  process.stderr.write(
    `soak ${s.t.toFixed(1)} min  rss ${s.rss.toFixed(1)} MB  updates/s/market ${((updates - u0) / ((Date.now() - t0) / 1000) / MARKETS).toFixed(1)}${
      s.maps
        ? `  arenas ${(s.maps.arenas / 1024).toFixed(1)} brk ${(s.maps.brk / 1024).toFixed(1)} anon ${(s.maps.anon / 1024).toFixed(1)} code ${(s.maps.code / 1024).toFixed(1)}`
        : ''
    }\n`,
  );
}
const rate = (updates - u0) / ((Date.now() - t0) / 1000) / MARKETS;
const lastSample = samples.at(-1)!;
const halfSample = samples.find((s) => s.t >= MINUTES / 2) ?? lastSample;
const botCpu = ((lastSample.cpu - cpu0) / (lastSample.t * 60)) * 100;
const botCpuHalf = ((lastSample.cpu - halfSample.cpu) / Math.max(1e-9, (lastSample.t - halfSample.t) * 60)) * 100;
const probesBefore = readProbes(PROBE_FILE, t0).length;
child.kill('SIGWINCH');
for (let i = 0; i < 100 && readProbes(PROBE_FILE, t0).length === probesBefore && child.exitCode === null; i++) await sleep(100);
const probed = probeSecondHalf(readProbes(PROBE_FILE, t0, PROBE_MODE), MINUTES);
const v8Rows = v8SecondHalfRows(probeV8(PROBE_FILE, t0, PROBE_MODE), MINUTES);
const byMap = mapsSecondHalf(
  samples.flatMap((s) => (s.maps ? [{ t: s.t, maps: s.maps }] : [])),
  MINUTES,
);
const openBefore = (await (
  await fetch(`${baseUrl}/orders?trader=${ex.state.keys.get(KEY)!.wallet}&status=open&limit=100`, { headers: { authorization: `Bearer ${KEY}` } })
).json()) as { orders: unknown[] };
child.kill('SIGTERM');
const code = await exited;
clearInterval(drive);
agents.stop();
await ex.close();
rmSync(dir, { recursive: true, force: true });

const rssHalf = secondHalf(
  samples.map((s) => ({ t: s.t, v: s.rss })),
  MINUTES,
);
const mean = rssHalf.mean;
const growth = rssHalf.growth;
const peak = Math.max(...samples.map((s) => s.rss));
const rssAt = (t: number): number => samples.reduce((best, s) => (Math.abs(s.t - t) < Math.abs(best.t - t) ? s : best)).rss;
// the bot's main isolate only, the one holding the most (as rotation-soak does): the watchdog's and
// other worker threads' isolates trace their own collections, a few MB each, timed from their own
// start; mixed in, one of them early in the second half made a slope of +24 MB out of a heap that grew ~5
const biggest = new Map<string | null, number>();
for (const g of majors) biggest.set(g.isolate, Math.max(biggest.get(g.isolate) ?? 0, g.live));
const mainIsolate = [...biggest].sort((a, b) => b[1] - a[1])[0]?.[0];
const otherIsolates = majors.filter((g) => g.isolate !== mainIsolate).length;
const liveSeries = majors
  .filter((g) => g.isolate === mainIsolate)
  .map((g) => ({ t: (g.at - t0) / 60_000, v: g.live }))
  .filter((g) => g.t >= 0 && g.t <= MINUTES);
const live = secondHalf(liveSeries, MINUTES);
const liveFirst = liveSeries[0]?.v ?? Number.NaN;
const liveLast = liveSeries.at(-1)?.v ?? Number.NaN;
report(
  [
    ['minutes', MINUTES],
    ['old-space cap MB (0 = node default)', HEAP_MB],
    ['MALLOC_ARENA_MAX / max semi-space MB (0 = default) / more environment', `${ARENA_MAX} / ${SEMI_MB} / ${JSON.stringify(BOT_ENV)}`],
    ["bot's CPU % of a core over the soak / its second half", `${botCpu.toFixed(1)} / ${botCpuHalf.toFixed(1)}`],
    ['markets quoted', quotedMarkets],
    ['book updates/s per market', rate],
    ['open orders at the end (first page)', openBefore.orders.length],
    ['peak RSS MB', peak],
    ['RSS MB at half time', rssAt(MINUTES / 2)],
    ['RSS MB at the end', samples.at(-1)!.rss],
    ['second-half mean RSS MB', mean],
    ['second-half RSS growth MB (slope × duration)', growth],
    ['full GCs (mark-compact) in the run, main isolate (others left out)', `${liveSeries.length} (${otherIsolates})`],
    ['live heap MB after the first / last full GC', `${liveFirst.toFixed(1)} / ${liveLast.toFixed(1)}`],
    ['second-half live-heap growth MB (slope × duration)', live.n >= 2 ? live.growth : Number.NaN],
    ...(probed?.rows ?? [['heap probe', 'no readings'] as [string, string]]),
    ...v8Rows,
    ...(byMap?.rows ?? [['RSS by mapping', 'no smaps readings'] as [string, string]]),
    ['bot exit code after SIGTERM', code ?? -1],
    ['bot tree', ROOT],
    [
      'RSS MB each 5 minutes (minute:MB, arenas+brk, anon)',
      samples
        .filter((s, i) => i === 0 || Math.floor(s.t / 5) > Math.floor(samples[i - 1]!.t / 5))
        .map(
          (s) =>
            `${s.t.toFixed(0)}:${s.rss.toFixed(0)}${s.maps ? ` (${((s.maps.arenas + s.maps.brk) / 1024).toFixed(0)}, ${(s.maps.anon / 1024).toFixed(0)})` : ''}`,
        )
        .join(' '),
    ],
    ['live heap MB after each full GC (minute:MB)', liveSeries.map((g) => `${g.t.toFixed(1)}:${g.v.toFixed(1)}`).join(' ')],
    ...(SNAPSHOTS.length > 0 ? [['heap snapshots (minutes) in', `${SNAPSHOTS.join(',')} ${SNAPSHOT_DIR}`] as [string, string]] : []),
  ],
  {
    name: 'soak-memory',
    unit: 'MB RSS (peak)',
    value: Math.round(peak * 10) / 10,
    secondHalfMeanMb: Math.round(mean * 10) / 10,
    secondHalfGrowthMb: Math.round(growth * 10) / 10,
    rssHalfTimeMb: Math.round(rssAt(MINUTES / 2) * 10) / 10,
    rssEndMb: Math.round(samples.at(-1)!.rss * 10) / 10,
    liveHeapLastMb: liveLast,
    liveHeapSecondHalfGrowthMb: live.n >= 2 ? Math.round(live.growth * 10) / 10 : null,
    probe: PROBE_MODE,
    liveWithArrayBuffersSecondHalfGrowthMb: probed ? Math.round(probed.growth * 100) / 100 : null,
    liveWithArrayBuffersNoCodeSecondHalfGrowthMb: probed ? Math.round(probed.growthNoCode * 100) / 100 : null,
    updatesPerSecondPerMarket: Math.round(rate * 10) / 10,
    heapCapMb: HEAP_MB,
    mallocArenaMax: ARENA_MAX,
    botCpuPercent: Math.round(botCpu * 10) / 10,
    botCpuPercentSecondHalf: Math.round(botCpuHalf * 10) / 10,
    semiSpaceMb: SEMI_MB,
    botEnv: BOT_ENV,
    rssSecondHalfGrowthByMappingMb: byMap ? Object.fromEntries(Object.entries(byMap.growthMb).map(([k, v]) => [k, Math.round(v * 10) / 10])) : null,
    baseline: 'target 200 MB',
    baselineValue: 200,
    ratio: Math.round((peak / 200) * 100) / 100,
  },
);
