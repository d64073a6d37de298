/**
 * Which markets to quote with which settings: the rules, pure (the runtime's selectMarkets in
 * src/selection/select-markets.ts fetches and applies these same functions, so there is one truth).
 * - `matchesSelector`: whether a listed market passes an entry's selector (rank: its pre-filter).
 * - `assignFirstWins`: entries are tried in order and the first that selects a market wins, so a
 *   specific entry (by id or slug) placed before a filter, `rank` or `all` overrides it for that
 *   market; a market an earlier entry owns does not count toward a later entry's `limit`; at most
 *   `maxMarkets` in all.
 * - `selectMarkets(configs, list)`: the two over one market list. Filters and `all` pick by volume,
 *   highest first, so `limit` is deterministic; `rank` entries need the venue (scores) and are the
 *   runtime's. A selector by id needs no list entry; a slug the list does not contain is reported.
 */
import type { Bytes32 } from '../model/order.ts';
import type { MarketStatus } from '../strategy/types.ts';
import type { MarketConfig, MarketSelector } from '../config/types.ts';

export interface MarketInfo {
  readonly id: Bytes32;
  readonly slug?: string;
  readonly category?: string;
  /** the venue's metadata.categories */
  readonly categories?: readonly string[];
  readonly status: MarketStatus;
  /** 1e-6 USDC */
  readonly volume: number | bigint;
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

export function matchesSelector(sel: MarketSelector, m: MarketInfo): boolean {
  switch (sel.by) {
    case 'id':
      return m.id === sel.id;
    case 'slug':
      return m.slug === sel.slug;
    case 'all':
      return m.status === 'active';
    case 'filter':
      return m.status === sel.status && BigInt(m.volume) >= BigInt(sel.minVolume) && categoryMatches(sel.category, m);
    case 'rank':
      return m.status === 'active' && BigInt(m.volume) >= BigInt(sel.rank.minVolume) && categoryMatches(sel.rank.category, m);
  }
}

/** Case-insensitive; a market that names no category at all passes (the venue's own category filter chose it). */
function categoryMatches(want: string | undefined, m: MarketInfo): boolean {
  if (want === undefined) return true;
  const all = [...(m.category !== undefined ? [m.category] : []), ...(m.categories ?? [])];
  return all.length === 0 || all.some((c) => c.toLowerCase() === want.toLowerCase());
}

/** What one entry offers, best first, and how many it may take (0 = no cap). */
export interface EntryOffer {
  /** market ids in normal form (the venue client's, docs/architecture.md#ids-at-the-boundary) */
  readonly ids: readonly string[];
  readonly limit: number;
}

/** market id → index of the entry that owns it; the first entry wins, at most `maxMarkets` in all. */
export function assignFirstWins(offers: readonly EntryOffer[], maxMarkets = Number.POSITIVE_INFINITY): Map<string, number> {
  const taken = new Map<string, number>();
  offers.forEach((o, entry) => {
    let n = 0;
    for (const id of o.ids) {
      if (taken.size >= maxMarkets || (o.limit > 0 && n >= o.limit)) break;
      if (taken.has(id)) continue; // an earlier entry already owns it; it does not count toward this limit
      taken.set(id, entry);
      n++;
    }
  });
  return taken;
}

export function selectMarkets(configs: readonly MarketConfig[], markets: readonly MarketInfo[], maxMarkets = Number.POSITIVE_INFINITY): Selection {
  const byVolume = [...markets].sort((a, b) =>
    BigInt(b.volume) > BigInt(a.volume) ? 1 : BigInt(b.volume) < BigInt(a.volume) ? -1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0,
  );
  const missing: string[] = [];
  const offers = configs.map((config): EntryOffer => {
    const sel = config.select;
    if (sel.by === 'id') return { ids: [sel.id], limit: 0 };
    if (sel.by === 'rank') return { ids: [], limit: 0 };
    const found = byVolume.filter((m) => matchesSelector(sel, m));
    if (sel.by === 'slug' && found.length === 0) missing.push(sel.slug);
    return { ids: found.map((m) => m.id), limit: sel.by === 'filter' ? sel.limit : 0 };
  });
  const taken = assignFirstWins(offers, maxMarkets);
  return { selected: [...taken].map(([id, entry]) => ({ marketId: id as Bytes32, config: configs[entry]!, entry })), missing };
}
