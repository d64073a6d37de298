/**
 * One backtest: a recording replayed through the quoting kernel (src/kernel/quoting-kernel.ts) —
 * the same store, strategy, risk gate and order manager as live — with only the clock (virtual), the
 * data source (recorded rows) and the venue (the sim venue: the bot's orders in the matching engine,
 * filled by the recorded flow through the queue model) swapped.
 *
 * Two cursors walk the same time-ordered rows:
 *   exchange cursor  at the row's exchange time: the recorded book changes and our resting orders
 *                    fill (src/backtest/sim-exchange.ts);
 *   bot cursor       at exchange time + feed latency: the bot's view of the book changes (the
 *                    exchange's book rewound to this cursor: src/backtest/book-rewind.ts) and is
 *                    published to the kernel as a book snapshot, conflated to at most one per
 *                    `requoteIntervalMs` per market (leading and trailing edge, like the kernel's own
 *                    tick throttle, so the strategy sees the same books it would on the live stream).
 * Timers of the virtual clock (venue answers, fill reports, the kernel's throttle and housekeeping)
 * run in between, in time order; equal times run exchange row, then timers, then bot row. After
 * anything that may have started bot work, pending promises are let run before virtual time moves
 * on, so every venue call is made at the virtual time the bot made it.
 *
 * Deterministic: nonces come from a seeded generator and nothing reads the wall clock, so the same
 * recording and config give byte-identical fills and reports.
 */
import { silentLogger, type Logger } from '../core/logger.ts';
import { BadInputError, ConfigError } from '../model/errors.ts';
import { capitalOf } from '../selection/ranker.ts';
import { DEFAULT_RANK_LOOKBACK_MS, rankRecording, rankTime, type RecordingRanking } from './rank-recording.ts';
import type { BotConfig, MarketConfig } from '../config/types.ts';
import { NonceSource } from '../orders/nonces.ts';
import { schedulePeriodicReconcile } from '../orders/periodic-reconcile.ts';
import { STILL_TICK_MS, type KernelMarket } from '../kernel/quoting-kernel.ts';
import { createTradingCore } from '../kernel/trading-core.ts';
import type { StateStore } from '../state/store.ts';
import { regimeOf } from '../state/regime.ts';
import type { StateEvent } from '../state/events.ts';
import type { BacktestSettings } from './backtest-config.ts';
import { latencyModel, recordedFeedDelays, type LatencyModel } from './latency-model.ts';
import { queueModel } from './queue-model.ts';
import { KIND_TAKER, KIND_TRADE, KIND_XLEVEL } from './recording/columns.ts';
import { dropCopyOf, STAT_KINDS, type ColumnStats } from './recording/check-columns.ts';
import { replayMarketId } from './recording/format.ts';
import type { Bytes32 } from '../model/order.ts';
import type { ReplaySource } from './replay-source.ts';
import { ReplayFeed, resolutionOf } from './replay-feed.ts';
import { BookRewind, sharedMarkets } from './book-rewind.ts';
import { RunCollector } from './run-collector.ts';
import { RunDiagnostics, type DiagnosticsCounts, type StrategyFault } from './run-diagnostics.ts';
import { SimExchange, type SimOrder } from './sim-exchange.ts';
import { SimVenue } from './sim-venue.ts';
import { VirtualClock } from './virtual-clock.ts';

export interface BacktestInput {
  readonly source: ReplaySource;
  readonly config: BotConfig;
  readonly settings: BacktestSettings;
  /** fast mode: no queue model (always at the front), for sweeps */
  readonly fast?: boolean;
  readonly logger?: Logger;
  /**
   * Progress: the fraction of rows done and where the replay is. Called every PROGRESS_ROWS rows and at
   * every yield to the event loop; a progress bar throttles by wall time (src/backtest/progress-bar.ts).
   */
  readonly onProgress?: (fraction: number, at: ReplayProgress) => void;
  /**
   * Stop early (Ctrl-C): checked between events; the run then ends as at the end of the data (cancel all
   * on virtual time) and is marked incomplete. The replay yields to the event loop every YIELD_EVERY
   * drains and every YIELD_ROWS rows replayed with no drain owed (counts, not times, so results never
   * depend on the machine's speed), so a signal handler gets to run.
   */
  readonly signal?: AbortSignal;
  /**
   * The result of `applyRanking(source, config, settings)` when the caller ranked already (to show the
   * ranking before the replay): `source` is then the source it returned. Undefined: ranked here.
   */
  readonly ranking?: RecordingRanking | null;
  /** replay from the public stream even where the recording has the venue's drop copy (for comparisons) */
  readonly ignoreDropCopy?: boolean;
  /**
   * every row through the replay loop one at a time, none in the one-pass skips of silent rows
   * (ReplayFeed.skipSilent, SimExchange.applySilent): for tests that the skips change nothing
   */
  readonly rowByRow?: boolean;
  /**
   * the bot's feed keeps a copy of its own of every book, written row by row, instead of reading the
   * exchange's rewound (src/backtest/book-rewind.ts): for tests that the shared book changes nothing
   */
  readonly twoBooks?: boolean;
}

export interface ReplayProgress {
  readonly rows: number;
  readonly totalRows: number;
  /** virtual time of the replay, ms */
  readonly at: number;
}

/** Why a run ended before the end of its data. */
export interface Incomplete {
  readonly reason: 'interrupted';
  /** rows replayed of the window's rows */
  readonly rowsReplayed: number;
  readonly rowsTotal: number;
  /** virtual time the replay stopped at, ms */
  readonly stoppedAt: number;
}

export interface BacktestRun {
  readonly source: ReplaySource;
  readonly settings: BacktestSettings;
  readonly fast: boolean;
  readonly collector: RunCollector;
  /** the exchange model; `exchange.engine` holds the bot's ledger as booked */
  readonly exchange: SimExchange;
  /** the bot's own state store at the end (what the strategy saw, fills included) */
  readonly store: StateStore;
  readonly quoted: readonly string[];
  readonly start: number;
  readonly end: number;
  readonly rowsReplayed: number;
  readonly kernelTicks: number;
  readonly venueCalls: number;
  /** times the replay let the bot's pending promises run before moving virtual time on (see settle) */
  readonly drains: number;
  readonly killed: string | null;
  readonly strategies: readonly string[];
  /** the sampling interval used (the configured one, coarsened for very long recordings) */
  readonly sampleMs: number;
  /** what the kernel decided, counted (why a run placed no order or filled nothing) */
  readonly diagnostics: DiagnosticsCounts;
  /** the markets whose strategy threw or returned malformed quotes (run-diagnostics.ts) */
  readonly strategyFaults?: readonly StrategyFault[];
  /** book and trade rows of the quoted markets in the window */
  readonly quotedRows: { readonly book: number; readonly trade: number };
  /** set when the run stopped before the end of its data (Ctrl-C) */
  readonly incomplete: Incomplete | null;
  /** markout horizons of the config's edge section (undefined: the defaults) */
  readonly edgeHorizonsMs?: readonly number[];
  /** the strategy and its parsed parameters per quoted market, for the report */
  readonly strategyParams?: readonly { readonly marketId: string; readonly strategy: string; readonly params: unknown }[];
  /** the ranking of the config's rank: entries (null: none); `source` then starts at its rank time */
  readonly ranking?: RecordingRanking | null;
}

const MAX_SAMPLES = 50_000;
/** rows between two progress calls */
const PROGRESS_ROWS = 1024;
/** drains between two yields to the event loop (a yield costs ~10 µs; a drain one next-tick callback) */
const YIELD_EVERY = 64;
/**
 * rows between two yields when no drain comes (a bot whose orders rest drains only for venue answers
 * and reconciles: on a long recording, minutes of replay without a turn of the event loop)
 */
const YIELD_ROWS = 16 * PROGRESS_ROWS;
const MAX_POINTS = 2_000_000;
/** what the replay's synchronous step stopped for */
const ADVANCE_DONE = 0;
const ADVANCE_DRAIN = 1;
const ADVANCE_ABORTED = 2;
const ADVANCE_YIELD = 3;

/**
 * The config entry that quotes a recorded market, or null (matched by id, `all`, filter; slug by market
 * name; a `rank:` entry by the markets it kept, `ranked` by entry index: src/backtest/rank-recording.ts).
 */
export function configFor(
  markets: readonly MarketConfig[],
  id: string,
  name: string | undefined,
  ranked?: ReadonlyMap<number, ReadonlySet<string>>,
): MarketConfig | null {
  for (const [i, m] of markets.entries()) {
    const s = m.select;
    if (s.by === 'all' || s.by === 'filter') return m;
    if (s.by === 'id' && s.id === id) return m;
    if (s.by === 'slug' && name !== undefined && s.slug === name) return m;
    if (s.by === 'rank' && ranked?.get(i)?.has(id) === true) return m;
  }
  return null;
}

/**
 * With `rank:` entries: rank the recording's markets at the rank time (rank-recording.ts) and, when the
 * window starts before a full look-back of the recording, start the replay at the rank time instead
 * (the look-back is the warm-up the ranking reads; nothing in it is replayed). Without rank entries
 * the source is returned as it is.
 */
export function applyRanking(source: ReplaySource, config: BotConfig, settings: BacktestSettings): { source: ReplaySource; ranking: RecordingRanking | null } {
  if (!config.markets.some((m) => m.select.by === 'rank')) return { source, ranking: null };
  const { cols, rows } = source;
  const lookbackMs = settings.rankLookbackMs ?? DEFAULT_RANK_LOOKBACK_MS;
  let recStart = Infinity;
  for (let i = 0; i < cols.rows; i++) if (cols.lts[i]! < recStart) recStart = cols.lts[i]!;
  if (rows.length === 0 || !Number.isFinite(recStart)) throw new BadInputError('--data', 'a window with rows to rank the rank: entries over', source.dir);
  const windowStart = Number.isFinite(source.from) ? source.from : cols.lts[rows[0]!]!;
  const at = rankTime(recStart, windowStart, lookbackMs);
  let first = 0;
  while (first < rows.length && cols.lts[rows[first]!]! < at) first++;
  if (first >= rows.length) {
    throw new ConfigError(
      `markets: a rank entry ranks the recording after a look-back of ${lookbackMs / 1000} s (backtest.rankLookbackSeconds), at ${new Date(at).toISOString()}, but the window ends before that (its last row is at ${new Date(cols.lts[rows[rows.length - 1]!]!).toISOString()}); use a shorter rankLookbackSeconds or a longer window, or select the markets by id`,
    );
  }
  const earlier = [...(source.sideBefore ?? []), ...source.side.filter((e) => e.lts < at)];
  const names = new Map(source.manifest.markets.map((m) => [m.id, m.name]));
  const r = rankRecording(
    { cols, manifest: source.manifest, ticks: source.ticks, side: earlier },
    config.markets,
    at,
    lookbackMs,
    (entry, id) => configFor(config.markets.slice(0, entry), id, names.get(id)) !== null,
  );
  const moved = at > windowStart;
  const shifted: ReplaySource = moved
    ? { ...source, rows: rows.subarray(first), side: source.side.filter((e) => e.lts >= at), sideBefore: earlier, from: at }
    : source;
  return { source: shifted, ranking: { ...r, movedFrom: moved ? windowStart : null } };
}

/**
 * A seeded byte source for nonces (a backtest never needs unpredictable nonces, only unique ones).
 * The bytes are written into one scratch array, handed out as a view: the nonce source reads them
 * into its hex string at once, before asking again.
 */
export function seededBytes(seed: number): (n: number) => Uint8Array {
  // createRng(seed ^ 0x5eed)'s mulberry32 stepped here: each byte is floor(next() * 256), the top 8
  // bits of the step's 32-bit output (next() is that output / 2^32), without a call and a float per byte
  let a = (((seed ^ 0x5eed) >>> 0) ^ 0x9e3779b9) >>> 0;
  let scratch = new Uint8Array(32);
  return (n) => {
    if (scratch.length !== n) scratch = new Uint8Array(n);
    // the state stepped in a local, written back once: a closure's number past the small integers is
    // a new heap number at every write (32 a nonce: ~1 µs of its ~2)
    // (as a signed 32-bit integer: the same bits, and an integer sum where the unsigned one was a double's)
    let x = a | 0;
    for (let i = 0; i < n; i++) {
      x = (x + 0x6d2b79f5) | 0;
      let t = x;
      t = Math.imul(t ^ (t >>> 15), t | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      scratch[i] = (t ^ (t >>> 14)) >>> 24;
    }
    a = x;
    return scratch;
  };
}

const turn = (): Promise<void> => new Promise((r) => setImmediate(r));
const RESOLVED = Promise.resolve();

/**
 * Let the bot's pending promise continuations run before virtual time moves on: every one of them,
 * however deep its chain, as on the live event loop, where no timer or I/O callback runs before the
 * microtask queue is empty.
 *
 * The promise resolves from a `process.nextTick` callback, and Node runs the next-tick queue only
 * once the microtask queue has drained: so the replay resumes after every continuation queued
 * before, or by, the drain. The order of the continuations is the microtasks' own; the drain adds
 * no job between them. (It used to be 64 microtask hops, each queued by the one before: about 2 µs
 * per drain and ~8,000 drains a run, while no drain of the capture needs more than 10; a chain
 * deeper than 64 would have run at the next drain instead, which none on the capture does: the
 * digests are the same.)
 */
export function settle(): Promise<void> {
  return new Promise(afterMicrotasks);
}
const afterMicrotasks = (resolve: () => void): void => process.nextTick(resolve);

/**
 * settle() for a loop that drains thousands of times: the function returned, called where
 * `await settle()` would be, calls `then` once every continuation pending then, and every one they
 * queue, has run, in a microtask of its own, as the await's continuation would run. No promise is
 * made per call (one `then` of a settled one, in the next-tick callback).
 */
export function drainer(then: () => void): () => void {
  const job = (): void => void RESOLVED.then(then);
  return () => process.nextTick(job);
}

export async function runBacktest(input: BacktestInput): Promise<BacktestRun> {
  const { config, settings } = input;
  // The books, the matching engine and the strategies work in probability prices (0, 1); a recording
  // of other prices (the Binance import) would have every book row refused and replay to an empty
  // report, so it is refused here with the reason instead.
  if (input.source.manifest.genericPrices) {
    throw new BadInputError(
      '--data',
      `a recording of prediction-market prices in (0, 1) (${input.source.manifest.source} has genericPrices: its prices are outside that range)`,
      input.source.dir,
    );
  }
  const fast = input.fast === true || settings.queueModel === 'none';
  const { source, ranking } = input.ranking !== undefined ? { source: input.source, ranking: input.ranking } : applyRanking(input.source, config, settings);
  const { cols } = source;
  // a closed-loop source grows as the run goes (the replay loop reads it again after each timer)
  const live = source.live;
  // what the load's pass over the columns learned (src/backtest/recording/check-columns.ts), while it
  // describes these columns: the run then passes over no row to learn it again
  const stats = source.stats !== undefined && source.stats.rows === cols.rows && live === undefined ? source.stats : null;
  let rows = source.rows;
  let nRows = rows.length;
  const start = nRows > 0 ? cols.lts[rows[0]!]! : 0;
  const clock = live?.clock ?? new VirtualClock(start);
  const recordedFeed = settings.latency.feedMs === 'recorded';
  const latency: LatencyModel = latencyModel(
    {
      feedMs: settings.latency.feedMs === 'recorded' ? recordedOrZero(recordedFeedDelays(cols.lts, cols.vts, undefined, cols.kind)) : settings.latency.feedMs,
      entryMs: settings.latency.entryMs,
      responseMs: settings.latency.responseMs,
    },
    settings.seed,
  );
  // A bot that learns its fills by polling (every fillPollMs, from the start of the run) hears of a
  // fill at the next poll; without fillPollMs the venue's answer carries it at once.
  const fillPoll = settings.latency.fillPollMs ?? 0;
  const fillReportWait = (at: number): number => (fillPoll > 0 ? (fillPoll - ((at - start) % fillPoll)) % fillPoll : 0);
  let drain = false;
  const collectorRef: { c: RunCollector | null } = { c: null };
  // the newest fill whose holdings the bot has been told (reports can arrive out of order with sampled latency)
  let syncedSeq = -1;
  const exchange = new SimExchange({
    cols,
    ticks: source.ticks,
    queue: queueModel(fast ? 'none' : settings.queueModel, settings.queuePower),
    fees: settings.fees,
    collateral: settings.startingCollateral,
    ...(input.ignoreDropCopy ? { ignoreDropCopy: true } : {}),
    ...(stats !== null ? { dropCopy: dropCopyOf(stats, cols.markets.length) } : {}),
    onFill: (f, after) => {
      collectorRef.c!.onFill(f);
      // The fill report reaches the bot after the response latency, like the venue's activity feed,
      // with the holdings and collateral the engine booked (what the account feed would read then).
      clock.setTimeout(() => {
        const ts = clock.now();
        const es: StateEvent[] = [
          {
            type: 'OrderFilled',
            marketId: f.marketId,
            nonce: f.nonce,
            outcomeIndex: f.outcomeIndex,
            side: f.side,
            price: f.price,
            size: f.size,
            fee: f.fee,
            fillId: `sim-${f.seq}`,
            ts,
            orderKind: f.orderKind,
          },
        ];
        if (f.seq > syncedSeq) {
          syncedSeq = f.seq;
          es.push(
            { type: 'PositionSynced', marketId: f.marketId, yes: after.yes, no: after.no, ts },
            { type: 'BalanceUpdated', collateral: after.collateral, ts },
          );
        }
        // one batch: the kernel shrinks the order manager's copy of the order once and ticks after all of it
        core.receiveAll(es);
        drain = true;
      }, fillReportWait(clock.now()) + latency.response());
    },
    // A drop-copy market: the venue's book shows our own orders, so the bot's feed does too (after the
    // feed delay, in order per market), and the mid a fill is measured against includes them.
    // A bot that polls learns an order's end at the next poll too, after its fills (the own-orders read,
    // src/feeds/own-orders-feed.ts): until then an order whose cancel was answered stays parked and
    // counted (OrderManager settleMs, as live), and its sells keep their inventory out of the next
    // set. Filled orders end with their fill report, as before.
    ...(fillPoll > 0
      ? {
          onOrderDone: (o: SimOrder) => {
            if (o.state === 'filled') return;
            const status = o.state;
            clock.setTimeout(() => {
              core.receiveAll([{ type: 'OrderClosed', marketId: o.planned.marketId, nonce: o.planned.nonce, status, ts: clock.now() }]);
              drain = true;
            }, fillReportWait(clock.now()) + latency.response());
          },
        }
      : {}),
    onOwnLevel: (m, side, price, size) => {
      const now = clock.now();
      collectorRef.c?.onMid(m, now, exchange.mid(m));
      const at = Math.max(now + latency.feed(), ownFeedAt[m] ?? -Infinity);
      ownFeedAt[m] = at;
      clock.setTimeout(() => feedRef.f?.own(m, side, price, size), at - now);
    },
  });
  const ownFeedAt: number[] = [];
  const feedRef: { f: ReplayFeed | null } = { f: null };
  const collector = new RunCollector(cols.markets, () => exchange);
  collectorRef.c = collector;
  const venue = new SimVenue({ clock, exchange, latency, batchLimit: config.orders.batchLimit, onDelivered: () => (drain = true) });

  // Markets the config quotes (others are replayed for the book only).
  const names = new Map(source.manifest.markets.map((m) => [m.id, m.name]));
  const kernelMarkets: KernelMarket[] = [];
  const strategies = new Set<string>();
  for (const id of cols.markets) {
    const mc = configFor(config.markets, id, names.get(id), ranking?.kept);
    if (!mc) continue;
    // as live (src/selection/select-markets.ts): a ranked market's notional limit is its share of the entry's capital
    const per = mc.select.by === 'rank' ? capitalOf(mc.select.rank, mc).perMarket : 0;
    const risk = per > 0 && per < mc.risk.maxNotional ? { ...mc.risk, maxNotional: per } : mc.risk;
    kernelMarkets.push({ marketId: replayMarketId(id), strategy: mc.strategy.module, params: mc.strategy.params, risk });
    strategies.add(mc.strategy.ref);
  }
  const log = input.logger ?? silentLogger;
  let ticks = 0;
  // set by the kernel's onTickStart when the timer that runs is the kernel's throttle (its trailing tick)
  const timerTick: { market: Bytes32 | null } = { market: null };
  const diag = new RunDiagnostics();
  // the bot's regime per market at each sample (what its strategies saw), for the report
  const storeKeys = cols.markets; // the store's keys (recorded ids are normalised where the recording is read)
  // the trading core as live (src/kernel/trading-core.ts): only the clock, the venue and the nonces differ
  const core = createTradingCore({
    config,
    clock,
    venue,
    nonces: new NonceSource(1_000_000, seededBytes(settings.seed)),
    markets: kernelMarkets,
    logger: log,
    // as live: a cancelled order is parked until a poll sees it closed
    ...(fillPoll > 0 ? { settleMs: Math.max(30_000, 10 * fillPoll) } : {}),
    kernel: {
      // as live: a still market's housekeeping tick is skipped (src/kernel/quoting-kernel.ts isStill); unlike
      // live, the skipped tick holds back the next event's tick as a tick that ran (the fills of every round ticked)
      stillTickMs: STILL_TICK_MS,
      stillSkipCountsAsTick: true,
      // the market a throttle timer is ticking (see the timer branch of the replay loop)
      onTickStart: (m, cause) => {
        if (cause === 'throttled') timerTick.market = m;
      },
      onTick: (m, t, view) => {
        ticks++;
        diag.onTick(t, view);
        // a tick whose desired set settled at once (src/orders/order-manager.ts settledNow) left no
        // promise behind: only a sync still to run needs the drain before virtual time moves on
        if (core.kernel.lastSync(m) !== null) drain = true;
      },
    },
  });
  const { store, kernel, orderManager: om } = core;
  collector.regimeSource = (m, t) => {
    const ms = store.state.markets.get(storeKeys[m]!);
    return ms === undefined ? null : regimeOf(ms, t).regime;
  };

  // Start-up as live: metadata, balance, then reconcile with the (empty) venue.
  const now0 = clock.now();
  core.receiveAll([
    ...cols.markets.map(
      (id, i): StateEvent => ({ type: 'MarketMetadataUpdated', marketId: replayMarketId(id), tick: source.ticks[i]!, status: 'active', ts: now0 }),
    ),
    { type: 'BalanceUpdated', collateral: settings.startingCollateral, ts: now0 },
  ]);
  void om.reconcile(undefined, []);
  // and periodically, as live: this is how the bot learns of orders the venue ended by itself
  // (dead-man expiry, a void, a self-trade cancel)
  const stopReconcile = schedulePeriodicReconcile(om, clock, config.orders.reconcileIntervalMs);

  // The bot's feeds: its own copy of the books (conflated snapshots), trades, oracle and metadata.
  const quotedSet = new Set(kernelMarkets.map((km) => cols.markets.indexOf(km.marketId)));
  // One book of the recorded rows per market: the feed shows the exchange's rewound to its cursor
  // (src/backtest/book-rewind.ts), where the rows are the positions of one fixed array (a closed-loop
  // source grows its rows as it goes: the feed keeps its own books there).
  const shared = live === undefined && input.twoBooks !== true ? sharedMarkets(cols, rows, quotedSet, exchange.exact, stats) : null;
  const rewind = shared !== null && shared.includes(1) ? new BookRewind(cols, rows, cols.markets.length) : null;
  exchange.rewind = rewind;
  const feed = new ReplayFeed({
    cols,
    bookTicks: exchange.bookGrid,
    clock,
    quoted: quotedSet,
    publishMs: config.orders.requoteIntervalMs,
    depth: config.feeds.bookDepth,
    dispatch: (e) => core.receive(e),
    exact: exchange.exact,
    ...(rewind !== null ? { rewind: { log: rewind, books: exchange.books, shared: shared! } } : {}),
  });
  feedRef.f = feed;

  // Exchange time of a row: its local time, or with `feedMs: recorded` its venue time (kept monotone).
  // The cursors' clocks are fields of one object, not variables of this function: a closure's
  // variable holding a time (a double) is a fresh heap number at every assignment, two per row.
  const times = { exPrev: -Infinity, botPrev: -Infinity, xLts: NaN, xDelay: 0, silentAt: -Infinity };
  const exTime = (r: number): number => {
    const t = recordedFeed ? Math.min(cols.vts[r]! || cols.lts[r]!, cols.lts[r]!) : cols.lts[r]!;
    times.exPrev = Math.max(times.exPrev, t);
    return times.exPrev;
  };
  // The venue's drop copy is written as the engine acts (lts ≈ venue time): it reaches the bot after a
  // feed delay, one delay per instant (the rows of one venue instant arrive together, as one message).
  const botTime = (r: number): number => {
    let t: number;
    if (cols.kind[r]! >= KIND_XLEVEL) {
      if (cols.lts[r] !== times.xLts) {
        times.xLts = cols.lts[r]!;
        times.xDelay = latency.feed();
      }
      t = times.xLts + times.xDelay;
    } else t = recordedFeed ? cols.lts[r]! : cols.lts[r]! + latency.feed();
    times.botPrev = Math.max(times.botPrev, t);
    return times.botPrev;
  };

  // With a constant feed delay (no draws of the feed latency's generator, whose order would change) and
  // a recording that does not grow as the run goes, the bot cursor consumes silent rows in one pass.
  const oneByOne = input.rowByRow === true || live !== undefined;
  const silentDelay = typeof settings.latency.feedMs === 'number' && !oneByOne ? settings.latency.feedMs : -1;
  // and the exchange cursor, whose time is then each row's lts (rows in time order), its silent ones
  const silentRows = !recordedFeed && !oneByOne;
  const entryMin = latency.entryMin;

  const side = source.side;
  // A market's resolution (a side event with a payout) reaches the exchange at its own time, before
  // the bot hears of it: the engine voids the bot's orders there and the collector settles its
  // position (docs/edge.md, "Markets that resolve and are replaced"). The index of the next one from k:
  const nextResolution = (k: number): number => {
    while (k < side.length && resolutionOf(side[k]!) === null) k++;
    return k;
  };
  const resolutionTime = (k: number): number => {
    if (k >= side.length) return Infinity;
    const e = side[k]!;
    return recordedFeed ? Math.min(e.vts || e.lts, e.lts) : e.lts;
  };
  const resolve = (k: number, at: number): void => {
    const e = side[k]!;
    const m = exchange.marketOf(e.m);
    const payoutYes = resolutionOf(e);
    if (m >= 0 && payoutYes !== null && exchange.resolve(m, payoutYes, at)) collector.onResolved(m, at, payoutYes);
  };
  const k0 = nextResolution(0);
  const tx0 = nRows > 0 ? exTime(rows[0]!) : Infinity;
  const tb0 = nRows > 0 ? botTime(rows[0]!) : Infinity;
  const ts0 = side.length > 0 ? side[0]!.lts + (recordedFeed ? 0 : latency.feed()) : Infinity;
  let lastSample = start;
  // at most ~50 000 samples however long the recording, and at most MAX_POINTS over all markets
  // (memory and report size stay bounded: 423 Kalshi markets over 55 days would otherwise keep 21 M)
  const span = live ? live.end - start : nRows > 0 ? cols.lts[rows[nRows - 1]!]! - start : 0;
  const samples = Math.max(1, Math.min(MAX_SAMPLES, Math.floor(MAX_POINTS / Math.max(1, cols.markets.length))));
  const sampleMs = Math.max(settings.sampleMs, Math.ceil(span / samples));
  // every sample time up to the last row's, and the one at the end: the collector's arrays sized once
  collector.reserve(Math.floor(span / sampleMs) + 2);
  let incomplete = null as Incomplete | null; // (set inside replay: the cast keeps TS from narrowing it to null)
  // the row count comes in as an argument: a closure over `i` would move the loop's index into a context
  const progress = (done: number): void =>
    input.onProgress?.(live ? Math.min(1, (clock.now() - start) / Math.max(1, span)) : nRows > 0 ? done / nRows : 1, {
      rows: done,
      totalRows: nRows,
      at: clock.now(),
    });
  /*
   * The replay loop in a function of its own: V8 compiles it apart from the set-up above. As part of
   * runBacktest, every run's set-up code deoptimised the whole function (a map or dependency it
   * had assumed changed with the new run's objects), and TurboFan recompiled all of it, loop
   * included, in each of the first runs of a process (~85–120 ms of compile per run, a third of a
   * run's CPU time).
   *
   * The loop itself is synchronous (`advance`), and only the drain between two instants awaits: in an
   * async function every number the loop keeps across an await (the cursors' times, the next timer's
   * due time) lives in the suspended frame, where each new value of a time (a double) is a fresh heap
   * number, about 20 MB a run on the capture. `advance` keeps them in registers and hands them back
   * in `cur` when it stops for a drain (about 8 000 times a run).
   */
  const cur = {
    i: 0,
    j: 0,
    s: 0,
    k: k0,
    tx: tx0,
    tb: tb0,
    ts: ts0,
    tr: resolutionTime(k0),
    nextProgress: PROGRESS_ROWS,
    nextYield: YIELD_ROWS,
    nextSample: lastSample,
  };
  /**
   * Replay until the bot must drain (ADVANCE_DRAIN), the data ends (ADVANCE_DONE), a stop is asked
   * (ADVANCE_ABORTED) or YIELD_ROWS rows went by with no drain owed (ADVANCE_YIELD).
   */
  const advance = (): number => {
    let { i, j, s, k, tx, tb, ts, tr, nextProgress, nextYield, nextSample } = cur;
    // The hot state in locals: the cursors' clocks (exTime and botTime inlined below, on these) and
    // the columns. Read through the closure, each was reloaded after every call the loop makes
    // (the callee might have changed them); as locals they stay in registers.
    let { exPrev, botPrev, xLts, xDelay, silentAt } = times;
    let lts = cols.lts;
    let vts = cols.vts;
    let kind = cols.kind;
    let market = cols.market;
    let rowsNow = rows;
    let n = nRows;
    let out = ADVANCE_DONE;
    while (i < n || j < n || s < side.length || (live !== undefined && clock.nextDue() < live.end)) {
      const due = clock.nextDue();
      // Let the bot's promises run before virtual time moves on (once per timestamp, not per event).
      if (drain && Math.min(tx, due, tb, ts, tr) > clock.now()) {
        out = ADVANCE_DRAIN;
        break;
      }
      if (tr <= tx && tr <= due && tr <= tb && tr <= ts) {
        // a resolution, before the exchange rows of its instant
        while (tr >= nextSample) {
          exchange.expireUntil(nextSample);
          collector.sample(nextSample);
          nextSample += sampleMs;
        }
        clock.advanceTo(tr);
        resolve(k, clock.now());
        k = nextResolution(k + 1);
        tr = resolutionTime(k);
      } else if (tx <= due && tx <= tb && tx <= ts) {
        while (tx >= nextSample) {
          exchange.expireUntil(nextSample);
          collector.sample(nextSample);
          nextSample += sampleMs;
        }
        // In one pass, the rows from here that change the recorded book (and our queue positions) only
        // (SimExchange.applySilent), up to the next call reaching the exchange, the next resolution or
        // sample, and the bot's next row, side event or timer plus the least entry latency: whatever
        // the bot does then reaches the exchange through the sim venue, no sooner. The row at tx is
        // one of them unless it may fill (or is at that bound; or is not at its own time, tx): it then
        // goes through applyRow at its time, and the pass takes the rows after it.
        let next = i;
        if (silentRows && !drain && lts[rowsNow[i]!] === tx)
          next = exchange.applySilent(rowsNow, i, n, Math.min(venue.nextEntryDue(), Math.min(clock.nextDue(), tb, ts) + entryMin, tr, nextSample), collector);
        if (next === i) {
          clock.advanceTo(tx);
          const r = rowsNow[i]!;
          exchange.applyRow(r, tx);
          const m = market[r]!;
          if (kind[r] !== KIND_TRADE) collector.onMid(m, tx, exchange.mid(m));
          next = ++i;
          // (the bound read after the row: a fill it made set a timer)
          if (silentRows && !drain && i < n)
            next = exchange.applySilent(rowsNow, i, n, Math.min(venue.nextEntryDue(), Math.min(clock.nextDue(), tb, ts) + entryMin, tr, nextSample), collector);
        }
        if (next > i) {
          // (the clock does not visit these rows' times: the replay's end still counts the last of them)
          const t = lts[rowsNow[next - 1]!]!;
          exPrev = Math.max(exPrev, t);
          silentAt = Math.max(silentAt, t);
          i = next;
        }
        if (i < n) {
          // exTime
          const q = rowsNow[i]!;
          exPrev = Math.max(exPrev, recordedFeed ? Math.min(vts[q]! || lts[q]!, lts[q]!) : lts[q]!);
          tx = exPrev;
        } else tx = Infinity;
        if (i >= nextProgress) {
          nextProgress += PROGRESS_ROWS;
          progress(i);
          if (input.signal?.aborted) {
            out = ADVANCE_ABORTED;
            break;
          }
          // no promise of the bot is pending when no drain is owed: a turn of the event loop here
          // runs only what is not the bot's (a signal handler, output)
          if (i >= nextYield && !drain) {
            nextYield = i + YIELD_ROWS;
            out = ADVANCE_YIELD;
            break;
          }
        }
      } else if (due <= tb && due <= ts) {
        feed.trailingRan = false;
        venue.entryRan = false;
        timerTick.market = null;
        const slices = kernel.housekeepingSlices;
        const syncs = kernel.syncsStarted;
        clock.runNext();
        // any timer may have left promises to run, except: the feed's trailing publication (the tick
        // it causes asks for the drain itself when its sync is pending: onTick above); a venue call
        // reaching the exchange (its answer is a timer of its own, which drains); the kernel's
        // throttle, and a slice of its housekeeping round, when their ticks started no sync (every
        // set settled at once). A kill cancels through promises: it drains.
        const kernelTimer = timerTick.market !== null || kernel.housekeepingSlices !== slices;
        const quiet = feed.trailingRan || venue.entryRan || (kernelTimer && kernel.syncsStarted === syncs);
        if (kernel.killed !== null || !quiet) drain = true;
        if (live !== undefined) {
          // the counterparties may have acted: new rows and side events, at this instant or later
          if (cols.rows !== n) {
            rows = rowsNow = live.rows();
            nRows = n = rows.length;
            lts = cols.lts;
            vts = cols.vts;
            kind = cols.kind;
            market = cols.market;
            times.exPrev = exPrev;
            times.botPrev = botPrev;
            times.xLts = xLts;
            times.xDelay = xDelay;
            if (tx === Infinity && i < n) tx = exTime(rows[i]!);
            if (tb === Infinity && j < n) tb = botTime(rows[j]!);
            ({ exPrev, botPrev, xLts, xDelay } = times);
          }
          if (ts === Infinity && s < side.length) ts = side[s]!.lts + (recordedFeed ? 0 : latency.feed());
          if (tr === Infinity && k < side.length) {
            k = nextResolution(k);
            tr = resolutionTime(k);
          }
        }
      } else if (ts <= tb) {
        clock.advanceTo(ts);
        feed.side(side[s]!);
        s++;
        ts = s < side.length ? Math.max(ts, side[s]!.lts + (recordedFeed ? 0 : latency.feed())) : Infinity;
      } else {
        // every row that reaches the bot at this instant, before any timer due now (the drop copy's
        // publication, a zero-delay timer, must see the whole instant, as the venue's stream sends a
        // command's changes in one message)
        const at = tb;
        clock.advanceTo(at);
        do {
          feed.row(rowsNow[j]!);
          j++;
          if (j < n) {
            // botTime
            const q = rowsNow[j]!;
            let t: number;
            if (kind[q]! >= KIND_XLEVEL) {
              if (lts[q] !== xLts) {
                xLts = lts[q]!;
                xDelay = latency.feed();
              }
              t = xLts + xDelay;
            } else t = recordedFeed ? lts[q]! : lts[q]! + latency.feed();
            botPrev = Math.max(botPrev, t);
            tb = botPrev;
          } else tb = Infinity;
        } while (tb === at);
        // then, in one pass, the rows after them that reach the bot only through a publication still
        // to come, up to the feed's next trailing publication (ReplayFeed.skipSilent, nextPublication:
        // no other timer reads the feed's books): most rows, one loop step less each
        if (silentDelay >= 0 && j < n) {
          const next = feed.skipSilent(rowsNow, j, n, silentDelay, feed.nextPublication());
          if (next > j) {
            // (the clock does not visit these rows' times: the replay's end still counts the last of
            // them; a constant delay draws nothing, and a row's time at the bot is its lts + the delay)
            const t = lts[rowsNow[next - 1]!]! + silentDelay;
            botPrev = Math.max(botPrev, t);
            silentAt = Math.max(silentAt, t);
            j = next;
            if (j < n) {
              // botTime
              const q = rowsNow[j]!;
              let tq: number;
              if (kind[q]! >= KIND_XLEVEL) {
                if (lts[q] !== xLts) {
                  xLts = lts[q]!;
                  xDelay = latency.feed();
                }
                tq = xLts + xDelay;
              } else tq = recordedFeed ? lts[q]! : lts[q]! + latency.feed();
              botPrev = Math.max(botPrev, tq);
              tb = botPrev;
            } else tb = Infinity;
          }
        }
      }
    }
    // the end of the data: the clock reaches the last row, taken in one pass or not
    if (out === ADVANCE_DONE) clock.advanceTo(silentAt);
    times.exPrev = exPrev;
    times.botPrev = botPrev;
    times.xLts = xLts;
    times.xDelay = xDelay;
    times.silentAt = silentAt;
    cur.i = i;
    cur.j = j;
    cur.s = s;
    cur.k = k;
    cur.tr = tr;
    cur.tx = tx;
    cur.tb = tb;
    cur.ts = ts;
    cur.nextProgress = nextProgress;
    cur.nextYield = nextYield;
    cur.nextSample = nextSample;
    return out;
  };
  let drains = 0;
  /*
   * The loop of steps and drains, as callbacks rather than an async function: a drain is
   * `drainer(settled)` (the same turn as `await settle()`, without a promise, its two resolving
   * functions and the function's suspension each time: ~0.8 MB of a run's allocation at ~1,650
   * drains), a yield a `setImmediate` whose callback goes on in a microtask (as `await turn()`).
   * Every step after the first runs in a microtask, as the async loop's continuations did.
   */
  const replay = (): Promise<void> =>
    new Promise<void>((resolve, reject) => {
      const finish = (): void => {
        lastSample = cur.nextSample;
        resolve();
      };
      const step = (): void => {
        for (;;) {
          const s = advance();
          if (s === ADVANCE_DONE) break;
          if (s === ADVANCE_ABORTED) {
            incomplete = { reason: 'interrupted', rowsReplayed: cur.i, rowsTotal: nRows, stoppedAt: clock.now() };
            break;
          }
          // a yield: signals (Ctrl-C) and output get their turn
          if (s === ADVANCE_YIELD) setImmediate(afterTurn);
          else {
            drain = false;
            drainNow();
          }
          return;
        }
        finish();
      };
      const go = (): void => {
        if (input.signal?.aborted) {
          incomplete = { reason: 'interrupted', rowsReplayed: cur.i, rowsTotal: nRows, stoppedAt: clock.now() };
          finish();
        } else step();
      };
      const settled = (): void => {
        try {
          if (++drains % YIELD_EVERY === 0) setImmediate(afterTurn);
          else go();
        } catch (e) {
          reject(e);
        }
      };
      const turned = (): void => {
        try {
          progress(cur.i);
          go();
        } catch (e) {
          reject(e);
        }
      };
      const drainNow = drainer(settled);
      const afterTurn = (): void => void RESOLVED.then(turned);
      try {
        step();
      } catch (e) {
        reject(e);
      }
    });
  live?.start((id) => {
    const m = exchange.marketOf(id);
    return m < 0 ? null : exchange.ownTop(m);
  });
  await replay();
  await live?.stop();
  if (drain) await settle();
  const end = Math.max(clock.now(), start);
  exchange.expireUntil(Math.max(lastSample, end));
  collector.sample(Math.max(lastSample, end));
  collector.trim();
  if (!incomplete) input.onProgress?.(1, { rows: nRows, totalRows: nRows, at: end });

  // End of data: stop quoting and cancel everything, as on SIGTERM, still on virtual time.
  stopReconcile();
  let finished = false;
  const done = kernel.shutdown().finally(() => {
    finished = true;
  });
  let guard = 0;
  while (!finished && guard++ < 1_000_000) {
    await turn();
    if (finished) break;
    if (!clock.runNext()) {
      await turn();
      if (!finished && clock.nextDue() === Infinity) break;
    }
  }
  await Promise.race([done, turn()]);
  feed.stop();
  collector.restateLast();
  return {
    source,
    settings,
    fast,
    collector,
    exchange,
    store,
    quoted: kernelMarkets.map((k) => k.marketId),
    start,
    end,
    rowsReplayed: incomplete ? incomplete.rowsReplayed : nRows,
    kernelTicks: ticks,
    venueCalls: venue.calls,
    drains,
    killed: kernel.killed,
    strategies: [...strategies].sort(),
    sampleMs,
    diagnostics: diag.counts,
    strategyFaults: [...diag.faults.values()],
    quotedRows: countQuotedRows(cols, rows, incomplete ? incomplete.rowsReplayed : nRows, quotedSet, stats),
    incomplete,
    ...(config.edge ? { edgeHorizonsMs: config.edge.markoutHorizonsMs } : {}),
    ranking,
    strategyParams: kernelMarkets.map((k) => ({
      marketId: k.marketId,
      strategy: config.markets.find((mc) => mc.strategy.module === k.strategy && mc.strategy.params === k.params)?.strategy.ref ?? k.strategy.name,
      params: k.params,
    })),
  };
}

/**
 * Book rows (snapshots, deltas, drop-copy levels) and trade rows of the quoted markets among the first
 * `n` rows. When those are every row of the columns, from the load's counts per market and kind
 * (`stats`); else a pass over the rows: the quoted markets are flags in a typed array (a Set lookup
 * per row cost ~2 % of a whole backtest).
 */
export function countQuotedRows(
  cols: ReplaySource['cols'],
  rows: Uint32Array,
  n: number,
  quoted: ReadonlySet<number>,
  stats: ColumnStats | null = null,
): { book: number; trade: number } {
  const isQuoted = new Uint8Array(cols.markets.length);
  for (const m of quoted) if (m >= 0) isQuoted[m] = 1;
  if (stats !== null && stats.rows === cols.rows && rows.length === cols.rows && n === rows.length) {
    let book = 0;
    let trade = 0;
    for (let m = 0; m < cols.markets.length; m++) {
      if (isQuoted[m] !== 1) continue;
      for (let k = 0; k < STAT_KINDS; k++) {
        const c = stats.counts[m * STAT_KINDS + k]!;
        if (k === KIND_TRADE) trade += c;
        else if (k !== KIND_TAKER) book += c;
      }
    }
    return { book, trade };
  }
  const market = cols.market;
  const kinds = cols.kind;
  let book = 0;
  let trade = 0;
  for (let k = 0; k < n; k++) {
    const r = rows[k]!;
    if (isQuoted[market[r]!] !== 1) continue;
    const kind = kinds[r]!;
    if (kind === KIND_TRADE) trade++;
    else if (kind !== KIND_TAKER) book++;
  }
  return { book, trade };
}

const recordedOrZero = (samples: number[]): number | { samples: number[] } => (samples.length > 0 ? { samples } : 0);
