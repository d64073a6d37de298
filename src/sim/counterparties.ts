/**
 * Simulated counterparties driven by the exchange clock, so every feed has traffic: the agents of
 * src/sim/agents (hidden fair value, background and other makers, noise and informed takers, oracle
 * updates) stepped per market on a timer. Everything is seeded: the same seed and clock give the same
 * commands. Agents trade every `active` market, including markets created after they started (by the
 * market churn, ./market-churn.ts, or POST /markets), and stop on a market that closes or resolves (its
 * agents are dropped, so a long run does not keep them).
 *
 * Deadlines: with a market churn (passed as `churn`, or made here when `newMarketEveryMs` > 0) the
 * churn closes and resolves markets, drawing the payout with the agents' hidden fair value; without
 * one, the agents resolve a market themselves at its deadline (the earlier behaviour).
 *
 * The agents are engine traders (not API keys): their orders go to the engine through the EngineHost
 * (so state files replay them) and are not listed by GET /orders. A `resolve` command goes through
 * the exchange's resolveMarket service so stores, orders and activity follow. Turn the agents off by
 * not starting them (`--no-agents`, tests); `step()` advances them by hand.
 */
import type { EngineCommand } from '../engine/types.ts';
import type { Bytes32 } from '../model/order.ts';
import { createMarketAgents, stepMarketAgents, type MarketAgents } from './agents/market-agents.ts';
import type { AgentView } from './agents/agent-types.ts';
import type { SubmitNote } from './agents/background-maker.ts';
import { createMarketChurn, type MarketChurn } from './market-churn.ts';
import { derivedAddress } from './market-factory.ts';
import type { LocalExchange } from './local-exchange.ts';
import { createRng } from './rng.ts';
import { DEFAULT_NOISE_TAKER } from './agents/noise-taker.ts';
import { DEFAULT_INFORMED_TAKER } from './agents/informed-taker.ts';
import { flowPresetAgents, type AgentOverrides, type FlowPreset } from './flow-presets.ts';

export interface CounterpartyOptions {
  seed: number;
  /** ms between steps (default 500) */
  intervalMs?: number;
  /** ms between generated markets of a churn made here (default 0 = none; see `churn`) */
  newMarketEveryMs?: number;
  /** lifetime of those generated markets before their deadline, ms (default 30 min) */
  marketLifetimeMs?: number;
  /**
   * the exchange's market churn (started on its own timer by the caller): the agents then leave
   * deadlines and resolutions to it, and lend it their fair value for the payout draw
   */
  churn?: MarketChurn;
  /** other makers per market besides the background maker (default 1) */
  otherMakers?: number;
  /**
   * the flow preset (./flow-presets.ts, default benign): its agent settings under `agents`; a preset
   * other than benign sets the takers' arrival rates itself (those of `agents` are dropped)
   */
  flow?: FlowPreset;
  /** overrides passed to every market's agents (rates, sizes, spreads) */
  agents?: AgentOverrides;
  /**
   * The book the agents act on, from the engine's: a synthetic backtest adds the bot's resting
   * quotes, which live in its own engine (src/backtest/synthetic-source.ts), so takers that cross
   * reach them and informed takers weigh them against the fair value. Called once per market and step.
   */
  viewOf?: (marketId: string, view: AgentView) => AgentView;
}

export interface Counterparties {
  /** run one step now (also what the timer calls) */
  step(): void;
  stop(): void;
  /** what every market's agents run with: other makers, and the takers' arrivals per second per market */
  readonly settings: { readonly otherMakers: number; readonly noiseRatePerSec: number; readonly informedRatePerSec: number };
  /** hidden fair YES probability by market id after the last step (tests, diagnostics) */
  readonly fair: Map<string, number>;
}

const AGENT_FUNDS = 10_000_000_000_000n; // 10M USDC per agent: they never run dry in a long run

/** The agents of a config's `venue.local.agents` (src/config/types.ts LocalVenueSettings['agents']). */
export interface AgentCounts {
  readonly noiseTakers: number;
  readonly informedTakers: number;
  /** other makers per market besides the background maker */
  readonly makers: number;
  /** mean taker arrivals per second per market, all takers together */
  readonly takerRatePerSecond: number;
}

/**
 * The counterparty options of a config's agents. The taker rate is shared by the takers: each noise or
 * informed taker arrives at `takerRatePerSecond / (noiseTakers + informedTakers)`. Takers of one kind
 * are one Poisson stream at the sum of their rates (the same arrivals as that many independent takers)
 * from one engine account. The defaults (3 noise, 2 informed, 0.5 per second) are the agents' own
 * defaults, i.e. what `bookmaker sim` runs: noise 0.3 and informed 0.2 arrivals per second.
 */
export function counterpartyAgents(a: AgentCounts): Pick<CounterpartyOptions, 'otherMakers' | 'agents'> {
  const takers = a.noiseTakers + a.informedTakers;
  // rate × n / takers (not (rate / takers) × n): the defaults come out as exactly 0.3 and 0.2
  const share = (n: number): number => (takers > 0 ? (a.takerRatePerSecond * n) / takers : 0);
  return {
    otherMakers: Math.max(0, a.makers),
    agents: { noise: { ratePerSec: share(a.noiseTakers) }, informed: { ratePerSec: share(a.informedTakers) } },
  };
}

/** The agent settings of a preset with the caller's overrides (a preset other than benign keeps its own taker rates). */
function presetAgents(flow: FlowPreset, agents: CounterpartyOptions['agents']): NonNullable<CounterpartyOptions['agents']> {
  if (flow === 'benign' || !agents) return flowPresetAgents(flow, agents);
  const { noise, informed, ...rest } = agents;
  const strip = <T extends { ratePerSec?: number }>(x: T | undefined): Omit<T, 'ratePerSec'> | undefined => {
    if (!x) return undefined;
    const { ratePerSec: _drop, ...kept } = x;
    return kept;
  };
  const n = strip(noise);
  const i = strip(informed);
  return flowPresetAgents(flow, { ...rest, ...(n ? { noise: n } : {}), ...(i ? { informed: i } : {}) });
}

export function startCounterparties(ex: LocalExchange, rawOpts: CounterpartyOptions): Counterparties {
  const opts: CounterpartyOptions =
    rawOpts.flow === undefined || rawOpts.flow === 'benign' ? rawOpts : { ...rawOpts, agents: presetAgents(rawOpts.flow, rawOpts.agents) };
  const { state } = ex;
  const host = state.engine;
  const rng = createRng(opts.seed ^ 0x6d61726b);
  const fair = new Map<string, number>();
  const agents = new Map<string, MarketAgents>(); // by lower-cased market id
  // a churn of our own (stepped with the agents) when asked for generated markets and none was given
  const ownChurn =
    opts.churn === undefined && (opts.newMarketEveryMs ?? 0) > 0
      ? createMarketChurn(ex, {
          seed: opts.seed,
          newMarketEveryMs: opts.newMarketEveryMs!,
          ...(opts.marketLifetimeMs !== undefined ? { lifetimeMs: opts.marketLifetimeMs } : {}),
        })
      : undefined;
  const churn = opts.churn ?? ownChurn;
  if (churn) churn.payoutProbability = (id) => fair.get(id) ?? fairOfMarket(id);
  let stopped = false;

  /** the initial probability of a generated market the agents have not stepped yet */
  function fairOfMarket(id: string): number | undefined {
    const p = state.services.findMarket(id)?.metadata.initialProbability;
    return typeof p === 'number' && p > 0 && p < 1 ? p : undefined;
  }

  // Each market present at start-up that states no probability draws its initial one now, in market
  // order, whatever becomes of it before the first step: drawing lazily at the first step would let
  // a market resolved (or closed) before then shift every later market onto its neighbour's draw.
  const startDraws = new Map<string, number>();
  for (const m of state.stores.markets.values()) {
    if (m.status === 'active' && fairOfMarket(m.id) === undefined && m.lastPrice === null) startDraws.set(m.id, 0.15 + 0.7 * rng.next());
  }

  const trader = (name: string): number => {
    const addr = derivedAddress(`bookmaker-sim:agent:${opts.seed}:${name}`);
    const had = host.traderIndex(addr);
    const t = host.ensureTrader(addr);
    if (had === undefined) host.deposit(t, AGENT_FUNDS);
    return t;
  };
  const traders = {
    maker: trader('maker'),
    noise: trader('noise'),
    informed: trader('informed'),
    otherMakers: Array.from({ length: opts.otherMakers ?? 1 }, (_, i) => trader(`maker-${i + 1}`)),
  };

  function agentsOf(id: Bytes32, now: number, initialProbability?: number): MarketAgents | undefined {
    const k = id;
    let a = agents.get(k);
    if (a) return a;
    const m = state.services.findMarket(id);
    const idx = host.marketIndex(id);
    if (!m || idx === undefined || m.status !== 'active') return undefined;
    const p = initialProbability ?? fairOfMarket(id) ?? (m.lastPrice !== null ? m.lastPrice / 1e6 : (startDraws.get(k) ?? 0.15 + 0.7 * rng.next()));
    // with a churn, it closes and resolves the market; the agents just stop when it is no longer active
    a = createMarketAgents({ ...opts.agents, seed: opts.seed, market: idx, traders, initialProbability: p, ...(churn ? {} : { endTimeMs: m.deadline }) }, now);
    agents.set(k, a);
    return a;
  }

  function apply(id: Bytes32, cmd: EngineCommand, now: number, note?: SubmitNote): void {
    if (cmd.type === 'resolve') {
      const m = state.services.findMarket(id);
      if (m && m.status !== 'resolved') state.services.resolveMarket(id, cmd.payoutYes, now, 'simulated resolution at the deadline');
      return;
    }
    const r = host.apply(cmd); // a refusal (e.g. a maker short of tokens) just means that order is not placed
    note?.(r as { ok: boolean; id?: number; status?: string });
  }

  // a maker keeping its queue place (src/sim/agents/background-maker.ts keepQueue) asks what is left of its orders
  const makerOrders = { remaining: (id: number): number => host.engine.order(id)?.remainingShares ?? 0 };

  function stepMarket(id: Bytes32, now: number): void {
    const a = agentsOf(id, now);
    const idx = host.marketIndex(id);
    const m = state.services.findMarket(id);
    if (!a || idx === undefined || !m || a.resolved) return;
    const engineView: AgentView = { market: idx, tick: m.tick, bestBid: host.engine.bestBid(idx), bestAsk: host.engine.bestAsk(idx) };
    const view = opts.viewOf ? opts.viewOf(m.id, engineView) : engineView;
    const r = stepMarketAgents(a, now, view, makerOrders);
    fair.set(id, r.fairProbability);
    for (const cmd of r.commands) apply(m.id, cmd, now, r.notes?.get(cmd));
    if (r.oracle) {
      const posts = r.oracle.confidence === 'high' ? 10 : r.oracle.confidence === 'medium' ? 5 : 2;
      state.services.oracleUpdate(m.id, now, Math.round(r.oracle.probability * 1000) / 1000, posts);
    }
  }

  function step(): void {
    if (stopped) return;
    const now = state.clock.now();
    ownChurn?.step();
    for (const m of [...state.stores.markets.values()]) if (m.status === 'active') stepMarket(m.id, now);
    // agents of markets that closed or resolved are dropped (their fair value stays until the resolution)
    for (const [k, a] of agents) {
      const m = state.stores.markets.get(k);
      if (m && m.status === 'active' && !a.resolved) continue;
      agents.delete(k);
      if (!m || m.status === 'resolved') fair.delete(k);
    }
    for (const k of fair.keys()) if (!agents.has(k) && state.stores.markets.get(k)?.status !== 'closed') fair.delete(k);
  }

  ex.every(opts.intervalMs ?? 500, step);
  return {
    step,
    settings: {
      otherMakers: traders.otherMakers.length,
      noiseRatePerSec: opts.agents?.noise?.ratePerSec ?? DEFAULT_NOISE_TAKER.ratePerSec,
      informedRatePerSec: opts.agents?.informed?.ratePerSec ?? DEFAULT_INFORMED_TAKER.ratePerSec,
    },
    stop: () => {
      stopped = true;
    },
    fair,
  };
}
