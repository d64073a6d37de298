/**
 * Which markets to quote with which settings: the config's selectors applied to the venue's market
 * list. Entries are tried in order and the first that selects a market wins, so a specific entry
 * (by id or slug) placed before a filter or `all` overrides it for that market. Filters and `all`
 * pick by volume, highest first, so `limit` is deterministic. A selector by id needs no list entry
 * (the runtime fetches that market directly); a slug that the list does not contain is reported.
 */
import type { Bytes32 } from '../model/order.ts';
import type { MarketStatus } from '../strategy/types.ts';
import type { MarketConfig, MarketSelector } from './types.ts';

export interface MarketInfo {
  readonly id: Bytes32;
  readonly slug?: string;
  readonly category?: string;
  readonly status: MarketStatus;
  /** 1e-6 USDC */
  readonly volume: number;
}

export interface SelectedMarket {
  readonly marketId: Bytes32;
  readonly config: MarketConfig;
  /** index of the config entry that selected it */
  readonly entry: number;
}

export interface Selection {
  readonly selected: SelectedMarket[];
  /** slugs named by the config that the venue list does not contain */
  readonly missing: string[];
}

function matches(sel: MarketSelector, m: MarketInfo): boolean {
  switch (sel.by) {
    case 'id':
      return m.id.toLowerCase() === sel.id;
    case 'slug':
      return m.slug === sel.slug;
    case 'all':
      return m.status === 'active';
    case 'filter':
      return m.status === sel.status && m.volume >= sel.minVolume && (sel.category === undefined || m.category?.toLowerCase() === sel.category.toLowerCase());
  }
}

export function selectMarkets(configs: readonly MarketConfig[], markets: readonly MarketInfo[]): Selection {
  const byVolume = [...markets].sort((a, b) => b.volume - a.volume || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const taken = new Map<string, SelectedMarket>();
  const missing: string[] = [];
  configs.forEach((config, entry) => {
    const sel = config.select;
    if (sel.by === 'id') {
      if (!taken.has(sel.id)) taken.set(sel.id, { marketId: sel.id, config, entry });
      return;
    }
    const found = byVolume.filter((m) => matches(sel, m));
    if (sel.by === 'slug' && found.length === 0) missing.push(sel.slug);
    const cap = sel.by === 'filter' && sel.limit > 0 ? sel.limit : Number.POSITIVE_INFINITY;
    let n = 0;
    for (const m of found) {
      if (n >= cap) break;
      const id = m.id.toLowerCase();
      if (taken.has(id)) continue; // an earlier entry already owns it; it does not count toward this limit
      taken.set(id, { marketId: id as Bytes32, config, entry });
      n++;
    }
  });
  return { selected: [...taken.values()], missing };
}
