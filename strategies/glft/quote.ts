/** glft quote function: the GLFT closed form around the fair price, in the market's ticks. */
import { fairPrice } from '../../src/strategy/fair-price.ts';
import { fairBook } from '../../src/strategy/others-book.ts';
import { edgeAdjust, guardedLadder } from '../../src/strategy/edge-adjust.ts';
import { applySweepReact } from '../../src/strategy/sweep-react.ts';
import { flowLeanShift } from '../../src/strategy/ladder-config.ts';
import { viewSigma } from '../../src/strategy/volatility.ts';
import type { DesiredQuote, MarketView } from '../../src/strategy/types.ts';
import type { GlftConfig } from './config.ts';
import { glftCoefficients, glftQuotes } from './model.ts';

export function quoteGlft(view: MarketView, cfg: GlftConfig): DesiredQuote[] | null {
  const ref = fairPrice(fairBook(view, cfg.fairFrom), cfg.fair);
  if (ref === null || cfg.size < view.minSize) return null;
  const tickP = view.tick / 1e6;
  const sigma = cfg.sigma ?? viewSigma(view, { lambda: cfg.ewmaLambda, minSigma: cfg.minSigma });
  const c = glftCoefficients({ A: cfg.A, k: cfg.k, gamma: cfg.gamma, xi: cfg.xi ?? cfg.gamma, delta: 1 });
  const { half, skew } = glftQuotes(c, sigma / tickP, 1);
  const q = view.position.net / cfg.inventoryUnit;
  // ticks → probability; the spread clamp as the other strategies
  const center = ref / 1e6 - skew * q * tickP + flowLeanShift(view, cfg);
  const halfP = Math.min(cfg.maxSpread / 2, Math.max(cfg.minSpread / 2, half * tickP));
  const adj = edgeAdjust(view, cfg.toxicity);
  const quotes = guardedLadder(
    { center, half: halfP, spacing: cfg.levelSpacing, levels: cfg.levels, size: cfg.size, tick: view.tick, tag: 'glft' },
    adj,
    view.minSize,
  );
  // after a taker sweep: the swept-toward side pulled, the rest moved toward it (afterSweep; off by default)
  return applySweepReact(quotes, view, cfg.afterSweep);
}
