/**
 * Simulated counterparties driven by the exchange clock, so every feed has traffic: per market a
 * background maker ladder around a hidden fair value (random walk with occasional jumps), noise
 * takers (IOC orders at random sizes), periodic oracle updates, and now and then a new market.
 * Everything is seeded: the same seed and clock give the same commands.
 *
 * The agents talk to the engine directly (through the EngineHost, so state files replay them); they
 * are not API keys and their orders are not listed by GET /orders. Turn them off by not starting
 * them (`--no-agents`, tests); `step()` advances them by hand.
 */
import type { SubmitOrder } from '../engine/types.ts';
import { ONE } from '../model/units.ts';
import { derivedAddress, generatedMarketInput } from './market-factory.ts';
import type { LocalExchange } from './local-exchange.ts';
import { oracleUpdate } from './oracle.ts';
import { createRng, type Rng } from './rng.ts';

export interface CounterpartyOptions {
  seed: number;
  /** ms between steps (default 1000) */
  intervalMs?: number;
  /** probability per market per step that a noise taker trades (default 0.3) */
  takerRate?: number;
  /** ms between oracle updates per market (default 30 000) */
  oracleEveryMs?: number;
  /** ms between generated markets (default 600 000; 0 = never) */
  newMarketEveryMs?: number;
  /** maker ladder levels per side (default 3) */
  levels?: number;
  /** lifetime of generated markets before they resolve, ms (default 30 min) */
  marketLifetimeMs?: number;
}

export interface Counterparties {
  /** run one step now (also what the timer calls) */
  step(): void;
  stop(): void;
  /** hidden fair YES values by market id (tests) */
  readonly fair: Map<string, number>;
}

const AGENT_FUNDS = 1_000_000_000_000n; // 1M USDC per agent

export function startCounterparties(ex: LocalExchange, opts: CounterpartyOptions): Counterparties {
  const { state } = ex;
  const host = state.engine;
  const rng: Rng = createRng(opts.seed ^ 0xc0ffee);
  const interval = opts.intervalMs ?? 1000;
  const takerRate = opts.takerRate ?? 0.3;
  const oracleEvery = opts.oracleEveryMs ?? 30_000;
  const newMarketEvery = opts.newMarketEveryMs ?? 600_000;
  const levels = opts.levels ?? 3;
  const marketLifetime = opts.marketLifetimeMs ?? 30 * 60_000;
  const fair = new Map<string, number>();
  const lastOracle = new Map<string, number>();
  let lastNewMarket = state.clock.now();
  let generated = 0;
  let stopped = false;

  const trader = (name: string): number => {
    const addr = derivedAddress(`bookmaker-sim:agent:${opts.seed}:${name}`);
    const had = host.traderIndex(addr);
    const t = host.ensureTrader(addr);
    if (had === undefined) host.deposit(t, AGENT_FUNDS);
    return t;
  };
  const maker = trader('maker');
  const taker = trader('taker');

  const tickOf = (marketId: string): number => state.services.findMarket(marketId)?.tick ?? 10_000;
  const snap = (p: number, tick: number): number => Math.min(ONE - tick, Math.max(tick, Math.round(p / tick) * tick));

  /** A BUY of `outcome` at `price` for `shares`, with the V2 budget the SDK would sign. */
  function buy(market: number, who: number, outcome: 0 | 1, price: number, shares: number, now: number, ioc: boolean): SubmitOrder {
    const c = Math.ceil((price * shares) / ONE);
    const fee = Math.max(1, Math.floor(c / 100));
    return { market, trader: who, outcome, kind: 0, price, maxShares: 0, minSharesOut: shares, maxCollateralIn: c + fee, minCollateralOut: 0, maxFee: fee, timeInForce: ioc ? 1 : 0, nowMs: now };
  }

  function stepMarket(id: string, now: number): void {
    const m = state.services.findMarket(id);
    const idx = host.marketIndex(id);
    if (!m || idx === undefined || m.status !== 'active') return;
    const tick = tickOf(id);
    let f = fair.get(id) ?? 0.2 + 0.6 * rng.next();
    f += (rng.next() - 0.5) * 0.01;
    if (rng.chance(0.01)) f += (rng.next() - 0.5) * 0.2; // occasional news jump
    f = Math.min(0.95, Math.max(0.05, f));
    fair.set(id, f);
    const fp = f * ONE;

    // the background maker requotes its ladder: YES bids below fair, YES asks (= NO bids) above it
    host.apply({ type: 'cancelAll', trader: maker, market: idx, nowMs: now });
    for (let i = 1; i <= levels; i++) {
      const size = (5 + rng.int(0, 20)) * ONE;
      const bid = snap(fp - i * tick - tick, tick);
      const ask = snap(fp + i * tick + tick, tick);
      if (bid < ask) {
        host.submit(buy(idx, maker, 1, bid, size, now, false));
        host.submit(buy(idx, maker, 0, ONE - ask, size, now, false));
      }
    }

    // a noise taker crosses the spread now and then
    if (rng.chance(takerRate)) {
      const yes = rng.chance(0.5 + (f - 0.5) * 0.5); // informed a little: leans towards fair
      const shares = (1 + rng.int(0, 9)) * ONE;
      const limit = snap(yes ? fp + 5 * tick : ONE - fp + 5 * tick, tick);
      host.submit(buy(idx, taker, yes ? 1 : 0, limit, shares, now, true));
    }

    if (now - (lastOracle.get(id) ?? 0) >= oracleEvery) {
      lastOracle.set(id, now);
      oracleUpdate(state, id, now, Math.round(f * 1000) / 1000, rng.int(0, 12));
    }
  }

  /** A market past its deadline resolves by its hidden fair value (a coin weighted by it). */
  function maybeResolve(id: string, now: number): void {
    const m = state.services.findMarket(id);
    if (!m || m.status !== 'active' || now < m.deadline) return;
    const yes = rng.chance(fair.get(id) ?? 0.5);
    state.services.resolveMarket(id, yes ? ONE : 0, now, `simulated resolution at fair ${(fair.get(id) ?? 0.5).toFixed(3)}`);
  }

  function step(): void {
    if (stopped) return;
    const now = state.clock.now();
    for (const m of [...state.stores.markets.values()]) {
      maybeResolve(m.id, now);
      stepMarket(m.id, now);
    }
    if (newMarketEvery > 0 && now - lastNewMarket >= newMarketEvery) {
      lastNewMarket = now;
      // generated markets are short-lived, so resolutions happen in a long run
      state.services.addMarket({ ...generatedMarketInput(++generated), deadline: now + marketLifetime }, now);
    }
  }

  ex.every(interval, step);
  return {
    step,
    stop: () => {
      stopped = true;
    },
    fair,
  };
}
