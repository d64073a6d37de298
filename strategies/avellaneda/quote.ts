/** avellaneda quote function: reservation price and optimal spread around the fair price. */
import { fairPrice } from '../../src/strategy/fair-price.ts';
import { fairBook } from '../../src/strategy/others-book.ts';
import { edgeAdjust, guardedLadder } from '../../src/strategy/edge-adjust.ts';
import { applySweepReact } from '../../src/strategy/sweep-react.ts';
import { flowLeanShift } from '../../src/strategy/ladder-config.ts';
import { viewSigma } from '../../src/strategy/volatility.ts';
import type { DesiredQuote, MarketView } from '../../src/strategy/types.ts';
import type { AvellanedaConfig } from './config.ts';
import { horizonSeconds, optimalSpread, reservationPrice } from './model.ts';

export function quoteAvellaneda(view: MarketView, cfg: AvellanedaConfig): DesiredQuote[] | null {
  const ref = fairPrice(fairBook(view, cfg.fairFrom), cfg.fair);
  if (ref === null || cfg.size < view.minSize) return null;
  const sigma = cfg.sigma ?? viewSigma(view, { lambda: cfg.ewmaLambda, minSigma: cfg.minSigma });
  const inputs = {
    s: ref / 1e6,
    q: view.position.net / cfg.inventoryUnit,
    gamma: cfg.gamma,
    sigma,
    tau: horizonSeconds(view.now, view.deadline, cfg.horizonFloorSeconds, cfg.horizonCapSeconds),
    k: cfg.k,
  };
  // r may leave [0, 1] under heavy inventory; the ladder clamps prices and drops a pinned side
  const r = reservationPrice(inputs) + flowLeanShift(view, cfg);
  const spread = Math.min(cfg.maxSpread, Math.max(cfg.minSpread, optimalSpread(inputs)));
  // toxicity / regime: a wider half spread, a smaller size, maybe one side (src/strategy/edge-adjust.ts)
  const adj = edgeAdjust(view, cfg.toxicity);
  const quotes = guardedLadder(
    { center: r, half: spread / 2, spacing: cfg.levelSpacing, levels: cfg.levels, size: cfg.size, tick: view.tick, tag: 'avellaneda' },
    adj,
    view.minSize,
  );
  // after a taker sweep: the swept-toward side pulled, the rest moved toward it (afterSweep; off by default)
  return applySweepReact(quotes, view, cfg.afterSweep);
}
