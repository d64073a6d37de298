/**
 * Config market selectors → the concrete markets to quote, each with its strategy and risk limits
 * (KernelMarket). Selectors are applied in config order and a market takes the FIRST entry that
 * selects it, so a specific entry (by id or slug) placed before `all: true` overrides the default.
 * `all` means every active market (at most `maxMarkets`, newest first, to keep a mistake bounded).
 * With a shard (src/runtime/shard.ts) only the shard's markets are kept, before the caps: each
 * instance fills its own `maxMarkets` from its own share.
 */
import { ConfigError } from '../model/errors.ts';
import type { MarketConfig } from '../config/types.ts';
import type { ListMarketsParams } from '../exchange/client/markets.ts';
import type { MarketInfo } from '../exchange/client/parse-market.ts';
import type { Bytes32 } from '../model/order.ts';
import type { KernelMarket } from './quoting-kernel.ts';
import { shardOwns, shardText, type Shard } from './shard.ts';

export interface MarketsSource {
  markets: {
    get(id: string): Promise<MarketInfo>;
    iterate(p: Omit<ListMarketsParams, 'cursor'>): AsyncGenerator<MarketInfo>;
  };
}

export interface SelectMarketsOptions {
  /** cap on the markets of an `all` entry or a filter without its own limit (default 200) */
  readonly maxMarkets?: number;
  /** keep only this shard's markets (null or absent: every market) */
  readonly shard?: Shard | null;
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

export async function selectMarkets(client: MarketsSource, entries: readonly MarketConfig[], opts: SelectMarketsOptions = {}): Promise<KernelMarket[]> {
  const maxMarkets = opts.maxMarkets ?? 200;
  const shard = opts.shard ?? null;
  const mine = (m: MarketInfo): boolean => shardOwns(m.id, shard);
  const chosen = new Map<string, KernelMarket>();
  for (const [i, cfg] of entries.entries()) {
    const s = cfg.select;
    let found: MarketInfo[];
    if (s.by === 'id' || s.by === 'slug') {
      const ref = s.by === 'id' ? s.id : s.slug;
      try {
        found = [await client.markets.get(ref)].filter(mine);
      } catch (e) {
        throw new ConfigError(`markets[${i}]: market ${ref} not found at the venue (${(e as Error).message})`, { cause: e });
      }
    } else if (s.by === 'filter') {
      const p: Omit<ListMarketsParams, 'cursor'> = { status: [s.status], limit: 50, sortBy: 'volume', ...(s.category ? { category: s.category } : {}) };
      found = await take(client.markets.iterate(p), (m) => m.volume >= BigInt(s.minVolume) && mine(m), s.limit || maxMarkets);
    } else {
      found = await take(client.markets.iterate({ status: ['active'], limit: 50, sortBy: 'new' }), mine, maxMarkets);
    }
    for (const m of found) {
      const k = m.id.toLowerCase();
      if (!chosen.has(k)) chosen.set(k, { marketId: m.id as Bytes32, strategy: cfg.strategy.module, params: cfg.strategy.params, risk: cfg.risk });
    }
  }
  if (chosen.size === 0) throw new ConfigError(`markets: no market at the venue matches the configured selectors${shard ? ` in shard ${shardText(shard)}` : ''}`);
  return [...chosen.values()];
}
