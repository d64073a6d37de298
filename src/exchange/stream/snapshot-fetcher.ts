/**
 * The JSON order-book snapshot, fetched conditionally: the stream's resync source and its polling fallback.
 *
 * The stream takes any `SnapshotFetcher`; the venue client's `getOrderbook(marketId, {outcomeIndex, depth,
 * etag})` has this shape once wrapped in a lambda. `httpSnapshotFetcher` is a minimal stand-alone one over
 * undici `request` (keep-alive, `If-None-Match`), for the CLI and for tests that run without the client.
 */
import { request, type Dispatcher } from 'undici';
import type { BookPriceUnits, BookSizeUnits, BookSnapshot } from '../../model/book.ts';
import { bytes32Of } from '../../model/ids.ts';
import type { OutcomeIndex } from '../../model/order.ts';
import { BookmakerError } from '../../model/errors.ts';
import { normalizeOrderbook } from '../client/normalize-orderbook.ts';

export type SnapshotResult = { status: 200; book: BookSnapshot; etag?: string } | { status: 304 };

/** Fetch the JSON book; with `etag`, a 304 means "unchanged since that version". */
export type SnapshotFetcher = (etag?: string, signal?: AbortSignal) => Promise<SnapshotResult>;

export interface HttpSnapshotFetcherOptions {
  baseUrl: string;
  marketId: string;
  outcomeIndex: OutcomeIndex;
  depth?: number;
  apiKey?: string;
  priceUnits?: BookPriceUnits;
  sizeUnits?: BookSizeUnits;
  /** undici dispatcher (pool); default the global one */
  dispatcher?: Dispatcher;
  /** per-request timeout, ms (default 10 000) */
  timeoutMs?: number;
}

/** The order-book URL of a market and outcome (shared with the SSE connection). */
export function orderbookUrl(baseUrl: string, marketId: string, outcomeIndex: OutcomeIndex, depth: number): string {
  const base = baseUrl.replace(/\/+$/, '');
  return `${base}/markets/${encodeURIComponent(marketId)}/orderbook?outcomeIndex=${outcomeIndex}&depth=${depth}`;
}

export function httpSnapshotFetcher(opts: HttpSnapshotFetcherOptions): SnapshotFetcher {
  const url = orderbookUrl(opts.baseUrl, opts.marketId, opts.outcomeIndex, opts.depth ?? 20);
  const hash = bytes32Of(opts.marketId);
  const timeout = opts.timeoutMs ?? 10_000;
  return async (etag, signal) => {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (opts.apiKey) headers.authorization = `Bearer ${opts.apiKey}`;
    if (etag) headers['if-none-match'] = etag;
    const res = await request(url, {
      method: 'GET',
      headers,
      signal,
      headersTimeout: timeout,
      bodyTimeout: timeout,
      ...(opts.dispatcher ? { dispatcher: opts.dispatcher } : {}),
    });
    if (res.statusCode === 304) {
      await res.body.dump();
      return { status: 304 };
    }
    const text = await res.body.text();
    if (res.statusCode !== 200) {
      let message = text.slice(0, 200);
      try {
        const j = JSON.parse(text) as { message?: unknown };
        if (typeof j.message === 'string') message = j.message;
      } catch {
        /* not JSON: keep the raw start of the body */
      }
      throw new BookmakerError('VENUE_ERROR', `GET /markets/:id/orderbook: HTTP ${res.statusCode}: ${message}`);
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (e) {
      throw new BookmakerError('BAD_RESPONSE', 'GET /markets/:id/orderbook: body is not JSON', { cause: e });
    }
    const book = normalizeOrderbook(json, {
      priceUnits: opts.priceUnits,
      sizeUnits: opts.sizeUnits,
      outcomeIndex: opts.outcomeIndex,
      // asked by id: a body without one is that market's book (a slug's body must name its id)
      ...(hash !== null ? { marketId: hash } : {}),
    });
    const tag = res.headers.etag;
    return typeof tag === 'string' ? { status: 200, book, etag: tag } : { status: 200, book };
  };
}
