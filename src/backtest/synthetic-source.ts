/**
 * Synthetic markets for a backtest: the local exchange's markets and simulated counterparties
 * (src/sim: hidden fair value, background and other makers, noise and informed takers, oracle
 * updates) on a virtual clock, captured with the venue's drop copy — the others' book, every taker
 * order and every trade, as the engine produced them (src/sim/flow-tap.ts) — plus the oracle updates
 * and market metadata, as a ReplaySource that `runBacktest` replays through the same kernel, risk
 * gate and order manager as live, with the bot's orders in the sim venue's matching engine and each
 * taker order matched against them and the others' book (src/backtest/sim-exchange.ts).
 *
 *   liveSyntheticSource  closed loop (what `backtest --synthetic` runs): one clock. The exchange and
 *                        its agents run on the backtest's own virtual clock, their rows are appended
 *                        as the run goes, and the agents act on the book with the bot's resting
 *                        quotes in it: a taker that crosses reaches the bot's orders, an informed
 *                        taker weighs the bot's quotes against the fair value.
 *   syntheticSource      open loop: the whole flow generated first, with nobody quoting in it (what
 *                        the flow statistics measure, scripts/flow-fit.ts).
 * With nobody quoting, both give the same rows. docs/edge.md says what the loop does and does not model.
 *
 * Deterministic: the same options give the same rows (no wall clock, seeded everything), so the
 * same seed and config give the same fills.
 */
import { createLocalExchange } from '../sim/local-exchange.ts';
import { startCounterparties, type Counterparties, type CounterpartyOptions } from '../sim/counterparties.ts';
import type { FlowPreset } from '../sim/flow-presets.ts';
import type { FlowEvent } from '../sim/flow-tap.ts';
import { createMarketChurn, DEFAULT_SETTLE_OUTSIDE } from '../sim/market-churn.ts';
import type { MarketRecord } from '../sim/records.ts';
import { BadInputError } from '../model/errors.ts';
import { allocColumns, appendEventRows, toColumns, type Columns } from './recording/columns.ts';
import { RECORDING_FORMAT, type RecordedEvent, type RecordingManifest } from './recording/format.ts';
import { windowRows, type LiveFlow, type ReplaySource, type SideEvent } from './replay-source.ts';
import { VirtualClock } from './virtual-clock.ts';

export interface SyntheticOptions {
  readonly seed: number;
  /** virtual hours of trading (> 0) */
  readonly hours: number;
  /** markets traded at once (1..100) */
  readonly markets: number;
  readonly flow: FlowPreset;
  /** virtual start time, ms since the epoch (default 2026-01-05T00:00:00Z: a fixed time, for determinism) */
  readonly startMs?: number;
  /**
   * agent settings on top of the preset's (src/sim/counterparties.ts `agents`; with `benign`, taken
   * as they are: how scripts/flow-calibrate.ts tries candidate settings)
   */
  readonly agents?: CounterpartyOptions['agents'];
}

export const SYNTHETIC_START_MS = Date.UTC(2026, 0, 5, 0, 0, 0);
/** the agents' step (ms), as the local exchange runs them */
const STEP_MS = 500;
/**
 * A market whose hidden fair value is this close to 0 or 1 resolves and a fresh one takes its place
 * (src/sim/market-churn.ts `settleOutside`; docs/edge.md, "Markets that resolve and are replaced").
 */
export const SYNTHETIC_SETTLE_OUTSIDE = DEFAULT_SETTLE_OUTSIDE;

export function validateSyntheticOptions(o: SyntheticOptions): void {
  if (!Number.isSafeInteger(o.seed) || o.seed < 0) throw new BadInputError('--seed', 'a non-negative integer', o.seed);
  if (!Number.isFinite(o.hours) || o.hours <= 0 || o.hours > 24 * 30) throw new BadInputError('--hours', 'a number of hours above 0 and at most 720', o.hours);
  if (!Number.isSafeInteger(o.markets) || o.markets < 1 || o.markets > 100) throw new BadInputError('--markets', 'an integer from 1 to 100', o.markets);
}

/** A market of a synthetic run, as the backtest declares it (its id, name, tick and question). */
interface PlannedMarket {
  readonly id: string;
  readonly slug: string;
  readonly question: string;
  readonly tick: number;
  readonly deadline: number;
}

const planned = (m: MarketRecord): PlannedMarket => ({ id: m.id, slug: m.slug, question: m.question, tick: m.tick, deadline: m.deadline });

const marketMeta = (m: PlannedMarket, status: string, outcome: number | null, resolutionStatus: string): SideEvent & { t: 'market' } =>
  ({
    t: 'market',
    m: m.id,
    vts: 0,
    lts: 0,
    meta: { status, deadline: new Date(m.deadline).toISOString(), slug: m.slug, question: m.question, outcome, resolutionStatus },
  }) as SideEvent & { t: 'market' };

/**
 * A synthetic run's local exchange on a virtual clock with its market churn: `markets` generated
 * markets at the start, each resolved when its fair value leaves the settle band and replaced by a
 * fresh one at the next step (src/sim/market-churn.ts). The churn steps on its own timer, registered
 * before the counterparties', so the schedule does not depend on when they start. `onCreated` /
 * `onResolved` follow the markets.
 */
function churningExchange(o: SyntheticOptions, onCreated: (m: MarketRecord, at: number) => void, onResolved: (m: MarketRecord, at: number) => void) {
  validateSyntheticOptions(o);
  const start = o.startMs ?? SYNTHETIC_START_MS;
  const end = start + Math.round(o.hours * 3_600_000);
  const clock = new VirtualClock(start);
  const ex = createLocalExchange({ seed: o.seed, markets: [], clock, apiKeys: [], expirySweepMs: 1000 });
  const churn = createMarketChurn(ex, {
    seed: o.seed,
    newMarketEveryMs: STEP_MS,
    // no deadline inside the run: a market ends by its fair value only (binary's deadline terms stay out, as before)
    lifetimeMs: end - start + 3_600_000,
    resolutionDelayMs: 0,
    maxLiveMarkets: o.markets,
    settleOutside: SYNTHETIC_SETTLE_OUTSIDE,
    onEvent: (e) => (e.type === 'created' ? onCreated(e.market, e.atMs) : e.type === 'resolved' ? onResolved(e.market, e.atMs) : undefined),
  });
  ex.every(STEP_MS, churn.step);
  for (let i = 0; i < o.markets; i++) churn.createMarket();
  const counterparties = (viewOf?: CounterpartyOptions['viewOf']): Counterparties =>
    startCounterparties(ex, {
      seed: o.seed,
      intervalMs: STEP_MS,
      flow: o.flow,
      churn,
      ...(o.agents ? { agents: o.agents } : {}),
      ...(viewOf ? { viewOf } : {}),
    });
  return { start, end, clock, ex, churn, counterparties };
}

/**
 * The markets a synthetic run will list, in order: the churn's schedule depends only on the hidden
 * fair values, which no trader moves, so a run with nobody quoting lists the same markets at the same
 * instants as the closed loop (a test holds it). The closed loop declares them to the backtest up front.
 */
export async function syntheticMarketPlan(o: SyntheticOptions): Promise<PlannedMarket[]> {
  const out: PlannedMarket[] = [];
  const { end, clock, ex, counterparties } = churningExchange(
    o,
    (m) => out.push(planned(m)),
    () => {},
  );
  const cp = counterparties();
  let steps = 0;
  while (clock.nextDue() < end) {
    clock.runNext();
    if (++steps % 20_000 === 0) await new Promise((r) => setImmediate(r));
  }
  cp.stop();
  await ex.close();
  return out;
}

/**
 * A synthetic run's exchange, with the oracle's answers and each market's listing and resolution as
 * side events and the drop copy of every market it lists tapped into `sink` (`known`: the markets
 * declared to the backtest, announced as pending at the start; a market outside it is not tapped).
 */
function syntheticExchange(o: SyntheticOptions, sink: (e: RecordedEvent) => void, side: SideEvent[], known?: readonly PlannedMarket[]) {
  const listed: PlannedMarket[] = [];
  const taps: (() => void)[] = [];
  const knownIds = known ? new Set(known.map((m) => m.id)) : undefined;
  const at = <E extends SideEvent>(e: E, t: number): E => ({ ...e, vts: t, lts: t });
  const startMs = o.startMs ?? SYNTHETIC_START_MS;
  for (const m of known ?? []) side.push(at(marketMeta(m, 'pending', null, 'none'), startMs));
  let tapSink: ((e: FlowEvent) => void) | null = null;
  const { start, end, clock, ex, churn, counterparties } = churningExchange(
    o,
    (m, t) => {
      const p = planned(m);
      if (knownIds && !knownIds.has(p.id)) return;
      listed.push(p);
      side.push(at(marketMeta(p, 'active', null, 'none'), t));
      if (tapSink) taps.push(ex.tapFlow({ markets: [p.id], trades: true }, tapSink));
    },
    (m, t) => {
      const p = planned(m);
      if (knownIds && !knownIds.has(p.id)) return;
      // the venue's outcome index (1 = YES won, 0 = NO), as the recorder writes a market's metadata
      side.push(at(marketMeta(p, 'resolved', m.outcome, 'resolved'), t));
    },
  );
  // the oracle's answers, as the recorder's oracle poll would write them (each quote once)
  const services = ex.state.services;
  const oracleUpdate = services.oracleUpdate.bind(services);
  services.oracleUpdate = (marketId, now, chance, posts) => {
    oracleUpdate(marketId, now, chance, posts);
    if (chance === null) return;
    side.push({
      t: 'oracle',
      m: marketId,
      vts: now,
      lts: now,
      probability: Math.round(Math.min(1, Math.max(0, chance)) * 1e6),
      confidence: posts >= 10 ? 'high' : posts >= 5 ? 'medium' : 'low',
    });
  };
  tapSink = (e) => {
    // every row of one engine command at one virtual instant: a replay delivers them together
    const lts = clock.now();
    if (e.type === 'book') sink({ t: 'xbook', m: e.marketId, vts: e.atMs, lts, ...(e.snap ? { snap: true as const } : {}), b: e.bids, a: e.asks });
    else if (e.type === 'taker') sink({ t: 'taker', m: e.marketId, vts: e.atMs, lts, p: e.limit, s: e.size, side: e.side });
    else if (e.type === 'trade') sink({ t: 'trade', m: e.marketId, vts: e.atMs, lts, p: e.price, s: e.size, side: e.side });
  };
  // the markets listed at the start (before the sink was set)
  for (const p of listed) taps.push(ex.tapFlow({ markets: [p.id], trades: true }, tapSink));
  const stopTap = (): void => {
    for (const t of taps) t();
  };
  const declared = (): readonly PlannedMarket[] => known ?? listed;
  const manifest = (flowEvents: number): RecordingManifest => ({
    format: RECORDING_FORMAT,
    version: 1,
    source: `synthetic:${o.flow}:seed=${o.seed}:hours=${o.hours}:markets=${o.markets}`,
    createdAt: new Date(start).toISOString(),
    priceScale: 1_000_000,
    sizeScale: 1_000_000,
    markets: declared().map((m) => ({ id: m.id, name: m.slug, tick: m.tick })),
    files: [],
    stats: { flowEvents, oracleEvents: side.filter((e) => e.t === 'oracle').length, marketEvents: side.filter((e) => e.t === 'market').length },
  });
  return { start, end, clock, ex, churn, counterparties, declared, stopTap, manifest };
}

/**
 * Generate the flow of `markets` synthetic markets over `hours` of virtual time, as a replay source,
 * with nobody quoting in it (open loop: what the flow statistics of scripts/flow-fit.ts measure).
 */
export async function syntheticSource(o: SyntheticOptions): Promise<ReplaySource> {
  const events: RecordedEvent[] = [];
  const side: SideEvent[] = [];
  const { start, end, clock, ex, counterparties, declared, stopTap, manifest } = syntheticExchange(o, (e) => events.push(e), side);
  const cp = counterparties();
  let steps = 0;
  while (clock.nextDue() < end) {
    clock.runNext();
    // a long run yields now and then, so a signal handler (Ctrl-C) and output get their turn
    if (++steps % 20_000 === 0) await new Promise((r) => setImmediate(r));
  }
  clock.advanceTo(end);
  cp.stop();
  stopTap();
  await ex.close();
  const markets = declared();
  const cols = toColumns(
    events,
    markets.map((m) => m.id),
  );
  const ticks = markets.map((m) => m.tick);
  side.sort((a, b) => a.lts - b.lts);
  return {
    dir: `synthetic:${o.flow}:${o.seed}`,
    manifest: manifest(events.length),
    cols,
    rows: windowRows(cols.lts, cols.rows, start, end + 1),
    side,
    sideBefore: [],
    ticks,
    from: start,
    to: end + 1,
  };
}

/**
 * Synthetic markets in closed loop, for one backtest run: the local exchange and its counterparties
 * run on the backtest's own clock (`live.clock`), the drop copy's rows are appended to the source's
 * columns as the run goes, and from `live.start` on the agents act on the book with the bot's
 * resting quotes in it. A source is used by one run only (the flow depends on the bot).
 */
export async function liveSyntheticSource(o: SyntheticOptions): Promise<ReplaySource & { readonly live: LiveFlow }> {
  const plan = await syntheticMarketPlan(o);
  const side: SideEvent[] = [];
  const cols = allocColumns(1 << 16, []);
  let index: ReadonlyMap<string, number> = new Map();
  let flowEvents = 0;
  const sink = (e: RecordedEvent): void => {
    flowEvents++;
    appendEvent(cols, index, e);
  };
  const ids = plan.map((m) => m.id);
  const ticks = plan.map((m) => m.tick);
  cols.markets.push(...ids);
  index = new Map(ids.map((m, i) => [m, i]));
  const { start, end, clock, ex, counterparties, stopTap, manifest } = syntheticExchange(o, sink, side, plan);
  // each market's tap opens when the market is listed, with a snapshot of its (empty) book: the run
  // knows from that market's first row that it is a drop copy
  let identity = new Uint32Array(0);
  let cp: Counterparties | null = null;
  let closed = false;
  const live: LiveFlow = {
    clock,
    end,
    rows: () => {
      if (identity.length < cols.rows) {
        identity = new Uint32Array(cols.lts.length);
        for (let i = 0; i < identity.length; i++) identity[i] = i;
      }
      return identity.subarray(0, cols.rows);
    },
    start: (ownTop) => {
      if (cp || closed) return;
      cp = counterparties((marketId, v) => {
        const own = ownTop(marketId);
        if (own === null) return v;
        return {
          ...v,
          bestBid: own.bid > 0 && own.bid > v.bestBid ? own.bid : v.bestBid,
          bestAsk: own.ask > 0 && (v.bestAsk === 0 || own.ask < v.bestAsk) ? own.ask : v.bestAsk,
        };
      });
    },
    hiddenFair: (marketId) => cp?.fair.get(marketId),
    stop: async () => {
      if (closed) return;
      closed = true;
      cp?.stop();
      stopTap();
      await ex.close();
    },
  };
  return {
    dir: `synthetic:${o.flow}:${o.seed}:closed-loop`,
    get manifest() {
      return manifest(flowEvents);
    },
    cols,
    rows: live.rows(),
    side,
    sideBefore: [],
    ticks,
    from: start,
    to: end + 1,
    live,
  };
}

/** A drop-copy event as rows, as toColumns writes them (a market the run does not know writes none). */
function appendEvent(c: Columns, index: ReadonlyMap<string, number>, e: RecordedEvent): void {
  const m = index.get(e.m);
  if (m !== undefined) appendEventRows(c, m, e);
}
