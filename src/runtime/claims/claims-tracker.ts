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
 * the books show no position is logged once as such (and read once, in case the books missed a fill). After a resolution the venue may take a while to
 * show the position as claimable: it is read again after 2 s, doubling up to `intervalMs`, at most
 * `maxTries` times; while anything is claimable it is re-read every `intervalMs` (60 s), so a claim
 * made elsewhere (the venue's auto-claim, a person) shows. A failed read is logged, counted and
 * retried (a 4xx refusal other than 408/429 is said once and not retried until the next
 * resolution); it never throws into the bot.
 *
 * Metrics (registered on `registry`):
 *   bookmaker_claimable_usdc{market}        USDC claimable per market (label removed once claimed)
 *   bookmaker_claimable_total_usdc        Σ of the above
 *   bookmaker_claimable_read_errors_total   failed reads of the claimable endpoint
 */
import { Counter, Gauge, type Registry } from 'prom-client';
import type { Clock } from '../../core/clock.ts';
import type { Logger } from '../../core/logger.ts';
import { VenueError } from '../../exchange/client/errors.ts';
import type { Claimable } from '../../exchange/client/portfolio.ts';
import type { Bytes32 } from '../../model/order.ts';
import { micro } from '../../model/units.ts';
import { summarizeClaimable, type ClaimableMarketSummary } from './claimable-summary.ts';

export interface ClaimsTrackerOptions {
  /** one read of the venue's claimable positions for the bot's wallet */
  readonly read: () => Promise<Claimable>;
  /** the markets this instance answers for (its shard); default every market */
  readonly owns?: (marketId: Bytes32) => boolean;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly registry?: Registry;
  /** re-read period while something is claimable, and the longest retry pause (default 60 000 ms) */
  readonly intervalMs?: number;
  /** first retry pause after a resolution or a failed read (default 2 000 ms, doubling) */
  readonly retryMs?: number;
  /** reads after a resolution before concluding the venue shows nothing claimable (default 6) */
  readonly maxTries?: number;
  /** a market's claimable amount was claimed (it left the venue's list): the account's books redeem its tokens */
  readonly onClaimed?: (marketId: Bytes32, payoutYes: bigint | null) => void;
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
const usdcNumber = (v: bigint): number => Number(v) / 1e6;

export class ClaimsTracker {
  private readonly o: ClaimsTrackerOptions;
  private readonly log: Logger;
  private readonly owns: (marketId: Bytes32) => boolean;
  private readonly markets = new Map<string, ClaimsMarket>();
  private readonly pending = new Map<string, Pending>();
  private readonly resolvedSeen = new Set<string>();
  private readonly perMarket: Gauge<'market'> | null;
  private readonly errorsCounter: Counter | null;
  private reads = 0;
  private readErrors = 0;
  private earlierSettled = 0;
  private failures = 0;
  private reading: Promise<void> | null = null;
  private again = false;
  private cancelTimer: () => void = () => undefined;
  private stopped = false;

  constructor(o: ClaimsTrackerOptions) {
    this.o = o;
    this.log = o.logger.child({ component: 'claims' });
    this.owns = o.owns ?? (() => true);
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
      this.errorsCounter = new Counter({
        name: 'bookmaker_claimable_read_errors_total',
        help: 'Failed reads of GET /portfolio/:address/claimable (retried)',
        registers: r,
      });
    } else {
      this.perMarket = null;
      this.errorsCounter = null;
    }
  }

  /** The start-up read (positions held from earlier runs). Resolves after it, never rejects. */
  start(): Promise<void> {
    return this.readNow();
  }

  /**
   * The market feed saw this market resolve (`payoutYes` per YES share in 1e-6 USDC when known).
   * `held`: the bot's books show a position in it. Each market is handled once.
   */
  marketResolved(id: Bytes32, payoutYes: number | null, held: boolean): void {
    if (this.stopped || !this.owns(id) || this.resolvedSeen.has(id)) return;
    this.seen(id);
    const pay = payoutYes === null ? null : BigInt(payoutYes);
    if (this.markets.get(id)?.state === 'claimable') return; // already read (e.g. at start-up)
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

  /** Σ claimable now, 1e-6 USDC. */
  total(): bigint {
    let t = 0n;
    for (const m of this.markets.values()) t += m.claimable;
    return t;
  }

  report(): ClaimsSnapshot {
    const markets = [...this.markets.values()].sort((a, b) => (a.marketId < b.marketId ? -1 : a.marketId > b.marketId ? 1 : 0));
    return { markets, total: this.total(), reads: this.reads, readErrors: this.readErrors, earlierSettled: this.earlierSettled };
  }

  /** Markets held now (listed, and remembered as resolved): bounded (tests). */
  get heldMarketState(): number {
    return this.markets.size + this.pending.size + this.resolvedSeen.size;
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
    const seen = new Set<string>();
    for (const m of now) {
      const id = m.marketId;
      seen.add(id);
      const prev = this.markets.get(id);
      const pend = this.pending.get(id);
      this.pending.delete(id);
      this.seen(id);
      const payoutYes = m.payoutYes ?? pend?.payoutYes ?? prev?.payoutYes ?? null;
      const payoutNo = m.payoutNo ?? (payoutYes === null ? null : ONE - payoutYes);
      const next: ClaimsMarket = {
        marketId: id,
        state: m.claimable > 0n ? 'claimable' : prev?.state === 'claimable' ? 'claimed' : 'nothing-to-claim',
        payoutYes,
        payoutNo,
        yesShares: m.yesShares,
        noShares: m.noShares,
        claimable: m.claimable,
      };
      this.markets.set(id, next);
      this.setGauge(id, m.claimable);
      if (prev && prev.claimable === m.claimable && prev.state === next.state) continue;
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
      this.markets.set(id, { ...m, state: 'claimed', claimable: 0n });
      this.setGauge(id, 0n);
      this.log.info({ market: id, claimedUsdc: micro(m.claimable) }, `market ${id}: ${micro(m.claimable)} USDC no longer claimable (claimed)`);
      this.o.onClaimed?.(id as Bytes32, m.payoutYes);
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
    }
    this.trimSettled();
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
    } else if (this.total() > 0n) ms = interval;
    if (ms === null) return;
    this.cancelTimer = this.o.clock.setTimeout(() => void this.readNow(), ms);
  }
}
