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
import type { NewMarketInput } from '../sim/context.ts';
import { DEMO_MARKETS } from '../sim/market-factory.ts';
import { BadInputError } from '../model/errors.ts';
import { allocColumns, appendEventRows, appendRow, KIND_XCLEAR, toColumns, type Columns } from './recording/columns.ts';
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

/** Markets of a synthetic run: the demo markets first, then numbered ones; all end an hour after the run. */
function marketInputs(n: number, endMs: number): NewMarketInput[] {
  const out: NewMarketInput[] = [];
  for (let i = 0; i < n; i++) {
    const demo = DEMO_MARKETS[i];
    out.push(
      demo
        ? { ...demo, deadline: endMs + 3_600_000 }
        : { question: `Will synthetic event ${i + 1} happen?`, shortQuestion: `Synthetic event ${i + 1}?`, deadline: endMs + 3_600_000 },
    );
  }
  return out;
}

export function validateSyntheticOptions(o: SyntheticOptions): void {
  if (!Number.isSafeInteger(o.seed) || o.seed < 0) throw new BadInputError('--seed', 'a non-negative integer', o.seed);
  if (!Number.isFinite(o.hours) || o.hours <= 0 || o.hours > 24 * 30) throw new BadInputError('--hours', 'a number of hours above 0 and at most 720', o.hours);
  if (!Number.isSafeInteger(o.markets) || o.markets < 1 || o.markets > 100) throw new BadInputError('--markets', 'an integer from 1 to 100', o.markets);
}

/** A synthetic run's local exchange on a virtual clock, its market metadata and the tap of its drop copy into `sink`. */
function syntheticExchange(o: SyntheticOptions, sink: (e: RecordedEvent) => void, side: SideEvent[]) {
  validateSyntheticOptions(o);
  const start = o.startMs ?? SYNTHETIC_START_MS;
  const end = start + Math.round(o.hours * 3_600_000);
  const clock = new VirtualClock(start);
  const ex = createLocalExchange({ seed: o.seed, markets: marketInputs(o.markets, end), clock, apiKeys: [], expirySweepMs: 1000 });
  const ids = [...ex.state.stores.markets.values()].map((m) => m.id);
  for (const m of ex.state.stores.markets.values()) {
    side.push({
      t: 'market',
      m: m.id,
      vts: start,
      lts: start,
      meta: {
        status: m.status,
        deadline: new Date(m.deadline).toISOString(),
        slug: m.slug,
        question: m.question,
        outcome: null,
        resolutionStatus: m.resolutionStatus,
      },
    });
  }
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
  const stopTap = ex.tapFlow({ markets: ids, trades: true }, (e) => {
    // every row of one engine command at one virtual instant: a replay delivers them together
    const lts = clock.now();
    if (e.type === 'book') sink({ t: 'xbook', m: e.marketId, vts: e.atMs, lts, ...(e.snap ? { snap: true as const } : {}), b: e.bids, a: e.asks });
    else if (e.type === 'taker') sink({ t: 'taker', m: e.marketId, vts: e.atMs, lts, p: e.limit, s: e.size, side: e.side });
    else if (e.type === 'trade') sink({ t: 'trade', m: e.marketId, vts: e.atMs, lts, p: e.price, s: e.size, side: e.side });
  });
  const manifest = (flowEvents: number): RecordingManifest => ({
    format: RECORDING_FORMAT,
    version: 1,
    source: `synthetic:${o.flow}:seed=${o.seed}:hours=${o.hours}:markets=${o.markets}`,
    createdAt: new Date(start).toISOString(),
    priceScale: 1_000_000,
    sizeScale: 1_000_000,
    markets: [...ex.state.stores.markets.values()].map((m) => ({ id: m.id, name: m.slug, tick: m.tick })),
    files: [],
    stats: { flowEvents, oracleEvents: side.filter((e) => e.t === 'oracle').length, marketEvents: o.markets },
  });
  const ticks = [...ex.state.stores.markets.values()].map((m) => m.tick);
  return { start, end, clock, ex, ids, stopTap, manifest, ticks };
}

/**
 * Generate the flow of `markets` synthetic markets over `hours` of virtual time, as a replay source,
 * with nobody quoting in it (open loop: what the flow statistics of scripts/flow-fit.ts measure).
 */
export async function syntheticSource(o: SyntheticOptions): Promise<ReplaySource> {
  const events: RecordedEvent[] = [];
  const side: SideEvent[] = [];
  const { start, end, clock, ex, ids, stopTap, manifest, ticks } = syntheticExchange(o, (e) => events.push(e), side);
  const cp = startCounterparties(ex, { seed: o.seed, intervalMs: STEP_MS, flow: o.flow, ...(o.agents ? { agents: o.agents } : {}) });
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
  const cols = toColumns(events, ids);
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
export function liveSyntheticSource(o: SyntheticOptions): ReplaySource & { readonly live: LiveFlow } {
  const side: SideEvent[] = [];
  const cols = allocColumns(1 << 16, []);
  let index = new Map<string, number>();
  let flowEvents = 0;
  const sink = (e: RecordedEvent): void => {
    flowEvents++;
    appendEvent(cols, index, e);
  };
  const { start, end, clock, ex, ids, stopTap, manifest, ticks } = syntheticExchange(o, sink, side);
  cols.markets.push(...ids);
  index = new Map(ids.map((m, i) => [m, i]));
  // the tap's opening snapshot (empty books: the agents have not stepped) came before the index had
  // the ids; it is written here, so the run knows from the first row that every market is a drop copy
  for (let i = 0; i < ids.length; i++) appendRow(cols, start, start, i, KIND_XCLEAR, 0, 0, 0);
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
      cp = startCounterparties(ex, {
        seed: o.seed,
        intervalMs: STEP_MS,
        flow: o.flow,
        ...(o.agents ? { agents: o.agents } : {}),
        viewOf: (marketId, v) => {
          const own = ownTop(marketId);
          if (own === null) return v;
          return {
            ...v,
            bestBid: own.bid > 0 && own.bid > v.bestBid ? own.bid : v.bestBid,
            bestAsk: own.ask > 0 && (v.bestAsk === 0 || own.ask < v.bestAsk) ? own.ask : v.bestAsk,
          };
        },
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
