/**
 * Views of a YES-terms book (docs/local-exchange.md): either outcome's side lists, the wire form of the JSON
 * order book, and its ETag.
 *
 * Units of the local exchange's order book (GET /markets/:id/orderbook and its event stream):
 * prices in CENTS (number, 45.5 = 45.5¢ = 455 000 price units) and sizes in SHARES (number,
 * 12.5 = 12 500 000 size units). The venue's units are unknown (docs/venue.md#endpoints); the client reads
 * both through src/model/book.ts's unit settings.
 */
import { createHash } from 'node:crypto';
import type { BookLevel } from '../model/book.ts';
import { CENT, ONE, SIZE_SCALE } from '../model/units.ts';

export interface YesBook {
  /** descending YES bids, price and size units */
  bids: readonly BookLevel[];
  /** ascending YES asks */
  asks: readonly BookLevel[];
}

function mirror(levels: readonly BookLevel[], depth: number): BookLevel[] {
  const out: BookLevel[] = [];
  for (let i = 0; i < levels.length && i < depth; i++) out.push({ price: ONE - levels[i]!.price, size: levels[i]!.size });
  return out;
}

/**
 * Bids and asks of one outcome, best first, at most `depth` each. Outcome 1 (YES) is the book as
 * kept; outcome 0 (NO) mirrors it: a YES ask at p is a NO bid at 1−p and a YES bid a NO ask.
 */
export function outcomeView(book: YesBook, outcomeIndex: 0 | 1, depth: number): { bids: BookLevel[]; asks: BookLevel[] } {
  if (outcomeIndex === 1) return { bids: book.bids.slice(0, depth).map((l) => ({ ...l })), asks: book.asks.slice(0, depth).map((l) => ({ ...l })) };
  return { bids: mirror(book.asks, depth), asks: mirror(book.bids, depth) };
}

/** Price units → cents (exact for integer units: 1 unit = 0.0001¢). */
export const toCents = (price: number): number => price / CENT;
/** Size units → shares. */
export const toShares = (size: number): number => size / SIZE_SCALE;

export interface WireBook {
  marketId: string;
  outcomeIndex: number;
  bids: { price: number; size: number }[];
  asks: { price: number; size: number }[];
  timestamp: string;
}

export function wireBook(marketId: string, outcomeIndex: 0 | 1, view: { bids: BookLevel[]; asks: BookLevel[] }, nowMs: number): WireBook {
  return {
    marketId,
    outcomeIndex,
    bids: view.bids.map((l) => ({ price: toCents(l.price), size: toShares(l.size) })),
    asks: view.asks.map((l) => ({ price: toCents(l.price), size: toShares(l.size) })),
    timestamp: new Date(nowMs).toISOString(),
  };
}

/** A strong ETag over the levels only (not the timestamp), so an unchanged book answers 304. */
export function bookEtag(marketId: string, outcomeIndex: number, depth: number, view: { bids: BookLevel[]; asks: BookLevel[] }): string {
  const h = createHash('sha1');
  h.update(`${marketId}|${outcomeIndex}|${depth}|`);
  for (const l of view.bids) h.update(`b${l.price}:${l.size};`);
  for (const l of view.asks) h.update(`a${l.price}:${l.size};`);
  return `"${h.digest('base64url')}"`;
}

/** Does an If-None-Match header match this ETag (list form and W/ prefix allowed)? */
export function etagMatches(header: string | string[] | undefined, etag: string): boolean {
  if (header === undefined) return false;
  const text = Array.isArray(header) ? header.join(',') : header;
  if (text.trim() === '*') return true;
  return text.split(',').some((t) => t.trim().replace(/^W\//, '') === etag);
}
