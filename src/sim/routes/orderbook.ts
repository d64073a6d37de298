/**
 * GET /markets/:id/orderbook: the JSON book of either outcome (prices in CENTS, sizes in SHARES,
 * see ../book-view.ts) with a strong ETag (`If-None-Match` → 304), or, when the Accept header asks
 * for `text/event-stream`, the live stream (snapshot, deltas, trades, heartbeats; ../book-stream.ts).
 */
import type { ExchangeState, RequestContext } from '../context.ts';
import { badRequest } from '../http-errors.ts';
import { internalsOf } from '../internals.ts';
import { bookEtag, etagMatches, outcomeView, wireBook, type YesBook } from '../book-view.ts';
import { json, type Reply, type Router } from '../router.ts';
import * as v from '../validate.ts';
import { marketParam } from './markets.ts';
import { marketStatusEvent } from '../market-json.ts';
import type { Bytes32 } from '../../model/order.ts';

/** The YES-terms book of a market, all levels. */
export function yesBook(state: ExchangeState, marketId: Bytes32): YesBook {
  const idx = state.engine.marketIndex(marketId);
  if (idx === undefined) return { bids: [], asks: [] };
  const b = state.engine.engine.book(idx);
  return { bids: b.bids.map((l) => ({ price: l.price, size: l.size })), asks: b.asks.map((l) => ({ price: l.price, size: l.size })) };
}

function wantsStream(ctx: RequestContext): boolean {
  const a = ctx.headers.accept;
  return typeof a === 'string' && a.toLowerCase().includes('text/event-stream'); // a header: text, any case
}

function orderbook(ctx: RequestContext): Reply {
  const m = marketParam(ctx);
  const depth = v.queryInt(ctx.query, 'depth', 1, 100, 20);
  const oiRaw = ctx.query.get('outcomeIndex');
  let outcomeIndex: 0 | 1 = 0;
  if (oiRaw !== null && oiRaw !== '' && oiRaw !== 'null') {
    if (oiRaw !== '0' && oiRaw !== '1') throw badRequest('outcomeIndex', 'expected 0 or 1');
    outcomeIndex = oiRaw === '1' ? 1 : 0;
  }
  const book = yesBook(ctx.state, m.id);
  if (wantsStream(ctx)) {
    if (m.status === 'resolved') {
      internalsOf(ctx.state).hub.attachEnded(ctx.res, m.id, outcomeIndex, book, marketStatusEvent(m), ctx.now);
      return { kind: 'handled' };
    }
    const last = ctx.headers['last-event-id'];
    const status = m.status === 'active' ? undefined : marketStatusEvent(m);
    internalsOf(ctx.state).hub.attach(ctx.res, m.id, outcomeIndex, book, typeof last === 'string' ? last : undefined, ctx.now, status);
    return { kind: 'handled' };
  }
  const view = outcomeView(book, outcomeIndex, depth);
  const etag = bookEtag(m.id, outcomeIndex, depth, view);
  const headers = { ETag: etag, 'Cache-Control': 'no-cache' };
  if (etagMatches(ctx.headers['if-none-match'], etag)) return { status: 304, headers };
  return json(200, wireBook(m.id, outcomeIndex, view, ctx.now), headers);
}

export function register(router: Router): void {
  router.add({ method: 'GET', path: '/markets/:id/orderbook', auth: false, handler: orderbook });
}
