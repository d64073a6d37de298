/**
 * Load: the real bot (a child process, src/chaos/bot-child.ts) quoting 200 markets on the
 * local exchange while a synthetic maker changes every book 10 times a second (2,000 deltas/s in all).
 * Measured on the bot: CPU, RSS, event-loop delay p99 (perf_hooks monitorEventLoopDelay), book deltas
 * received vs published (dropped), events later than 1 s, resyncs; at the exchange: venue calls per
 * second. Target: no dropped events, lag p99 < 50 ms.
 *
 *   npm run bench -- load [--minutes 10] [--markets 200] [--rate 10] [--cpu-prof DIR] [--watchdog-seconds S] [--heap-mb MB] [--semi-space-mb MB] [--block-bot S] [--metrics-port P]
 *
 * `--cpu-prof DIR` writes a V8 CPU profile of the bot child into DIR (node --cpu-prof) when it exits.
 * `--heap-mb MB` starts the bot child with `--max-old-space-size=MB`, as bin/bookmaker.js starts
 * `bookmaker run` under BOOKMAKER_HEAP_LIMITS (docs/deployment.md); without it the heap is V8's default.
 * `--semi-space-mb MB` starts it with `--max-semi-space-size=MB` (the young generation's semi-space).
 * `--block-bot S` makes the bot child's event loop run a synchronous loop for S seconds, 15 s into the
 * measured window: a stalled loop's catch-up, reproducible (docs/performance.md); give
 * `--watchdog-seconds` above S, or the watchdog ends the bot. `--metrics-port P` serves the bot's /metrics,
 * /healthz and /readyz on 127.0.0.1:P while it runs (what an operator sees; off by default).
 *
 * The baseline is the same bot quoting the same markets with the books still (no driver) measured in
 * the same run: the ratio says what 2,000 deltas/s cost in CPU over an idle quoting bot.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { report } from './lib.ts';
import { TESTNET } from '../../src/exchange/chains.ts';
import { createLocalExchange } from '../../src/sim/local-exchange.ts';
import { chaosKeys } from '../../src/chaos/run-chaos.ts';
import { spawnBot } from '../../src/chaos/bot-process.ts';
import { startBookDriver } from '../../src/chaos/load-driver.ts';
import { derivedAddress } from '../../src/sim/market-factory.ts';
import { toSubmitOrder } from '../../src/sim/agents/order-builder.ts';
import type { ChildMessage, ChildStats } from '../../src/chaos/child-messages.ts';
import { bandsDefaultsYaml } from '../support/bot-yaml.ts';
import { botEnd } from './bot-end.ts';

function arg(name: string, dflt: number): number {
  const i = process.argv.indexOf(`--${name}`);
  const v = i >= 0 ? Number(process.argv[i + 1]) : dflt;
  if (!Number.isFinite(v) || v <= 0) throw new Error(`--${name}: expected a positive number`);
  return v;
}

const MINUTES = arg('minutes', 10);
const MARKETS = arg('markets', 200);
const RATE = arg('rate', 10);
// the bot's watchdog ends a loop blocked 5 s (its default); on a machine oversubscribed by other work
// a burst can stall that long, so the limit can be raised here to measure the lag instead of dying
const WATCHDOG_SECONDS = process.argv.includes('--watchdog-seconds') ? arg('watchdog-seconds', 5) : undefined;
const WARMUP_MS = 30_000;
const profIdx = process.argv.indexOf('--cpu-prof');
const CPU_PROF_DIR = profIdx >= 0 ? process.argv[profIdx + 1] : undefined;
if (profIdx >= 0 && !CPU_PROF_DIR) throw new Error('--cpu-prof: expected a directory');
const HEAP_MB = process.argv.includes('--heap-mb') ? arg('heap-mb', 128) : undefined;
const SEMI_MB = process.argv.includes('--semi-space-mb') ? arg('semi-space-mb', 16) : undefined;
const NODE_ARGS = [
  ...(CPU_PROF_DIR ? ['--cpu-prof', `--cpu-prof-dir=${CPU_PROF_DIR}`] : []),
  ...(HEAP_MB !== undefined ? [`--max-old-space-size=${HEAP_MB}`] : []),
  ...(SEMI_MB !== undefined ? [`--max-semi-space-size=${SEMI_MB}`] : []),
];
const BLOCK_S = process.argv.includes('--block-bot') ? arg('block-bot', 35) : 0;
const METRICS_PORT = process.argv.includes('--metrics-port') ? arg('metrics-port', 9464) : 0;
const BASELINE_MS = 20_000;
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

const work = mkdtempSync(join(tmpdir(), 'bm-load-'));
const keys = chaosKeys(77);
const ex = createLocalExchange({
  seed: 77,
  // generated markets: the demo list has only a handful
  markets: Array.from({ length: MARKETS }, (_, i) => ({
    question: `Load market ${i + 1}: will it resolve YES?`,
    slug: `load-${i + 1}`,
    deadline: Date.now() + 30 * 86_400_000,
    tick: 10_000,
  })),
  apiKeys: [{ key: keys.apiKey, wallet: keys.address }],
  chain: TESTNET,
  // the venue's own rate limit is not what is measured here
  rateLimit: { capacity: 1e9, refillPerSecond: 1e9 },
  heartbeatMs: 2_000,
  streamBufferSize: 4_096,
});
const base = await ex.start(0);

// count what the exchange publishes and serves
let published = 0;
const hub = ex.hub as unknown as { publishChanges: (...a: unknown[]) => void };
const publish = hub.publishChanges.bind(ex.hub);
hub.publishChanges = (...a: unknown[]) => {
  published++;
  publish(...a);
};
let requests = 0;
const lookup = ex.router.lookup.bind(ex.router);
// by route (`GET /orders`, `GET /orders/:id`, …): where the request budget goes
const byRoute = new Map<string, number>();
ex.router.lookup = ((m: string, p: string) => {
  requests++;
  const r = lookup(m, p);
  if (r.ok) {
    const k = `${m} ${r.match.route.path}`;
    byRoute.set(k, (byRoute.get(k) ?? 0) + 1);
  }
  return r;
}) as typeof ex.router.lookup;

/** The ten busiest routes of a window, per second: `GET /orders 2.1, GET /balance 1.0` */
function topRoutes(from: ReadonlyMap<string, number>, secs: number): string {
  return [...byRoute]
    .map(([k, n]) => [k, (n - (from.get(k) ?? 0)) / secs] as const)
    .filter(([, r]) => r > 0)
    .sort((a, b) => b[1] - a[1])
    .slice(0, 10)
    .map(([k, r]) => `${k} ${r.toFixed(1)}`)
    .join(', ');
}

// every market gets a two-sided book before the bot starts (2 s of the driver at 5 changes/s per
// market, then still): the bot can quote everything at once, and start-up to all quoted is measured
const seeding = startBookDriver(ex, { perMarketPerSecond: 5, seed: 78 });
const engine = ex.state.engine;
const indexes = [...ex.state.stores.markets.values()].map((m) => engine.marketIndex(m.id)!);
const twoSided = (): number => indexes.filter((i) => engine.engine.bestBid(i) > 0 && engine.engine.bestAsk(i) > 0).length;
await sleep(2_000);
// until every book has both sides (a one-sided book gives the bands strategy no mid: nothing to quote)
for (let i = 0; i < 10 && twoSided() < indexes.length; i++) await sleep(500);
seeding.stop();
// the few the random walk left one-sided get the missing side from a seeding maker (40¢ / 60¢)
const seeder = engine.ensureTrader(derivedAddress('bookmaker-load:seeder'));
engine.deposit(seeder, 10n ** 15n);
for (const i of indexes) {
  const now = ex.state.clock.now();
  if (!(engine.engine.bestBid(i) > 0))
    engine.submit(toSubmitOrder({ market: i, trader: seeder, outcome: 1, side: 'buy', price: 400_000, size: 5_000_000, nowMs: now }));
  if (!(engine.engine.bestAsk(i) > 0))
    engine.submit(toSubmitOrder({ market: i, trader: seeder, outcome: 0, side: 'buy', price: 400_000, size: 5_000_000, nowMs: now }));
}
process.stderr.write(`load: ${twoSided()} of ${indexes.length} books two-sided before the bot starts\n`);

const config = join(work, 'load.yaml');
writeFileSync(
  config,
  `venue:
  chain: testnet
  local: {}
markets:
  maxMarkets: ${MARKETS}
  refreshSeconds: 0
  select: all
${bandsDefaultsYaml([{ minMargin: 0.01, targetMargin: 0.02, maxMargin: 0.03, size: 5 }], 'mid')}  risk:
    maxPosition: 100
    maxNotional: 100
    maxBookAgeSeconds: 30
    maxStreamSilenceSeconds: 30
    pauseBeforeDeadlineSeconds: 0
orders:
  requoteIntervalSeconds: 0.25
  reconcileIntervalSeconds: 60
feeds:
  bookDepth: 10
  streamIdleTimeoutSeconds: 30
  balancePollSeconds: 5
  activityPollSeconds: 2
metrics:
  port: 0
${WATCHDOG_SECONDS === undefined ? '' : `watchdog:\n  blockedLimitSeconds: ${WATCHDOG_SECONDS}\n`}logging:
  level: warn
`,
);

let waiter: ((s: ChildStats) => void) | null = null;
let quoted = 0;
// start-up to all quoted: from the spawn to the first health report (once a second) with every
// market in state 'quoting' (orders live at the venue) or 'strategy-idle' (nothing to quote)
const spawnedAt = Date.now();
let readyAt = 0;
let allQuotedAt = 0;
let quotingNow = 0;
let lastHealth: Record<string, string> = {};
/** the health states of the markets not quoting, counted: `starting 12, rate-budget 3` */
const notQuoting = (): string => {
  const by = new Map<string, number>();
  for (const st of Object.values(lastHealth)) if (st !== 'quoting') by.set(st, (by.get(st) ?? 0) + 1);
  return [...by].map(([k, n]) => `${k} ${n}`).join(', ') || 'none';
};
const onMessage = (m: ChildMessage): void => {
  if (m.type === 'ready') {
    quoted = m.markets;
    readyAt = Date.now();
  }
  if (m.type === 'health') {
    lastHealth = m.markets;
    quotingNow = Object.values(m.markets).filter((s) => s === 'quoting').length;
    // every market quotes that wants to: the rest are strategy-idle (the bands strategy asks for no
    // quote on some synthetic books) and count as started
    const idle = Object.values(m.markets).filter((s) => s === 'strategy-idle').length;
    if (allQuotedAt === 0 && quotingNow > 0 && quotingNow + idle === MARKETS) allQuotedAt = Date.now();
  }
  if (m.type === 'stats') {
    waiter?.(m.stats);
    waiter = null;
  }
};
const bot = await spawnBot({
  configPath: config,
  baseUrl: base,
  // no IPC message per create and reconcile: the bench reads none, and the bot's CPU is measured without them
  env: {
    ...process.env,
    BOOKMAKER_PRIVATE_KEY: keys.privateKey,
    BOOKMAKER_API_KEY: keys.apiKey,
    BOOKMAKER_LOG_LEVEL: 'warn',
    BOOKMAKER_CHAOS_ORDER_REPORTS: '0',
    ...(METRICS_PORT > 0 ? { BOOKMAKER_CHAOS_METRICS_PORT: String(METRICS_PORT) } : {}),
  },
  logFile: join(work, 'bot.log'),
  onMessage,
  readyTimeoutMs: 180_000,
  ...(NODE_ARGS.length > 0 ? { nodeArgs: NODE_ARGS } : {}),
});
// the bot gone (the watchdog ended a blocked loop, a crash): the run fails at once instead of waiting
let botExit: string | null = null;
void bot.exited.then((r) => (botExit = `${botEnd(r, readLog()).text}; its log: ${join(work, 'bot.log')}`));
/** The bot's log so far ('' when it cannot be read). */
function readLog(): string {
  try {
    return readFileSync(join(work, 'bot.log'), 'utf8');
  } catch {
    return '';
  }
}
const stats = (): Promise<ChildStats> =>
  new Promise((resolve, reject) => {
    if (botExit) return reject(new Error(botExit));
    waiter = resolve;
    bot.request({ type: 'stats' });
    void bot.exited.then(() => reject(new Error(botExit ?? 'bot exited')));
  });

interface Window {
  ms: number;
  cpuMs: number;
  published: number;
  requests: number;
  /** the busiest routes, per second */
  routes: string;
  from: ChildStats;
  to: ChildStats;
}
async function measure(ms: number, progress: boolean, stopTraffic: () => void = () => undefined): Promise<Window> {
  bot.request({ type: 'reset-lag' });
  const from = await stats();
  const p0 = published;
  const r0 = requests;
  const routes0 = new Map(byRoute);
  const t0 = Date.now();
  if (progress && BLOCK_S > 0)
    setTimeout(() => {
      process.stderr.write(`load: the bot's event loop blocked for ${BLOCK_S} s\n`);
      bot.request({ type: 'block', ms: BLOCK_S * 1000 });
    }, 15_000);
  while (Date.now() - t0 < ms) {
    await sleep(Math.min(30_000, ms - (Date.now() - t0)));
    if (progress) {
      const s = await stats();
      process.stderr.write(
        `load: ${((Date.now() - t0) / 1000).toFixed(0)} s, lag p99 ${s.lagP99Ms.toFixed(1)} ms, rss ${(s.rssBytes / 2 ** 20).toFixed(0)} MiB, deltas ${s.bookDeltas - from.bookDeltas}/${published - p0}\n`,
      );
    }
  }
  // stop the traffic, then let in-flight deltas arrive before counting what was received
  stopTraffic();
  const publishedAtEnd = published;
  await sleep(2_000);
  const to = await stats();
  const windowMs = Date.now() - t0 - 2_000;
  return {
    ms: windowMs,
    routes: topRoutes(routes0, windowMs / 1000),
    cpuMs: to.cpuUserMs + to.cpuSystemMs - from.cpuUserMs - from.cpuSystemMs,
    published: publishedAtEnd - p0,
    requests: requests - r0,
    from,
    to,
  };
}

/**
 * The bot ended before the run did: its exit code, what the code means and its own reason, printed; the
 * run recorded as failed (the JSON line says `failed`), the benchmark's exit code 1, no stack.
 */
async function recordBotEnded(phase: string): Promise<void> {
  await bot.exited;
  // the log's last lines are written when the child's pipes drain (bot-process.ts)
  await sleep(200);
  const end = botEnd(await bot.exited, readLog());
  process.stderr.write(`load: FAILED during ${phase}: ${end.text}\nload: the bot's log: ${join(work, 'bot.log')}\n`);
  report(
    [
      ['result', `FAILED: the bot ended during ${phase}`],
      ['bot exit code', end.exitCode === null ? `killed (${end.signal})` : String(end.exitCode)],
      ['what it means', end.meaning],
      ['the bot says', end.reason ?? '(no fatal or error line in its log)'],
      ['markets', `${quoted} of ${MARKETS}, ${RATE} deltas/s each`],
      ['machine load average (1 min)', loadavg()[0]!.toFixed(1)],
    ],
    {
      name: 'load',
      unit: 'ms event-loop lag p99',
      value: null as unknown as number,
      failed: true,
      phase,
      exitCode: end.exitCode,
      signal: end.signal,
      meaning: end.meaning,
      reason: end.reason,
      markets: quoted,
      loadAvg: Number(loadavg()[0]!.toFixed(1)),
    },
  );
  process.exitCode = 1;
}

let phase = 'start-up';
// the book driver's timer, stopped whatever ends the run (it would keep the process alive)
let stopDriver: () => void = () => undefined;
try {
  process.stderr.write(`load: bot up quoting ${MARKETS} markets after ${((readyAt - spawnedAt) / 1000).toFixed(1)} s; waiting until all quote\n`);
  for (let i = 1; i <= 120 && allQuotedAt === 0 && botExit === null; i++) {
    await sleep(1_000);
    if (i % 10 === 0)
      process.stderr.write(
        `load: ${quotingNow} of ${MARKETS} quoting after ${((Date.now() - spawnedAt) / 1000).toFixed(0)} s (not quoting: ${notQuoting()})\n`,
      );
  }
  process.stderr.write(
    `load: ${quotingNow} of ${MARKETS} quoting after ${((Date.now() - spawnedAt) / 1000).toFixed(1)} s; baseline (still books) ${BASELINE_MS / 1000} s\n`,
  );
  await sleep(2_000);
  phase = 'the baseline (still books)';
  const idle = await measure(BASELINE_MS, false);
  const driver = startBookDriver(ex, { perMarketPerSecond: RATE, seed: 77 });
  stopDriver = () => driver.stop();
  process.stderr.write(`load: driver on (${MARKETS * RATE} book changes/s); warm-up ${WARMUP_MS / 1000} s, then ${MINUTES} min measured\n`);
  phase = 'the warm-up';
  await sleep(WARMUP_MS);
  phase = 'the measured window';
  const w = await measure(MINUTES * 60_000, true, () => {
    driver.stop();
    phase = 'the last count';
  });
  const secs = w.ms / 1000;
  const received = w.to.bookDeltas - w.from.bookDeltas;
  const dropped = Math.max(0, w.published - received);
  const cpuPct = (w.cpuMs / w.ms) * 100;
  const idleCpuPct = (idle.cpuMs / idle.ms) * 100;
  const s = w.to;
  report(
    [
      ['markets quoted', `${quoted} of ${MARKETS}`],
      ['start-up: spawn to ready (s)', (readyAt - spawnedAt) / 1000],
      ['start-up: spawn to all quoting (s)', allQuotedAt ? (allQuotedAt - spawnedAt) / 1000 : `not within 120 s (${quotingNow} quoting)`],
      ['markets not quoting at the end', notQuoting()],
      ['measured', `${secs.toFixed(0)} s after ${WARMUP_MS / 1000} s warm-up`],
      ['book deltas published/s', w.published / secs],
      ['book deltas received/s', received / secs],
      ['dropped deltas', `${dropped} of ${w.published} (${((dropped / Math.max(1, w.published)) * 100).toFixed(3)} %)`],
      ['late events (> 1 s)', s.lateEvents - w.from.lateEvents],
      ['resync snapshots', s.resyncs - w.from.resyncs],
      ['stream reconnects', s.streamReconnects - w.from.streamReconnects],
      ['event-loop lag p50 (ms)', s.lagP50Ms],
      ['event-loop lag p99 (ms)', s.lagP99Ms],
      ['event-loop lag max (ms)', s.lagMaxMs],
      ['lag p99, still books (ms)', idle.to.lagP99Ms],
      ['bot CPU (% of one core)', cpuPct],
      ['bot CPU, still books (%)', idleCpuPct],
      ['bot RSS (MiB)', s.rssBytes / 2 ** 20],
      [
        'bot heap used / total / external (MiB)',
        `${(s.heapUsedBytes / 2 ** 20).toFixed(0)} / ${(s.heapTotalBytes / 2 ** 20).toFixed(0)} / ${(s.externalBytes / 2 ** 20).toFixed(0)}`,
      ],
      ['venue calls/s (all HTTP)', w.requests / secs],
      ['venue calls/s, still books', idle.requests / (idle.ms / 1000)],
      ['busiest routes/s', w.routes],
      ['busiest routes/s, still books', idle.routes],
      // a machine busy with other work starves the bot (lag in seconds, polls slowed): read the figures with it
      ['machine load average (1 min) at the end', loadavg()[0]!.toFixed(1)],
      ['order calls/s (bot)', (s.venueCalls - w.from.venueCalls) / secs],
      ['driver changes refused', driver.refused],
      ['target', `no dropped events: ${dropped === 0 ? 'met' : 'NOT met'}; lag p99 < 50 ms: ${s.lagP99Ms < 50 ? 'met' : 'NOT met'}`],
      ['bot CPU per 1,000 deltas/s (%)', (cpuPct / Math.max(1, w.published / secs)) * 1000],
      ['bot RSS per market (KiB)', s.rssBytes / 1024 / MARKETS],
    ],
    {
      name: 'load',
      unit: 'ms event-loop lag p99',
      value: Number(s.lagP99Ms.toFixed(2)),
      p50: Number(s.lagP50Ms.toFixed(2)),
      p99: Number(s.lagP99Ms.toFixed(2)),
      baseline: 'same bot, still books: CPU %',
      baselineValue: Number(idleCpuPct.toFixed(1)),
      ratio: Number((cpuPct / Math.max(0.1, idleCpuPct)).toFixed(2)),
      cpuPercent: Number(cpuPct.toFixed(1)),
      idleLagP99: Number(idle.to.lagP99Ms.toFixed(2)),
      lagMax: Number(s.lagMaxMs.toFixed(0)),
      streamReconnects: s.streamReconnects - w.from.streamReconnects,
      ...(BLOCK_S > 0 ? { blockSeconds: BLOCK_S } : {}),
      rssMiB: Number((s.rssBytes / 2 ** 20).toFixed(0)),
      heapUsedMiB: Number((s.heapUsedBytes / 2 ** 20).toFixed(0)),
      heapTotalMiB: Number((s.heapTotalBytes / 2 ** 20).toFixed(0)),
      deltasPerSecond: Number((w.published / secs).toFixed(0)),
      dropped,
      late: s.lateEvents - w.from.lateEvents,
      venueCallsPerSecond: Number((w.requests / secs).toFixed(1)),
      idleVenueCallsPerSecond: Number((idle.requests / (idle.ms / 1000)).toFixed(1)),
      loadAvg: Number(loadavg()[0]!.toFixed(1)),
      minutes: MINUTES,
      markets: quoted,
      startupAllQuotedSeconds: allQuotedAt ? Number(((allQuotedAt - spawnedAt) / 1000).toFixed(1)) : null,
    },
  );
} catch (e) {
  // the bot gone mid-run: its reason and exit code, the run recorded as failed; anything else is the bench's own bug
  if (botExit === null) throw e;
  await recordBotEnded(phase);
} finally {
  stopDriver();
  const died = botExit;
  await bot.stop(120_000);
  await ex.close();
  if (!died) rmSync(work, { recursive: true, force: true });
}
