/**
 * Config market selectors → the concrete markets to quote, each with its strategy and risk limits
 * (KernelMarket). This module fetches; the rules are src/selection/selectors.ts (`matchesSelector`,
 * `assignFirstWins`): entries are applied in config order and a market takes the FIRST entry that
 * selects it, so a specific entry (by id or slug) placed before `all`, a filter or `rank` overrides
 * it; at most `maxMarkets` markets in all. `all` means every active market, newest first (so a new
 * market is picked up at the next refresh); filters take markets by volume; `rank` entries score
 * the active markets and keep the best (src/selection/), with hysteresis against `previous`.
 * With a shard (src/selection/shard.ts) only the shard's markets are kept, before the caps and the
 * ranking: each instance fills its own `maxMarkets` from its own share.
 */
import { ConfigError } from '../model/errors.ts';
import type { Logger } from '../core/logger.ts';
import { assignFirstWins, matchesSelector, type EntryOffer, type MarketInfo as SelectionMarket } from './selectors.ts';
import type { MarketConfig } from '../config/types.ts';
import type { ListMarketsParams } from '../exchange/client/markets.ts';
import type { MarketInfo } from '../exchange/client/parse-market.ts';
import type { Bytes32 } from '../model/order.ts';
import type { KernelMarket } from '../kernel/quoting-kernel.ts';
import type { RankSource } from './gather.ts';
import { capitalOf, Ranker } from './ranker.ts';
import { shardOwns, shardText } from './shard.ts';

export interface MarketsSource {
  markets: {
    get(id: string): Promise<MarketInfo>;
    iterate(p: Omit<ListMarketsParams, 'cursor'>): AsyncGenerator<MarketInfo>;
  } & Partial<Omit<RankSource['markets'], 'get'>>;
  activity?: RankSource['activity'];
}

export interface SelectMarketsOptions {
  /** at most this many markets in all (default 200) */
  readonly maxMarkets?: number;
  /** keep only this shard's markets (src/selection/shard.ts; null or absent: every market) */
  readonly shard?: { readonly index: number; readonly count: number } | null;
  /** lower-case ids quoted now, for the rank entries' hysteresis (undefined = first selection) */
  readonly previous?: ReadonlySet<string>;
  /** keeps rank state between refreshes, owned by whoever selects again (default: a fresh one, for a one-off selection) */
  readonly ranker?: Ranker;
  /** ms since epoch (default Date.now) — deadlines and hold times */
  readonly now?: () => number;
  readonly log?: Logger;
  /** an empty selection is returned instead of a ConfigError (a refresh, where no market may be fine) */
  readonly allowEmpty?: boolean;
}

async function take(it: AsyncGenerator<MarketInfo>, keep: (m: MarketInfo) => boolean, limit: number): Promise<MarketInfo[]> {
  const out: MarketInfo[] = [];
  for await (const m of it) {
    if (!keep(m)) continue;
    out.push(m);
    if (limit > 0 && out.length >= limit) break;
  }
  return out;
}

/** The venue's market as the selection rules see it. */
export function selectionInfo(m: MarketInfo): SelectionMarket {
  return { id: m.id, ...(m.slug !== null ? { slug: m.slug } : {}), categories: m.categories, status: m.status, volume: m.volume };
}

export async function selectMarkets(
  client: MarketsSource,
  entries: readonly MarketConfig[],
  options: SelectMarketsOptions | number = {},
): Promise<KernelMarket[]> {
  const opts: SelectMarketsOptions = typeof options === 'number' ? { maxMarkets: options } : options;
  const maxMarkets = opts.maxMarkets ?? 200;
  const ranker = opts.ranker ?? new Ranker();
  const now = opts.now ?? Date.now;
  // with a shard, only this instance's markets (src/selection/shard.ts, rendezvous hashing), before the
  // caps: rank entries and `all`/filters consult it, so a shard ranks and fills only its own markets
  const shard = opts.shard ?? null;
  const owns = (id: Bytes32): boolean => shardOwns(id, shard);
  const offers: EntryOffer[] = [];
  const capital = new Map<number, number>();
  ranker.beginRefresh();
  for (const [i, cfg] of entries.entries()) {
    const s = cfg.select;
    let found: MarketInfo[];
    if (s.by === 'id' || s.by === 'slug') {
      const ref = s.by === 'id' ? s.id : s.slug;
      try {
        found = [await client.markets.get(ref)].filter((m) => owns(m.id));
      } catch (e) {
        throw new ConfigError(`markets[${i}]: market ${ref} not found at the venue (${(e as Error).message})`, { cause: e });
      }
    } else if (s.by === 'rank') {
      if (typeof client.markets.list !== 'function') throw new ConfigError(`markets[${i}]: a rank entry needs a venue client that lists markets`);
      const taken = assignFirstWins(offers, maxMarkets);
      const report = await ranker.rank(client as RankSource, i, cfg, {
        nowMs: now(),
        skip: (id) => taken.has(id) || !owns(id as Bytes32), // the listed markets' ids: the venue client's
        previous: opts.previous,
        ...(opts.log ? { log: opts.log } : {}),
      });
      const cap = capitalOf(s.rank, cfg);
      capital.set(i, cap.perMarket);
      const kept = report.rows.filter((r) => r.verdict === 'selected' || r.verdict === 'kept' || r.verdict === 'held');
      offers.push({ ids: kept.map((r) => r.id), limit: 0 });
      continue;
    } else if (s.by === 'filter') {
      const p: Omit<ListMarketsParams, 'cursor'> = { status: [s.status], limit: 50, sortBy: 'volume', ...(s.category ? { category: s.category } : {}) };
      found = await take(
        client.markets.iterate(p),
        (m) => owns(m.id) && matchesSelector(s, selectionInfo(m)),
        (s.limit || maxMarkets) + offers.reduce((n, o) => n + o.ids.length, 0),
      );
    } else {
      found = await take(
        client.markets.iterate({ status: ['active'], limit: 50, sortBy: 'new' }),
        (m) => owns(m.id) && matchesSelector(s, selectionInfo(m)),
        maxMarkets + offers.reduce((n, o) => n + o.ids.length, 0),
      );
    }
    offers.push({ ids: found.map((m) => m.id), limit: s.by === 'filter' ? s.limit : 0 });
  }
  const taken = assignFirstWins(offers, maxMarkets);
  ranker.commit(taken, now());
  if (taken.size === 0 && !opts.allowEmpty)
    throw new ConfigError(`markets: no market at the venue matches the configured selectors${shard ? ` in shard ${shardText(shard)}` : ''}`);
  return [...taken].map(([id, entry]) => {
    const cfg = entries[entry]!;
    const per = capital.get(entry);
    // a ranked market's notional limit is its share of the entry's capital
    const risk = per !== undefined && per > 0 && per < cfg.risk.maxNotional ? { ...cfg.risk, maxNotional: per } : cfg.risk;
    // the venue client's ids (found markets, and rank rows keyed by them): normal form already
    return { marketId: id as Bytes32, strategy: cfg.strategy.module, params: cfg.strategy.params, risk };
  });
}
