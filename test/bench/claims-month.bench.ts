/**
 * claims-month: what the claims tracker (src/runtime/claims/claims-tracker.ts) holds and does after a
 * month of rotation in which N markets resolve with a position the venue lists as claimable and nobody
 * ever claims (the venue's auto-claim failed, or the position is left for months). Simulated time: the
 * N resolutions are spread evenly over `--days` (default 30); the venue's claimable list only grows; the
 * tracker runs its own timers on a manual clock. At the end, per tree:
 *
 *   entries      rows the tracker lists (the run report's per-market lines) and markets it holds in all
 *   series       label series of bookmaker_claimable_usdc{market}
 *   reads/min    reads of GET /portfolio/:address/claimable over the last day, a minute
 *   bytes        answer bytes read over the last day (the venue's list is the whole wallet's), the
 *                claimable metrics' exposition and the run report's claims block as JSON
 *   total        what is claimable, from the report and from bookmaker_claimable_total_usdc (the
 *                same on both trees: nothing of the money is dropped)
 *
 *   npm run bench -- claims-month [--markets 1000] [--days 30] [--base DIR]
 *
 * `--base DIR`: the same month on another checkout (with node_modules), in the same process, this tree's
 * world dropped first; every figure is a count, the same from run to run.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { asyncScheduler } from 'rxjs';
import { report } from './lib.ts';

const argOf = (name: string): string | undefined => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
const N = Number(argOf('markets') ?? 1000);
const DAYS = Number(argOf('days') ?? 30);
const baseDir = argOf('base');
const TRACKER = 'src/runtime/claims/claims-tracker.ts';
if (baseDir !== undefined && !existsSync(resolve(baseDir, TRACKER))) {
  process.stderr.write(`claims-month: --base DIR must be a checkout of this project with node_modules (${TRACKER})\n`);
  process.exit(2);
}
const here = resolve(new URL('../..', import.meta.url).pathname);
const DAY = 86_400_000;
const T0 = 1_800_000_000_000;
const TOKEN = '0x' + 'cd'.repeat(20);
const idOf = (i: number): string => '0x' + (i + 1).toString(16).padStart(64, '0');

/** The bytes of one claimable answer with n markets as the venue sends it (decimal strings), and per market. */
function answerBytes(n: number): number {
  const one = (i: number) => ({
    pos: {
      tokenAddress: TOKEN,
      balance: String(2_000_000 + i),
      settlementBalance: String(2_000_000 + i),
      walletBalance: '0',
      outcomeIndex: 1,
      outcomeName: 'Yes',
      marketId: idOf(i),
      netInvestment: '1000000',
      claimableAmount: String(2_000_000 + i),
    },
    mkt: { id: idOf(i), outcomeTokens: [TOKEN, TOKEN], outcomeNames: ['No', 'Yes'], payoutPcts: ['0', '1000000'] },
  });
  const rows = Array.from({ length: Math.min(n, 2) }, (_, i) => one(i));
  const body = (k: number) =>
    JSON.stringify({ positions: rows.slice(0, k).map((r) => r.pos), markets: rows.slice(0, k).map((r) => r.mkt), totalClaimable: '0' }).length;
  if (n === 0) return body(0);
  return body(1) + (n - 1) * (body(2) - body(1));
}

interface Figures {
  listed: number;
  held: number;
  series: number;
  readsPerMinute: number;
  readsMonth: number;
  answerBytesLastDay: number;
  metricsBytes: number;
  reportBytes: number;
  overdue: number;
  totalUsdc: string;
  gaugeTotal: number;
}

/**
 * The tracker's store as the bot has it, on a tree that keeps one (src/ledger/claimable-since.ts): the
 * ledger's `claimable_since` table, here of an in-memory ledger (SQLite's memory, not the JS heap's).
 */
async function ledgerStore(root: string, imp: (p: string) => Promise<any>, clock: unknown, logger: unknown): Promise<{ store?: unknown }> {
  if (!existsSync(resolve(root, 'src/ledger/claimable-since.ts'))) return {};
  const { openLedger } = await imp('src/ledger/ledger.ts');
  const { claimableSinceStore } = await imp('src/ledger/claimable-since.ts');
  return { store: claimableSinceStore(openLedger({ path: ':memory:', clock }), logger) };
}

/** One month on the tree at `root`. */
async function month(root: string): Promise<Figures> {
  const imp = (p: string) => import(pathToFileURL(resolve(root, p)).href);
  const { ClaimsTracker } = await imp(TRACKER);
  const { Registry } = await imp('node_modules/prom-client/index.js');
  const { createLogger } = await imp('src/core/logger.ts');
  const { buildRunReport } = await imp('src/runtime/run-report.ts');
  const { STOPPED_RUN } = await imp('test/support/run-report.ts');

  // a manual clock: the tracker's one timer, fired in time order
  let now = T0;
  let timers: { at: number; fn: () => void }[] = [];
  const clock = {
    now: () => now,
    scheduler: asyncScheduler,
    setTimeout(fn: () => void, ms: number) {
      const t = { at: now + ms, fn };
      timers.push(t);
      return () => void (timers = timers.filter((x) => x !== t));
    },
  };
  const settle = () => new Promise((r) => setImmediate(r));
  let logLines = 0;
  const logger = createLogger({ level: 'info', destination: { write: () => void logLines++ } });

  // the venue: every resolved market listed as claimable, never claimed
  const listed: { pos: unknown; mkt: unknown }[] = [];
  const readsAt: number[] = [];
  const read = async () => {
    readsAt.push(now);
    return { positions: listed.map((x) => x.pos), markets: listed.map((x) => x.mkt), totalClaimable: 0n };
  };
  let registry: InstanceType<typeof Registry> | null = new Registry();
  let tracker: {
    start(): Promise<void>;
    marketResolved(id: string, p: number, held: boolean): void;
    report(): unknown;
    stop(): void;
    heldMarketState: number;
  } | null = new ClaimsTracker({ read, clock, logger, registry, ...(await ledgerStore(root, imp, clock, logger)) });
  await tracker!.start();
  const end = T0 + DAYS * DAY;
  const step = (DAYS * DAY) / N;
  let next = 0;
  while (now < end) {
    const resolveAt = next < N ? T0 + Math.round((next + 0.5) * step) : Infinity;
    timers.sort((a, b) => a.at - b.at);
    const timerAt = timers[0]?.at ?? Infinity;
    const at = Math.min(resolveAt, timerAt, end);
    now = at;
    if (at === end) break;
    if (at === resolveAt) {
      const id = idOf(next);
      const amount = BigInt(2_000_000 + next);
      listed.push({
        pos: { marketId: id, outcomeIndex: 1, outcomeName: 'Yes', tokenAddress: TOKEN, balance: amount, claimableAmount: amount },
        mkt: { id, outcomeTokens: [TOKEN, TOKEN], outcomeNames: ['No', 'Yes'], payouts: [0n, 1_000_000n] },
      });
      next++;
      tracker!.marketResolved(id, 1_000_000, true);
    } else {
      const t = timers.shift()!;
      t.fn();
    }
    await settle();
  }
  const lastDay = readsAt.filter((t) => t >= end - DAY).length;
  const perMarket = (await registry!.getMetricsAsJSON()).find((m: { name: string }) => m.name === 'bookmaker_claimable_usdc');
  const totalGauge = (await registry!.getMetricsAsJSON()).find((m: { name: string }) => m.name === 'bookmaker_claimable_total_usdc');
  const metricsText = (await registry!.metrics())
    .split('\n')
    .filter((l: string) => l.includes('claimable'))
    .join('\n');
  const snap = tracker!.report() as { markets: unknown[]; total: bigint; overdue?: { markets: number } };
  const rep = buildRunReport({ ...STOPPED_RUN, claims: snap });
  const figures: Figures = {
    listed: snap.markets.length,
    held: tracker!.heldMarketState,
    series: perMarket.values.length,
    readsPerMinute: lastDay / 1440,
    readsMonth: readsAt.length,
    answerBytesLastDay: lastDay * answerBytes(N),
    metricsBytes: metricsText.length,
    reportBytes: JSON.stringify(rep.claims).length,
    overdue: snap.overdue?.markets ?? 0,
    totalUsdc: rep.claims.totalClaimableUsdc,
    gaugeTotal: totalGauge.values[0].value,
  };
  tracker!.stop();
  tracker = null;
  registry = null;
  listed.length = 0;
  return figures;
}

const mine = await month(here);
const base = baseDir ? await month(resolve(baseDir)) : null;
const mb = (b: number): number => Math.round(b / 1e4) / 100;
const kb = (b: number): number => Math.round(b / 100) / 10;
const rows = (f: Figures, who: string): [string, string | number][] => [
  [`${who}: listed rows / overdue records / markets held`, `${f.listed} / ${f.overdue} / ${f.held}`],
  [`${who}: bookmaker_claimable_usdc series`, f.series],
  [`${who}: reads a minute (last day); in the month`, `${f.readsPerMinute.toFixed(3)}; ${f.readsMonth}`],
  [`${who}: answer MB read, last day`, mb(f.answerBytesLastDay)],
  [`${who}: claimable metrics KB; report claims KB`, `${kb(f.metricsBytes)}; ${kb(f.reportBytes)}`],
  [`${who}: total claimable (report; gauge)`, `${f.totalUsdc}; ${f.gaugeTotal}`],
];
report([['markets resolved, never claimed', N], ['days', DAYS], ...rows(mine, 'this'), ...(base ? rows(base, 'base') : [])], {
  name: 'claims-month',
  unit: 'bookmaker_claimable_usdc series after the month',
  value: mine.series,
  ...(base ? { baseline: `same month, ${baseDir}`, baselineValue: base.series } : {}),
  markets: N,
  days: DAYS,
  this: mine,
  ...(base ? { base } : {}),
});
