/**
 * Synthetic markets for a backtest: the local exchange's markets and simulated counterparties
 * (src/sim: hidden fair value, background and other makers, noise and informed takers, oracle
 * updates) run on the backtest's virtual clock for `hours`, and their flow is captured as a
 * recording with the venue's drop copy — the others' book, every taker order and every trade, as
 * the engine produced them (src/sim/flow-tap.ts) — plus the oracle updates and market metadata. The
 * result is a ReplaySource: `runBacktest` replays it through the same kernel, risk gate and order
 * manager as live, with the bot's orders in the sim venue's matching engine and each recorded taker
 * order matched against them and the others' book (src/backtest/sim-exchange.ts).
 *
 * The counterparties do not see the bot (the flow is generated first, then replayed): a taker's
 * order is matched against the bot's quotes whenever they are better than the others', as on the
 * venue, but the makers do not move away from the bot's prices and informed takers trade on the
 * others' book only. docs/edge.md says what this means for the results.
 *
 * Deterministic: the same options give the same rows (no wall clock, seeded everything), so the
 * same seed and config give the same fills.
 */
import { createLocalExchange } from '../sim/local-exchange.ts';
import { startCounterparties, type CounterpartyOptions } from '../sim/counterparties.ts';
import type { FlowPreset } from '../sim/flow-presets.ts';
import type { NewMarketInput } from '../sim/context.ts';
import { DEMO_MARKETS } from '../sim/market-factory.ts';
import { BadInputError } from '../model/errors.ts';
import { toColumns } from './recording/columns.ts';
import { RECORDING_FORMAT, type RecordedEvent, type RecordingManifest } from './recording/format.ts';
import { windowRows, type ReplaySource, type SideEvent } from './replay-source.ts';
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

/** Generate the flow of `markets` synthetic markets over `hours` of virtual time, as a replay source. */
export async function syntheticSource(o: SyntheticOptions): Promise<ReplaySource> {
  validateSyntheticOptions(o);
  const start = o.startMs ?? SYNTHETIC_START_MS;
  const end = start + Math.round(o.hours * 3_600_000);
  const clock = new VirtualClock(start);
  const ex = createLocalExchange({ seed: o.seed, markets: marketInputs(o.markets, end), clock, apiKeys: [], expirySweepMs: 1000 });
  const ids = [...ex.state.stores.markets.values()].map((m) => m.id);
  const events: RecordedEvent[] = [];
  const side: SideEvent[] = [];
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
    if (e.type === 'book') events.push({ t: 'xbook', m: e.marketId, vts: e.atMs, lts, ...(e.snap ? { snap: true as const } : {}), b: e.bids, a: e.asks });
    else if (e.type === 'taker') events.push({ t: 'taker', m: e.marketId, vts: e.atMs, lts, p: e.limit, s: e.size, side: e.side });
    else if (e.type === 'trade') events.push({ t: 'trade', m: e.marketId, vts: e.atMs, lts, p: e.price, s: e.size, side: e.side });
  });
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
  const ticks = [...ex.state.stores.markets.values()].map((m) => m.tick);
  const manifest: RecordingManifest = {
    format: RECORDING_FORMAT,
    version: 1,
    source: `synthetic:${o.flow}:seed=${o.seed}:hours=${o.hours}:markets=${o.markets}`,
    createdAt: new Date(start).toISOString(),
    priceScale: 1_000_000,
    sizeScale: 1_000_000,
    markets: [...ex.state.stores.markets.values()].map((m) => ({ id: m.id, name: m.slug, tick: m.tick })),
    files: [],
    stats: { flowEvents: events.length, oracleEvents: side.filter((e) => e.t === 'oracle').length, marketEvents: o.markets },
  };
  const cols = toColumns(events, ids);
  side.sort((a, b) => a.lts - b.lts);
  return {
    dir: `synthetic:${o.flow}:${o.seed}`,
    manifest,
    cols,
    rows: windowRows(cols.lts, cols.rows, start, end + 1),
    side,
    sideBefore: [],
    ticks,
    from: start,
    to: end + 1,
  };
}
