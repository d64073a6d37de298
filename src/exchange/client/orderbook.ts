/**
 * GET /markets/:id/orderbook as a conditional GET: with an `etag` it sends `If-None-Match`, and a 304 comes
 * back as `{status: 304}` (book unchanged) instead of an error. Units are normalised by `normalizeOrderbook`.
 */
import type { BookSnapshot } from '../../model/book.ts';
import { bytes32Of } from '../../model/ids.ts';
import type { OutcomeIndex } from '../../model/order.ts';
import type { ClientContext } from './context.ts';
import { checkInt, checkMarketRef } from './inputs.ts';
import { normalizeOrderbook } from './normalize-orderbook.ts';
import { header } from './retry-after.ts';
import { seg } from './transport.ts';

export interface GetOrderbookOptions {
  /** 1 = YES, 0 = NO (venue default 0) */
  outcomeIndex?: OutcomeIndex;
  /** 1–100 (venue default 20) */
  depth?: number;
  /** the ETag of the book we already hold */
  etag?: string;
}

export type OrderbookAnswer = { status: 200; book: BookSnapshot; etag: string | null } | { status: 304 };

export async function getOrderbook(ctx: ClientContext, marketId: string, opts: GetOrderbookOptions = {}): Promise<OrderbookAnswer> {
  const ep = 'GET /markets/:id/orderbook';
  const id = checkMarketRef(marketId);
  const hash = bytes32Of(id);
  const outcomeIndex = opts.outcomeIndex === undefined ? undefined : (checkInt(opts.outcomeIndex, 'outcomeIndex', 0, 1) as OutcomeIndex);
  const depth = opts.depth === undefined ? undefined : checkInt(opts.depth, 'depth', 1, 100);
  const res = await ctx.t.request({
    method: 'GET',
    path: `/markets/${seg(id)}/orderbook`,
    endpoint: ep,
    query: { depth, outcomeIndex },
    headers: opts.etag ? { 'if-none-match': opts.etag } : {},
    allowNotModified: true,
  });
  if (res.status === 304) return { status: 304 };
  const book = normalizeOrderbook(res.json, {
    endpoint: ep,
    priceUnits: ctx.priceUnits,
    sizeUnits: ctx.sizeUnits,
    outcomeIndex: outcomeIndex ?? 0,
    // asked by id: a body without one is that market's book; asked by slug, the body must name it
    ...(hash !== null ? { marketId: hash } : {}),
  });
  return { status: 200, book, etag: header(res.headers, 'etag') ?? null };
}
