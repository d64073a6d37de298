/**
 * Adapts the venue client's conditional order-book GET (`client.markets.orderbook`) to the stream's
 * `SnapshotFetcher`, so resync and polling go through the client's retries, rate limits and unit handling.
 * Typed structurally: anything with the same `markets.orderbook` shape works (the client, a fake in tests).
 */
import type { BookSnapshot } from '../../model/book.ts';
import type { OutcomeIndex } from '../../model/order.ts';
import type { SnapshotFetcher } from './snapshot-fetcher.ts';

export interface OrderbookSource {
  markets: {
    orderbook(
      marketId: string,
      opts: { outcomeIndex?: OutcomeIndex; depth?: number; etag?: string },
    ): Promise<{ status: 200; book: BookSnapshot; etag: string | null } | { status: 304 }>;
  };
}

export function venueSnapshotFetcher(client: OrderbookSource, marketId: string, outcomeIndex: OutcomeIndex, depth = 20): SnapshotFetcher {
  return async (etag) => {
    const r = await client.markets.orderbook(marketId, etag ? { outcomeIndex, depth, etag } : { outcomeIndex, depth });
    if (r.status === 304) return { status: 304 };
    return r.etag ? { status: 200, book: r.book, etag: r.etag } : { status: 200, book: r.book };
  };
}
