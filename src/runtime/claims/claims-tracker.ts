/**
 * Life after resolution: which of this instance's markets resolved, what they pay and what the
 * wallet can claim, read from `GET /portfolio/:address/claimable`.
 *
 *   const claims = new ClaimsTracker({ read: () => client.portfolio.claimable(trader), owns, clock, logger, registry });
 *   void claims.start();                               // start-up: positions held from earlier runs
 *   claims.marketResolved(id, payoutYes, held);        // the market feed saw the resolution
 *   claims.report();                                   // the end-of-run report's block
 *   claims.stop();
 *
 * Each market is logged once when its claimable amount is first seen and again when it changes
 * (claimed: the amount is gone), with its payout per share and the amount. A resolved market where
 * the books show no position is logged once as such (and read once, in case the books missed a fill).
 * After a resolution the venue may take a while to show the position as claimable: it is read again
 * after 2 s, doubling up to `intervalMs`, at most `maxTries` times. While anything is claimable it is
 * re-read, so a claim made elsewhere (the venue's auto-claim, a person) shows: after `intervalMs` (60 s)
 * when the last read changed something (a new claimable market, a claim, an amount), the pause doubling
 * with each read that changed nothing, up to `maxIntervalMs` (15 min). Each read is the wallet's whole
 * list, so a wallet that leaves markets unclaimed for a month is not read in full every minute. A failed
 * read is logged, counted and retried (a 4xx refusal other than 408/429 is said once and not retried
 * until the next resolution); it never throws into the bot.
 *
 * Every market the venue lists claimable has a row in `store` (the ledger's `claimable_since`,
 * src/ledger/claimable-since.ts): when the bot first saw it claimable, by this process or an earlier
 * one, and its payout. A market still claimable `overdueAfterMs` (24 h) after it was first seen so is
 * overdue: the venue's auto-claim did not take it. It is logged at warn once a process (market, amount,
 * "claim it"), leaves the per-market list and its `bookmaker_claimable_usdc` series, and is held in
 * memory by no record at all: each read (the wallet's whole list) gives its amount, its row gives its
 * payout and since when. So its claim (gone from the list) still reaches the books (`onClaimed`), and
 * every total still counts it to the unit: `total()`, `bookmaker_claimable_total_usdc`, the run report
 * and `bookmaker_claimable_overdue_{markets,usdc}`, summed at every read; the report names the
 * OVERDUE_LISTED_MAX largest (the only overdue markets kept in memory between reads). So a month of
 * markets nobody claims costs a ledger row each, not a series, a report line, a record in memory and a
 * full read a minute each. An earlier process's row the first read does not list is removed without a
 * claim recorded: a claim made while the bot was down is the portfolio check's (below), which records
 * only what the venue states.
 *
 * A claim made while the bot was down (the venue's auto-claim, a person in the web app) never shows
 * as a market leaving the claimable list: the next start never saw it claimable. So at start-up,
 * after the claimable read, every market whose tokens the books hold unclaimed, followed or not, and
 * which the venue does not list claimable is looked up in one paged read of the wallet's portfolio
 * (`readHoldings`, GET /portfolio/:address, at most HOLDINGS_READ_MAX rows): those whose payout the
 * books know (`unclaimed`) and those whose payout they do not (`heldUnresolved`: a market the bot no
 * longer follows resolved without it seeing). A market the venue shows claimed (claimState
 * `autoclaimed`, or tokens redeemed, and none held, claimable or claiming) reaches the books through
 * `onClaimed`, as if the bot had seen it; one whose payout the books do not know, only at the payout its
 * market read states (`readPayout`, at most PAYOUT_READS_MAX a start; none stated or a failed read:
 * nothing recorded, said at warn). Nothing else does: a market the venue does not show claimed stays
 * held in the books (the resolved ones said once, at info). No read at all when the books hold no
 * tokens. The same check, for that market alone (`marketId`), follows a resolution with a position
 * that the venue never showed claimable (claimed before the first read, or
 * resolved and claimed while the bot was down: the feed's resolution gives the books the payout).
 * While the bot runs, the same check every `heldCheckMs` (HELD_CHECK_MS, 15 min) covers the markets
 * the books hold tokens in that this run does not follow (`follows`: no feed tells their resolution),
 * so one resolved and claimed meanwhile reaches the books within a period, not at the next start; one
 * shown claimable makes the claimable list read. No read while there are none (scheduleHeldCheck).
 * And the same check, for one market alone, when it leaves the bot's store for good while the books
 * hold its tokens (`positionGone`): a claim the venue made before the bot saw the resolution (the
 * balance read shows none held, so the retired market's record and its feed go) reaches the books
 * within a read, not at the periodic check.
 *
 * Metrics (registered on `registry`):
 *   bookmaker_claimable_usdc{market}          USDC claimable per market not yet overdue (removed once claimed or overdue)
 *   bookmaker_claimable_total_usdc            Σ claimable, overdue included (total())
 *   bookmaker_claimable_overdue_markets       markets claimable past overdueAfterMs
 *   bookmaker_claimable_overdue_usdc          Σ of their claimable amounts
 *   bookmaker_claimable_read_errors_total     failed reads of the claimable endpoint (and of the start-up portfolio and market reads)
 */
import { Counter, Gauge, type Registry } from 'prom-client';
import type { Clock } from '../../core/clock.ts';
import type { Logger } from '../../core/logger.ts';
import { VenueError } from '../../exchange/client/errors.ts';
import type { Claimable, Holding } from '../../exchange/client/portfolio.ts';
import type { ClaimableRecord, ClaimableStore } from '../../ledger/claimable-since.ts';
import type { Bytes32 } from '../../model/order.ts';
import { micro } from '../../model/units.ts';
import { summarizeClaimable, type ClaimableMarketSummary } from './claimable-summary.ts';

export type { ClaimableRecord, ClaimableStore };

export interface ClaimsTrackerOptions {
  /** one read of the venue's claimable positions for the bot's wallet */
  readonly read: () => Promise<Claimable>;
  /** the markets this instance answers for (its shard); default every market */
  readonly owns?: (marketId: Bytes32) => boolean;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly registry?: Registry;
  /** re-read pause after a read that changed something, and the longest retry pause (default 60 000 ms) */
  readonly intervalMs?: number;
  /** the longest re-read pause while something is claimable, reached by doubling over unchanged reads (default 900 000 ms) */
  readonly maxIntervalMs?: number;
  /** claimable this long after first seen so (by this process or an earlier one): overdue (default 86 400 000 ms, 24 h) */
  readonly overdueAfterMs?: number;
  /** first retry pause after a resolution or a failed read (default 2 000 ms, doubling) */
  readonly retryMs?: number;
  /** reads after a resolution before concluding the venue shows nothing claimable (default 6) */
  readonly maxTries?: number;
  /** markets whose payout the books know and whose tokens they hold unclaimed (read once, at start-up) */
  readonly unclaimed?: () => readonly Bytes32[];
  /**
   * markets whose tokens the books hold and whose payout they do not know (read once, at start-up):
   * a resolution the bot never saw, in a market it no longer follows (released, unselected) or one
   * that resolved while it was down
   */
  readonly heldUnresolved?: () => readonly Bytes32[];
  /**
   * one market's payout per YES share (1e-6 USDC) as the venue's market read states it (GET /markets/:id:
   * resolved, outcome 0 or 1), or null when it states none: needed to record a claim the venue shows
   * for a market whose payout the books do not know
   */
  readonly readPayout?: (marketId: Bytes32) => Promise<bigint | null>;
  /**
   * the wallet's portfolio, every page (GET /portfolio/:address), or one market's (`marketId`): read at
   * start-up when `unclaimed` gives markets, and for a market resolved with a position that the venue
   * never showed claimable
   */
  readonly readHoldings?: (marketId?: Bytes32) => AsyncIterable<Holding>;
  /**
   * the markets whose resolution this run's market feed reports (quoted here): the periodic holdings check
   * leaves them to it (default none: every market the books hold tokens in is checked)
   */
  readonly follows?: (marketId: Bytes32) => boolean;
  /** the periodic holdings check's pause while the books hold tokens in markets not followed (default HELD_CHECK_MS) */
  readonly heldCheckMs?: number;
  /** a market's claimable amount was claimed (it left the venue's list): the account's books redeem its tokens */
  readonly onClaimed?: (marketId: Bytes32, payoutYes: bigint | null) => void;
  /**
   * the claimable markets' first-seen times and payouts, kept across restarts (the runtime: the ledger's
   * `claimable_since`, src/ledger/claimable-since.ts); default in memory (a restart starts them again)
   */
  readonly store?: ClaimableStore;
}

/** A store in memory: what a tracker without a ledger keeps (nothing across restarts). */
export function memoryClaimableStore(): ClaimableStore {
  const m = new Map<string, ClaimableRecord>();
  return { all: () => new Map(m), get: (id) => m.get(id) ?? null, put: (id, r) => void m.set(id, r), delete: (id) => void m.delete(id) };
}

export type ClaimState = 'claimable' | 'claimed' | 'nothing-to-claim' | 'pending';

export interface ClaimsMarket {
  readonly marketId: Bytes32;
  readonly state: ClaimState;
  /** what one YES share pays, 1e-6 USDC; null when not known */
  readonly payoutYes: bigint | null;
  /** what one NO share pays, 1e-6 USDC; null when not known */
  readonly payoutNo: bigint | null;
  /** 1e-6 shares held when last read */
  readonly yesShares: bigint;
  readonly noShares: bigint;
  /** claimable now (0 once claimed), 1e-6 USDC */
  readonly claimable: bigint;
}

export interface ClaimsSnapshot {
  readonly markets: readonly ClaimsMarket[];
  /** Σ claimable, 1e-6 USDC */
  readonly total: bigint;
  /** reads of the endpoint, and how many failed */
  readonly reads: number;
  readonly readErrors: number;
  /** settled markets (claimed or nothing to claim) no longer listed in `markets` (SETTLED_LISTED_MAX) */
  readonly earlierSettled: number;
  /** markets claimable past overdueAfterMs: not in `markets`, counted in `total` */
  readonly overdue: {
    /** how long a market stays claimable before it is overdue (overdueAfterMs) */
    readonly afterMs: number;
    readonly markets: number;
    /** Σ their claimable, 1e-6 USDC */
    readonly total: bigint;
    /** the largest (OVERDUE_LISTED_MAX), by amount */
    readonly largest: readonly OverdueMarket[];
  };
}

/** A market claimable past overdueAfterMs, as the last read showed it (the report names the largest). */
export interface OverdueMarket {
  readonly marketId: Bytes32;
  /** claimable now, 1e-6 USDC */
  readonly claimable: bigint;
  /** what one YES share pays, 1e-6 USDC; null when not known */
  readonly payoutYes: bigint | null;
  /** when the bot first saw it claimable (epoch ms; kept across restarts) */
  readonly claimableSince: number;
}

interface Pending {
  readonly payoutYes: bigint | null;
  tries: number;
}

const ONE = 1_000_000n;

/** A resolved market's row before any claimable amount is known: no shares, nothing to claim. */
function emptyClaim(id: string, state: ClaimState, pay: bigint | null): ClaimsMarket {
  return { marketId: id as Bytes32, state, payoutYes: pay, payoutNo: pay === null ? null : ONE - pay, yesShares: 0n, noShares: 0n, claimable: 0n };
}

/**
 * Settled markets (claimed, or nothing to claim) listed at most, the newest: a bot that runs for weeks
 * on a venue whose markets come and go resolves thousands, and each settled row is history only
 * (~300 bytes). Older ones leave the list and are counted (`earlierSettled`). Markets with something
 * claimable, or whose read is pending, are always listed.
 */
export const SETTLED_LISTED_MAX = 500;
/** resolutions remembered so each market is handled once (oldest dropped; a market's feed stops with its retirement) */
export const RESOLVED_SEEN_MAX = 1_000;
/** claimable this long after first seen so: overdue (the venue's auto-claim did not take it) */
export const OVERDUE_AFTER_MS = 86_400_000;
/** portfolio rows read at most at start-up to find claims made while the bot was down (20 pages of 500) */
export const HOLDINGS_READ_MAX = 10_000;
/** market reads at most at start-up for claims the venue shows in markets whose payout the books do not know */
export const PAYOUT_READS_MAX = 100;
/** the periodic holdings check's pause: one portfolio read per this while the books hold tokens in markets not followed */
export const HELD_CHECK_MS = 900_000;
/** markets said once each (at warn) when the periodic check sees them claimed without a payout to record */
const NO_PAYOUT_SAID_MAX = 1_000;
/** the longest re-read pause while something is claimable */
export const MAX_INTERVAL_MS = 900_000;
/** overdue markets named in the report (the largest): the only ones held in memory; the rest are counted and summed at every read */
export const OVERDUE_LISTED_MAX = 20;
/** markets remembered as having made a read now after a lower balance read (balanceBelowBooks) */
const NUDGED_MAX = 1_000;
/** overdue markets logged one line each per read; more in the same read are one summary line */
const OVERDUE_LOGGED_MAX = 20;
const usdcNumber = (v: bigint): number => Number(v) / 1e6;

/**
 * A market's portfolio rows show it claimed: tokens redeemed (or claimState `autoclaimed`) and none
 * held, claimable or being claimed. The tokens redeemed, or null when the rows do not show a claim.
 */
export function claimedAtVenue(rows: readonly Holding[]): { tokens: bigint; state: 'autoclaimed' | null } | null {
  let tokens = 0n;
  let auto = false;
  for (const r of rows) {
    if (r.balance > 0n || r.claimableAmount > 0n || r.claimState === 'claimable' || r.claimState === 'claiming') return null;
    tokens += r.tokensRedeemed;
    if (r.claimState === 'autoclaimed') auto = true;
  }
  if (tokens === 0n && !auto) return null;
  return { tokens, state: auto ? 'autoclaimed' : null };
}

export class ClaimsTracker {
  private readonly o: ClaimsTrackerOptions;
  private readonly log: Logger;
  private readonly owns: (marketId: Bytes32) => boolean;
  private readonly markets = new Map<string, ClaimsMarket>();
  private readonly pending = new Map<string, Pending>();
  private readonly resolvedSeen = new Set<string>();
  /** listed claimable markets: when each was first seen so (epoch ms) */
  private readonly claimableSince = new Map<string, number>();
  private readonly store: ClaimableStore;
  /** overdue markets at the last read: how many, their sum, the largest (OVERDUE_LISTED_MAX) */
  private overdueMarkets = 0;
  private overdueSum = 0n;
  private overdueLargest: readonly OverdueMarket[] = [];
  /** a read has been applied (the first one settles an earlier process's rows) */
  private applied = false;
  /** when the last read was applied (epoch ms) */
  private lastApplyAt = 0;
  /** markets whose lower balance read made a read now (balanceBelowBooks): once each until claimed */
  private readonly nudged = new Set<string>();
  /** reads in a row that changed nothing (the re-read pause doubles with each) */
  private quietReads = 0;
  private readonly perMarket: Gauge<'market'> | null;
  private readonly errorsCounter: Counter | null;
  private reads = 0;
  private readErrors = 0;
  private earlierSettled = 0;
  private failures = 0;
  private reading: Promise<void> | null = null;
  private again = false;
  private cancelTimer: () => void = () => undefined;
  private cancelHeldTimer: () => void = () => undefined;
  /** markets the periodic check said claimed without a payout (once each) */
  private readonly noPayoutSaid = new Set<string>();
  private stopped = false;

  constructor(o: ClaimsTrackerOptions) {
    this.o = o;
    this.log = o.logger.child({ component: 'claims' });
    this.owns = o.owns ?? (() => true);
    this.store = o.store ?? memoryClaimableStore();
    if (o.registry) {
      const r = [o.registry];
      this.perMarket = new Gauge({
        name: 'bookmaker_claimable_usdc',
        help: 'USDC claimable at the venue per resolved market of this instance (removed once claimed)',
        labelNames: ['market'],
        registers: r,
      });
      const self = this;
      new Gauge({
        name: 'bookmaker_claimable_total_usdc',
        help: 'USDC claimable at the venue over the resolved markets of this instance',
        registers: r,
        collect() {
          this.set(usdcNumber(self.total()));
        },
      });
      new Gauge({
        name: 'bookmaker_claimable_overdue_markets',
        help: 'Markets of this instance still claimable 24 h after first seen so (not claimed by the venue): in the total, without a per-market series',
        registers: r,
        collect() {
          this.set(self.overdueMarkets);
        },
      });
      new Gauge({
        name: 'bookmaker_claimable_overdue_usdc',
        help: 'USDC claimable in those overdue markets (part of bookmaker_claimable_total_usdc)',
        registers: r,
        collect() {
          this.set(usdcNumber(self.overdueSum));
        },
      });
      this.errorsCounter = new Counter({
        name: 'bookmaker_claimable_read_errors_total',
        help: 'Failed reads of GET /portfolio/:address/claimable (retried), and of the start-up GET /portfolio/:address and GET /markets/:id reads',
        registers: r,
      });
    } else {
      this.perMarket = null;
      this.errorsCounter = null;
    }
  }

  /**
   * The start-up read (positions held from earlier runs), then the claims made while the bot was down.
   * Resolves after them, never rejects.
   */
  async start(): Promise<void> {
    await this.readNow();
    await this.claimedWhileDown();
    this.scheduleHeldCheck();
  }

  /**
   * While running, the same check every `heldCheckMs` over the markets the books hold tokens in that this
   * run does not follow (`follows`: no market feed tells their resolution): one resolved and claimed while
   * the bot runs reaches the books within a period, not at the next start. Bounded: no read at all while
   * the books hold no tokens outside the followed markets (or only in markets the claimable list follows),
   * else one portfolio read a period (HOLDINGS_READ_MAX rows), and market reads only for markets it shows
   * claimed (PAYOUT_READS_MAX); one it shows claimable makes the claimable list read, which follows it then.
   */
  private scheduleHeldCheck(): void {
    if (this.stopped || !this.o.unclaimed || !this.o.readHoldings) return;
    this.cancelHeldTimer = this.o.clock.setTimeout(() => {
      void this.claimedWhileDown(undefined, true).finally(() => this.scheduleHeldCheck());
    }, this.o.heldCheckMs ?? HELD_CHECK_MS);
  }

  /**
   * The books' resolved-unclaimed markets (all of them at start-up; `only` one after a resolution the
   * venue never showed claimable) the venue's portfolio shows claimed reach the books (onClaimed). At
   * start-up the markets whose tokens the books hold without knowing their payout (`heldUnresolved`:
   * followed or not) are looked up in the same read; one the venue shows claimed reaches the books at
   * the payout its market read states (`readPayout`), and only then.
   */
  private async claimedWhileDown(only?: Bytes32, running = false, gone = false): Promise<void> {
    if (this.stopped || !this.o.unclaimed || !this.o.readHoldings) return;
    const ids = new Set<string>();
    /** of `ids`, the markets whose payout the books do not know */
    const unresolved = new Set<string>();
    // claimable at the venue: the claimable reads follow it until it is claimed
    const listed = this.store.all();
    // (the periodic check: a market the feed follows is the feed's; one already seen claimed is done)
    const skip = (id: Bytes32): boolean =>
      !this.owns(id) ||
      this.markets.get(id)?.state === 'claimable' ||
      listed.has(id) ||
      (running && (this.o.follows?.(id) === true || this.markets.get(id)?.state === 'claimed' || this.pending.has(id))) ||
      (gone && this.markets.get(id)?.state === 'claimed');
    for (const id of this.o.unclaimed()) if (!skip(id) && (only === undefined || id === only)) ids.add(id);
    // (one market gone from the store: its payout may be one the bot never saw, as at start-up)
    if ((only === undefined || gone) && this.o.readPayout)
      for (const id of this.o.heldUnresolved?.() ?? [])
        if ((only === undefined || id === only) && !ids.has(id) && !skip(id)) {
          ids.add(id);
          unresolved.add(id);
        }
    if (ids.size === 0) return;
    const rows = new Map<string, Holding[]>();
    let n = 0;
    this.reads++;
    try {
      for await (const h of this.o.readHoldings(only)) {
        if (this.stopped) return;
        if (ids.has(h.marketId)) rows.set(h.marketId, [...(rows.get(h.marketId) ?? []), h]);
        if (++n >= HOLDINGS_READ_MAX) {
          this.log.warn({ rows: n }, `the portfolio read stopped at ${n} rows: markets past them are not checked for a claim made while the bot was down`);
          break;
        }
      }
    } catch (e) {
      if (this.stopped) return;
      this.readErrors++;
      this.errorsCounter?.inc();
      this.log.warn(
        { err: (e as Error).message, markets: ids.size },
        `the portfolio could not be read: ${ids.size} market(s) the books hold tokens in are not checked ` +
          (running || gone ? 'for a claim (until the next check)' : 'for a claim made while the bot was down (until the next start)'),
      );
      return;
    }
    const notShown: string[] = [];
    /** shown claimed, payout unknown: not recorded (the market read states none, failed, or past PAYOUT_READS_MAX) */
    const noPayout: string[] = [];
    let payoutReads = 0;
    let recorded = 0;
    /** the periodic check: a market the venue shows claimable (resolved, not claimed yet) */
    let claimable = false;
    for (const id of ids) {
      const redeemed = claimedAtVenue(rows.get(id) ?? []);
      if (redeemed === null) {
        if (running || gone) {
          if ((rows.get(id) ?? []).some((r) => r.claimableAmount > 0n || r.claimState === 'claimable')) claimable = true;
        } else if (!unresolved.has(id)) notShown.push(id);
        continue;
      }
      let pay = this.pending.get(id)?.payoutYes ?? this.markets.get(id)?.payoutYes ?? null;
      if (unresolved.has(id) && pay === null) {
        if (payoutReads++ >= PAYOUT_READS_MAX) {
          noPayout.push(id);
          continue;
        }
        pay = await this.payoutRead(id as Bytes32);
        if (this.stopped) return;
        // the feed may have told it meanwhile
        pay ??= this.pending.get(id)?.payoutYes ?? null;
        if (pay === null) {
          noPayout.push(id);
          continue;
        }
      }
      this.seen(id);
      // a resolution the feed reported meanwhile is not read any further: it is claimed
      this.pending.delete(id);
      this.markets.set(id, emptyClaim(id, 'claimed', pay));
      this.log.info(
        { market: id, tokensRedeemed: micro(redeemed.tokens), claimState: redeemed.state, ...(unresolved.has(id) ? { payoutYes: micro(pay!) } : {}) },
        `market ${id}: ${unresolved.has(id) ? `resolved (a YES share pays ${micro(pay!)} USDC, the market read) and ` : ''}` +
          `claimed${
            running
              ? ' (a market this run does not follow: the periodic holdings check)'
              : gone
                ? " (its position left the bot's store: the venue's balance reads none held)"
                : only === undefined
                  ? ' while the bot was down'
                  : ''
          }` +
          ` (the venue shows ${micro(redeemed.tokens)} tokens redeemed` +
          `${redeemed.state ? `, ${redeemed.state}` : ''}); the books redeem them`,
      );
      this.o.onClaimed?.(id as Bytes32, pay);
      recorded++;
    }
    if (!running && only === undefined)
      this.log.info(
        { markets: ids.size, claimed: recorded },
        `start-up claim check: ${ids.size} market(s) the books hold tokens in looked up in the portfolio, ${recorded} claimed`,
      );
    if (notShown.length > 0)
      this.log.info(
        { markets: notShown.length, first: notShown.slice(0, 5) },
        `${notShown.length} resolved market(s) the books hold unclaimed: the venue shows none claimed; they stay held in the books`,
      );
    // the claimable list follows it from now on (its claim then reaches the books as it leaves the list)
    if (claimable) void this.readNow();
    if (running) {
      // said once per market (each period sees it again)
      for (let i = noPayout.length - 1; i >= 0; i--) if (this.noPayoutSaid.has(noPayout[i]!)) noPayout.splice(i, 1);
      for (const id of noPayout) this.noPayoutSaid.add(id);
      for (const id of this.noPayoutSaid) {
        if (this.noPayoutSaid.size <= NO_PAYOUT_SAID_MAX) break;
        this.noPayoutSaid.delete(id);
      }
    }
    if (noPayout.length > 0)
      this.log.warn(
        { markets: noPayout.length, first: noPayout.slice(0, 5) },
        `${noPayout.length} market(s) the venue shows claimed whose payout the books do not know and the market read did not state ` +
          '(no resolved outcome, a failed read, or more than ' +
          `${PAYOUT_READS_MAX} to read): no claim is recorded; they stay held in the books (books-drift) until ` +
          `${running || gone ? 'a later check or ' : ''}the next start`,
      );
    this.trimSettled();
  }

  /**
   * A market left the bot's store for good (rotation: released flat, or its kept position read zero or its
   * payout became known) while the account's books may still hold its tokens unclaimed. The venue may have
   * claimed them before the bot saw the market resolve: an auto-claim quicker than the market feed makes
   * the balance read show none held, the store's record of a retired market is swept, and with it the
   * feed that would have told the resolution. So the check start-up makes, for this market alone, now:
   * one portfolio read (GET /portfolio/:address?marketId=…) and, when it shows the market claimed and the
   * books do not know its payout, one market read; the claim then reaches the books at the payout the
   * venue states (onClaimed), within a read of the sweep, not at the periodic holdings check (15 min) or
   * the next start. One shown claimable makes the claimable list read. Nothing else is recorded: a market
   * the venue does not show claimed stays held (the periodic check looks again). No read when the books
   * hold none of its tokens unclaimed, or its claim is already seen.
   */
  positionGone(id: Bytes32): void {
    if (this.stopped || !this.owns(id)) return;
    void this.claimedWhileDown(id, false, true);
  }

  /** The market read's payout per YES share; null when it states none or fails (counted). */
  private async payoutRead(id: Bytes32): Promise<bigint | null> {
    this.reads++;
    try {
      const pay = await this.o.readPayout!(id);
      return pay !== null && pay >= 0n && pay <= ONE ? pay : null;
    } catch (e) {
      if (this.stopped) return null;
      this.readErrors++;
      this.errorsCounter?.inc();
      this.log.warn(
        { market: id, err: (e as Error).message },
        `market ${id}: its market read failed: a claim the venue shows is not recorded (until the next start)`,
      );
      return null;
    }
  }

  /**
   * The market feed saw this market resolve (`payoutYes` per YES share in 1e-6 USDC when known).
   * `held`: the bot's books show a position in it. Each market is handled once.
   */
  marketResolved(id: Bytes32, payoutYes: number | null, held: boolean): void {
    if (this.stopped || !this.owns(id) || this.resolvedSeen.has(id)) return;
    this.seen(id);
    const pay = payoutYes === null ? null : BigInt(payoutYes);
    if (this.markets.get(id)?.state === 'claimable' || this.store.get(id) !== null) return; // already read (e.g. at start-up)
    this.quietReads = 0;
    if (!held) {
      this.markets.set(id, emptyClaim(id, 'nothing-to-claim', pay));
      this.log.info(
        { market: id, payoutYes: pay === null ? null : micro(pay), claimableUsdc: micro(0n) },
        `market ${id} resolved${pay === null ? '' : ` (a YES share pays ${micro(pay)} USDC)`}: no position in the books, nothing to claim`,
      );
      this.trimSettled();
      // one read all the same (no retries): the venue's word wins over books that missed a fill
      void this.readNow();
      return;
    }
    this.pending.set(id, { payoutYes: pay, tries: 0 });
    this.markets.set(id, emptyClaim(id, 'pending', pay));
    this.log.info({ market: id, payoutYes: pay === null ? null : micro(pay) }, `market ${id} resolved with a position held: reading what is claimable`);
    void this.readNow();
  }

  /**
   * A balance read shows fewer of this market's tokens than the books hold. When the market is one the
   * tracker knows resolved (claimable, overdue, or read after its resolution), that is most likely a claim:
   * the claimable list is read now, once per market, rather than at the next re-read (60 s to 15 min),
   * so the books hear of the claim and the read stops differing from them (books-drift) within a read.
   * Anything else (an unresolved market: a fill the books have not had yet) is not the tracker's.
   */
  balanceBelowBooks(id: Bytes32): void {
    if (this.stopped || !this.owns(id) || this.nudged.has(id)) return;
    const m = this.markets.get(id);
    if (m?.state !== 'claimable' && !this.pending.has(id) && this.store.get(id) === null) return;
    this.nudged.add(id);
    // bounded: a market leaves it when its claim is seen; the oldest go past the bound
    if (this.nudged.size > NUDGED_MAX) this.nudged.delete(this.nudged.values().next().value!);
    this.log.info({ market: id }, `market ${id}: a balance read shows fewer tokens than the books hold: reading what is claimable now (a claim?)`);
    this.quietReads = 0;
    void this.readNow();
  }

  /** Σ claimable now, overdue markets included, 1e-6 USDC: the one figure of the gauge and the report. */
  total(): bigint {
    return this.listedTotal() + this.overdueSum;
  }

  private listedTotal(): bigint {
    let t = 0n;
    for (const m of this.markets.values()) t += m.claimable;
    return t;
  }

  report(): ClaimsSnapshot {
    const markets = [...this.markets.values()].sort((a, b) => (a.marketId < b.marketId ? -1 : a.marketId > b.marketId ? 1 : 0));
    return {
      markets,
      total: this.total(),
      reads: this.reads,
      readErrors: this.readErrors,
      earlierSettled: this.earlierSettled,
      overdue: { afterMs: this.o.overdueAfterMs ?? OVERDUE_AFTER_MS, markets: this.overdueMarkets, total: this.overdueSum, largest: this.overdueLargest },
    };
  }

  /** Markets held in memory now (listed, the largest overdue, and remembered as resolved) (tests). */
  get heldMarketState(): number {
    return this.markets.size + this.pending.size + this.resolvedSeen.size + this.overdueLargest.length;
  }

  private seen(id: string): void {
    if (this.resolvedSeen.has(id)) return;
    this.resolvedSeen.add(id);
    if (this.resolvedSeen.size > RESOLVED_SEEN_MAX) this.resolvedSeen.delete(this.resolvedSeen.values().next().value!);
  }

  /** The oldest settled markets beyond SETTLED_LISTED_MAX leave the list (counted). */
  private trimSettled(): void {
    let settled = 0;
    for (const m of this.markets.values()) if (m.state === 'claimed' || m.state === 'nothing-to-claim') settled++;
    if (settled <= SETTLED_LISTED_MAX) return;
    for (const [id, m] of this.markets) {
      if (settled <= SETTLED_LISTED_MAX) break;
      if (m.state !== 'claimed' && m.state !== 'nothing-to-claim') continue;
      this.markets.delete(id);
      this.earlierSettled++;
      settled--;
    }
  }

  stop(): void {
    this.stopped = true;
    this.cancelTimer();
    this.cancelHeldTimer();
  }

  /** One read at a time; a request during a read runs one more right after it. */
  private readNow(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    if (this.reading) {
      this.again = true;
      return this.reading;
    }
    this.cancelTimer();
    this.reading = (async () => {
      do {
        this.again = false;
        await this.readOnce();
      } while (this.again && !this.stopped);
    })().finally(() => {
      this.reading = null;
      this.scheduleNext();
    });
    return this.reading;
  }

  private async readOnce(): Promise<void> {
    let c: Claimable;
    this.reads++;
    try {
      c = await this.o.read();
    } catch (e) {
      if (this.stopped) return; // the client closed under a read at shutdown
      this.readErrors++;
      this.errorsCounter?.inc();
      const status = e instanceof VenueError ? e.status : null;
      if (status !== null && status >= 400 && status < 500 && status !== 408 && status !== 429) {
        // a refusal no retry passes (a key without read permission, a venue without the endpoint):
        // said once; the next resolution tries again
        this.failures = 0;
        this.pending.clear();
        this.log.error(
          { err: (e as Error).message, status },
          'the venue refuses the claimable read; claimable positions are not tracked until the next resolution',
        );
        return;
      }
      this.failures++;
      this.log.warn({ err: (e as Error).message, failures: this.failures }, 'claimable positions could not be read; retrying');
      return;
    }
    this.failures = 0;
    if (this.stopped) return;
    this.apply(summarizeClaimable(c, this.owns).markets);
  }

  private apply(now: readonly ClaimableMarketSummary[]): void {
    const at = this.o.clock.now();
    const after = this.o.overdueAfterMs ?? OVERDUE_AFTER_MS;
    const first = !this.applied;
    this.applied = true;
    /** Σ now of the markets already overdue at the last read: an amount the venue moved is a change */
    let stillOverdue = 0n;
    const overdueBefore = this.lastApplyAt - after;
    this.lastApplyAt = at;
    // every market listed claimable before, by this process or an earlier one (one read of the store)
    const stored = this.store.all();
    const seen = new Set<string>();
    const overdue: OverdueMarket[] = [];
    /** overdue markets this process had not said yet (an earlier process's, at its first read) */
    const newlyOverdue: OverdueMarket[] = [];
    let changed = false;
    let overdueGone = false;
    for (const m of now) {
      const id = m.marketId;
      const prev = this.markets.get(id);
      const rec = stored.get(id);
      const listed = prev?.state === 'claimable';
      if (rec !== undefined && !listed) {
        // overdue (or an earlier process's): listed with nothing claimable left is claimed (below, as gone)
        if (m.claimable === 0n) continue;
        if (at - rec.since >= after) {
          seen.add(id);
          const o: OverdueMarket = { marketId: id, claimable: m.claimable, payoutYes: m.payoutYes ?? rec.payoutYes, claimableSince: rec.since };
          overdue.push(o);
          if (first) newlyOverdue.push(o);
          else if (rec.since <= overdueBefore) stillOverdue += m.claimable;
          // a resolution the feed reported meanwhile: it is claimable, and overdue
          this.pending.delete(id);
          if (prev) this.markets.delete(id);
          this.seen(id);
          if (rec.payoutYes === null && o.payoutYes !== null) this.store.put(id, { since: rec.since, payoutYes: o.payoutYes });
          continue;
        }
      }
      seen.add(id);
      const pend = this.pending.get(id);
      this.pending.delete(id);
      this.seen(id);
      const payoutYes = m.payoutYes ?? pend?.payoutYes ?? prev?.payoutYes ?? rec?.payoutYes ?? null;
      const payoutNo = m.payoutNo ?? (payoutYes === null ? null : ONE - payoutYes);
      const next: ClaimsMarket = {
        marketId: id,
        state: m.claimable > 0n ? 'claimable' : listed ? 'claimed' : 'nothing-to-claim',
        payoutYes,
        payoutNo,
        yesShares: m.yesShares,
        noShares: m.noShares,
        claimable: m.claimable,
      };
      this.markets.set(id, next);
      this.setGauge(id, m.claimable);
      if (next.state === 'claimable') {
        if (!this.claimableSince.has(id)) {
          // first seen claimable now, or by an earlier process (its time kept: overdue 24 h after it)
          const since = rec === undefined ? at : Math.min(rec.since, at);
          this.claimableSince.set(id, since);
          if (rec === undefined || (rec.payoutYes === null && payoutYes !== null)) this.store.put(id, { since, payoutYes });
        }
      } else {
        this.claimableSince.delete(id);
        if (rec !== undefined) this.store.delete(id);
      }
      if (prev && prev.claimable === m.claimable && prev.state === next.state) continue;
      changed = true;
      if (next.state === 'claimed') {
        this.nudged.delete(id);
        // listed with nothing left to claim: claimed all the same
        this.log.info({ market: id, claimedUsdc: micro(prev!.claimable) }, `market ${id}: ${micro(prev!.claimable)} USDC no longer claimable (claimed)`);
        this.o.onClaimed?.(id as Bytes32, payoutYes);
        continue;
      }
      this.log.info(
        {
          market: id,
          payoutYes: payoutYes === null ? null : micro(payoutYes),
          payoutNo: payoutNo === null ? null : micro(payoutNo),
          yesShares: micro(m.yesShares),
          noShares: micro(m.noShares),
          claimableUsdc: micro(m.claimable),
        },
        `market ${id} resolved: ${micro(m.claimable)} USDC claimable` +
          (payoutYes === null ? '' : ` (a YES share pays ${micro(payoutYes)}, a NO share ${micro(payoutNo ?? ONE - payoutYes)} USDC)`),
      );
    }
    // claimable before, gone from the venue's list now: claimed (by the venue's auto-claim or a person)
    for (const [id, m] of this.markets) {
      if (seen.has(id) || m.state !== 'claimable') continue;
      changed = true;
      this.markets.set(id, { ...m, state: 'claimed', claimable: 0n });
      this.claimableSince.delete(id);
      this.nudged.delete(id);
      this.store.delete(id);
      this.setGauge(id, 0n);
      this.log.info({ market: id, claimedUsdc: micro(m.claimable) }, `market ${id}: ${micro(m.claimable)} USDC no longer claimable (claimed)`);
      this.o.onClaimed?.(id as Bytes32, m.payoutYes);
    }
    // overdue (no longer listed here), gone from the venue's list: claimed
    for (const [id, rec] of stored) {
      if (seen.has(id)) continue;
      this.store.delete(id);
      this.nudged.delete(id);
      const m = this.markets.get(id);
      if (m?.state === 'claimed' || m?.state === 'nothing-to-claim') continue; // said above
      // an earlier process's row the first read no longer lists: claimed while the bot was down, or no
      // longer claimable; the portfolio check records a claim only when the venue states one
      if (first) continue;
      changed = true;
      overdueGone = true;
      this.earlierSettled++;
      const hours = Math.round((at - rec.since) / 3_600_000);
      // its amount as the last read showed it, when it is one of the largest held (the others: the read's, gone)
      const last = this.overdueLargest.find((o) => o.marketId === id)?.claimable;
      this.log.info(
        { market: id, overdueHours: hours, ...(last === undefined ? {} : { claimedUsdc: micro(last) }) },
        `market ${id}: ${last === undefined ? '' : `${micro(last)} USDC `}no longer claimable (claimed, ${hours} h after first seen claimable)`,
      );
      this.o.onClaimed?.(id as Bytes32, rec.payoutYes);
    }
    // resolved with a position, not (yet) in the venue's list
    for (const [id, p] of this.pending) {
      p.tries++;
      if (p.tries < (this.o.maxTries ?? 6)) continue;
      this.pending.delete(id);
      const m = this.markets.get(id);
      if (m) this.markets.set(id, { ...m, state: 'nothing-to-claim' });
      this.log.warn(
        { market: id, reads: p.tries },
        `market ${id} resolved with a position in the books, but the venue shows nothing claimable for it (a losing side, or already claimed)`,
      );
      // claimed before any read showed it claimable (a quick auto-claim, or resolved and claimed while
      // the bot was down): the venue's portfolio says so
      void this.claimedWhileDown(id as Bytes32);
    }
    this.ageOverdue(at, overdue, newlyOverdue);
    this.sayOverdue(newlyOverdue, at);
    let sum = 0n;
    for (const o of overdue) sum += o.claimable;
    // (a market newly overdue is no change: the venue's list is the same)
    if (!first && !overdueGone && stillOverdue !== this.overdueSum) changed = true;
    this.overdueMarkets = overdue.length;
    this.overdueSum = sum;
    this.overdueLargest = overdue
      .sort((a, b) => (a.claimable > b.claimable ? -1 : a.claimable < b.claimable ? 1 : a.marketId < b.marketId ? -1 : 1))
      .slice(0, OVERDUE_LISTED_MAX);
    this.quietReads = changed ? 0 : this.quietReads + 1;
    this.trimSettled();
  }

  /**
   * Listed claimable markets first seen so overdueAfterMs ago or more leave the list and their series
   * (into `overdue`, and `newly` to be said).
   */
  private ageOverdue(at: number, overdue: OverdueMarket[], newly: OverdueMarket[]): void {
    const after = this.o.overdueAfterMs ?? OVERDUE_AFTER_MS;
    for (const [id, since] of this.claimableSince) {
      if (at - since < after) continue;
      this.claimableSince.delete(id);
      const m = this.markets.get(id);
      if (!m || m.state !== 'claimable') continue;
      this.markets.delete(id);
      this.setGauge(id, 0n);
      const o: OverdueMarket = { marketId: id as Bytes32, claimable: m.claimable, payoutYes: m.payoutYes, claimableSince: since };
      overdue.push(o);
      newly.push(o);
    }
  }

  /** Each newly overdue market at warn (OVERDUE_LOGGED_MAX a read, then one line for the rest). */
  private sayOverdue(newly: readonly OverdueMarket[], at: number): void {
    let n = 0;
    let more = 0;
    let moreTotal = 0n;
    for (const o of newly) {
      const hours = Math.round((at - o.claimableSince) / 3_600_000);
      if (n++ < OVERDUE_LOGGED_MAX)
        this.log.warn(
          { market: o.marketId, claimableUsdc: micro(o.claimable), overdueHours: hours },
          `market ${o.marketId}: ${micro(o.claimable)} USDC still claimable ${hours} h after first seen so, not claimed by the venue: claim it. ` +
            'It leaves the per-market list and bookmaker_claimable_usdc; the totals (bookmaker_claimable_total_usdc, _overdue_usdc, the run report) keep it',
        );
      else {
        more++;
        moreTotal += o.claimable;
      }
    }
    if (more > 0)
      this.log.warn(
        { markets: more, claimableUsdc: micro(moreTotal) },
        `${more} more market(s) with ${micro(moreTotal)} USDC claimable overdue: claim them ` +
          '(the run report names the largest; bookmaker_claimable_overdue_usdc)',
      );
  }

  private setGauge(id: string, claimable: bigint): void {
    if (!this.perMarket) return;
    if (claimable > 0n) this.perMarket.set({ market: id }, usdcNumber(claimable));
    else this.perMarket.remove({ market: id });
  }

  private scheduleNext(): void {
    if (this.stopped) return;
    const interval = this.o.intervalMs ?? 60_000;
    const retry = this.o.retryMs ?? 2_000;
    let ms: number | null = null;
    if (this.failures > 0) ms = Math.min(interval, retry * 2 ** Math.min(this.failures - 1, 20));
    else if (this.pending.size > 0) {
      const tries = Math.min(...[...this.pending.values()].map((p) => p.tries));
      ms = Math.min(interval, retry * 2 ** Math.min(tries, 20));
    } else if (this.total() > 0n) ms = Math.min(Math.max(interval, this.o.maxIntervalMs ?? MAX_INTERVAL_MS), interval * 2 ** Math.min(this.quietReads, 20));
    if (ms === null) return;
    this.cancelTimer = this.o.clock.setTimeout(() => void this.readNow(), ms);
  }
}
