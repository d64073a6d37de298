/** oracle-anchored quote function: a ladder around the oracle/book blend, wider when they disagree. */
import { fairPrice } from '../../src/strategy/fair-price.ts';
import { fairBook } from '../../src/strategy/others-book.ts';
import { edgeAdjust, guardedLadder } from '../../src/strategy/edge-adjust.ts';
import { applyPrintPull } from '../../src/strategy/print-pull.ts';
import { applySweepReact } from '../../src/strategy/sweep-react.ts';
import type { DesiredQuote, MarketView } from '../../src/strategy/types.ts';
import type { OracleAnchoredConfig } from './config.ts';
import { blendFair } from './fair-value.ts';

export function quoteOracleAnchored(view: MarketView, cfg: OracleAnchoredConfig): DesiredQuote[] | null {
  if (cfg.size < view.minSize) return null;
  const ref = fairPrice(fairBook(view, cfg.fairFrom), cfg.book);
  const blend = blendFair(ref === null ? null : ref / 1e6, view.oracle, cfg.oracleWeight, cfg.maxOracleAgeMs);
  if (!blend || (blend.stale && cfg.pullWhenStale)) return null;
  const half = blend.disagreement > cfg.disagreeThreshold ? cfg.halfSpread * cfg.widenFactor : cfg.halfSpread;
  const center = blend.fair - cfg.inventorySkew * (view.position.net / 1e6);
  // toxicity / regime: a wider half spread, a smaller size, maybe one side (src/strategy/edge-adjust.ts)
  const adj = edgeAdjust(view, cfg.toxicity);
  const quotes = guardedLadder(
    { center, half, spacing: cfg.levelSpacing, levels: cfg.levels, size: cfg.size, tick: view.tick, tag: 'oracle-anchored' },
    adj,
    view.minSize,
  );
  // a side a taker just printed on is left out for a while (afterPrint; off by default)
  // and after a taker sweep, the swept-toward side pulled and the rest moved toward it (afterSweep; off by default)
  return applySweepReact(applyPrintPull(quotes, view, cfg.afterPrint, cfg.toxicity), view, cfg.afterSweep);
}
