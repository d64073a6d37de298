/**
 * The chaos soak: the real bot, as a child process, quotes the local exchange while the
 * exchange injects faults (5xx, 429 bursts, 0–500 ms latency, slow bodies, stream drops, silent
 * stalls, duplicated and reordered stream events), restarts itself once (state kept) and the bot is
 * killed with SIGKILL and started again. A referee in this process checks the invariants of
 * docs/architecture.md#invariants continuously against the exchange's own state (never through the faulty HTTP path).
 *
 *   const report = await runChaos({ durationMs: 60_000, profile: 'heavy', seed: 7, workDir });
 *   report.violations.length === 0
 *
 * Timeline (fractions of the duration, counted from the moment the first bot is ready, so a slow start-up on a loaded
 * machine delays the events instead of eating them): faults on once the bot is up; forced stream drops every
 * `dropEveryMs` (each tried again, as the other forced faults, when it dropped nothing); forced stalls at 15 %
 * and 80 %; exchange restart at 45 %; kill -9 of the bot at 60 % and a restart a second later; SIGTERM at the
 * end, then the venue must hold no order of the bot.
 *
 * Rotation (on unless `rotation: false`): the last start-up market's deadline falls at 50 % (closed,
 * then resolved 3 s later) and a new market is created at 20 % (deadline at 80 %), by the exchange's
 * market churn; the bot selects `all` markets with `refreshSeconds: 2`. Invariant
 * `no-order-in-ended-market`: no open order of the bot in a resolved market or in one more than 5 s
 * past its deadline; `no-duplicate-quote` covers the new markets as every other.
 */
import { createHash } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { registerSecret } from '../core/logger.ts';
import { TESTNET } from '../exchange/chains.ts';
import { createSigner } from '../exchange/signing/signer.ts';
import { mustAddress } from '../model/ids.ts';
import type { Address, Bytes32, NormalAddress } from '../model/order.ts';
import { remainingShares } from '../orders/venue-order-shares.ts';
import { startCounterparties, type Counterparties } from '../sim/counterparties.ts';
import { FAULT_KINDS, faultProfile, type FaultKind, type FaultSettings } from '../sim/faults.ts';
import { createLocalExchange, type LocalExchange } from '../sim/local-exchange.ts';
import { DEMO_MARKETS } from '../sim/market-factory.ts';
import { startMarketChurn, type MarketChurn } from '../sim/market-churn.ts';
import { spawnBot, type BotProcess } from './bot-process.ts';
import { CHAOS_LIMITS, chaosConfigYaml, type ChaosTiming } from './chaos-config.ts';
import type { ChildMessage } from './child-messages.ts';
import { stalledMarkets, traderView, type TraderView } from './exchange-view.ts';
import {
  INVARIANT_NAMES,
  InvariantTally,
  nonceBodyConflicts,
  notionalBreaches,
  overQuoted,
  positionBreaches,
  reconcileMismatches,
  reusedNonces,
  unsettledAfterRestart,
  yesSide,
  type InvariantName,
  type Violation,
  silentlyNotQuoting,
  ordersInEndedMarkets,
  type MarketEnd,
  averageRounding,
  booksMismatches,
  missedByLiveFeed,
  type AccountBooks,
  type SweptFill,
  stallVerdict,
  quietFor,
} from './invariants.ts';
import { accountLedger } from '../sim/routes/account/ledger-of.ts';
import { accountFromLedger, lastFillSeq } from '../ledger/books.ts';
import { openLedger, type Ledger } from '../ledger/ledger.ts';
import { systemClock } from '../core/clock.ts';
import { HEALTH_STATES } from '../health/health-model.ts';
import { makeFolders } from '../core/make-folders.ts';

export interface ChaosOptions {
  durationMs: number;
  /** a fault profile of src/sim/faults.ts (default 'heavy') */
  profile?: string;
  seed?: number;
  /** config, bot logs and the exchange state go here */
  workDir: string;
  markets?: number;
  /** forced stream drop interval (default 30 s, shorter for short runs) */
  dropEveryMs?: number;
  /** markets created and resolved during the run (default true) */
  rotation?: boolean;
  /** progress lines (default: none) */
  progress?: (line: string) => void;
}

export type ChaosFault = FaultKind | 'botKill9' | 'marketCreated' | 'marketResolved';

export interface ChaosReport {
  readonly durationMs: number;
  readonly profile: string;
  readonly seed: number;
  readonly markets: number;
  readonly faults: Record<ChaosFault, number>;
  readonly checks: Record<InvariantName, number>;
  readonly violationCounts: Record<InvariantName, number>;
  readonly violations: readonly Violation[];
  readonly totalChecks: number;
  readonly totalViolations: number;
  readonly botStarts: number;
  readonly ordersPlaced: number;
  readonly fills: number;
  readonly logFiles: readonly string[];
  readonly finalExitCode: number | null;
  /** the largest difference of the books' cash from the venue's that the stated averages' rounding allowed (1e-6 USDC): see averageRounding */
  readonly booksCashRoundingMicro: number;
  /** the rotation event's figures (null when off) */
  readonly rotation: {
    marketsCreated: number;
    marketsResolved: number;
    /** markets created during the run in which the bot placed an order (rotation starts them) */
    newMarketsQuoted: number;
    /** markets that ended (deadline passed) during the run in which the bot had placed an order (the ended-market check judged something) */
    endedMarketsQuoted: number;
  } | null;
}

const TIMING: ChaosTiming = { maxSilenceSeconds: 4, streamIdleSeconds: 10, reconcileSeconds: 5 };
const SAMPLE_MS = 500;
/** a market silently not quoting this long is a violation (the bot's own view trails the venue's by a poll) */
const SILENT_MS = 10_000;
const HEALTH_STATE_SET: ReadonlySet<string> = new Set(HEALTH_STATES);
/** after the silence limit: time to notice, decide and get the cancel through injected latency (a floor: see STALL_POLLS) */
const STALL_GRACE_MS = 3_000;
/**
 * a silent stall is judged once the bot completed this many fills polls (1 s apart) after its silence limit,
 * not at a wall-time deadline alone (stallVerdict): beside a CPU hog a starved bot missed the 4 s + 3 s deadline
 * by 321 ms (the soak test's CLI run failed so), though nothing was wrong but the machine's pace
 */
const STALL_POLLS = 3;
/** list-to-report slack of a reconcile (slow bodies, the cancel batch in between) */
const RECONCILE_SLACK_MS = 3_000;
/** an order may outlive its market's deadline this long (the bot pauses 5 s before it; cancels cross injected latency) */
const ENDED_GRACE_MS = 5_000;
/**
 * books-equal-venue is judged once the venue's account has not changed for this long (the bot's fills
 * poll is 1 s and its ledger writes every 200 ms: by then every fill is in the books), at most every
 * BOOKS_EVERY_MS
 */
const BOOKS_QUIET_MS = 4_000;
const BOOKS_EVERY_MS = 2_000;
/**
 * ... and once the bot completed this many fills polls since the venue's account last changed (the second
 * began after the first ended, so it read the account as it is): the quiet window counted in what the bot
 * could do, not only in wall time, which a bot starved of CPU beside a hog may need more of
 */
const BOOKS_POLLS = 2;
/**
 * a fill of an order closed this many of the running bot's fills polls before the stop was its feed's to
 * record, not the stop's final sweep's (missedByLiveFeed): a poll reads a vanished order or looks it up
 * (20 a poll; a failed lookup again the next), and a cancelled order with a fill since its last read had
 * a trade on its stream, which has its market read at the next poll (src/feeds/parked-cancels.ts). The
 * restarted bot of a 45 s soak completes 5 to 12 polls before its stop on a loaded machine.
 */
const MISSED_POLLS = 5;
/**
 * how long a bot start may take to be ready: a hang guard, not a pace (the schedule counts from the
 * first bot's ready, and the kill event waits for the restart). spawnBot's default of 60 s was missed
 * by a restarted bot beside a CPU hog on a loaded 2-core machine (the soak test's CLI run failed so)
 */
const READY_MS = 300_000;
/** from a deadline (closed) to the resolution in the rotation event */
const RESOLUTION_DELAY_MS = 3_000;

/**
 * `read` on the bot's ledger opened read-only beside it, then closed; throws when it cannot be opened.
 * `busyTimeoutMs` 0: never wait on the bot's locks (this process is the exchange the bot trades on).
 */
function readLedger<T>(path: string, busyTimeoutMs: number, read: (l: Ledger) => T): T {
  const l = openLedger({ path, clock: systemClock, mustExist: true, readonly: true, busyTimeoutMs });
  try {
    return read(l);
  } finally {
    l.close();
  }
}

/** Per nonce, the shares the ledger's fills and baselines account for (diagnostics of books-equal-venue). */
function ledgerFilled(path: string): Map<string, number> {
  try {
    return readLedger(path, 0, (l) => l.filledByNonce());
  } catch {
    return new Map();
  }
}

/** hh:mm:ss.mmm (UTC) of a time, for the diagnostics */
const clockOf = (ms: number): string => new Date(ms).toISOString().slice(11, 23);

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Deterministic key material for a seed (registered for redaction like any loaded key). */
export function chaosKeys(seed: number): { privateKey: `0x${string}`; apiKey: string; address: Address } {
  const privateKey = `0x${createHash('sha256').update(`bookmaker-chaos:key:${seed}`).digest('hex')}` as `0x${string}`;
  const apiKey = `chaos-${createHash('sha256').update(`bookmaker-chaos:api:${seed}`).digest('hex').slice(0, 32)}`;
  registerSecret(privateKey);
  registerSecret(apiKey);
  return { privateKey, apiKey, address: createSigner({ privateKey, chain: TESTNET }).address };
}

class Referee {
  readonly tally = new InvariantTally();
  /** the largest difference of the books' cash from the venue's within the averages' rounding (averageRounding), 1e-6 USDC */
  booksCashRounding = 0n;
  /** when the referee first saw each order closed */
  readonly closedAt = new Map<Bytes32, number>();
  /** silent stalls (`market@since`) not yet judged, or still going on */
  private readonly stalls = new Map<string, { market: Bytes32; since: number; endedAt: number | null; lifetime: number; judged: boolean; flagged: boolean }>();
  private overQuotedBefore = new Set<string>();
  /** the bot's latest health report, and since when each market has been silently not quoting */
  private health: { at: number; markets: Map<Bytes32, string> } | null = null;
  private readonly silentSince = new Map<Bytes32, number>();
  /** nonce → order body, over every bot lifetime; and the lifetime that sent it */
  private readonly submitted = new Map<Bytes32, string>();
  private readonly lifetimeOf = new Map<Bytes32, number>();
  lifetime = 0;

  /** the bot's wallet in normal form: normalised here, where the referee takes it (src/model/ids.ts) */
  private readonly trader: NormalAddress;

  constructor(
    private readonly ex: LocalExchange,
    trader: Address,
    private readonly say: (line: string) => void,
  ) {
    this.trader = mustAddress(trader, 'chaos trader');
  }

  view(): TraderView {
    return traderView(this.ex, this.trader);
  }

  /**
   * per order, when the referee first saw each filled size (diagnostics of books-equal-venue: when a
   * fill the books lack happened, against the moments below); no sample is taken while the kill event
   * waits for the restarted bot, so a fill in that time is seen when sampling resumes
   */
  readonly fillsSeen = new Map<Bytes32, { at: number; filled: number }[]>();
  /** the run's moments (bot starts, kill, exchange restart), for the diagnostics */
  readonly moments: { at: number; what: string }[] = [];

  sample(now: number): TraderView {
    const v = this.view();
    for (const o of v.orders) if (o.status !== 'open' && !this.closedAt.has(o.nonce)) this.closedAt.set(o.nonce, now);
    for (const o of v.orders) {
      if (o.filledSize === 0) continue;
      const seen = this.fillsSeen.get(o.nonce);
      if (!seen) this.fillsSeen.set(o.nonce, [{ at: now, filled: o.filledSize }]);
      else if (seen[seen.length - 1]!.filled !== o.filledSize) seen.push({ at: now, filled: o.filledSize });
    }
    const limits = { maxPosition: CHAOS_LIMITS.maxPosition * 1e6, maxNotional: CHAOS_LIMITS.maxNotional * 1e6, toleranceShares: 1e6 };
    this.tally.record('position-limit', positionBreaches(v.net, v.open, limits), now);
    this.tally.record('notional-limit', notionalBreaches(v.net, v.open, v.marks, limits), now);
    this.tally.record('nonce-unique', reusedNonces(v.orders), now);
    // a slot quoted twice shows as more open orders than slots on one side, for two samples running
    const over = overQuoted(v.open, CHAOS_LIMITS.slotsPerSide);
    const describe = (k: string): string =>
      v.open
        .filter((o) => `${o.marketId}:${yesSide(o)}` === k)
        .map(
          (o) =>
            `${o.nonce.slice(0, 10)} ${o.outcomeIndex === 1 ? 'YES' : 'NO'} ${o.side === 0 ? 'buy' : 'sell'} ${remainingShares(o) / 1e6}@${o.price} placed ${o.insertedAt.slice(11, 23)}`,
        )
        .join('; ');
    this.tally.record(
      'no-duplicate-quote',
      [...over].filter((k) => this.overQuotedBefore.has(k)).map((k) => `${k}: more open orders than slots for ${SAMPLE_MS} ms+ (${describe(k)})`),
      now,
    );
    this.overQuotedBefore = over;
    this.checkStalls(v, now);
    this.checkSilence(v, now);
    const ends = new Map<string, MarketEnd>();
    for (const m of this.ex.state.stores.markets.values()) ends.set(m.id, m);
    this.tally.record('no-order-in-ended-market', ordersInEndedMarkets(v.open, ends, this.ex.state.clock.now(), ENDED_GRACE_MS), now);
    return v;
  }

  /** the venue's account as of the last sample, and since when it has not changed */
  private venueBooks: { key: string; since: number; books: AccountBooks } | null = null;
  private booksCheckedAt = 0;
  /** a difference seen at the last quiet check, judged if the next one finds it again (checkBooks) */
  private booksPending: string | null = null;

  /** The venue's collateral and holdings for the trader, read in process. */
  venueAccount(): AccountBooks {
    const l = accountLedger(this.ex.state);
    const holdings = new Map<string, bigint>();
    for (const p of l.positions(this.trader)) {
      if (p.yes !== 0n) holdings.set(`${p.marketId}:1`, p.yes);
      if (p.no !== 0n) holdings.set(`${p.marketId}:0`, p.no);
    }
    return { collateral: l.collateral(this.trader).total, holdings };
  }

  /**
   * books-equal-venue: when the bot is up and quiescent — the venue's account unchanged
   * for BOOKS_QUIET_MS and BOOKS_POLLS of the bot's fills polls, and a difference found again at the next such check with nothing moved, so
   * no fill is still on its way to the books — the ledger's baseline collateral plus its cash, and
   * its holdings, equal the venue's to the unit. `stopped` judges at once (after the final stop). `ledgerPath` is read read-only beside the writing bot (WAL).
   */
  checkBooks(now: number, ledgerPath: string, botUp: boolean, stopped = false): void {
    const v = this.venueAccount();
    const key = `${v.collateral}|${[...v.holdings]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([k, x]) => `${k}=${x}`)
      .join(',')}`;
    if (!this.venueBooks || this.venueBooks.key !== key) this.venueBooks = { key, since: now, books: v };
    const quiet = quietFor(this.venueBooks.since, now, this.polls, BOOKS_QUIET_MS, BOOKS_POLLS);
    if (!stopped && (!botUp || !quiet || now - this.booksCheckedAt < BOOKS_EVERY_MS)) return;
    this.booksCheckedAt = now;
    let books: AccountBooks | null;
    try {
      books = readLedger(ledgerPath, 0, (l) => {
        const b = l.baseline();
        if (!b) return null; // not begun yet (the first start-up is still running)
        // the account's books as the bot rebuilds them at start (src/account/account.ts, one function)
        const a = accountFromLedger(l);
        return {
          collateral: b.collateral + a.figures().cash,
          holdings: new Map(a.positions().map((x) => [`${x.marketId}:${x.outcomeIndex}`, BigInt(x.shares)])),
        };
      });
    } catch {
      return; // busy or not there yet: the next quiet sample judges
    }
    if (!books) return;
    // the venue must still be where it was (a fill between the two reads is not the books' fault)
    const again = this.venueAccount();
    if (again.collateral !== v.collateral) return;
    // what the venue's stated averages cannot say of the trader's orders (the referee reads the exchange's own records)
    const rounding = averageRounding(this.ex.orders.byTrader.get(this.trader) ?? []);
    const found = booksMismatches(books, v, rounding);
    const diff = books.collateral > v.collateral ? books.collateral - v.collateral : v.collateral - books.collateral;
    // Under injected faults (slow bodies, 429 bursts, stalls) the bot's fills poll can trail the
    // venue by more than the quiet window, so a difference is judged when the next quiet check finds
    // it again with neither the venue nor the books moved (a lost fill stays lost: it is caught there),
    // and at once after the stop (the final sweep has run).
    const seen = `${key}|${books.collateral}|${found.join(';')}`;
    if (!stopped && (found.length > 0 || diff > 0n) && this.booksPending !== seen) {
      this.booksPending = seen;
      return;
    }
    this.booksPending = null;
    if (found.length === 0 && diff > this.booksCashRounding) this.booksCashRounding = diff;
    if (found.length > 0) {
      // what the venue holds that the books lack: the wallet's orders with fills in the markets that differ, and how far the ledger accounts for each
      const markets = new Set(
        [...books.holdings.keys(), ...v.holdings.keys()]
          .filter((k) => (books.holdings.get(k) ?? 0n) !== (v.holdings.get(k) ?? 0n))
          .map((k) => k.split(':')[0]!),
      );
      const accounted = ledgerFilled(ledgerPath);
      for (const o of this.view().orders) {
        const f = o.filledSize;
        if (f === 0 || !markets.has(o.marketId)) continue;
        const seen = (this.fillsSeen.get(o.nonce) ?? []).map((x) => `${x.filled}@${clockOf(x.at)}`).join(',');
        const closed = this.closedAt.get(o.nonce);
        found.push(
          `  venue order ${o.nonce} ${o.outcomeIndex === 1 ? 'YES' : 'NO'} ${o.side === 0 ? 'buy' : 'sell'} @${o.price} ${o.status} filledSize ${f} placed ${o.insertedAt}; ledger accounts ${accounted.get(o.nonce) ?? 'nothing'}`,
          `    the referee saw filledSize ${seen || '-'}, closed ${closed === undefined ? '-' : clockOf(closed)}`,
        );
      }
      found.push(`  moments: ${this.moments.map((x) => `${x.what}@${clockOf(x.at)}`).join(', ')}`);
      found.push(`  checked ${stopped ? 'after the stop' : 'while quiescent'}`);
    }
    this.tally.record('books-equal-venue', found, now);
  }

  /** when each fills poll of the bot now running completed (its `polled` reports) */
  polls: number[] = [];

  /** The last fill record of the ledger (read-only, beside the bot), or null when it cannot be read now. */
  ledgerSeq(ledgerPath: string): number | null {
    try {
      return readLedger(ledgerPath, 1_000, lastFillSeq);
    } catch {
      return null;
    }
  }

  /**
   * books-equal-venue after the stop, for the run before it: the fills the stop's final sweep recorded
   * (after record `fromSeq`, from the catch-up) of orders closed long before the stop (missedByLiveFeed)
   * are fills the running bot's books lacked. The books equal the venue after the sweep either way.
   */
  checkFinalSweep(ledgerPath: string, fromSeq: number, now: number): void {
    let swept: SweptFill[];
    try {
      const sql = "SELECT nonce, size FROM fills WHERE seq > ? AND source = 'catch-up' AND nonce IS NOT NULL ORDER BY seq";
      swept = readLedger(ledgerPath, 1_000, (l) => l.db.prepare(sql).all(fromSeq) as SweptFill[]);
    } catch (e) {
      this.tally.record('books-equal-venue', [`the ledger could not be read after the stop: ${(e as Error).message}`], now);
      return;
    }
    this.tally.record('books-equal-venue', missedByLiveFeed(swept, this.closedAt, this.polls, MISSED_POLLS), now);
  }

  onHealth(m: Extract<ChildMessage, { type: 'health' }>): void {
    this.health = { at: m.at, markets: new Map(Object.entries(m.markets) as [Bytes32, string][]) };
  }

  /**
   * No market is silently not quoting: a market with no live quote at the venue for SILENT_MS while
   * the bot's health model kept saying `quoting` (or an unknown state) is a violation. Judged only
   * on a fresh health report (a bot being killed or restarted sends none).
   */
  private checkSilence(v: TraderView, now: number): void {
    if (!this.health || now - this.health.at > 2_000) {
      this.silentSince.clear();
      return;
    }
    const open = new Map<Bytes32, number>();
    for (const o of v.open) open.set(o.marketId, (open.get(o.marketId) ?? 0) + 1);
    const silent = new Set(silentlyNotQuoting(open, this.health.markets, HEALTH_STATE_SET));
    for (const m of [...this.silentSince.keys()]) if (!silent.has(m)) this.silentSince.delete(m);
    const found: string[] = [];
    for (const m of silent) {
      const since = this.silentSince.get(m) ?? now;
      this.silentSince.set(m, since);
      if (now - since >= SILENT_MS) {
        found.push(`${m}: no live quote at the venue for ${now - since} ms while the health model says ${this.health.markets.get(m)}`);
        this.silentSince.set(m, now); // one report per window
      }
    }
    this.tally.record('no-silent-not-quoting', found, now);
  }

  /**
   * stall-pulls-quotes (stallVerdict): each stall episode is judged on every sample once the bot had its
   * turns after the silence limit (STALL_POLLS fills polls and the wall-time floor), one violation per
   * episode; an episode over before it could be judged is judged once it can, by the same bot. A bot
   * restarted meanwhile (its polls start again) leaves its old episodes unjudged; the run's end waits a bounded
   * grace for the running bot's (runChaos).
   */
  private checkStalls(v: TraderView, now: number): void {
    const stalled = stalledMarkets(this.ex);
    const rule = { limitMs: TIMING.maxSilenceSeconds * 1000, graceMs: STALL_GRACE_MS, minPolls: STALL_POLLS };
    for (const [key, e] of [...this.stalls]) {
      if (e.endedAt === null && !stalled.has(e.market)) {
        e.endedAt = now;
        this.say(`stall of ${e.market.slice(0, 10)}… over after ${now - e.since} ms`);
        if (e.judged) {
          this.stalls.delete(key);
          continue;
        }
      }
      if (e.lifetime !== this.lifetime) {
        this.stalls.delete(key);
        this.stallsUnjudged++;
        this.say(`stall of ${e.market.slice(0, 10)}… not judged: the bot was restarted before it had ${STALL_POLLS} fills polls after the limit`);
        continue;
      }
      const found = stallVerdict(e, v.open, this.polls, now, rule);
      if (found === null) continue;
      e.judged = true;
      if (e.endedAt !== null) this.stalls.delete(key);
      this.tally.record('stall-pulls-quotes', e.flagged ? [] : found, now);
      if (found.length) e.flagged = true;
    }
    for (const m of stalled) {
      if ([...this.stalls.values()].some((e) => e.market === m && e.endedAt === null)) continue;
      this.stalls.set(`${m}@${now}`, { market: m, since: now, endedAt: null, lifetime: this.lifetime, judged: false, flagged: false });
      this.stallsSeen++;
      this.say(`stream of ${m.slice(0, 10)}… stalled`);
    }
  }

  /** stall episodes that ended a bot's lifetime before they could be judged */
  stallsUnjudged = 0;

  /** stall episodes of the running bot, begun before `before`, not judged yet */
  unjudgedStalls(before: number): number {
    return [...this.stalls.values()].filter((e) => !e.judged && e.since < before && e.lifetime === this.lifetime).length;
  }
  stallsSeen = 0;

  onSubmitted(nonce: Bytes32, body: string, now: number): void {
    const k = nonce;
    const firstLife = this.lifetimeOf.get(k);
    const found: string[] = [];
    if (firstLife !== undefined && firstLife !== this.lifetime) found.push(`nonce ${nonce} sent by bot start #${firstLife} and again by #${this.lifetime}`);
    const conflict = nonceBodyConflicts(this.submitted, nonce, body);
    if (conflict) found.push(conflict);
    if (firstLife === undefined) this.lifetimeOf.set(k, this.lifetime);
    this.tally.record('nonce-unique', found, now);
  }

  onReconciled(m: Extract<ChildMessage, { type: 'reconciled' }>, openAtKill: Bytes32[] | null): boolean {
    const now = Date.now();
    const v = this.view();
    for (const o of v.orders) if (o.status !== 'open' && !this.closedAt.has(o.nonce)) this.closedAt.set(o.nonce, now);
    // a per-market reconcile only vouches for that market
    const scope = m.marketId;
    const venue = scope ? v.orders.filter((o) => o.marketId === scope) : v.orders;
    const bot = scope ? m.orders.filter((b) => b.marketId === scope) : m.orders;
    if (m.listedAt > 0) this.tally.record('reconcile-view', reconcileMismatches(bot, venue, this.closedAt, m.listedAt - RECONCILE_SLACK_MS), now);
    if (openAtKill && m.marketId === null) {
      this.tally.record('restart-adopts', unsettledAfterRestart(openAtKill, m.orders, v.orders), now);
      return true;
    }
    return false;
  }
}

export async function runChaos(o: ChaosOptions): Promise<ChaosReport> {
  const seed = o.seed ?? 1;
  const profileName = o.profile ?? 'heavy';
  const profile: FaultSettings = faultProfile(profileName);
  const say = o.progress ?? (() => undefined);
  makeFolders(o.workDir);
  const keys = chaosKeys(seed);
  const configPath = join(o.workDir, 'chaos-bot.yaml');
  const ledgerPath = join(o.workDir, 'chaos-bot.ledger.sqlite');
  for (const f of [ledgerPath, `${ledgerPath}-wal`, `${ledgerPath}-shm`]) rmSync(f, { force: true }); // a new exchange, a new wallet: new books
  writeFileSync(configPath, chaosConfigYaml(TIMING, ledgerPath));
  const rotation = o.rotation ?? true;
  const nMarkets = o.markets ?? 4;

  const ex = createLocalExchange({
    seed,
    markets: Array.from({ length: nMarkets }, (_, i) => ({
      ...DEMO_MARKETS[i % DEMO_MARKETS.length]!,
      ...(i >= DEMO_MARKETS.length ? { question: `${DEMO_MARKETS[i % DEMO_MARKETS.length]!.question} (${i + 1})` } : {}),
    })),
    apiKeys: [{ key: keys.apiKey, wallet: keys.address }],
    heartbeatMs: 1_000,
    expirySweepMs: 1_000,
    chain: TESTNET,
  });
  const baseUrl = await ex.start(0);
  // with rotation, the last start-up market ends half way through the run: its deadline is moved there once the
  // first bot is ready (the bot's market poll sees it), since the start-up may take any part of the duration
  const ending = rotation ? [...ex.state.stores.markets.values()][nMarkets - 1] : undefined;
  // deadlines are kept by the churn (closed, then resolved); new markets come from the rotation event
  const churn: MarketChurn = startMarketChurn(ex, { seed, newMarketEveryMs: 0, resolutionDelayMs: RESOLUTION_DELAY_MS, tickMs: 250 });
  const agents: Counterparties = startCounterparties(ex, { seed, otherMakers: 1, churn });
  const created: string[] = [];
  const referee = new Referee(ex, keys.address, say);
  const logFiles: string[] = [];
  let bot: BotProcess | null = null;
  let expectingExit = false;
  let openAtKill: Bytes32[] | null = null;
  let botStarts = 0;
  let kills = 0;
  const unexpected: string[] = [];

  const onMessage = (m: ChildMessage): void => {
    const now = Date.now();
    if (m.type === 'unhandled') referee.tally.record('no-crash', [`${m.kind}: ${m.message.split('\n')[0]}`], now);
    else if (m.type === 'submitted') referee.onSubmitted(m.nonce, m.body, now);
    else if (m.type === 'health') referee.onHealth(m);
    else if (m.type === 'polled') referee.polls.push(now);
    else if (m.type === 'reconciled') {
      if (referee.onReconciled(m, openAtKill)) openAtKill = null;
    }
  };
  const start = async (): Promise<BotProcess> => {
    botStarts++;
    referee.lifetime = botStarts;
    referee.polls = []; // a dead bot's polls recorded nothing of what the next one must
    const logFile = join(o.workDir, `bot-${botStarts}.log`);
    logFiles.push(logFile);
    const env: NodeJS.ProcessEnv = { ...process.env, BOOKMAKER_PRIVATE_KEY: keys.privateKey, BOOKMAKER_API_KEY: keys.apiKey, BOOKMAKER_LOG_LEVEL: 'info' };
    const p = await spawnBot({ configPath, baseUrl, env, logFile, onMessage, readyTimeoutMs: READY_MS });
    void p.exited.then((r) => {
      if (!expectingExit) unexpected.push(`bot start #${botStarts} exited by itself (code ${r.code}, signal ${r.signal})`);
    });
    say(`bot #${botStarts} up (pid ${p.pid})`);
    referee.moments.push({ at: Date.now(), what: `bot #${botStarts} up` });
    return p;
  };

  let t0 = Date.now();
  let finalExitCode: number | null = null;
  try {
    bot = await start();
    t0 = Date.now();
    if (ending) ending.deadline = t0 + Math.round(0.5 * o.durationMs);
    ex.faults.configure(profile);
    say(`faults on: ${profileName}`);
    const D = o.durationMs;
    const dropEvery = o.dropEveryMs ?? Math.min(30_000, Math.max(5_000, D / 6));
    const events: { at: number; name: string; run: () => Promise<void> }[] = [
      // long enough for every market's stream to carry an event (counterparties step every 500 ms);
      // placed well clear of the restarts so the stall lasts past the silence limit plus grace
      { at: 0.15 * D, name: 'forced stall', run: () => pulse({ streamStallRate: 1 }, 1_500, 'streamStall') },
      { at: 0.8 * D, name: 'forced stall', run: () => pulse({ streamStallRate: 1 }, 1_500, 'streamStall') },
      // rarer faults forced for a moment, so every kind is exercised even in a short run
      { at: 0.25 * D, name: 'forced duplicated stream events', run: () => pulse({ streamDuplicateRate: 1 }, 1_000, 'streamDuplicate') },
      { at: 0.3 * D, name: 'forced out-of-order stream events', run: () => pulse({ streamReorderRate: 1 }, 1_000, 'streamReorder') },
      { at: 0.35 * D, name: 'forced slow bodies', run: () => pulse({ slowBodyRate: 1 }, 1_000, 'slowBody') },
      // a quiet bot makes few keyed requests a second: a burst is forced until one lands, as the others
      { at: 0.4 * D, name: 'forced 429 burst', run: () => pulse({ burst429Rate: 0.5 }, 1_000, 'burst429') },
      { at: 0.45 * D, name: 'exchange restart', run: async () => void (await ex.restart()) },
      {
        at: 0.6 * D,
        name: 'kill -9 of the bot',
        run: async () => {
          expectingExit = true;
          bot!.kill9();
          await bot!.exited;
          kills++;
          await sleep(1_000);
          // what the dead bot left at the venue: the next bot must adopt or cancel all of it
          openAtKill = referee.view().open.map((x) => x.nonce);
          say(`bot killed; ${openAtKill.length} order(s) left open`);
          referee.moments.push({ at: Date.now(), what: 'kill +1 s' });
          expectingExit = false;
          bot = await start();
        },
      },
    ];
    if (rotation) {
      events.push({
        at: 0.2 * D,
        name: 'a new market (rotation)',
        run: async () => {
          const m = churn.createMarket(Math.round(0.6 * D));
          if (m) created.push(m.id);
        },
      });
    }
    // a drop lands only on an event delivered to a live subscriber: like the other kinds, a pulse that dropped
    // nothing (a busy machine's streams quiet or reconnecting for its 400 ms) is tried again
    for (let t = dropEvery; t < D - 2_000; t += dropEvery)
      events.push({ at: t, name: 'forced stream drop', run: () => pulse({ streamDropRate: 1 }, 400, 'streamDrop') });
    events.sort((a, b) => a.at - b.at);

    /**
     * Force a fault on for a moment. A stream fault lands only on an event delivered to a live
     * subscriber, so a pulse that meets only stalled or reconnecting streams injects nothing: it is
     * tried again 2 s later (at most 4 times), so a short run still exercises every kind.
     */
    async function pulse(extra: Partial<FaultSettings>, ms = 400, kind?: FaultKind, attempt = 1): Promise<void> {
      const before = kind ? ex.faults.counts[kind] : 0;
      ex.faults.configure({ ...profile, ...extra });
      await sleep(ms);
      ex.faults.configure(profile);
      if (!kind || ex.faults.counts[kind] > before || attempt >= 4) return;
      const at = Date.now() - t0 + 2_000;
      if (at >= D) return;
      const retry = { at, name: `forced ${kind} again (none landed)`, run: () => pulse(extra, ms, kind, attempt + 1) };
      let i = next;
      while (i < events.length && events[i]!.at <= at) i++;
      events.splice(i, 0, retry);
    }

    let next = 0;
    while (Date.now() - t0 < D) {
      const now = Date.now();
      referee.sample(now);
      referee.checkBooks(now, ledgerPath, !expectingExit && openAtKill === null);
      referee.tally.record('no-crash', unexpected.splice(0), now);
      while (next < events.length && now - t0 >= events[next]!.at) {
        const e = events[next++]!;
        say(`${((now - t0) / 1000).toFixed(1)}s: ${e.name}`);
        referee.moments.push({ at: now, what: e.name });
        await e.run();
      }
      await sleep(SAMPLE_MS);
    }

    // A restarted bot still starting up when the time is over (a slow or loaded machine) gets a bounded
    // grace to finish its first full reconcile, so the check judges the bot, not the machine's speed;
    // one that never reconciles is still reported below.
    const graceUntil = Date.now() + 60_000;
    while (openAtKill && Date.now() < graceUntil) {
      referee.sample(Date.now());
      await sleep(SAMPLE_MS);
    }

    // A stall the schedule's end cut short of the bot's polls (a loaded machine's bot polls late) gets a bounded
    // grace to be judged, as the restart above: the check judges the bot, not the machine's pace.
    const scheduleEnd = Date.now();
    const stallGraceUntil = scheduleEnd + 30_000;
    while (referee.unjudgedStalls(scheduleEnd) > 0 && Date.now() < stallGraceUntil) {
      await sleep(SAMPLE_MS);
      referee.sample(Date.now());
    }
    if (referee.unjudgedStalls(scheduleEnd) > 0)
      say(`${referee.unjudgedStalls(scheduleEnd)} stall(s) left unjudged at the end: too few fills polls after the limit`);

    // the final stop: faults stay on, as they would in production
    say('stopping the bot (SIGTERM)');
    // the books before the stop: what the stop's final sweep records comes after this record
    const sweepFrom = referee.ledgerSeq(ledgerPath);
    const stopAt = Date.now();
    expectingExit = true;
    finalExitCode = await bot.stop(90_000);
    const left = referee.view().open;
    referee.tally.record('clean-stop', finalExitCode === 0 ? [] : [`bot exited ${finalExitCode} on SIGTERM`], Date.now());
    referee.tally.record(
      'clean-stop',
      left.map((x) => `order ${x.nonce} still open at the venue after the stop`),
      Date.now(),
    );
    // after the stop too: the bot's orders are all gone, so its account at the venue no longer
    // moves, and the ledger must hold it to the unit (fills that raced the cancels included: the
    // stop's final sweep records them)
    referee.checkBooks(Date.now(), ledgerPath, false, true);
    if (sweepFrom !== null) referee.checkFinalSweep(ledgerPath, sweepFrom, stopAt);
    if (openAtKill) referee.tally.record('restart-adopts', ['the restarted bot never completed a full reconcile'], Date.now());
    referee.tally.record('no-crash', unexpected.splice(0), Date.now());
  } finally {
    expectingExit = true;
    if (bot) {
      bot.kill9();
      await bot.exited;
    }
    agents.stop();
    await ex.close();
  }

  const v = referee.view();
  const faults = { ...ex.faults.counts, botKill9: kills, marketCreated: churn.counts.created, marketResolved: churn.counts.resolved } as Record<
    ChaosFault,
    number
  >;
  const quotedIn = new Set<string>(v.orders.map((x) => x.marketId));
  const t = referee.tally;
  return {
    durationMs: Date.now() - t0,
    profile: profileName,
    seed,
    markets: nMarkets,
    faults,
    checks: t.checks,
    violationCounts: t.violationCounts,
    violations: t.violations,
    totalChecks: Object.values(t.checks).reduce((a, b) => a + b, 0),
    totalViolations: t.totalViolations,
    botStarts,
    ordersPlaced: v.orders.length,
    fills: v.orders.filter((x) => x.filledSize > 0).length,
    logFiles,
    finalExitCode,
    booksCashRoundingMicro: Number(referee.booksCashRounding),
    rotation: rotation
      ? {
          marketsCreated: churn.counts.created,
          marketsResolved: churn.counts.resolved,
          newMarketsQuoted: created.filter((id) => quotedIn.has(id)).length,
          endedMarketsQuoted: [...ex.state.stores.markets.values()].filter((m) => m.deadline >= t0 && m.deadline <= t0 + o.durationMs && quotedIn.has(m.id))
            .length,
        }
      : null,
  };
}

export { FAULT_KINDS, INVARIANT_NAMES };
