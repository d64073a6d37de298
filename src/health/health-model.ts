/**
 * The health model (docs/architecture.md#invariants "nothing fails silently"): per configured market either
 * `quoting` or not quoting with a reason, plus the process state. The one source of truth that
 * /readyz, the metrics, the logs (state transitions, throttled) and the terminal summary read.
 *
 *   const health = new HealthModel({ markets, state, lastTick, clock, graceMs, logger });
 *   health.setProcess('running')                 // 'starting' → 'running' → 'stopping' → 'stopped'
 *   health.halt('kill-switch' | 'halted', why)   // the process stopped quoting by itself
 *   health.refused(marketId, now) / accepted(…)  // create outcomes (orders-refused)
 *   health.slowBecause(marketId, cause, why)     // why its last slow strategy call was slow (the stall
 *                                                // judge's cause: cpu-starved names the host, not the strategy)
 *   health.evaluate()                            // recompute now: transitions, durations (1 Hz timer)
 *   health.evaluateOncePerTurn()                 // the same, once per synchronous turn (a scrape's
 *                                                // gauges and /readyz share one evaluation)
 *   health.markets()  → MarketHealth[]           // the states as of the last evaluate
 *   health.readiness() → { ready, reasons, … }   // /readyz
 *   health.report()   → time in each state per market (end-of-run report)
 *   health.booksDrift() → the account-level state `books-drift` (a balance read has differed from the
 *                         books for longer than the grace), or null
 *
 * Nothing here runs per tick: the kernel keeps its last tick per market and this reads it at
 * evaluate time, so the hot path pays nothing; transitions are found (and logged) on change only.
 *
 * A market "should quote" unless its state is a deliberate pause (halted by config, reduce-only with
 * nothing to reduce, a paused or resolved market, a strategy that chose to quote nothing). While it
 * should quote and has no live quote (an order the venue acknowledged), its not-quoting clock runs;
 * past `graceMs` /readyz answers 503 naming it.
 */
import type { Clock } from '../core/clock.ts';
import { silentLogger, type Logger } from '../core/logger.ts';
import { isOrphanSlot } from '../orders/orphan-slot.ts';
import type { Bytes32 } from '../model/order.ts';
import type { RiskReason } from '../risk/types.ts';
import type { MarketState as StoreMarket, OwnOrder, StoreState } from '../state/market-state.ts';
import { PersistentMap } from '../state/persistent-map.ts';
import type { KernelTick } from '../kernel/quoting-kernel.ts';
import { ThrottledLog } from '../core/throttled-log.ts';
import type { Drift } from '../account/account.ts';

/** A settled promise: evaluateOncePerTurn ends its turn in a reaction on it. */
const RESOLVED: Promise<void> = Promise.resolve();

/** Metric label values (kebab-case; `bookmaker_market_state{state}`): never rename, only add. */
export const HEALTH_STATES = [
  'quoting',
  'starting',
  'halted',
  'reduce-only',
  'kill-switch',
  'stale-book',
  'stream-silent',
  'strategy-error',
  'strategy-slow',
  'orders-refused',
  'rate-budget',
  'market-paused',
  'market-resolved',
  'risk-limit',
  'strategy-idle',
  'ledger-unwritable',
  'cpu-starved',
] as const;
export type HealthState = (typeof HEALTH_STATES)[number];

/** Not quoting on purpose: these never make /readyz fail. */
export const DELIBERATE_STATES: ReadonlySet<HealthState> = new Set<HealthState>(['halted', 'reduce-only', 'market-paused', 'market-resolved', 'strategy-idle']);

export type ProcessState = 'starting' | 'running' | 'stopping' | 'stopped' | 'halted';

export interface MarketHealth {
  readonly marketId: Bytes32;
  /** slug when known, else the id */
  readonly label: string;
  readonly state: HealthState;
  /** why, in words (the guard's detail, the strategy's error, the venue's refusal) */
  readonly detail: string;
  /** when the market entered this state (clock ms) */
  readonly since: number;
  /** ms the market has been without a live quote while it should quote (0 when quoting or paused on purpose) */
  readonly notQuotingMs: number;
  readonly shouldQuote: boolean;
  /** orders the venue acknowledged that are resting now */
  readonly liveOrders: number;
}

export interface Readiness {
  readonly ready: boolean;
  readonly process: ProcessState;
  /** one line per reason /readyz fails (empty when ready) */
  readonly reasons: string[];
  readonly markets: { market: string; marketId: Bytes32; state: HealthState; detail: string; notQuotingSeconds: number }[];
}

export interface MarketTimeReport {
  readonly marketId: Bytes32;
  readonly label: string;
  /** ms observed in total and with a live quote */
  readonly observedMs: number;
  readonly liveMs: number;
  /** ms per state (only states seen) */
  readonly states: Partial<Record<HealthState, number>>;
}

export interface HealthModelOptions {
  readonly markets: readonly Bytes32[];
  readonly state: () => StoreState;
  readonly lastTick: (marketId: Bytes32) => KernelTick | null;
  readonly clock: Clock;
  /** a market that should quote and has had no live quote this long fails /readyz, ms (default 30 000) */
  readonly graceMs?: number;
  readonly logger?: Logger;
  /** a market's transitions are logged at most once per this interval; the rest summarised, ms (default 10 000) */
  readonly logIntervalMs?: number;
  /** the kill switch's reason once fired (read at evaluate) */
  readonly killed?: () => string | null;
  /** the account's books: the reads that differ from them now, for `books-drift` */
  readonly drifts?: () => readonly Drift[];
  /** why the ledger cannot be written, while the bot is held for it (read at evaluate) */
  readonly ledgerDown?: () => string | null;
}

/** The account-level state: the books and the venue's balance reads have disagreed past the grace. */
export interface BooksDrift {
  readonly state: 'books-drift';
  /** one line per market and outcome: books vs venue */
  readonly detail: string;
  readonly markets: number;
  readonly since: number;
}

interface Slot {
  readonly marketId: Bytes32;
  readonly key: string;
  state: HealthState;
  detail: string;
  since: number;
  /** last time the market had a live quote, or stopped needing one */
  clearAt: number;
  notQuotingMs: number;
  shouldQuote: boolean;
  liveOrders: number;
  everLive: boolean;
  lastRefusalAt: number;
  lastRefusal: string;
  lastAcceptAt: number;
  /** why its last slow strategy call was slow (slowBecause), or null: not judged */
  slowCause: string | null;
  slowWhy: string;
  /** ms per HEALTH_STATES index */
  readonly durations: Float64Array;
  liveMs: number;
  observedMs: number;
  wasLive: boolean;
  /** what the last classification read (see evaluate; -1: classify again): the same inputs give the same state */
  seenEpoch: number;
  /** the fields of the last tick that classify reads (see tickSeen), not the tick itself: every tick is a new object */
  seenTick: number;
  seenTickError: string | null;
  seenTickReason: RiskReason | undefined;
  seenTickDeniedAll: RiskReason | undefined;
  seenOrders: StoreMarket['orders'] | undefined;
  seenStatus: StoreMarket['status'] | undefined;
  seenBlocked: StoreMarket['blocked'] | undefined;
}

const INDEX = new Map<HealthState, number>(HEALTH_STATES.map((s, i) => [s, i]));

/** The health state a risk guard's pull stands for. */
export function stateOfRiskReason(r: RiskReason, status: StoreMarket['status'] | undefined): HealthState {
  switch (r) {
    case 'HALTED':
      return 'halted';
    case 'KILL_DRAWDOWN':
    case 'KILL_ERROR_RATE':
      return 'kill-switch';
    case 'MARKET_NOT_ACTIVE':
      return status === 'resolved' || status === 'closed' ? 'market-resolved' : 'market-paused';
    case 'DEADLINE':
    case 'PAUSED': // an operator's pause or halt (bookmaker ctl): deliberate; /readyz names it
      return 'market-paused';
    case 'MIGRATION':
      return 'orders-refused';
    case 'STALE_BOOK':
      return 'stale-book';
    case 'STREAM_SILENT':
      return 'stream-silent';
    case 'REDUCE_ONLY':
      return 'reduce-only';
    case 'RATE_LIMIT':
      return 'rate-budget';
    default:
      return 'risk-limit';
  }
}

export class HealthModel {
  private readonly opts: HealthModelOptions;
  private slots: Slot[];
  private readonly byKey = new Map<string, Slot>();
  private readonly log: Logger;
  private readonly transitions: ThrottledLog;
  private readonly graceMs: number;
  private processState: ProcessState = 'starting';
  /** the state the process would be in without its halt (a latch cleared during start-up returns to `starting`) */
  private underHalt: Exclude<ProcessState, 'halted'> = 'starting';
  private haltKind: 'kill-switch' | 'halted' | null = null;
  private haltState: HealthState = 'halted';
  private haltReason = '';
  private lastEvalAt: number;
  private cache: MarketHealth[] | null = null;

  constructor(opts: HealthModelOptions) {
    this.opts = opts;
    this.log = (opts.logger ?? silentLogger).child({ component: 'health' });
    this.graceMs = opts.graceMs ?? 30_000;
    this.transitions = new ThrottledLog(opts.logIntervalMs ?? 10_000);
    const now = opts.clock.now();
    this.lastEvalAt = now;
    this.slots = opts.markets.map((marketId) => newSlot(marketId, now));
    for (const s of this.slots) this.byKey.set(s.key, s);
  }

  get process(): ProcessState {
    return this.processState;
  }
  /** the kill switch fired (the process is halted because of it) */
  get killSwitch(): boolean {
    return this.haltKind === 'kill-switch';
  }
  get haltedBecause(): string | null {
    return this.haltKind ? this.haltReason : null;
  }
  get graceSeconds(): number {
    return this.graceMs / 1000;
  }

  setProcess(s: Exclude<ProcessState, 'halted'>): void {
    this.turnState = null;
    this.underHalt = s;
    if (this.processState === 'halted') return; // a halt stays the last word (its reason is the report's)
    if (this.processState === s) return;
    this.evaluate();
    this.processState = s;
    this.cache = null;
    this.log.info({ process: s }, `process ${s}`);
  }

  /** The process stopped quoting by itself: the kill switch, or a halt (broken invariant, fatal refusal). */
  halt(kind: 'kill-switch' | 'halted', reason: string, marketState: HealthState = kind): void {
    this.turnState = null;
    if (this.haltKind) return;
    this.evaluate();
    this.haltKind = kind;
    this.haltState = marketState;
    this.haltReason = reason;
    this.processState = 'halted';
    this.cache = null;
    this.evaluate();
  }

  /**
   * an operator cleared the kill-switch latch the process started held by
   * (`bookmaker ctl clear-kill`) and quoting resumed: the halt is lifted.
   */
  resumeAfterHalt(): void {
    this.turnState = null;
    if (!this.haltKind) return;
    this.evaluate();
    this.haltKind = null;
    this.haltReason = '';
    this.processState = this.underHalt;
    this.cache = null;
    this.evaluate();
  }

  /** A create of this market was refused by the venue (status, code, message in `what`). */
  refused(marketId: Bytes32, at: number, what: string): void {
    this.turnState = null;
    const s = this.slot(marketId);
    if (!s) return;
    s.lastRefusalAt = at;
    s.lastRefusal = what;
    s.seenEpoch = -1; // classified again at the next evaluate
  }

  /** A create of this market was accepted. */
  accepted(marketId: Bytes32, at: number): void {
    this.turnState = null;
    const s = this.slot(marketId);
    if (!s) return;
    s.lastAcceptAt = at;
    s.seenEpoch = -1; // classified again at the next evaluate
  }

  /**
   * Why the market's last slow strategy call was slow: the cause the stall judge gives the main
   * thread's window around it (src/runtime/loop-stall.ts: busy, cpu-starved, off-cpu, unknown) and its
   * sentence. `cpu-starved` makes a slow market `cpu-starved` instead of `strategy-slow`.
   */
  slowBecause(marketId: Bytes32, cause: string, why: string): void {
    const s = this.slot(marketId);
    if (!s || (s.slowCause === cause && s.slowWhy === why)) return;
    this.turnState = null;
    s.slowCause = cause;
    s.slowWhy = why;
    s.seenEpoch = -1; // classified again at the next evaluate
  }

  /** The states as of the last evaluate (evaluate first for "now"). */
  markets(): MarketHealth[] {
    if (this.cache) return this.cache;
    const st = this.opts.state();
    this.cache = this.slots.map((s) => ({
      marketId: s.marketId,
      label: st.markets.get(s.key)?.slug ?? s.marketId,
      state: s.state,
      detail: s.detail,
      since: s.since,
      notQuotingMs: s.notQuotingMs,
      shouldQuote: s.shouldQuote,
      liveOrders: s.liveOrders,
    }));
    return this.cache;
  }

  /** State of one market (after the last evaluate), or null for a market not configured. */
  marketState(marketId: Bytes32): HealthState | null {
    return this.slot(marketId)?.state ?? null;
  }

  /**
   * evaluate(), unless it already ran in this same synchronous turn at the same clock reading with
   * the same store snapshot and nothing told to the model since. One scrape reads the model from
   * three gauges (market_state, ready, halted) and /readyz from one more call; all of a scrape's
   * collects run in one synchronous turn, in which no event can change what the model reads, so one
   * evaluation serves them all. Direct evaluate() calls (timers, tests) always recompute.
   *
   * The turn ends in a microtask: a reaction on a resolved promise, not queueMicrotask, which makes a node
   * AsyncResource('Microtask') per call. With one scrape every few seconds none of those is alive at most full
   * GCs, so their map died and V8 discarded the optimised code that had embedded it (queueMicrotask,
   * runMicrotask: docs/performance/reoptimisation.md). A promise reaction runs at the same point of the
   * microtask queue (queued at the call, in order with the others) and its objects' maps are V8's own.
   */
  evaluateOncePerTurn(): void {
    const st = this.opts.state();
    if (this.turnFresh && st === this.turnState && this.opts.clock.now() === this.lastEvalAt) return;
    this.evaluate();
    this.turnState = st;
    if (!this.turnFresh) {
      this.turnFresh = true;
      void RESOLVED.then(this.endTurn);
    }
  }
  private turnFresh = false;
  private turnState: StoreState | null = null;
  /** the end of a synchronous turn (evaluateOncePerTurn): one function for the model's life, not one per scrape */
  private readonly endTurn = (): void => {
    this.turnFresh = false;
    this.turnState = null;
  };

  /** Recompute every market's state now; log transitions (throttled) and add up time per state. */
  evaluate(): void {
    const now = this.opts.clock.now();
    const dt = Math.max(0, now - this.lastEvalAt);
    this.lastEvalAt = now;
    const st = this.opts.state();
    const killed = this.opts.killed?.() ?? null;
    if (killed && !this.haltKind) {
      this.haltKind = 'kill-switch';
      this.haltState = 'kill-switch';
      this.haltReason = `kill switch: ${killed}`;
      this.processState = 'halted';
    }
    let changed = false;
    const epoch = this.inputsEpoch(st, now);
    for (const s of this.slots) {
      const m = st.markets.get(s.key);
      // time since the last evaluate is charged to the state the market was in
      s.durations[INDEX.get(s.state)!]! += dt;
      s.observedMs += dt;
      if (s.wasLive) s.liveMs += dt;
      const t = this.opts.lastTick(s.marketId);
      // A market whose inputs are the ones its last classification read (its orders, status and block
      // in the store, its last tick, and the process-wide inputs; a refusal or acceptance resets it) keeps its state: at
      // 2,000 markets most of them, most seconds. Only the clocks below move.
      let state = s.state;
      let detail = s.detail;
      if (s.seenEpoch !== epoch || !this.unchanged(s, m, t)) {
        s.liveOrders = m ? liveOrders(m) : 0;
        if (s.liveOrders > 0) s.everLive = true;
        [state, detail] = this.classify(s, m, t, s.liveOrders, now, st);
        s.seenEpoch = epoch;
        s.seenTick = tickSeen(t);
        s.seenTickError = t?.strategyError ? t.strategyError.message : null;
        s.seenTickReason = t?.reason;
        s.seenTickDeniedAll = t?.deniedAll;
        s.seenOrders = m?.orders;
        s.seenStatus = m?.status;
        s.seenBlocked = m?.blocked;
      }
      const live = s.liveOrders;
      s.wasLive = live > 0;
      const shouldQuote = !DELIBERATE_STATES.has(state);
      if (live > 0 || !shouldQuote) s.clearAt = now;
      s.notQuotingMs = live > 0 || !shouldQuote ? 0 : now - s.clearAt;
      s.shouldQuote = shouldQuote;
      if (state !== s.state || detail !== s.detail) {
        changed = true;
        if (state !== s.state) this.transition(s, state, detail, now, m?.slug);
        s.state = state;
        s.detail = detail;
      }
    }
    this.transitions.due(now, (key, sum) => {
      const [mk, to] = key.split(' ') as [string, string];
      const s = this.byKey.get(mk);
      if (!s) return;
      this.log.warn(
        { marketId: s.marketId, to, times: sum.count, seconds: Math.round(sum.windowMs / 1000), state: s.state, detail: s.detail },
        `market entered ${to} ${sum.count} more time(s) in ${Math.round(sum.windowMs / 1000)} s; now ${s.state}`,
      );
    });
    if (changed || dt > 0) this.cache = null;
  }

  private transition(s: Slot, to: HealthState, detail: string, now: number, slug: string | undefined): void {
    const from = s.state;
    s.since = now;
    // one line per market and state entered, then a summary per interval: a flapping market is a few lines
    if (this.transitions.hit(`${s.key} ${to}`, now, `${from}→${to}`) !== 'first') return;
    const fields = { marketId: s.marketId, ...(slug ? { market: slug } : {}), from, to, detail, liveOrders: s.liveOrders };
    if (to === 'quoting') this.log.info(fields, 'market quoting');
    else if (s.liveOrders > 0) this.log.warn(fields, `market ${to} (its quotes are still live)`);
    else if (DELIBERATE_STATES.has(to)) this.log.info(fields, `market not quoting: ${to}`);
    else this.log.warn(fields, `market not quoting: ${to}`);
  }

  /**
   * The market's inputs are the ones its last classification read (the process-wide ones are the
   * epoch's). Of the last tick, what classify reads: a market ticked again to the same outcome (the
   * housekeeping round's ticks of a still market, a book delta that moved no quote's fate) is not
   * classified again.
   */
  private unchanged(s: Slot, m: StoreMarket | undefined, t: KernelTick | null): boolean {
    return (
      s.seenOrders === m?.orders &&
      s.seenStatus === m?.status &&
      s.seenBlocked === m?.blocked &&
      s.seenTick === tickSeen(t) &&
      s.seenTickReason === t?.reason &&
      s.seenTickDeniedAll === t?.deniedAll &&
      s.seenTickError === (t?.strategyError ? t.strategyError.message : null)
    );
  }

  /**
   * A number that moves whenever an input every market's classification reads moves (the process
   * state, a halt, the ledger, the venue's back-off as of now): a market classified under another
   * epoch is classified again.
   */
  private inputsEpoch(st: StoreState, now: number): number {
    const ledgerDown = this.opts.ledgerDown?.() ?? null;
    const key = `${this.processState}\u0000${this.haltKind ?? ''}\u0000${this.haltState}\u0000${this.haltReason}\u0000${ledgerDown ?? '\u0001'}\u0000${st.backoffUntil > now}`;
    if (key !== this.epochKey) {
      this.epochKey = key;
      this.epoch++;
    }
    return this.epoch;
  }
  private epoch = 0;
  private epochKey = '';

  private classify(s: Slot, m: StoreMarket | undefined, t: KernelTick | null, live: number, now: number, st: StoreState): [HealthState, string] {
    if (this.haltKind) return [this.haltState, this.haltReason];
    const ledgerDown = this.opts.ledgerDown?.() ?? null;
    if (ledgerDown !== null && this.processState === 'running') return ['ledger-unwritable', `every quote pulled: ${ledgerDown}`];
    if (t?.strategyError) return ['strategy-error', t.strategyError.message];
    if (t?.slow) {
      if (s.slowCause === 'cpu-starved') return ['cpu-starved', `the last tick ran over the strategy's time budget waiting for a CPU: ${s.slowWhy}`];
      const why = s.slowCause === 'busy' || s.slowCause === 'off-cpu' ? `: ${s.slowWhy}` : '';
      return ['strategy-slow', `the strategy ran over its time budget on the last tick${why}`];
    }
    if (live > 0) return ['quoting', `${live} order(s) live`];
    if (this.processState === 'stopping' || this.processState === 'stopped') return ['halted', `the bot is ${this.processState}`];
    if (this.processState === 'starting' || !t) return ['starting', 'waiting for start-up (books, balances, reconcile)'];
    if (t.action === 'no-view') return ['stale-book', 'no book yet'];
    if (t.reason !== undefined) return [stateOfRiskReason(t.reason, m?.status), `risk guard ${t.reason}`];
    if (m?.blocked === 'migration') return ['orders-refused', 'the venue answers 409 migration: quoting stops until the migration completes'];
    // a 429 is a refusal too, but its reason is the rate budget: the back-off says so first
    if (st.backoffUntil > now) return ['rate-budget', 'the venue rate-limited us (429): backing off'];
    if (s.lastRefusalAt > s.lastAcceptAt) return ['orders-refused', s.lastRefusal];
    if (t.deniedAll !== undefined) return [stateOfRiskReason(t.deniedAll, m?.status), `risk layer denied every quote (${t.deniedAll})`];
    if (t.desired.length === 0) return ['strategy-idle', 'the strategy asked for no quotes'];
    // quotes wanted and on their way: not yet acknowledged
    return s.everLive ? ['quoting', 'orders in flight'] : ['starting', 'first orders in flight'];
  }

  /**
   * `books-drift`: some balance read has differed from the books for longer than the grace (a read
   * ahead of its fills settles well within it). Logged on entering and on leaving.
   */
  booksDrift(): BooksDrift | null {
    const now = this.opts.clock.now();
    const all = this.opts.drifts?.() ?? [];
    const old = all.filter((d) => now - d.since > this.graceMs);
    const drift: BooksDrift | null =
      old.length === 0
        ? null
        : {
            state: 'books-drift',
            markets: new Set(old.map((d) => d.marketId)).size,
            since: Math.min(...old.map((d) => d.since)),
            detail:
              old
                .slice(0, 5)
                .map((d) => `${d.marketId} ${d.outcomeIndex === 1 ? 'yes' : 'no'}: books ${d.books / 1e6} shares, venue ${d.venue / 1e6}`)
                .join('; ') + (old.length > 5 ? `; ${old.length - 5} more` : ''),
          };
    if ((drift !== null) !== this.drifting) {
      this.drifting = drift !== null;
      if (drift)
        this.log.error(
          { state: 'books-drift', markets: drift.markets, detail: drift.detail },
          'books-drift: balance reads differ from the books past the grace',
        );
      else this.log.info({ state: 'books-drift' }, 'books-drift cleared: balance reads agree with the books');
    }
    return drift;
  }
  private drifting = false;

  /** /readyz: not ready when the process is halted or stopping, a market that should quote has had no live quote past the grace, or the books drift. */
  readiness(): Readiness {
    const ms = this.markets();
    const reasons: string[] = [];
    if (this.processState === 'halted') reasons.push(`process halted: ${this.haltReason}`);
    else if (this.processState !== 'running') reasons.push(`process ${this.processState}`);
    const drift = this.booksDrift();
    if (drift) reasons.push(`books-drift for ${Math.round((this.opts.clock.now() - drift.since) / 1000)} s: ${drift.detail}`);
    const ledgerDown = this.opts.ledgerDown?.() ?? null;
    if (ledgerDown !== null) reasons.push(`ledger-unwritable: ${ledgerDown} (every quote pulled until it can be written)`);
    for (const m of ms) {
      if (m.shouldQuote && m.notQuotingMs > this.graceMs)
        reasons.push(`market ${m.label}: not quoting for ${Math.round(m.notQuotingMs / 1000)} s: ${m.state} (${m.detail})`);
    }
    return {
      ready: reasons.length === 0,
      process: this.processState,
      reasons,
      markets: ms.map((m) => ({
        market: m.label,
        marketId: m.marketId,
        state: m.state,
        detail: m.detail,
        notQuotingSeconds: Math.round(m.notQuotingMs / 100) / 10,
      })),
    };
  }

  /** Time in each state per market, since the model was built (for the end-of-run report). */
  report(): MarketTimeReport[] {
    const st = this.opts.state();
    return this.slots.map((s) => {
      const states: Partial<Record<HealthState, number>> = {};
      HEALTH_STATES.forEach((name, i) => {
        const v = s.durations[i]!;
        if (v > 0) states[name] = v;
      });
      return { marketId: s.marketId, label: st.markets.get(s.key)?.slug ?? s.marketId, observedMs: s.observedMs, liveMs: s.liveMs, states };
    });
  }

  /** Market rotation started a market: it is watched from now, 'starting' until its first tick. */
  addMarket(marketId: Bytes32): boolean {
    const key = marketId;
    if (this.byKey.has(key)) return false;
    const s = newSlot(marketId, this.opts.clock.now());
    this.slots.push(s);
    this.byKey.set(key, s);
    this.cache = null;
    return true;
  }

  /**
   * Market rotation released a market: it leaves every reading (readiness, metrics, summary). Its
   * time report up to now is returned (the end-of-run report keeps retired markets), or null.
   */
  removeMarket(marketId: Bytes32): MarketTimeReport | null {
    const key = marketId;
    if (!this.byKey.has(key)) return null;
    const row = this.report().find((r) => r.marketId === key) ?? null;
    this.byKey.delete(key);
    this.slots = this.slots.filter((x) => x.key !== key);
    this.transitions.forgetPrefix(`${key} `);
    this.cache = null;
    return row;
  }

  /** Per-market entries held now (tests: nothing left behind after retirements). */
  get heldMarketState(): number {
    return this.slots.length + this.byKey.size + this.transitions.size;
  }

  private slot(marketId: Bytes32): Slot | undefined {
    return this.byKey.get(marketId);
  }
}

/** Orders the venue acknowledged that rest now (not creates in flight, not cancels on their way). */
export function liveOrders(m: StoreMarket): number {
  let n = 0;
  const orders = m.orders;
  if (orders instanceof PersistentMap) {
    // the store's map: its cached value list (no generator per evaluate and market)
    const list = orders.valueList();
    for (let i = 0; i < list.length; i++) if (isLive(list[i]!)) n++;
  } else for (const o of orders.values()) if (isLive(o)) n++;
  return n;
}

function newSlot(marketId: Bytes32, now: number): Slot {
  return {
    marketId,
    key: marketId,
    state: 'starting',
    detail: 'waiting for start-up (books, balances, reconcile)',
    since: now,
    clearAt: now,
    notQuotingMs: 0,
    shouldQuote: true,
    liveOrders: 0,
    everLive: false,
    lastRefusalAt: Number.NEGATIVE_INFINITY,
    lastRefusal: '',
    lastAcceptAt: Number.NEGATIVE_INFINITY,
    slowCause: null,
    slowWhy: '',
    durations: new Float64Array(HEALTH_STATES.length),
    liveMs: 0,
    observedMs: 0,
    wasLive: false,
    seenEpoch: -1,
    seenTick: -1,
    seenTickError: null,
    seenTickReason: undefined,
    seenTickDeniedAll: undefined,
    seenOrders: undefined,
    seenStatus: undefined,
    seenBlocked: undefined,
  };
}

/**
 * The flags of a tick that classify reads, as one number (its reason, denial and error are compared
 * apart): no tick, or the action (`no-view` or another), slow, and whether it wanted quotes.
 */
function tickSeen(t: KernelTick | null): number {
  if (t === null) return 0;
  return 1 | (t.action === 'no-view' ? 2 : 0) | (t.slow ? 4 : 0) | (t.desired.length > 0 ? 8 : 0);
}

const isLive = (o: OwnOrder): boolean => o.state === 'working' && !isOrphanSlot(o.slot);
