/**
 * A noise taker: Poisson arrivals, a random side and a random size, sent as an IOC market order
 * that may walk a few ticks through the book. It knows nothing about fair value.
 */
import type { EngineCommand } from '../../engine/types.ts';
import type { Rng } from '../rng.ts';
import type { AgentStep, AgentView } from './agent-types.ts';
import { snapPrice, toSubmitOrder } from './order-builder.ts';
import { exponential, logNormalShares } from './random-draws.ts';

export interface NoiseTakerConfig {
  trader: number;
  /** arrivals per second (default 0.3) */
  ratePerSec: number;
  /** size range in 1e-6 shares, uniform in whole shares (default 1–20 shares) */
  minSize: number;
  maxSize: number;
  /** how far through the touch it will trade, in ticks (default 3) */
  slippageTicks: number;
  /** > 0: sizes log-normal with this log-sd and median `sizeMedian` shares, capped at maxSize (default 0: uniform) */
  sizeLogSd: number;
  sizeMedian: number;
}

export const DEFAULT_NOISE_TAKER: Readonly<Omit<NoiseTakerConfig, 'trader'>> = Object.freeze({
  ratePerSec: 0.3,
  minSize: 1_000_000,
  maxSize: 20_000_000,
  slippageTicks: 3,
  sizeLogSd: 0,
  sizeMedian: 10,
});

export interface ArrivalState {
  nextMs: number;
}

export function initArrivals(rng: Rng, ratePerSec: number, nowMs: number): ArrivalState {
  return { nextMs: nowMs + exponential(rng, ratePerSec) * 1000 };
}

/** At most this many arrivals are served per step, so a long pause does not produce a burst. */
const MAX_ARRIVALS_PER_STEP = 5;

export function stepNoiseTaker(cfg: NoiseTakerConfig, state: ArrivalState, rng: Rng, nowMs: number, view: AgentView): AgentStep<ArrivalState> {
  const commands: EngineCommand[] = [];
  let next = state.nextMs;
  let served = 0;
  while (next <= nowMs) {
    if (served < MAX_ARRIVALS_PER_STEP) {
      const c = noiseOrder(cfg, rng, nowMs, view);
      if (c) commands.push(c);
      served++;
    }
    next += Math.max(1, exponential(rng, cfg.ratePerSec) * 1000);
  }
  return { state: { nextMs: next }, commands, nextMs: next };
}

function noiseOrder(cfg: NoiseTakerConfig, rng: Rng, nowMs: number, view: AgentView): EngineCommand | null {
  const size =
    cfg.sizeLogSd > 0
      ? logNormalShares(rng, cfg.sizeMedian, cfg.sizeLogSd, cfg.maxSize)
      : rng.int(Math.round(cfg.minSize / 1_000_000), Math.round(cfg.maxSize / 1_000_000)) * 1_000_000;
  const buyYes = rng.chance(0.5);
  const reach = cfg.slippageTicks * view.tick;
  if (buyYes) {
    if (view.bestAsk === 0) return null;
    const limit = snapPrice(view.bestAsk + reach, view.tick, 'down');
    return {
      type: 'submit',
      order: toSubmitOrder({ market: view.market, trader: cfg.trader, outcome: 1, side: 'buy', price: limit, size, timeInForce: 1, marketOrder: true, nowMs }),
    };
  }
  if (view.bestBid === 0) return null;
  // selling YES exposure = buying NO at 1 − p
  const limitYes = snapPrice(view.bestBid - reach, view.tick, 'up');
  return {
    type: 'submit',
    order: toSubmitOrder({
      market: view.market,
      trader: cfg.trader,
      outcome: 0,
      side: 'buy',
      price: 1_000_000 - limitYes,
      size,
      timeInForce: 1,
      marketOrder: true,
      nowMs,
    }),
  };
}
