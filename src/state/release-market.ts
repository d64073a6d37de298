/**
 * The reducer of MarketReleased (events.ts): a retired market's heavy state goes, its position stays
 * while it matters. Pure.
 */
import { DEFAULT_EDGE, type EdgeSettings } from './edge-settings.ts';
import type { MarketReleased } from './events.ts';
import { emptyMarket, marketWith, type MarketState } from './market-state.ts';
import { PersistentMap } from './persistent-map.ts';

/** Nothing held and nothing counted: the market can leave the store. */
export function isSettled(m: MarketState): boolean {
  return m.position.yes === 0 && m.position.no === 0 && m.position.net === 0 && m.orders.size === 0;
}

/** The markets map after a release: the market dropped, or reduced to its position record. */
export function releaseMarket(
  markets: ReadonlyMap<string, MarketState>,
  e: MarketReleased,
  edge: EdgeSettings = DEFAULT_EDGE,
): ReadonlyMap<string, MarketState> {
  const k = e.marketId;
  const m = markets.get(k);
  if (!m) return markets;
  const current = markets instanceof PersistentMap ? markets : PersistentMap.from(markets);
  if (!e.keepPosition || isSettled(m)) return current.delete(k);
  // the record a position needs: books, trades, mids, oracle, denials and edge state start empty
  const slim = marketWith(emptyMarket(m.marketId, edge), {
    slug: m.slug,
    tick: m.tick,
    minSize: m.minSize,
    deadline: m.deadline,
    status: m.status,
    payoutYes: m.payoutYes,
    lastMid2: m.lastMid2,
    orders: m.orders,
    position: m.position,
    held: m.held,
    fillIds: m.fillIds,
    blocked: m.blocked,
  });
  return current.set(k, slim);
}
