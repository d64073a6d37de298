/** An in-memory venue for the rank tests: the reads ranking uses, with call counts and injectable faults. */
import type { MarketInfo } from '../../src/exchange/client/parse-market.ts';
import type { RankSource } from '../../src/selection/gather.ts';
import type { Bytes32 } from '../../src/model/order.ts';

export const mid = (n: number): Bytes32 => ('0x' + n.toString(16).padStart(64, '0')) as Bytes32;

export interface FakeMarket {
  info: MarketInfo;
  /** YES book, 1e-6 units */
  bids: { price: number; size: number }[];
  asks: { price: number; size: number }[];
  history: number[];
  trades: number;
  oracle: number | null;
}

export function market(
  n: number,
  o: { bid?: number | null; ask?: number | null; volume?: bigint; status?: MarketInfo['status']; category?: string; deadline?: string | null } = {},
): FakeMarket {
  const bid = o.bid === undefined ? 450_000 : o.bid;
  const ask = o.ask === undefined ? 470_000 : o.ask;
  return {
    info: {
      id: mid(n),
      question: `Market ${n}?`,
      shortQuestion: `M${n}`,
      slug: `m${n}`,
      status: o.status ?? 'active',
      resolutionStatus: 'none',
      outcomePrices: [{ outcomeIndex: 1, bestBid: bid, bestAsk: ask, spread: null, midPrice: null, lastPrice: null, sellPrice: null, buyPrice: null }],
      outcomeTokens: [],
      volume: o.volume ?? BigInt(n) * 1_000_000_000n,
      volume24h: 0n,
      participantCount: null,
      deadline: o.deadline === undefined ? '2027-01-01T00:00:00.000Z' : o.deadline,
      createdAt: null,
      outcome: null,
      creator: null,
      oracle: null,
      categories: [o.category ?? 'sports'],
    },
    bids: bid === null ? [] : [{ price: bid, size: 100_000_000 }],
    asks: ask === null ? [] : [{ price: ask, size: 100_000_000 }],
    history: [500_000, 510_000, 500_000],
    trades: 5,
    oracle: 0.5,
  };
}

export interface Fake extends RankSource {
  markets: Required<RankSource['markets']> & { iterate(p: unknown): AsyncGenerator<MarketInfo> };
  activity: NonNullable<RankSource['activity']>;
  all: FakeMarket[];
  calls: Record<string, number>;
  maxInFlight: number;
  fail: { list?: (page: number) => boolean; book?: (id: string) => boolean };
}

export function fakeSource(all: FakeMarket[]): Fake {
  const calls: Record<string, number> = {};
  let inFlight = 0;
  const byId = (id: string): FakeMarket => {
    const m = all.find((x) => x.info.id.toLowerCase() === id.toLowerCase() || x.info.slug === id);
    if (!m) throw new Error(`404 market ${id}`);
    return m;
  };
  const call = async <T>(name: string, f: () => T): Promise<T> => {
    calls[name] = (calls[name] ?? 0) + 1;
    inFlight++;
    src.maxInFlight = Math.max(src.maxInFlight, inFlight);
    try {
      await new Promise((r) => setImmediate(r));
      return f();
    } finally {
      inFlight--;
    }
  };
  const listed = (p: { status?: string[]; category?: string; sortBy?: string }): MarketInfo[] => {
    const xs = all
      .map((m) => m.info)
      .filter((m) => (!p.status || p.status.includes(m.status)) && (!p.category || m.categories.some((c) => c.toLowerCase() === p.category!.toLowerCase())));
    if (p.sortBy === 'volume') xs.sort((a, b) => (b.volume > a.volume ? 1 : b.volume < a.volume ? -1 : 0));
    if (p.sortBy === 'new') xs.reverse();
    return xs;
  };
  const src: Fake = {
    all,
    calls,
    maxInFlight: 0,
    fail: {},
    markets: {
      list: (p) =>
        call('list', () => {
          const off = p.cursor ? Number(p.cursor) : 0;
          if (src.fail.list?.(off / 50)) throw new Error('503 list');
          const xs = listed(p as never);
          const page = xs.slice(off, off + (p.limit ?? 50));
          return { markets: page, cursor: off + page.length < xs.length ? String(off + page.length) : null };
        }),
      async *iterate(p: unknown) {
        for (const m of listed(p as never)) yield m;
      },
      get: (id) => call('get', () => byId(id).info),
      orderbook: (id) =>
        call('orderbook', () => {
          if (src.fail.book?.(id)) throw new Error('500 book');
          const m = byId(id);
          return { status: 200 as const, etag: null, book: { marketId: m.info.id, outcomeIndex: 1 as const, bids: m.bids, asks: m.asks, venueTs: 0 } };
        }),
      prices: (id) =>
        call('prices', () => ({ prices: byId(id).history.map((price, i) => ({ time: i * 900, price })), startTime: 0, endTime: 0, interval: 900 })),
      latestOracleQuote: (id) =>
        call('oracle', () => {
          const p = byId(id).oracle;
          return p === null
            ? null
            : {
                id: 1,
                status: 'completed' as const,
                probability: p,
                confidence: null,
                reasoning: null,
                referenceMarketsCount: 0,
                createdAt: '',
                completedAt: null,
              };
        }),
    },
    activity: {
      market: (id) =>
        call('activity', () => ({
          marketId: null,
          activity: Array.from({ length: byId(id).trades }, () => ({ type: 'trade', marketId: null, timestamp: null, data: {} })),
          cursor: null,
          hasMore: false,
        })),
    },
  };
  return src;
}
