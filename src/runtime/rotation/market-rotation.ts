/**
 * Market rotation: the set of quoted markets changes while the bot runs.
 *
 *   const rot = new MarketRotation({ ports, clock, refreshMs, logger, metrics });
 *   rot.begin(startupMarkets)        // the markets the bot started with (counted as `startup`)
 *   rot.schedule()                   // re-select every refreshMs (0 = never)
 *   rot.retire(id, 'resolved')       // a venue fact between refreshes (market feed: resolved, closed, paused)
 *   await rot.apply(markets, 'reload') // a config reload goes through the same start/retire path
 *   rot.stop()
 *
 * Every `refreshMs` the selectors run again (ports.select, one refresh at a time). A market that
 * entered is **started**: ports.start subscribes its feeds, adds it to the health model and the
 * order manager's own set, reconciles that market alone and then quotes it (kernel slot) — no other
 * market waits on it. A market that left is **retired**: ports.pull pulls its quotes (the kernel marks
 * it retiring), ports.confirmCancels reads the venue's open orders in that market and cancels what
 * is left, until the venue reports none (bounded attempts with a growing pause); then ports.release
 * closes its feeds and drops its state. A market whose cancels cannot be confirmed stays retiring,
 * is counted and logged, and is tried again every `retryMs`: it is never released with orders left.
 *
 * A failed refresh (venue down) keeps the current set, is logged and counted; it never retires
 * anything. A market is never started twice: one re-selected while it is retiring waits until its
 * retirement is done and starts at the next refresh after that (the retirement is not cancelled
 * midway, so there is one owner of its orders at any time).
 */
import type { Clock } from '../../core/clock.ts';
import { silentLogger, type Logger } from '../../core/logger.ts';
import type { Bytes32 } from '../../model/order.ts';
import type { KernelMarket } from '../../kernel/quoting-kernel.ts';

export type StartReason = 'startup' | 'selected' | 'reload';
export type RetireReason = 'resolved' | 'closed' | 'paused' | 'filtered-out' | 'ranked-out' | 'shard' | 'reload';
export const START_REASONS: readonly StartReason[] = ['startup', 'selected', 'reload'];
export const RETIRE_REASONS: readonly RetireReason[] = ['resolved', 'closed', 'paused', 'filtered-out', 'ranked-out', 'shard', 'reload'];

export interface RotationPorts {
  /** run the selectors now; `previous` = the lower-case ids quoted now (hysteresis) */
  select(previous: ReadonlySet<string>): Promise<KernelMarket[]>;
  /**
   * start one market: feeds, health, own set, reconcile of that market, then its kernel slot.
   * Resolves false (nothing wired) when the market cannot trade now (not active at the venue).
   */
  start(m: KernelMarket, reason: StartReason): Promise<void | false>;
  /** a kept market's strategy, parameters or limits changed (reload) */
  update?(m: KernelMarket): void;
  /** pull the market's quotes now (the kernel marks it retiring) */
  pull(marketId: Bytes32): void;
  /**
   * Wait for the market's pending order work, read the venue's open orders of ours in it and cancel
   * what is left. Resolves with the number still open or pending (0 = the venue confirmed none);
   * throws when the venue could not be read.
   */
  confirmCancels(marketId: Bytes32): Promise<number>;
  /** feeds unsubscribed, state released (store, health, metrics series, kernel slot, maps) */
  release(marketId: Bytes32, reason: RetireReason): void;
  /**
   * why a market left the selection (venue status, shard, rank); may ask the venue. A failure
   * counts as `filtered-out`.
   */
  leaveReason?(marketId: Bytes32): RetireReason | Promise<RetireReason>;
}

export interface RotationMetricsSink {
  started(reason: StartReason): void;
  retired(reason: RetireReason, seconds: number): void;
  refreshFailed(): void;
  startFailed(): void;
  /** a retirement whose cancels could not be confirmed in one round (it is retried) */
  retireStuck(): void;
}

export interface MarketRotationOptions {
  readonly ports: RotationPorts;
  readonly clock: Clock;
  /** re-select this often, ms (0 = only at start-up and on reload) */
  readonly refreshMs: number;
  readonly logger?: Logger;
  readonly metrics?: RotationMetricsSink;
  /** venue reads per retirement round before it counts as stuck (default 5) */
  readonly confirmAttempts?: number;
  /** pause after a read that still showed orders, times the attempt number, ms (default 250) */
  readonly confirmDelayMs?: number;
  /** a stuck retirement is tried again after this long, ms (default 10 000) */
  readonly retryMs?: number;
  /** the window the summary counts events over, ms (default 10 minutes) */
  readonly windowMs?: number;
}

/** One start or retirement, for the summary and the report. */
export interface RotationEvent {
  readonly at: number;
  readonly kind: 'started' | 'retired';
  readonly marketId: Bytes32;
  readonly reason: StartReason | RetireReason;
  /** start: selected → quoting (feeds, first book and balance read, reconcile, first tick), ms; retirement: pull → released, ms */
  readonly ms?: number;
}

export interface RotationSummary {
  readonly active: number;
  readonly retiring: number;
  /** retirements whose cancels are not confirmed yet after at least one full round */
  readonly stuck: number;
  readonly windowMs: number;
  readonly startedInWindow: number;
  readonly retiredInWindow: number;
  readonly retiredByReason: Partial<Record<RetireReason, number>>;
  /** totals since start */
  readonly started: number;
  readonly retired: number;
  readonly refreshes: number;
  readonly refreshFailures: number;
  readonly lastRefreshAt: number | null;
  readonly lastRefreshError: string | null;
}

interface Retirement {
  readonly marketId: Bytes32;
  readonly reason: RetireReason;
  readonly since: number;
  attempts: number;
  stuck: boolean;
  /** counted as a retirement (false: the clean-up of a start that failed) */
  readonly counted: boolean;
  running: Promise<void> | null;
  cancelRetry: (() => void) | null;
}

const EVENT_LOG_MAX = 10_000;
/**
 * markets retired as resolved or closed, remembered so a selector by id does not start them again
 * (beyond it, such a market costs one status read per refresh: start() only starts an active one).
 * ~110 bytes each: 2,000 is ~220 KB, reached after ~17 days at a market every 5 minutes.
 */
export const ENDED_MAX = 2_000;

export class MarketRotation {
  private readonly o: MarketRotationOptions;
  private readonly log: Logger;
  /** started (or starting) and not retiring, by lower-case id */
  private readonly active = new Map<string, KernelMarket>();
  private readonly starting = new Map<string, Promise<void>>();
  private readonly retirements = new Map<string, Retirement>();
  private readonly events: RotationEvent[] = [];
  /** lower-case ids retired as resolved or closed (they never trade again), oldest first, bounded */
  private readonly ended = new Set<string>();
  private refreshing: Promise<boolean> | null = null;
  private cancelTimer: (() => void) | null = null;
  private stopped = false;
  private startedTotal = 0;
  private retiredTotal = 0;
  private refreshes = 0;
  private refreshFailures = 0;
  private lastRefreshAt: number | null = null;
  private lastRefreshError: string | null = null;
  private readonly retiredTotals = new Map<RetireReason, number>();
  private readonly startedTotals = new Map<StartReason, number>();

  constructor(o: MarketRotationOptions) {
    this.o = o;
    this.log = (o.logger ?? silentLogger).child({ component: 'rotation' });
  }

  /** The markets the bot started with (already wired by the start-up path): counted as `startup`. */
  begin(markets: readonly KernelMarket[]): void {
    for (const m of markets) {
      const k = m.marketId;
      if (this.active.has(k)) continue;
      this.active.set(k, m);
      this.noteStarted(m.marketId, 'startup');
    }
  }

  /** Re-select every refreshMs from now (no-op when refreshMs is 0). */
  schedule(): void {
    if (this.o.refreshMs <= 0 || this.stopped) return;
    const loop = (): void => {
      this.cancelTimer = null;
      if (this.stopped) return;
      void this.refresh().finally(() => {
        if (!this.stopped) this.cancelTimer = this.o.clock.setTimeout(loop, this.o.refreshMs);
      });
    };
    this.cancelTimer = this.o.clock.setTimeout(loop, this.o.refreshMs);
  }

  /**
   * Run the selectors now and apply the result; one refresh at a time (a call while one runs gets
   * that one's answer). False when the selection failed (the current set stays).
   */
  refresh(): Promise<boolean> {
    this.refreshing ??= this.doRefresh().finally(() => {
      this.refreshing = null;
    });
    return this.refreshing;
  }

  private async doRefresh(): Promise<boolean> {
    if (this.stopped) return false;
    let next: KernelMarket[];
    try {
      next = await this.o.ports.select(new Set(this.active.keys()));
    } catch (e) {
      this.refreshFailures++;
      this.lastRefreshError = (e as Error).message;
      this.o.metrics?.refreshFailed();
      this.log.warn({ err: (e as Error).message, active: this.active.size }, 'market refresh failed; the current markets stay');
      // stuck retirements are still retried
      this.retryStuck();
      return false;
    }
    if (this.stopped) return false;
    this.refreshes++;
    this.lastRefreshAt = this.o.clock.now();
    this.lastRefreshError = null;
    await this.apply(next, 'selected');
    return true;
  }

  /**
   * Make `next` the quoted set: start what entered (reason `startReason`), retire what left (its
   * reason from ports.leaveReason, or `reload` on a reload), hand changed settings to ports.update.
   * Resolves once the starts are done (retirements go on in the background).
   */
  async apply(
    next: readonly KernelMarket[],
    startReason: StartReason,
  ): Promise<{ started: Bytes32[]; retired: Bytes32[]; waiting: Bytes32[]; changed: Bytes32[] }> {
    const started: Bytes32[] = [];
    const retired: Bytes32[] = [];
    const waiting: Bytes32[] = [];
    const changed: Bytes32[] = [];
    if (this.stopped) return { started, retired, waiting, changed };
    const keep = new Set<string>();
    const starts: Promise<void>[] = [];
    for (const m of next) {
      const k = m.marketId;
      if (keep.has(k)) continue;
      keep.add(k);
      const cur = this.active.get(k);
      if (cur) {
        if (this.o.ports.update && !sameSettings(cur, m)) {
          this.active.set(k, m);
          this.o.ports.update(m);
          changed.push(m.marketId);
        }
        continue;
      }
      if (this.ended.has(k)) continue; // resolved or closed: an id selector still lists it
      if (this.retirements.has(k)) {
        // never two owners of one market's orders: started again once its retirement is done
        waiting.push(m.marketId);
        continue;
      }
      started.push(m.marketId);
      starts.push(this.startOne(m, startReason));
    }
    const leaving = [...this.active].filter(([k]) => !keep.has(k)).map(([, m]) => m);
    const reasons = await Promise.all(leaving.map((m) => (startReason === 'reload' ? 'reload' : this.reasonOf(m.marketId))));
    for (const [i, m] of leaving.entries()) if (this.retire(m.marketId, reasons[i]!)) retired.push(m.marketId);
    if (waiting.length > 0) this.log.info({ markets: waiting }, 'selected again while retiring: starts after its retirement');
    this.retryStuck();
    await Promise.all(starts);
    return { started, retired, waiting, changed };
  }

  private async reasonOf(marketId: Bytes32): Promise<RetireReason> {
    try {
      return (await this.o.ports.leaveReason?.(marketId)) ?? 'filtered-out';
    } catch {
      return 'filtered-out';
    }
  }

  private startOne(m: KernelMarket, reason: StartReason): Promise<void> {
    const k = m.marketId;
    this.active.set(k, m);
    const t0 = this.o.clock.now();
    const p = (async () => {
      try {
        const r = await this.o.ports.start(m, reason);
        if (r === false) {
          // not tradeable now (paused, closed): nothing was wired; a later refresh may start it
          if (this.active.get(k) === m) this.active.delete(k);
          this.log.info({ marketId: m.marketId }, 'selected market not active at the venue: not started');
          return;
        }
        this.noteStarted(m.marketId, reason, this.o.clock.now() - t0);
      } catch (e) {
        // nothing of it quotes: the next refresh tries again
        this.o.metrics?.startFailed();
        this.log.error({ marketId: m.marketId, err: (e as Error).message }, 'market start failed; retried at the next refresh');
        if (this.active.get(k) === m && !this.retirements.has(k)) {
          this.active.delete(k);
          // whatever the start had wired is released the normal way (its orders confirmed first)
          this.beginRetirement(m.marketId, 'filtered-out', false);
        }
      } finally {
        this.starting.delete(k);
      }
    })();
    this.starting.set(k, p);
    return p;
  }

  private noteStarted(marketId: Bytes32, reason: StartReason, ms?: number): void {
    this.startedTotal++;
    this.startedTotals.set(reason, (this.startedTotals.get(reason) ?? 0) + 1);
    this.o.metrics?.started(reason);
    this.push({ at: this.o.clock.now(), kind: 'started', marketId, reason, ...(ms !== undefined ? { ms } : {}) });
    this.log.info({ marketId, reason, active: this.active.size, ...(ms !== undefined ? { seconds: ms / 1000 } : {}) }, 'market started');
  }

  /**
   * Retire a quoted market (a venue fact between refreshes, or a market that left the selection).
   * False when it is not quoted or already retiring.
   */
  retire(marketId: Bytes32, reason: RetireReason): boolean {
    const k = marketId;
    if (this.stopped || !this.active.has(k) || this.retirements.has(k)) return false;
    this.active.delete(k);
    this.beginRetirement(marketId, reason, true);
    return true;
  }

  private beginRetirement(marketId: Bytes32, reason: RetireReason, counted: boolean): void {
    const k = marketId;
    const r: Retirement = { marketId, reason, since: this.o.clock.now(), attempts: 0, stuck: false, counted, running: null, cancelRetry: null };
    this.retirements.set(k, r);
    this.log.info({ marketId, reason }, 'market retiring: pulling its quotes');
    const started = this.starting.get(k);
    r.running = (async () => {
      // a market still starting finishes its start first (its reconcile, its first tick), then goes
      if (started) await started.catch(() => undefined);
      if (this.stopped) return;
      this.o.ports.pull(marketId);
      await this.confirmRound(r);
    })().finally(() => {
      r.running = null;
    });
  }

  /** One round of venue reads; releases on a confirmation, else marks it stuck and schedules another. */
  private async confirmRound(r: Retirement): Promise<void> {
    const attempts = this.o.confirmAttempts ?? 5;
    const delay = this.o.confirmDelayMs ?? 250;
    let left = -1;
    let lastErr: string | null = null;
    for (let i = 1; i <= attempts && !this.stopped; i++) {
      r.attempts++;
      try {
        left = await this.o.ports.confirmCancels(r.marketId);
        lastErr = null;
      } catch (e) {
        left = -1;
        lastErr = (e as Error).message;
      }
      if (this.stopped) return;
      if (left === 0) {
        this.finish(r);
        return;
      }
      if (i < attempts) await this.sleep(delay * i);
    }
    if (this.stopped) return;
    r.stuck = true;
    this.o.metrics?.retireStuck();
    this.log.error(
      {
        marketId: r.marketId,
        reason: r.reason,
        attempts: r.attempts,
        left: left < 0 ? 'unknown' : left,
        err: lastErr,
        retryInSeconds: (this.o.retryMs ?? 10_000) / 1000,
      },
      'market retirement: cancels not confirmed by the venue; it stays retiring and is tried again',
    );
    r.cancelRetry = this.o.clock.setTimeout(() => {
      r.cancelRetry = null;
      this.again(r);
    }, this.o.retryMs ?? 10_000);
  }

  private again(r: Retirement): void {
    if (this.stopped || r.running || this.retirements.get(r.marketId) !== r) return;
    r.cancelRetry?.();
    r.cancelRetry = null;
    r.running = (async () => {
      // the kernel may have ticked it meanwhile; pulling again is harmless and covers a stopped kernel
      this.o.ports.pull(r.marketId);
      await this.confirmRound(r);
    })().finally(() => {
      r.running = null;
    });
  }

  /** Stuck retirements try again now (each refresh does this; the timer does it in between). */
  private retryStuck(): void {
    for (const r of this.retirements.values()) if (r.stuck && !r.running) this.again(r);
  }

  private finish(r: Retirement): void {
    const k = r.marketId;
    try {
      this.o.ports.release(r.marketId, r.reason);
    } catch (e) {
      // a release that throws is our bug; the orders are confirmed gone, so the market still leaves
      this.log.error({ marketId: r.marketId, err: (e as Error).message }, 'market release failed');
    }
    this.retirements.delete(k);
    if (r.reason === 'resolved' || r.reason === 'closed') {
      this.ended.add(k);
      if (this.ended.size > ENDED_MAX) this.ended.delete(this.ended.values().next().value!);
    }
    const ms = this.o.clock.now() - r.since;
    if (!r.counted) return;
    this.retiredTotal++;
    this.retiredTotals.set(r.reason, (this.retiredTotals.get(r.reason) ?? 0) + 1);
    this.o.metrics?.retired(r.reason, ms / 1000);
    this.push({ at: this.o.clock.now(), kind: 'retired', marketId: r.marketId, reason: r.reason, ms });
    this.log.info(
      { marketId: r.marketId, reason: r.reason, seconds: ms / 1000, attempts: r.attempts, active: this.active.size },
      'market retired: no order left at the venue, state released',
    );
  }

  private push(e: RotationEvent): void {
    this.events.push(e);
    const windowMs = this.o.windowMs ?? 600_000;
    // bounded by age and count: the summary reads the window, the report the totals
    while (this.events.length > 0 && (this.events.length > EVENT_LOG_MAX || this.events[0]!.at < e.at - windowMs)) this.events.shift();
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      this.o.clock.setTimeout(resolve, ms);
    });
  }

  /** re-selection is on (refreshMs > 0) */
  get refreshEnabled(): boolean {
    return this.o.refreshMs > 0;
  }

  /** Lower-case ids of the markets quoted now (started or starting, not retiring). */
  activeIds(): Bytes32[] {
    return [...this.active.values()].map((m) => m.marketId);
  }
  /** Markets retiring now (quotes pulled, cancels not yet confirmed). */
  retiringIds(): Bytes32[] {
    return [...this.retirements.values()].map((r) => r.marketId);
  }
  isActive(marketId: Bytes32): boolean {
    return this.active.has(marketId);
  }
  isRetiring(marketId: Bytes32): boolean {
    return this.retirements.has(marketId);
  }
  /** Retirements in progress and their age, for the report and /readyz details. */
  retiringDetails(now = this.o.clock.now()): { marketId: Bytes32; reason: RetireReason; seconds: number; attempts: number; stuck: boolean }[] {
    return [...this.retirements.values()].map((r) => ({
      marketId: r.marketId,
      reason: r.reason,
      seconds: (now - r.since) / 1000,
      attempts: r.attempts,
      stuck: r.stuck,
    }));
  }
  /** The recent starts and retirements (inside the summary window), oldest first. */
  recent(): readonly RotationEvent[] {
    return this.events;
  }
  totals(): { started: Partial<Record<StartReason, number>>; retired: Partial<Record<RetireReason, number>> } {
    return { started: Object.fromEntries(this.startedTotals), retired: Object.fromEntries(this.retiredTotals) };
  }

  summary(now = this.o.clock.now()): RotationSummary {
    const windowMs = this.o.windowMs ?? 600_000;
    let startedInWindow = 0;
    let retiredInWindow = 0;
    const retiredByReason: Partial<Record<RetireReason, number>> = {};
    for (const e of this.events) {
      if (e.at < now - windowMs) continue;
      if (e.kind === 'started') startedInWindow++;
      else {
        retiredInWindow++;
        const r = e.reason as RetireReason;
        retiredByReason[r] = (retiredByReason[r] ?? 0) + 1;
      }
    }
    let stuck = 0;
    for (const r of this.retirements.values()) if (r.stuck) stuck++;
    return {
      active: this.active.size,
      retiring: this.retirements.size,
      stuck,
      windowMs,
      startedInWindow,
      retiredInWindow,
      retiredByReason,
      started: this.startedTotal,
      retired: this.retiredTotal,
      refreshes: this.refreshes,
      refreshFailures: this.refreshFailures,
      lastRefreshAt: this.lastRefreshAt,
      lastRefreshError: this.lastRefreshError,
    };
  }

  /** Per-market entries held now (tests: nothing left behind after retirements). */
  get heldMarketState(): number {
    return this.active.size + this.starting.size + this.retirements.size;
  }

  /** Ended (resolved, closed) market ids remembered: at most ENDED_MAX (tests). */
  get endedRemembered(): number {
    return this.ended.size;
  }

  /** Wait for the retirements in progress (tests; shutdown does not: its cancel-all covers them). */
  async settled(): Promise<void> {
    while ([...this.retirements.values()].some((r) => r.running) || this.starting.size > 0 || this.refreshing) {
      await Promise.allSettled([...[...this.retirements.values()].map((r) => r.running), ...this.starting.values(), this.refreshing]);
    }
  }

  /** No more refreshes, starts or retirement rounds (the bot's shutdown cancels everything). */
  stop(): void {
    this.stopped = true;
    this.cancelTimer?.();
    this.cancelTimer = null;
    for (const r of this.retirements.values()) {
      r.cancelRetry?.();
      r.cancelRetry = null;
    }
  }
}

function sameSettings(a: KernelMarket, b: KernelMarket): boolean {
  return (
    a.strategy === b.strategy &&
    JSON.stringify(a.params, bigintSafe) === JSON.stringify(b.params, bigintSafe) &&
    JSON.stringify(a.risk, bigintSafe) === JSON.stringify(b.risk, bigintSafe)
  );
}

function bigintSafe(_k: string, v: unknown): unknown {
  return typeof v === 'bigint' ? v.toString() : v;
}
