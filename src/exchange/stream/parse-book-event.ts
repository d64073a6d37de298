/**
 * Pure parser of order-book stream events (wire format in src/model/stream.ts) into typed `BookEvent`s in
 * integer units. No I/O and no clock: the caller passes the local timestamp. It never throws: a malformed
 * event comes back as `{ ok: false, error }` (a BadResponseError naming the field) so the connection can log
 * and count the drop and carry on.
 *
 * Units: prices and sizes on the stream use the units of the server's JSON book (cents and shares on the
 * local exchange). With price units 'auto', the units are decided once from the first snapshot that has
 * prices (normalize-orderbook's rule over the whole book) and then reused for every delta and trade, so a
 * lone delta price is never guessed on its own; before any such snapshot a delta's own prices decide.
 *
 * `event: status` (the market's venue status; see src/model/stream.ts) becomes a 'market-status' event.
 *
 * Usage:
 *   const parser = new BookEventParser({ marketId, outcomeIndex });
 *   const r = parser.parse(ev.type, ev.data, ev.lastEventId, clock.now());
 *   if (r.ok) handle(r.event); else countDrop(r.error);
 */
import { BadResponseError } from '../../model/errors.ts';
import { BadInputError } from '../../model/errors.ts';
import { bytes32Of } from '../../model/ids.ts';
import type { BookLevel, BookPriceUnits, BookSizeUnits } from '../../model/book.ts';
import type { Bytes32, OutcomeIndex } from '../../model/order.ts';
import { STREAM_MARKET_STATUSES, type BookEvent, type StreamMarketStatus } from '../../model/stream.ts';
import { ONE } from '../../model/units.ts';
import { detectPriceUnits, normalizeOrderbook, normalizePrice, normalizeSize } from '../client/normalize-orderbook.ts';

export type ParsedBookEvent = { ok: true; event: Exclude<BookEvent, { type: 'status' }> } | { ok: false; error: BadResponseError };

export interface BookEventParserOptions {
  /**
   * the market subscribed to, by its 32-byte id (any case; a slug is resolved to the id by the caller
   * first, e.g. from a snapshot): each event's marketId is checked against it
   */
  marketId: string;
  outcomeIndex: OutcomeIndex;
  /** default 'auto' */
  priceUnits?: BookPriceUnits;
  /** default 'shares' */
  sizeUnits?: BookSizeUnits;
}

type ConcreteUnits = Exclude<BookPriceUnits, 'auto'>;

/**
 * The data (JSON.parse) of the last well-formed event of each kind, for all parsers, kept until the next one of
 * its kind. Parsed JSON objects get their maps by transitions, key by key, and a map dies at a full GC when no
 * object having it is alive: an event's data is dropped once parsed, so at most GCs none is, and V8 then
 * discarded every optimised function that had embedded the events' maps (this parser, inlined into the stream's
 * handlers), to optimise them again after (docs/performance/reoptimisation.md). One kept per kind holds the maps;
 * read by nothing but keptEventData (test/exchange/stream/kept-event-shape.test.ts).
 */
const KEPT_SNAPSHOT = 0;
const KEPT_DELTA = 1;
const KEPT_TRADE = 2;
const KEPT_STATUS = 3;
const keptData: (object | null)[] = [null, null, null, null];
function kept(kind: number, data: object, r: ParsedBookEvent): ParsedBookEvent {
  keptData[kind] = data;
  return r;
}
/** The data kept (above) of the last snapshot, delta, trade or status event, or null. */
export function keptEventData(kind: 'snapshot' | 'delta' | 'trade' | 'status'): object | null {
  return keptData[kind === 'snapshot' ? KEPT_SNAPSHOT : kind === 'delta' ? KEPT_DELTA : kind === 'trade' ? KEPT_TRADE : KEPT_STATUS]!;
}

/** Thrown internally and turned into `{ ok: false }` at the one exit point. */
class Reject extends Error {
  constructor(readonly error: BadResponseError) {
    super(error.message);
  }
}

export class BookEventParser {
  private readonly marketId: string;
  /** the subscribed market's id in normal form (src/model/ids.ts) */
  private readonly hashId: Bytes32;
  private readonly outcomeIndex: OutcomeIndex;
  private readonly sizeUnits: BookSizeUnits;
  private priceUnits: BookPriceUnits;

  constructor(opts: BookEventParserOptions) {
    const id = bytes32Of(opts.marketId);
    if (id === null) throw new BadInputError('marketId', 'a market id (0x followed by 64 hex digits)', opts.marketId);
    this.marketId = opts.marketId;
    this.hashId = id;
    this.outcomeIndex = opts.outcomeIndex;
    this.priceUnits = opts.priceUnits ?? 'auto';
    this.sizeUnits = opts.sizeUnits ?? 'shares';
  }

  /** The price units in force ('auto' until a snapshot with prices has decided them). */
  get resolvedPriceUnits(): BookPriceUnits {
    return this.priceUnits;
  }

  /**
   * Parse one SSE event. `eventType` is the SSE event name ('message' when none), `lastEventId` the SSE
   * `id:` field ('' when none), used as the seq when the data carries none.
   */
  parse(eventType: string, data: string, lastEventId: string, localTs: number): ParsedBookEvent {
    const endpoint = `stream ${eventType || 'message'} event`;
    try {
      let json: unknown;
      try {
        json = JSON.parse(data);
      } catch {
        throw reject(endpoint, '(data)', 'a JSON object', data);
      }
      if (json === null || typeof json !== 'object' || Array.isArray(json)) throw reject(endpoint, '(data)', 'a JSON object', json);
      const o = json as Record<string, unknown>;
      this.checkIdentity(o, endpoint);
      // Any event carrying both sides is a full snapshot, whatever its name (docs/venue.md#order-book-streaming).
      if ('bids' in o && 'asks' in o) return kept(KEPT_SNAPSHOT, o, { ok: true, event: this.snapshot(o, lastEventId, localTs, endpoint) });
      if (eventType === 'delta' || (eventType === 'message' && Array.isArray(o.changes))) {
        return kept(KEPT_DELTA, o, { ok: true, event: this.delta(o, lastEventId, localTs, endpoint) });
      }
      if (eventType === 'trade' || (eventType === 'message' && 'takerSide' in o)) {
        return kept(KEPT_TRADE, o, { ok: true, event: this.trade(o, lastEventId, localTs, endpoint) });
      }
      if (eventType === 'status') return kept(KEPT_STATUS, o, { ok: true, event: this.marketStatus(o, lastEventId, localTs, endpoint) });
      throw reject(endpoint, '(event)', 'a snapshot, delta, trade or status event', eventType);
    } catch (e) {
      if (e instanceof Reject) return { ok: false, error: e.error };
      if (e instanceof BadResponseError) return { ok: false, error: e };
      return { ok: false, error: new BadResponseError(endpoint, '(data)', 'a valid book event', data, { cause: e }) };
    }
  }

  private checkIdentity(o: Record<string, unknown>, endpoint: string): void {
    if (o.marketId !== undefined) {
      if (typeof o.marketId !== 'string') throw reject(endpoint, 'marketId', 'a market id string', o.marketId);
      if (bytes32Of(o.marketId) !== this.hashId) {
        throw reject(endpoint, 'marketId', `the subscribed market ${this.marketId}`, o.marketId);
      }
    }
    if (o.outcomeIndex !== undefined && o.outcomeIndex !== this.outcomeIndex) {
      throw reject(endpoint, 'outcomeIndex', `the subscribed outcome ${this.outcomeIndex}`, o.outcomeIndex);
    }
  }

  private snapshot(o: Record<string, unknown>, lastEventId: string, localTs: number, endpoint: string): BookEvent & { type: 'snapshot' } {
    const seq = readSeq(o.seq, lastEventId, endpoint);
    let units: BookPriceUnits = this.priceUnits;
    if (units === 'auto') {
      const prices = rawPrices(o.bids).concat(rawPrices(o.asks));
      // Decide only on a book that has prices; an empty one leaves the question open.
      if (prices.length > 0) units = detectPriceUnits(prices);
    }
    const book = normalizeOrderbook(o, {
      priceUnits: units,
      sizeUnits: this.sizeUnits,
      outcomeIndex: this.outcomeIndex,
      marketId: this.hashId,
      endpoint,
    });
    // Remember the decision only once the whole snapshot validated.
    this.priceUnits = units;
    book.seq = seq;
    return { type: 'snapshot', book, seq, localTs, source: 'stream' };
  }

  private delta(o: Record<string, unknown>, lastEventId: string, localTs: number, endpoint: string): BookEvent & { type: 'delta' } {
    const seq = readSeq(o.seq, lastEventId, endpoint);
    const changes = o.changes;
    if (!Array.isArray(changes)) throw reject(endpoint, 'changes', 'an array of {side, price, size}', changes);
    const units =
      this.priceUnits !== 'auto'
        ? this.priceUnits
        : this.unitsFor(changes.map((c) => (c && typeof c === 'object' ? (c as { price?: unknown }).price : undefined)));
    const bids: BookLevel[] = [];
    const asks: BookLevel[] = [];
    for (let i = 0; i < changes.length; i++) {
      const c = changes[i] as { side?: unknown; price?: unknown; size?: unknown } | null;
      if (c === null || typeof c !== 'object') throw reject(endpoint, `changes[${i}]`, 'an object {side, price, size}', c);
      if (c.side !== 'bid' && c.side !== 'ask') throw reject(endpoint, `changes[${i}].side`, "'bid' or 'ask'", c.side);
      const level = { price: price(c.price, units, `changes[${i}].price`, endpoint), size: size(c.size, this.sizeUnits, `changes[${i}].size`, endpoint) };
      (c.side === 'bid' ? bids : asks).push(level);
    }
    return {
      type: 'delta',
      marketId: this.hashId, // checkIdentity: an event naming a market names this one
      outcomeIndex: this.outcomeIndex,
      seq,
      bids,
      asks,
      venueTs: readTimestamp(o.timestamp, endpoint),
      localTs,
    };
  }

  private trade(o: Record<string, unknown>, lastEventId: string, localTs: number, endpoint: string): BookEvent & { type: 'trade' } {
    const seq = readSeq(o.seq, lastEventId, endpoint);
    if (o.takerSide !== 'buy' && o.takerSide !== 'sell') throw reject(endpoint, 'takerSide', "'buy' or 'sell'", o.takerSide);
    const sz = size(o.size, this.sizeUnits, 'size', endpoint);
    if (sz === 0) throw reject(endpoint, 'size', 'a trade size above 0', o.size);
    return {
      type: 'trade',
      marketId: this.hashId, // checkIdentity: an event naming a market names this one
      outcomeIndex: this.outcomeIndex,
      seq,
      price: price(o.price, this.unitsFor([o.price]), 'price', endpoint),
      size: sz,
      takerSide: o.takerSide,
      venueTs: readTimestamp(o.timestamp, endpoint),
      localTs,
    };
  }

  /**
   * `event: status`: the market's venue status. An unknown status, or a resolution outcome that is not
   * 1, 0 or null, is malformed (dropped by the caller): guessing would retire, or keep, a market wrongly.
   */
  private marketStatus(o: Record<string, unknown>, lastEventId: string, localTs: number, endpoint: string): BookEvent & { type: 'market-status' } {
    const seq = readSeq(o.seq, lastEventId, endpoint);
    const status = o.status;
    if (typeof status !== 'string' || !(STREAM_MARKET_STATUSES as readonly string[]).includes(status)) {
      throw reject(endpoint, 'status', `one of ${STREAM_MARKET_STATUSES.join(', ')}`, status);
    }
    const outcome = o.outcome;
    if (outcome !== undefined && outcome !== null && outcome !== 0 && outcome !== 1) throw reject(endpoint, 'outcome', '1 (YES), 0 (NO) or null', outcome);
    // the same rule as the market poll (market-feed.ts): a split payout is not guessed from percentages
    const payoutYes = status === 'resolved' && (outcome === 0 || outcome === 1) ? (outcome === 1 ? ONE : 0) : null;
    return {
      type: 'market-status',
      marketId: this.hashId, // checkIdentity: an event naming a market names this one
      outcomeIndex: this.outcomeIndex,
      seq,
      status: status as StreamMarketStatus,
      payoutYes,
      venueTs: readTimestamp(o.timestamp, endpoint),
      localTs,
    };
  }

  /** Concrete units for a delta or trade: the snapshot's decision, or this event's own prices before any. */
  private unitsFor(prices: unknown[]): ConcreteUnits {
    if (this.priceUnits !== 'auto') return this.priceUnits;
    const nums = prices
      .filter((p): p is number | string => typeof p === 'number' || typeof p === 'string')
      .map(Number)
      .filter(Number.isFinite);
    return detectPriceUnits(nums);
  }
}

function reject(endpoint: string, field: string, expected: string, got: unknown): Reject {
  return new Reject(new BadResponseError(endpoint, field, expected, got));
}

function rawPrices(levels: unknown): number[] {
  if (!Array.isArray(levels)) return [];
  const out: number[] = [];
  for (const l of levels) {
    const p = l && typeof l === 'object' ? Number((l as { price?: unknown }).price) : NaN;
    if (Number.isFinite(p)) out.push(p);
  }
  return out;
}

/** A price or size field through its normaliser: a bad value is a rejection naming the field and what was expected. */
function unitField<U extends string>(
  v: unknown,
  units: U,
  field: string,
  endpoint: string,
  what: string,
  range: string,
  normalize: (v: number | string, units: U) => number,
): number {
  if (typeof v !== 'number' && typeof v !== 'string') throw reject(endpoint, field, `a ${what} in ${units}`, v);
  try {
    return normalize(v, units);
  } catch (e) {
    if (e instanceof BadInputError) throw reject(endpoint, field, range, v);
    throw e;
  }
}

function price(v: unknown, units: ConcreteUnits, field: string, endpoint: string): number {
  return unitField(v, units, field, endpoint, 'price', `a price in ${units} strictly between 0 and 1 USDC`, normalizePrice);
}

function size(v: unknown, units: BookSizeUnits, field: string, endpoint: string): number {
  return unitField(v, units, field, endpoint, 'size', `a non-negative size in ${units}`, normalizeSize);
}

/** seq from the data, else from the SSE id (they are equal by the wire contract). */
function readSeq(v: unknown, lastEventId: string, endpoint: string): number {
  if (v === undefined && /^\d+$/.test(lastEventId)) v = Number(lastEventId);
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) throw reject(endpoint, 'seq', 'a non-negative integer', v);
  return v;
}

/** ISO date or epoch (seconds below 1e11, else ms) → ms; 0 when absent. */
function readTimestamp(v: unknown, endpoint: string): number {
  if (v === undefined || v === null || v === '') return 0;
  let t = NaN;
  if (typeof v === 'number') t = epochMs(v);
  else if (typeof v === 'string') t = /^\d+(\.\d+)?$/.test(v) ? epochMs(Number(v)) : Date.parse(v);
  if (!Number.isFinite(t) || t < 0) throw reject(endpoint, 'timestamp', 'an ISO date or epoch number', v);
  return Math.round(t);
}

function epochMs(n: number): number {
  // 1e11 ms is 1973, so anything smaller is seconds
  return n < 1e11 ? n * 1000 : n;
}
