/**
 * rotation-soak: a bot quoting `all` markets of a venue whose markets come and go, for an hour.
 *
 * Two child processes, as operators run them: `bookmaker sim --new-market-every E --market-lifetime L`
 * (a market every E seconds, closed at its deadline L seconds later and resolved shortly after) and
 * `bookmaker run` with `markets: { refreshSeconds: 10, select: [ { all: true } ] }` against it. Every
 * 5 s the bot's /metrics is read (RSS `process_resident_memory_bytes`, event-loop lag p99
 * `nodejs_eventloop_lag_p99_seconds`, `bookmaker_markets_started_total`, `bookmaker_markets_retired_total`,
 * `bookmaker_markets_active`) and the venue is asked for the bot's open orders and the status of their
 * markets. Reported:
 * - RSS at the start (first sample), the middle and the end, and the growth over the second half
 *   (least-squares slope × half the duration): flat means rotation releases what it retires;
 * - markets created by the venue during the run, markets the bot started and retired (metrics), and
 *   markets in which the venue saw an order of the bot;
 * - orders left in retired markets: the most open orders of the bot seen at once in markets that
 *   closed more than two refreshes (+5 s) earlier or resolved (must be 0), and the bot's open orders
 *   after it stopped (must be 0);
 * - the heap left after each full (mark-compact) collection, from the bot's `--trace-gc`: first, middle,
 *   last and second-half growth (RSS alone cannot tell a leak from V8 letting its heap grow);
 * - the bot's RSS by kind of mapping (/proc/<pid>/smaps, test/bench/soak-memory-maps.ts) at half time and at
 *   the end, and each kind's second-half growth: where RSS goes when the heap does not grow;
 * - event-loop lag p99 (the largest and the median of the samples);
 * - after each of the bot's own full collections, its heap by V8 heap space (the old generation: young
 *   space is left out) and its array buffers (test/bench/heap-probe.mjs, preloaded): the criterion's figure
 *   (flat: ≤ +0.5 MB over the second half) is that heap plus array buffers, which `--trace-gc`'s live heap
 *   leaves out. `--probe forced` reads instead, every minute, the heap after two forced full collections
 *   (the readings of session 29 and before): each forced collection makes V8 discard and rebuild optimised
 *   code the bot would have kept (docs/performance/reoptimisation.md), so that figure includes the probe's
 *   own re-optimisation.
 *
 * - at the end, what the bot still holds of markets it no longer quotes: its account's books of them
 *   (GET /admin/status `books.markets` with `quoted: false`: compact books waiting for a claim) and the
 *   `bookmaker_claimable_usdc{market}` series, beside the markets retired.
 *
 * The sim runs the venue's auto-claim (`bookmaker sim --auto-claim-after 30`, src/sim/auto-claim.ts): 30 s
 * after a market resolves, every wallet's tokens in it are redeemed, as the venue does, so a retired market's
 * book folds and its claims record and series go, as in production (docs/local-exchange.md, "Resolution and
 * claims"). `--auto-claim-after S` changes the delay; `--no-auto-claim` runs the sim without it (nobody ever
 * claims: the readings of session 28 and before).
 *
 * `--tree DIR` runs the bot of another checkout (e.g. the baseline's) against this tree's sim and readings.
 * `--bot-trace FILE` runs the bot with V8's `--trace-opt --trace-deopt-verbose` and writes to FILE, each line
 * prefixed by the seconds since the bot was spawned, every completed optimisation, every deopt (its reason and
 * `;;; deoptimize at <file:line:col>`) and every optimised code object discarded (a broken dependency, or an object
 * it embeds dead in a GC); the frame dumps are dropped. `node scripts/deopt-count.mjs FILE --after 300` counts them
 * per function (docs/performance/reoptimisation.md). `--bot-node-flags "FLAGS"` adds node/V8 flags (space-separated) to the bot's
 * command. `--probe major|forced` picks the heap readings (below; default major); `--probe-minutes N` spaces the forced ones.
 *
 *   npm run bench -- rotation-soak [--minutes 60] [--every 30] [--lifetime 300] [--refresh 10] [--tree DIR]
 *     [--auto-claim-after 30] [--no-auto-claim] [--bot-trace FILE] [--bot-node-flags "FLAGS"] [--probe major|forced] [--probe-minutes 1]
 *
 * The issue's figure is the full hour (`--minutes 60`, ~120 markets through the bot); shorter runs
 * (`--minutes 4 --every 10 --lifetime 40`) check the harness and rotation itself.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { demoWallet } from '../../src/sim/local-exchange.ts';
import { markCompact, probeModeArg, probeSecondHalf, readProbes, report, secondHalf } from './lib.ts';
import { type MapReading, mapsSecondHalf, probeV8, readMaps, v8SecondHalfRows } from './soak-memory-maps.ts';
import { bandsDefaultsYaml } from '../support/bot-yaml.ts';
import { freePort } from '../support/net.ts';

const arg = (name: string, d: number): number => {
  const i = process.argv.indexOf(`--${name}`);
  const v = i >= 0 ? Number(process.argv[i + 1]) : d;
  if (!Number.isFinite(v) || v <= 0) throw new Error(`--${name}: expected a positive number, got ${process.argv[i + 1]}`);
  return v;
};
const MINUTES = arg('minutes', 60);
const EVERY = arg('every', 30);
const LIFETIME = arg('lifetime', 300);
const REFRESH = arg('refresh', 10);
/**
 * minutes between heap probes (two forced full GCs each: test/bench/heap-probe.mjs). Every full GC discards the
 * optimised code whose embedded objects died, so a probe a minute (four times the bot's own full GCs in a fast soak)
 * makes V8 rebuild code the bot would have kept longer (docs/performance/reoptimisation.md); a long interval (`--probe-minutes 999`:
 * the first and the last probe only) shows the bot's own re-optimisation, without the second-half readings.
 */
const PROBE_MINUTES = arg('probe-minutes', 1);
/** which heap readings the criterion reads: the bot's own full collections (default) or forced probes (`--probe forced`) */
const PROBE_MODE = probeModeArg();
/** the sim's auto-claim delay, seconds (null: `--no-auto-claim`, nobody claims) */
const AUTO_CLAIM_AFTER = process.argv.includes('--no-auto-claim') ? null : arg('auto-claim-after', 30);
/** the bot's admin endpoint (its token: this run's own), read at the end for the books of markets no longer quoted */
const ADMIN_TOKEN = `rotation-soak-admin-${process.pid}-${Date.now()}`;
const SAMPLE_MS = 5_000;
/** the bot stops quoting a market this long before its deadline: a tenth of the lifetime, 1–30 s */
const PAUSE_BEFORE_DEADLINE = Math.max(1, Math.min(30, Math.round(LIFETIME / 10)));
const SEED = 42;
const KEY = 'rotation-soak-key';
const ROOT = new URL('../../', import.meta.url).pathname;
const treeAt = process.argv.indexOf('--tree');
/** the checkout whose bot runs (`--tree DIR`, e.g. the baseline's); the sim is always this tree's */
const BOT_ROOT = treeAt >= 0 ? process.argv[treeAt + 1]! : ROOT;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const flagsAt = process.argv.indexOf('--bot-node-flags');
/** node/V8 flags added to the bot's command (`--bot-node-flags "FLAGS"`) */
const BOT_NODE_FLAGS = flagsAt >= 0 ? process.argv[flagsAt + 1]!.split(' ').filter((f) => f !== '') : [];
const traceAt = process.argv.indexOf('--bot-trace');
/** V8's optimisation/deopt trace of the bot (`--bot-trace FILE`), or null */
const TRACE = traceAt >= 0 ? createWriteStream(process.argv[traceAt + 1]!) : null;
/**
 * the trace lines kept: completed optimisations, deopts and where they happened, code discarded for a broken
 * dependency (a field's type changed) or because an object it embeds died in a GC (the rest is frame dumps)
 */
const TRACE_KEEP = /^\[(?!compiling method|completed compiling|bailout end|marking 0x|optimizing 0x)|^\s*;;; deoptimize at/;

function child(
  args: string[],
  env: NodeJS.ProcessEnv,
  nodeArgs: string[] = [],
  onLine?: (line: string) => boolean,
  cwd = ROOT,
): { proc: ChildProcess; out: () => string; exited: Promise<number | null> } {
  const proc = spawn(process.execPath, [...nodeArgs, 'src/cli/main.ts', ...args], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  // a soak that ends on an error (the bot exited, say) must not leave the other child running: the sim of a failed
  // hour-long soak stayed up, quoting its markets, until someone killed it
  process.on('exit', () => {
    if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
  });
  let out = '';
  let partial = '';
  proc.stdout!.on('data', (b: Buffer) => {
    const lines = (partial + b.toString()).split('\n');
    partial = lines.pop()!;
    // a line the caller consumed (the GC trace) is not kept
    for (const line of lines) if (!onLine?.(line)) out += line + '\n';
    if (out.length > 1_000_000) out = out.slice(-200_000); // the log lines of an hour
  });
  let err = '';
  proc.stderr!.on('data', (b: Buffer) => {
    err += b.toString();
    if (err.length > 200_000) err = err.slice(-100_000);
  });
  const exited = new Promise<number | null>((r) => proc.on('exit', (c) => r(c)));
  return { proc, out: () => out + err, exited };
}

const simPort = await freePort();
const sim = child(
  [
    'sim',
    '--port',
    String(simPort),
    '--seed',
    String(SEED),
    '--api-key',
    KEY,
    '--markets',
    '4',
    '--new-market-every',
    String(EVERY),
    '--market-lifetime',
    String(LIFETIME),
    ...(AUTO_CLAIM_AFTER === null ? [] : ['--auto-claim-after', String(AUTO_CLAIM_AFTER)]),
  ],
  process.env,
  ['--import', 'tsx'],
);
let baseUrl = '';
for (;;) {
  const m = /^listening (\S+)$/m.exec(sim.out());
  if (m) {
    baseUrl = m[1]!;
    break;
  }
  if (sim.proc.exitCode !== null) throw new Error(`sim exited: ${sim.out()}`);
  await sleep(100);
}
const { wallet, privateKey } = demoWallet(SEED, KEY); // the wallet the sim gave the key (derived from seed and key)

const dir = mkdtempSync(join(tmpdir(), 'bookmaker-rotation-soak-'));
const cfg = join(dir, 'rotation-soak.yaml');
writeFileSync(
  cfg,
  `venue:
  baseUrl: ${baseUrl}
${bandsDefaultsYaml([{ minMargin: 0.01, targetMargin: 0.02, maxMargin: 0.03, size: 5 }], 'microprice')}  risk:
    maxPosition: 200
    maxNotional: 150
    maxOrderSize: 50
    maxBookAgeSeconds: 30
    maxStreamSilenceSeconds: 15
    # the default (300 s) would pause a 5-minute market for its whole life
    pauseBeforeDeadlineSeconds: ${PAUSE_BEFORE_DEADLINE}
account:
  maxDrawdown: 0              # off: the run is about rotation and memory, not PnL
markets:
  refreshSeconds: ${REFRESH}
  select:
    - all: true
orders:
  requoteIntervalSeconds: 0.5
feeds:
  balancePollSeconds: 2
  oraclePollSeconds: 60
watchdog:
  blockedLimitSeconds: 0     # off: a memory soak must not end on a shared machine's CPU starvation (its own tests cover it)
`,
);
const metricsPort = await freePort();
const adminPort = await freePort();
/** the heap V8 keeps after each full (mark-compact) collection: what the bot really holds, RSS saw-tooth aside */
const majors: { isolate: string; at: number; live: number }[] = [];
const spawnedAt = Date.now();
const PROBE_FILE = join(dir, 'heap-probe.jsonl');
const bot = child(
  ['run', '-c', cfg, '--api-key', KEY, '--metrics-port', String(metricsPort), '--log-level', 'warn', '--summary-seconds', '0'],
  {
    ...process.env,
    BOOKMAKER_PRIVATE_KEY: privateKey,
    BOOKMAKER_HEAP_PROBE: PROBE_FILE,
    BOOKMAKER_HEAP_PROBE_MAJOR: PROBE_MODE === 'major' ? '1' : '',
    BOOKMAKER_ADMIN_TOKEN: ADMIN_TOKEN,
    BOOKMAKER_ADMIN_PORT: String(adminPort),
  },
  [
    '--trace-gc',
    ...(TRACE ? ['--trace-opt', '--trace-deopt-verbose'] : []),
    ...BOT_NODE_FLAGS,
    '--import',
    'tsx',
    '--import',
    new URL('./heap-probe.mjs', import.meta.url).pathname,
  ],
  (line) => {
    if (TRACE && (line.startsWith('[') || line.startsWith(' ')) && !line.includes(' ms: ')) {
      if (TRACE_KEEP.test(line)) TRACE.write(`${((Date.now() - spawnedAt) / 1000).toFixed(1)} ${line}\n`);
      return true;
    }
    if (!line.includes(' ms: ')) return false;
    // `[pid:addr] <ms since the isolate started> ms: Mark-Compact a (b) -> LIVE (d) MB, ...`
    const g = markCompact(line);
    if (g && g.isolate !== null) majors.push({ isolate: g.isolate, at: spawnedAt + g.ms, live: g.live });
    return true;
  },
  BOT_ROOT,
);

const auth = { authorization: `Bearer ${KEY}` };
async function getJson<T>(url: string): Promise<T> {
  const r = await fetch(url, { headers: auth });
  if (!r.ok) throw new Error(`${url}: ${r.status}`);
  return (await r.json()) as T;
}

interface Metrics {
  rssMb: number;
  lagP99Ms: number;
  started: number;
  retired: number;
  active: number | null;
  retiredBy: Record<string, number>;
}
function metricValue(text: string, name: string): number[] {
  const out: number[] = [];
  const re = new RegExp(`^${name}(\\{[^}]*\\})? (\\S+)$`, 'gm');
  for (let m = re.exec(text); m; m = re.exec(text)) out.push(Number(m[2]));
  return out;
}
async function readMetrics(): Promise<Metrics> {
  const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
  const sum = (n: string) => metricValue(text, n).reduce((a, b) => a + b, 0);
  const retiredBy: Record<string, number> = {};
  for (const m of text.matchAll(/^bookmaker_markets_retired_total\{[^}]*reason="([^"]+)"[^}]*\} (\S+)$/gm)) retiredBy[m[1]!] = Number(m[2]);
  const active = metricValue(text, 'bookmaker_markets_active');
  return {
    rssMb: (metricValue(text, 'process_resident_memory_bytes')[0] ?? NaN) / 2 ** 20,
    lagP99Ms: (metricValue(text, 'nodejs_eventloop_lag_p99_seconds')[0] ?? NaN) * 1000,
    started: sum('bookmaker_markets_started_total'),
    retired: sum('bookmaker_markets_retired_total'),
    active: active.length ? active[0]! : null,
    retiredBy,
  };
}

interface VenueMarket {
  id: string;
  status: string;
  proposedAt: string | null;
  createdAt: string;
}
const marketCache = new Map<string, VenueMarket>();
async function marketOf(id: string): Promise<VenueMarket> {
  const c = marketCache.get(id);
  if (c && c.status === 'resolved') return c;
  const m = (await getJson<{ market: VenueMarket }>(`${baseUrl}/markets/${id}`)).market;
  marketCache.set(id, m);
  return m;
}
async function openOrders(): Promise<{ marketId: string }[]> {
  const all: { marketId: string }[] = [];
  let cursor: string | null = null;
  do {
    const page: { orders: { marketId: string }[]; cursor: string | null } = await getJson(
      `${baseUrl}/orders?trader=${wallet}&status=open&limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
    );
    all.push(...page.orders);
    cursor = page.orders.length ? page.cursor : null;
  } while (cursor);
  return all;
}

/**
 * open orders of the bot in markets it must have retired: closed > 2 refreshes + 5 s ago, or resolved. The
 * venue's status is read after the order list, so a market that resolved in between (the venue voids its
 * resting orders) would count orders that were already gone: the flagged markets' orders are listed again
 * after their status was read, and only orders still open then count.
 */
async function leftInRetired(now: number): Promise<{ count: number; markets: string[] }> {
  const flagged = new Set<string>();
  for (const o of await openOrders()) {
    quotedMarkets.add(o.marketId.toLowerCase());
    const m = await marketOf(o.marketId);
    const closedFor = m.proposedAt ? now - Date.parse(m.proposedAt) : 0;
    if (m.status === 'resolved' || (m.status === 'closed' && closedFor > 2 * REFRESH * 1000 + 5_000)) flagged.add(o.marketId);
  }
  if (flagged.size === 0) return { count: 0, markets: [] };
  const markets = new Set<string>();
  let count = 0;
  for (const o of await openOrders()) {
    if (!flagged.has(o.marketId)) continue;
    count++;
    markets.add(o.marketId);
  }
  return { count, markets: [...markets] };
}

const quotedMarkets = new Set<string>();
// up once /metrics answers and the bot has an order at the venue
for (let i = 0; ; i++) {
  if (bot.proc.exitCode !== null) throw new Error(`bot exited early (${bot.proc.exitCode}): ${bot.out().slice(-4000)}`);
  try {
    await readMetrics();
    if ((await openOrders()).length > 0) break;
  } catch {
    // not listening yet
  }
  if (i > 600) throw new Error(`the bot did not quote within 2 minutes: ${bot.out().slice(-4000)}`);
  await sleep(200);
}

const t0 = Date.now();
const end = t0 + MINUTES * 60_000;
const samples: ({ t: number; maps: MapReading | null } & Metrics)[] = [];
let worstLeft = 0;
let worstLeftMarkets: string[] = [];
// `--probe forced`: a heap probe (test/bench/heap-probe.mjs) every minute from the start; in both modes one at the end
// (`--probe major`: none until the end; the bot's own full collections are read instead)
let nextProbe = PROBE_MODE === 'major' ? Number.POSITIVE_INFINITY : t0;
while (Date.now() < end) {
  if (Date.now() >= nextProbe) {
    bot.proc.kill('SIGWINCH');
    nextProbe += PROBE_MINUTES * 60_000;
  }
  await sleep(SAMPLE_MS);
  if (bot.proc.exitCode !== null) throw new Error(`the bot exited during the soak (code ${bot.proc.exitCode}): ${bot.out().slice(-4000)}`);
  if (sim.proc.exitCode !== null) throw new Error(`the sim exited during the soak (code ${sim.proc.exitCode})`);
  const m = await readMetrics();
  const left = await leftInRetired(Date.now());
  if (left.count > worstLeft) {
    worstLeft = left.count;
    worstLeftMarkets = left.markets;
  }
  const s = { t: (Date.now() - t0) / 60_000, ...m, maps: readMaps(bot.proc.pid!) };
  samples.push(s);
  process.stderr.write(
    `rotation-soak ${s.t.toFixed(1)} min  rss ${s.rssMb.toFixed(1)} MB  lag p99 ${s.lagP99Ms.toFixed(1)} ms  active ${s.active ?? '-'}  started ${s.started}  retired ${s.retired}  bot markets seen ${quotedMarkets.size}  left in retired ${left.count}\n`,
  );
}
const last = samples.at(-1)!;
// markets the venue created during the soak: every generated market has a churn index, counted by creation time
let created = 0;
{
  let cursor: string | null = null;
  do {
    const page: { markets: VenueMarket[]; cursor: string | null } = await getJson(
      `${baseUrl}/markets?status=active,closed,resolved,pending&sortBy=new&limit=50${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
    );
    created += page.markets.filter((m) => Date.parse(m.createdAt) >= t0).length;
    cursor = page.markets.length ? page.cursor : null;
  } while (cursor);
}
// what the bot holds of markets it no longer quotes: its account's books (compact ones waiting for a claim) and
// the claimable series
const held = await (async () => {
  try {
    const r = await fetch(`http://127.0.0.1:${adminPort}/admin/status`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    if (!r.ok) throw new Error(`GET /admin/status: ${r.status}`);
    const st = (await r.json()) as { books?: { markets: { market: string; quoted: boolean; yes: string; no: string }[] } };
    const books = st.books?.markets ?? [];
    const notQuoted = books.filter((b) => !b.quoted);
    const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
    return {
      books: books.length,
      notQuoted: notQuoted.length,
      notQuotedHolding: notQuoted.filter((b) => b.yes !== '0.000000' || b.no !== '0.000000').length,
      claimableSeries: [...text.matchAll(/^bookmaker_claimable_usdc\{/gm)].length,
      claimableTotal: metricValue(text, 'bookmaker_claimable_total_usdc')[0] ?? NaN,
    };
  } catch (e) {
    process.stderr.write(`rotation-soak: the end-of-run books read failed: ${(e as Error).message}\n`);
    return null;
  }
})();
const probesBefore = readProbes(PROBE_FILE, t0).length;
bot.proc.kill('SIGWINCH');
for (let i = 0; i < 100 && readProbes(PROBE_FILE, t0).length === probesBefore && bot.proc.exitCode === null; i++) await sleep(100);
const probed = probeSecondHalf(readProbes(PROBE_FILE, t0, PROBE_MODE), MINUTES);
const v8Rows = v8SecondHalfRows(probeV8(PROBE_FILE, t0, PROBE_MODE), MINUTES);
const byMap = mapsSecondHalf(
  samples.flatMap((s) => (s.maps ? [{ t: s.t, maps: s.maps }] : [])),
  MINUTES,
);
bot.proc.kill('SIGTERM');
const botCode = await bot.exited;
const afterStop = (await openOrders()).length;
sim.proc.kill('SIGTERM');
await sim.exited;
rmSync(dir, { recursive: true, force: true });
if (TRACE) await new Promise((r) => TRACE.end(r));

const rss = secondHalf(
  samples.map((s) => ({ t: s.t, v: s.rssMb })),
  MINUTES,
);
const at = (t: number) => samples.reduce((best, s) => (Math.abs(s.t - t) < Math.abs(best.t - t) ? s : best));
// the bot's main isolate: the one holding the most (a worker thread, e.g. the watchdog's, has its own small heap)
const biggest = new Map<string, number>();
for (const g of majors) biggest.set(g.isolate, Math.max(biggest.get(g.isolate) ?? 0, g.live));
const mainIsolate = [...biggest].sort((a, b) => b[1] - a[1])[0]?.[0];
const liveSeries = majors
  .filter((g) => g.isolate === mainIsolate)
  .map((g) => ({ t: (g.at - t0) / 60_000, v: g.live }))
  .filter((g) => g.t >= 0 && g.t <= MINUTES);
const live = secondHalf(liveSeries, MINUTES);
const liveFirst = liveSeries[0]?.v ?? NaN;
const liveLast = liveSeries.at(-1)?.v ?? NaN;
/** the full GC nearest the middle of the soak (the start of its second half) */
const liveMiddle = liveSeries.length ? liveSeries.reduce((best, g) => (Math.abs(g.t - MINUTES / 2) < Math.abs(best.t - MINUTES / 2) ? g : best)).v : NaN;
const lags = samples
  .map((s) => s.lagP99Ms)
  .filter(Number.isFinite)
  .sort((a, b) => a - b);
const lagMax = lags.at(-1) ?? NaN;
const lagMedian = lags.length ? lags[Math.floor(lags.length / 2)]! : NaN;
const r1 = (x: number) => Math.round(x * 10) / 10;
report(
  [
    [
      'minutes / new market every s / lifetime s / refresh s / pause before deadline s',
      `${MINUTES} / ${EVERY} / ${LIFETIME} / ${REFRESH} / ${PAUSE_BEFORE_DEADLINE}`,
    ],
    ['markets created by the venue during the soak', String(created)],
    ['markets started by the bot (bookmaker_markets_started_total)', String(last.started)],
    ['markets retired by the bot (bookmaker_markets_retired_total)', `${last.retired} ${JSON.stringify(last.retiredBy)}`],
    ['markets active in the bot at the end', last.active !== null ? String(last.active) : 'n/a (no bookmaker_markets_active)'],
    ['markets with an order of the bot (venue)', String(quotedMarkets.size)],
    ['sim auto-claim after resolution s', AUTO_CLAIM_AFTER === null ? 'off (--no-auto-claim)' : String(AUTO_CLAIM_AFTER)],
    [
      'account books at the end: all / of markets not quoted / of which holding tokens',
      held ? `${held.books} / ${held.notQuoted} / ${held.notQuotedHolding}` : 'n/a (no admin read)',
    ],
    ['bookmaker_claimable_usdc series / claimable total USDC at the end', held ? `${held.claimableSeries} / ${held.claimableTotal}` : 'n/a'],
    ['RSS MB start / middle / end', `${r1(samples[0]!.rssMb)} / ${r1(at(MINUTES / 2).rssMb)} / ${r1(last.rssMb)}`],
    ['second-half RSS growth MB (slope × duration)', rss.growth],
    ['full GCs (mark-compact) in the soak', String(liveSeries.length)],
    ['live heap MB after the first / middle / last full GC', `${r1(liveFirst)} / ${r1(liveMiddle)} / ${r1(liveLast)}`],
    ['second-half live-heap growth MB (slope × duration)', live.n >= 2 ? live.growth : NaN],
    ...(probed?.rows ?? [['heap probe', 'no readings'] as [string, string]]),
    ...v8Rows,
    ...(byMap?.rows ?? [['RSS by mapping', 'no smaps readings'] as [string, string]]),
    ['most open orders at once in retired markets (must be 0)', `${worstLeft}${worstLeftMarkets.length ? ` in ${worstLeftMarkets.join(', ')}` : ''}`],
    ['open orders after the bot stopped (must be 0)', String(afterStop)],
    ['event-loop lag p99 ms: largest / median sample', `${r1(lagMax)} / ${r1(lagMedian)}`],
    ['bot exit code after SIGTERM', String(botCode ?? -1)],
    ['bot tree', BOT_ROOT],
    ...(BOT_NODE_FLAGS.length || TRACE
      ? [['bot node flags', [...(TRACE ? ['--trace-opt', '--trace-deopt-verbose'] : []), ...BOT_NODE_FLAGS].join(' ')] as [string, string]]
      : []),
  ],
  {
    name: 'rotation-soak',
    unit: 'MB RSS growth over the second half',
    value: r1(rss.growth),
    rssStartMb: r1(samples[0]!.rssMb),
    rssMiddleMb: r1(at(MINUTES / 2).rssMb),
    rssEndMb: r1(last.rssMb),
    rssSecondHalfGrowthByMappingMb: byMap ? Object.fromEntries(Object.entries(byMap.growthMb).map(([k, v]) => [k, r1(v)])) : null,
    liveHeapFirstMb: liveFirst,
    liveHeapMiddleMb: liveMiddle,
    liveHeapLastMb: liveLast,
    liveHeapSecondHalfGrowthMb: live.n >= 2 ? r1(live.growth) : null,
    probe: PROBE_MODE,
    liveWithArrayBuffersSecondHalfGrowthMb: probed ? Math.round(probed.growth * 100) / 100 : null,
    liveWithArrayBuffersNoCodeSecondHalfGrowthMb: probed ? Math.round(probed.growthNoCode * 100) / 100 : null,
    marketsCreated: created,
    marketsStarted: last.started,
    marketsRetired: last.retired,
    marketsWithBotOrders: quotedMarkets.size,
    autoClaimAfterSeconds: AUTO_CLAIM_AFTER,
    accountBooksEnd: held?.books ?? null,
    accountBooksNotQuotedEnd: held?.notQuoted ?? null,
    accountBooksNotQuotedHoldingEnd: held?.notQuotedHolding ?? null,
    claimableSeriesEnd: held?.claimableSeries ?? null,
    ordersLeftInRetired: worstLeft,
    ordersAfterStop: afterStop,
    lagP99MaxMs: r1(lagMax),
    lagP99MedianMs: r1(lagMedian),
    minutes: MINUTES,
    everySeconds: EVERY,
    lifetimeSeconds: LIFETIME,
    baseline: 'flat RSS (0 MB growth)',
    baselineValue: 0,
  },
);
