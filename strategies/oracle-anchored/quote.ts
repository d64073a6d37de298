/** oracle-anchored quote function: a ladder around the oracle/book blend, wider when they disagree. */
import { fairPrice } from '../../src/strategy/fair-price.ts';
import { ladder } from '../../src/strategy/ladder.ts';
import type { DesiredQuote, MarketView } from '../../src/strategy/types.ts';
import type { OracleAnchoredConfig } from './config.ts';
import { blendFair } from './fair-value.ts';

export function quoteOracleAnchored(view: MarketView, cfg: OracleAnchoredConfig): DesiredQuote[] | null {
  if (cfg.size < view.minSize) return null;
  const ref = fairPrice(view.book, cfg.book);
  const blend = blendFair(ref === null ? null : ref / 1e6, view.oracle, cfg.oracleWeight, cfg.maxOracleAgeMs);
  if (!blend || (blend.stale && cfg.pullWhenStale)) return null;
  const half = blend.disagreement > cfg.disagreeThreshold ? cfg.halfSpread * cfg.widenFactor : cfg.halfSpread;
  const center = blend.fair - cfg.inventorySkew * (view.position.net / 1e6);
  return ladder({ center, half, spacing: cfg.levelSpacing, levels: cfg.levels, size: cfg.size, tick: view.tick, tag: 'oracle-anchored' });
}
