/**
 * Book traffic for the load benchmark: a synthetic maker that changes every market's book at a fixed
 * rate (default 10 updates per second per market) by adding and cancelling resting orders in the
 * engine, so each change reaches stream subscribers as a real delta. Prices stay in two bands (bids
 * 30–45¢, asks 55–70¢ in YES terms) so the book never crosses and the bot always has something to
 * quote around; the synthetic maker never trades.
 *
 *   const d = startBookDriver(ex, { perMarketPerSecond: 10, seed: 1 });
 *   d.updates   // changes applied so far;   d.stop()
 */
import type { OrderId } from '../engine/types.ts';
import type { LocalExchange } from '../sim/local-exchange.ts';
import { derivedAddress } from '../sim/market-factory.ts';
import { toSubmitOrder } from '../sim/agents/order-builder.ts';
import { createRng } from '../sim/rng.ts';

export interface BookDriverOptions {
  perMarketPerSecond: number;
  seed: number;
  /** resting synthetic orders per market before the driver starts cancelling (default 12) */
  restingPerMarket?: number;
}

export interface BookDriver {
  readonly updates: number;
  readonly refused: number;
  stop(): void;
}

const FUNDS = 10n ** 15n;
const TICKS_PER_SECOND = 20;

export function startBookDriver(ex: LocalExchange, o: BookDriverOptions): BookDriver {
  const host = ex.state.engine;
  const rng = createRng(o.seed ^ 0x10ad);
  const trader = host.ensureTrader(derivedAddress(`bookmaker-load:maker:${o.seed}`));
  host.deposit(trader, FUNDS);
  const resting = new Map<number, OrderId[]>();
  const markets = [...ex.state.stores.markets.values()].filter((m) => m.status === 'active').map((m) => ({ index: host.marketIndex(m.id)!, tick: m.tick }));
  let updates = 0;
  let refused = 0;
  let carry = 0;

  const change = (m: { index: number; tick: number }, now: number): void => {
    const list = resting.get(m.index) ?? [];
    resting.set(m.index, list);
    if (list.length >= (o.restingPerMarket ?? 12) || (list.length > 4 && rng.next() < 0.45)) {
      const id = list.splice(Math.floor(rng.next() * list.length), 1)[0]!;
      if (host.cancel(id, now)) updates++;
      return;
    }
    const bid = rng.next() < 0.5;
    const cents = bid ? 30 + Math.floor(rng.next() * 16) : 55 + Math.floor(rng.next() * 16);
    const yesPrice = Math.max(m.tick, Math.round((cents * 10_000) / m.tick) * m.tick);
    // a YES ask is a NO bid at 1 − p: both sides need only collateral
    const order = toSubmitOrder({ market: m.index, trader, outcome: bid ? 1 : 0, side: 'buy', price: bid ? yesPrice : 1_000_000 - yesPrice, size: (1 + Math.floor(rng.next() * 5)) * 1_000_000, nowMs: now });
    const r = host.submit(order);
    if (r.ok && r.status === 'open') {
      list.push(r.id);
      updates++;
    } else refused++;
  };

  // a fixed rate spread over the second: each timer tick changes a share of the markets, round-robin
  let next = 0;
  const timer = setInterval(() => {
    const now = ex.state.clock.now();
    carry += (markets.length * o.perMarketPerSecond) / TICKS_PER_SECOND;
    while (carry >= 1) {
      change(markets[next % markets.length]!, now);
      next++;
      carry--;
    }
  }, 1000 / TICKS_PER_SECOND);
  return {
    get updates() {
      return updates;
    },
    get refused() {
      return refused;
    },
    stop: () => clearInterval(timer),
  };
}
