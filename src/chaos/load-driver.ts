/**
 * Book traffic for the load benchmark: a synthetic maker that changes every market's book at a fixed
 * rate (default 10 updates per second per market) by adding and cancelling resting orders in the
 * engine, so each change reaches stream subscribers as a real delta. Bids and asks are placed 1–8¢
 * either side of a centre that walks by a cent now and then (so mids move and the bot requotes);
 * the synthetic book never crosses, so the synthetic maker never trades with itself.
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

  // each market's centre walks by a cent now and then, so the mid moves and the bot has to requote
  const centre = new Map<number, number>();
  const change = (m: { index: number; tick: number }, now: number): void => {
    const list = resting.get(m.index) ?? [];
    resting.set(m.index, list);
    let c = centre.get(m.index) ?? 50;
    if (rng.next() < 0.05) c = Math.min(80, Math.max(20, c + (rng.next() < 0.5 ? -1 : 1)));
    centre.set(m.index, c);
    if (list.length >= (o.restingPerMarket ?? 12) || (list.length > 4 && rng.next() < 0.45)) {
      // oldest first: levels left behind by the walking centre go away
      const id = list.shift()!;
      if (host.cancel(id, now)) updates++;
      return;
    }
    const bid = rng.next() < 0.5;
    const offset = 1 + Math.floor(rng.next() * 8);
    const cents = bid ? c - offset : c + offset;
    let yesPrice = Math.max(m.tick, Math.min(1_000_000 - m.tick, Math.round((cents * 10_000) / m.tick) * m.tick));
    // never cross the synthetic book (the driver must not trade with itself)
    const bestBid = host.engine.bestBid(m.index);
    const bestAsk = host.engine.bestAsk(m.index);
    if (bid && bestAsk > 0 && yesPrice >= bestAsk) yesPrice = bestAsk - m.tick;
    if (!bid && bestBid > 0 && yesPrice <= bestBid) yesPrice = bestBid + m.tick;
    if (yesPrice <= 0 || yesPrice >= 1_000_000) return;
    // a YES ask is a NO bid at 1 − p: both sides need only collateral
    const order = toSubmitOrder({
      market: m.index,
      trader,
      outcome: bid ? 1 : 0,
      side: 'buy',
      price: bid ? yesPrice : 1_000_000 - yesPrice,
      size: (1 + Math.floor(rng.next() * 5)) * 1_000_000,
      nowMs: now,
    });
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
