/**
 * Simulated counterparties driven by the exchange clock, so every feed has traffic: the agents of
 * src/sim/agents (hidden fair value, background and other makers, noise and informed takers, oracle
 * updates, resolution at the deadline) stepped per market on a timer, plus a new generated market now
 * and then. Everything is seeded: the same seed and clock give the same commands.
 *
 * The agents are engine traders (not API keys): their orders go to the engine through the EngineHost
 * (so state files replay them) and are not listed by GET /orders. A `resolve` command goes through
 * the exchange's resolveMarket service so stores, orders and activity follow. Turn the agents off by
 * not starting them (`--no-agents`, tests); `step()` advances them by hand.
 */
import type { EngineCommand } from '../engine/types.ts';
import { createMarketAgents, stepMarketAgents, type MarketAgents, type MarketAgentsConfig } from './agents/market-agents.ts';
import { generateMarket } from './agents/market-metadata.ts';
import { derivedAddress } from './market-factory.ts';
import type { LocalExchange } from './local-exchange.ts';
import { createRng } from './rng.ts';

export interface CounterpartyOptions {
  seed: number;
  /** ms between steps (default 500) */
  intervalMs?: number;
  /** ms between generated markets (default 600 000; 0 = never) */
  newMarketEveryMs?: number;
  /** lifetime of generated markets before they resolve, ms (default 30 min) */
  marketLifetimeMs?: number;
  /** other makers per market besides the background maker (default 1) */
  otherMakers?: number;
  /** overrides passed to every market's agents (rates, sizes, spreads) */
  agents?: Partial<Omit<MarketAgentsConfig, 'seed' | 'market' | 'traders' | 'initialProbability' | 'endTimeMs'>>;
}

export interface Counterparties {
  /** run one step now (also what the timer calls) */
  step(): void;
  stop(): void;
  /** hidden fair YES probability by market id after the last step (tests, diagnostics) */
  readonly fair: Map<string, number>;
}

const AGENT_FUNDS = 10_000_000_000_000n; // 10M USDC per agent: they never run dry in a long run

export function startCounterparties(ex: LocalExchange, opts: CounterpartyOptions): Counterparties {
  const { state } = ex;
  const host = state.engine;
  const rng = createRng(opts.seed ^ 0x6d61726b);
  const newMarketEvery = opts.newMarketEveryMs ?? 600_000;
  const lifetime = opts.marketLifetimeMs ?? 30 * 60_000;
  const fair = new Map<string, number>();
  const agents = new Map<string, MarketAgents>(); // by lower-cased market id
  let lastNewMarket = state.clock.now();
  let stopped = false;

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

  function agentsOf(id: string, now: number, initialProbability?: number): MarketAgents | undefined {
    const k = id.toLowerCase();
    let a = agents.get(k);
    if (a) return a;
    const m = state.services.findMarket(id);
    const idx = host.marketIndex(id);
    if (!m || idx === undefined || m.status !== 'active') return undefined;
    const p = initialProbability ?? (m.lastPrice !== null ? m.lastPrice / 1e6 : 0.15 + 0.7 * rng.next());
    a = createMarketAgents({ ...opts.agents, seed: opts.seed, market: idx, traders, initialProbability: p, endTimeMs: m.deadline }, now);
    agents.set(k, a);
    return a;
  }

  function apply(id: string, cmd: EngineCommand, now: number): void {
    if (cmd.type === 'resolve') {
      const m = state.services.findMarket(id);
      if (m && m.status !== 'resolved') state.services.resolveMarket(id, cmd.payoutYes, now, 'simulated resolution at the deadline');
      return;
    }
    host.apply(cmd); // a refusal (e.g. a maker short of tokens) just means that order is not placed
  }

  function stepMarket(id: string, now: number): void {
    const a = agentsOf(id, now);
    const idx = host.marketIndex(id);
    const m = state.services.findMarket(id);
    if (!a || idx === undefined || !m || a.resolved) return;
    const view = { market: idx, tick: m.tick, bestBid: host.engine.bestBid(idx), bestAsk: host.engine.bestAsk(idx) };
    const r = stepMarketAgents(a, now, view);
    fair.set(id.toLowerCase(), r.fairProbability);
    for (const cmd of r.commands) apply(m.id, cmd, now);
    if (r.oracle) {
      const posts = r.oracle.confidence === 'high' ? 10 : r.oracle.confidence === 'medium' ? 5 : 2;
      state.services.oracleUpdate(m.id, now, Math.round(r.oracle.probability * 1000) / 1000, posts);
    }
  }

  function step(): void {
    if (stopped) return;
    const now = state.clock.now();
    for (const m of [...state.stores.markets.values()]) if (m.status === 'active') stepMarket(m.id, now);
    if (newMarketEvery > 0 && now - lastNewMarket >= newMarketEvery) {
      lastNewMarket = now;
      const g = generateMarket(rng, now, lifetime);
      if (!state.services.findMarket(g.marketId)) {
        state.services.addMarket({ id: g.marketId, question: g.question, shortQuestion: g.shortQuestion, slug: g.slug, category: g.category, deadline: g.endTimeMs }, now);
        agentsOf(g.marketId, now, g.initialProbability);
      }
    }
  }

  ex.every(opts.intervalMs ?? 500, step);
  return {
    step,
    stop: () => {
      stopped = true;
    },
    fair,
  };
}
