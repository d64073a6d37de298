/**
 * An informed taker: at Poisson arrivals it compares the touch with the hidden fair value and,
 * when a side is mispriced by more than its edge, takes it with an IOC limited at fair ∓ edge — so
 * its trades push the book toward fair value, and quotes that lag a jump get picked off.
 */
import type { EngineCommand } from '../../engine/types.ts';
import type { Rng } from '../rng.ts';
import type { AgentStep, AgentView } from './agent-types.ts';
import { type ArrivalState } from './noise-taker.ts';
import { snapPrice, toSubmitOrder } from './order-builder.ts';
import { exponential, logNormalShares } from './random-draws.ts';

export interface InformedTakerConfig {
  trader: number;
  /** arrivals per second (default 0.2) */
  ratePerSec: number;
  /** required mispricing, in ticks (default 2) */
  edgeTicks: number;
  /** most shares per trade in 1e-6 units (default 30 shares) */
  maxSize: number;
  /**
   * News: IOC orders of `maxSize` sent at once when the fair value jumps, before the makers can
   * move (default 0: none; the `toxic` flow preset sets it)
   */
  newsTrades: number;
  /** shares of each news order in 1e-6 units (default 0: maxSize) */
  newsSize: number;
  /** > 0: sizes log-normal with this log-sd and median `sizeMedian` shares, capped at maxSize (default 0: uniform 1..maxSize) */
  sizeLogSd: number;
  sizeMedian: number;
}

export const DEFAULT_INFORMED_TAKER: Readonly<Omit<InformedTakerConfig, 'trader'>> = Object.freeze({
  ratePerSec: 0.2,
  edgeTicks: 2,
  maxSize: 30_000_000,
  newsTrades: 0,
  newsSize: 0,
  sizeLogSd: 0,
  sizeMedian: 10,
});

/**
 * The informed taker's answer to news (a jump of the fair value in this step): `newsTrades` IOC
 * orders of the full size on the mispriced side, limited at fair ∓ edge, all against the book as it
 * stood before the jump (the makers refresh after the takers in a step).
 */
export function newsOrders(cfg: InformedTakerConfig, nowMs: number, view: AgentView, fairProbability: number): EngineCommand[] {
  const out: EngineCommand[] = [];
  for (let i = 0; i < cfg.newsTrades; i++) {
    const c = mispricedOrder(cfg, cfg.newsSize > 0 ? cfg.newsSize : cfg.maxSize, nowMs, view, fairProbability * 1_000_000);
    if (c) out.push(c);
  }
  return out;
}

export function stepInformedTaker(
  cfg: InformedTakerConfig,
  state: ArrivalState,
  rng: Rng,
  nowMs: number,
  view: AgentView,
  fairProbability: number,
): AgentStep<ArrivalState> {
  const commands: EngineCommand[] = [];
  let next = state.nextMs;
  if (next <= nowMs) {
    const c = informedOrder(cfg, rng, nowMs, view, fairProbability * 1_000_000);
    if (c) commands.push(c);
    while (next <= nowMs) next += Math.max(1, exponential(rng, cfg.ratePerSec) * 1000);
  }
  return { state: { nextMs: next }, commands, nextMs: next };
}

function informedOrder(cfg: InformedTakerConfig, rng: Rng, nowMs: number, view: AgentView, fair: number): EngineCommand | null {
  const size =
    cfg.sizeLogSd > 0
      ? logNormalShares(rng, cfg.sizeMedian, cfg.sizeLogSd, cfg.maxSize)
      : rng.int(1, Math.max(1, Math.round(cfg.maxSize / 1_000_000))) * 1_000_000;
  return mispricedOrder(cfg, size, nowMs, view, fair);
}

function mispricedOrder(cfg: InformedTakerConfig, size: number, nowMs: number, view: AgentView, fair: number): EngineCommand | null {
  const edge = cfg.edgeTicks * view.tick;
  const common = { market: view.market, trader: cfg.trader, side: 'buy' as const, size, timeInForce: 1 as const, nowMs };
  if (view.bestAsk !== 0 && view.bestAsk <= fair - edge) {
    return { type: 'submit', order: toSubmitOrder({ ...common, outcome: 1, price: snapPrice(fair - edge, view.tick, 'down') }) };
  }
  if (view.bestBid !== 0 && view.bestBid >= fair + edge) {
    const yes = snapPrice(fair + edge, view.tick, 'up');
    return { type: 'submit', order: toSubmitOrder({ ...common, outcome: 0, price: 1_000_000 - yes }) };
  }
  return null;
}
