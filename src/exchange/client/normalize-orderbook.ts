/**
 * Pure order-book normaliser: the venue's JSON snapshot → a validated `BookSnapshot` in integer units.
 *
 * Why a unit setting at all: docs/venue.md#endpoints flags a conflict. The old spec says book levels are "in cents"
 * (the SDK prints `price¢`), while the CLI divides them by 10 000 (i.e. reads 1e-6 units). The local
 * exchange serves cents and sizes in decimal shares. So prices are read per `BookPriceUnits`:
 *
 * - 'cents'   : 45 or 45.5 → ×10 000 (half-up to the unit)
 * - 'dollars' : 0.45        → ×1 000 000
 * - 'micro'   : 450000      → as is (must be an integer)
 * - 'auto' (default), decided once per snapshot over ALL its prices so one book never mixes units:
 *     every price ≤ 1 and at least one fractional → dollars;
 *     else every price ≤ 100 → cents (a book of 1¢…99¢ prices is never valid in micro units, which would be
 *       at most 0.0001 USDC per share);
 *     else → micro.
 *   An empty book needs no decision.
 * Sizes per `BookSizeUnits`: 'shares' (default; decimal shares, floored to 1e-6) or 'micro' (integer 1e-6 shares).
 *
 * The output is sorted (bids descending, asks ascending) and validated: every price strictly inside (0, 1),
 * every size a non-negative safe integer; levels of size 0 are dropped (a removed level, not a quote).
 * Bad input throws BadResponseError naming the endpoint and the field (e.g. `asks[3].price`).
 */
import { BadResponseError, BadInputError } from '../../model/errors.ts';
import { bytes32Of } from '../../model/ids.ts';
import { numberToScaled, decimalToScaled, CENT, ONE } from '../../model/units.ts';
import type { BookLevel, BookPriceUnits, BookSizeUnits, BookSnapshot } from '../../model/book.ts';
import type { Bytes32, OutcomeIndex } from '../../model/order.ts';

export interface NormalizeOrderbookOptions {
  /** default 'auto' */
  priceUnits?: BookPriceUnits;
  /** default 'shares' */
  sizeUnits?: BookSizeUnits;
  /** the outcome view that was requested (the venue's snapshot does not say) */
  outcomeIndex?: OutcomeIndex;
  /** used when the body carries no marketId */
  marketId?: Bytes32;
  /** named in errors; default 'GET /markets/:id/orderbook' */
  endpoint?: string;
  /** keep levels with size 0 instead of dropping them (stream deltas use 0 = removed) */
  keepZero?: boolean;
}

const DEFAULT_ENDPOINT = 'GET /markets/:id/orderbook';

export type ConcreteUnits = Exclude<BookPriceUnits, 'auto'>;

/** Read a wire number: a JSON number or a decimal string (some venues quote numbers as strings). */
function wireNumber(v: unknown, field: string, endpoint: string): number {
  if (typeof v === 'number') {
    if (Number.isFinite(v) && v >= 0) return v;
  } else if (typeof v === 'string' && /^\d+(\.\d+)?$/.test(v)) {
    return Number(v);
  }
  throw new BadResponseError(endpoint, field, 'a finite non-negative number', v);
}

/**
 * One price (a single level, e.g. of a stream delta) → integer 1e-6 units. 'auto' applies the rule to this one
 * value, so a stream should pass the units its snapshot resolved to. Throws BadInputError (field 'price') for
 * malformed or out-of-range values; callers rewrap it with their own field path.
 */
export function normalizePrice(value: number | string, units: ConcreteUnits | 'auto'): number {
  const field = 'price';
  const u: ConcreteUnits = units === 'auto' ? detectPriceUnits([toNum(value, field)]) : units;
  let p: number;
  if (typeof value === 'string') {
    const decimals = u === 'cents' ? 4 : u === 'dollars' ? 6 : 0;
    const v = decimalToScaled(value, decimals, field, u === 'micro' ? undefined : 'half-up');
    p = Number(v);
  } else if (u === 'cents') {
    p = numberToScaled(value, 4, field, 'half-up');
  } else if (u === 'dollars') {
    p = numberToScaled(value, 6, field, 'half-up');
  } else {
    if (!Number.isSafeInteger(value)) throw new BadInputError(field, 'an integer in 1e-6 units', value);
    p = value;
  }
  if (!(p > 0 && p < ONE)) throw new BadInputError(field, 'a price strictly between 0 and 1 USDC', value);
  return p;
}

/** One size in the given units → integer 1e-6 shares (floor: never report more than is there). */
export function normalizeSize(value: number | string, units: BookSizeUnits): number {
  const field = 'size';
  if (units === 'micro') {
    const n = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
    if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 0) throw new BadInputError(field, 'a non-negative integer of 1e-6 shares', value);
    return n;
  }
  if (typeof value === 'string') {
    const v = decimalToScaled(value, 6, field, 'floor');
    if (v > BigInt(Number.MAX_SAFE_INTEGER)) throw new BadInputError(field, 'a size below 2^53 units', value);
    return Number(v);
  }
  return numberToScaled(value, 6, field, 'floor');
}

function toNum(v: number | string, field: string): number {
  const n = typeof v === 'number' ? v : Number(v);
  if (!Number.isFinite(n) || n < 0) throw new BadInputError(field, 'a finite non-negative number', v);
  return n;
}

/** The 'auto' rule (see the file comment), applied to every price of one payload at once. */
export function detectPriceUnits(prices: readonly number[]): ConcreteUnits {
  const st: PriceStats = { max: 0, fractional: false };
  for (const p of prices) {
    if (p > st.max) st.max = p;
    if (!st.fractional && p % 1 !== 0) st.fractional = true;
  }
  return unitsFromStats(st);
}

/** Cheap conversion for the common JSON-number case; falls back to the exact decimal path when needed. */
function fastPrice(v: number, u: ConcreteUnits): number {
  if (u === 'micro') return Number.isSafeInteger(v) ? v : NaN;
  const scale = u === 'cents' ? CENT : ONE;
  const x = v * scale;
  const r = Math.round(x);
  // Only trust the float product when it is (within float noise) an integer; otherwise do it exactly.
  if (Math.abs(x - r) < 1e-7) return r;
  return numberToScaled(v, u === 'cents' ? 4 : 6, 'price', 'half-up');
}

function fastSize(v: number, u: BookSizeUnits): number {
  if (u === 'micro') return Number.isSafeInteger(v) && v >= 0 ? v : NaN;
  const x = v * 1_000_000;
  const r = Math.round(x);
  if (Math.abs(x - r) < 1e-7 && Number.isSafeInteger(r)) return r;
  return numberToScaled(v, 6, 'size', 'floor');
}

/** Raw level numbers of one side, plus what the 'auto' rule needs, gathered in the same validating pass. */
interface RawSide {
  prices: Float64Array;
  sizes: Float64Array;
}
interface PriceStats {
  max: number;
  fractional: boolean;
}

function readLevels(raw: unknown, side: 'bids' | 'asks', endpoint: string, stats: PriceStats): RawSide {
  if (raw === undefined || raw === null) return { prices: new Float64Array(0), sizes: new Float64Array(0) };
  if (!Array.isArray(raw)) throw new BadResponseError(endpoint, side, 'an array of {price, size}', raw);
  const n = raw.length;
  const prices = new Float64Array(n);
  const sizes = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const lv = raw[i] as { price?: unknown; size?: unknown } | null;
    if (lv === null || typeof lv !== 'object') throw new BadResponseError(endpoint, `${side}[${i}]`, 'an object {price, size}', lv);
    const pv = lv.price;
    const sv = lv.size;
    // fast path: finite non-negative JSON numbers (the common case); strings and bad values go the slow way
    const p = typeof pv === 'number' && pv >= 0 && pv < Infinity ? pv : wireNumber(pv, `${side}[${i}].price`, endpoint);
    prices[i] = p;
    sizes[i] = typeof sv === 'number' && sv >= 0 && sv < Infinity ? sv : wireNumber(sv, `${side}[${i}].size`, endpoint);
    if (p > stats.max) stats.max = p;
    if (!stats.fractional && p % 1 !== 0) stats.fractional = true;
  }
  return { prices, sizes };
}

function unitsFromStats(st: PriceStats): ConcreteUnits {
  if (st.max <= 1 && st.fractional) return 'dollars';
  if (st.max <= 100) return 'cents';
  return 'micro';
}

function convertSide(read: RawSide, side: 'bids' | 'asks', pu: ConcreteUnits, su: BookSizeUnits, endpoint: string, keepZero: boolean): BookLevel[] {
  const out: BookLevel[] = [];
  const n = read.prices.length;
  for (let i = 0; i < n; i++) {
    let price: number;
    let size: number;
    try {
      price = fastPrice(read.prices[i]!, pu);
    } catch (e) {
      throw new BadResponseError(endpoint, `${side}[${i}].price`, `a price in ${pu}`, read.prices[i], { cause: e });
    }
    if (!(price > 0 && price < ONE) || !Number.isSafeInteger(price)) {
      throw new BadResponseError(endpoint, `${side}[${i}].price`, `a price in ${pu} strictly between 0 and 1 USDC`, read.prices[i]);
    }
    try {
      size = fastSize(read.sizes[i]!, su);
    } catch (e) {
      throw new BadResponseError(endpoint, `${side}[${i}].size`, `a size in ${su}`, read.sizes[i], { cause: e });
    }
    if (!(size >= 0) || !Number.isSafeInteger(size)) {
      throw new BadResponseError(endpoint, `${side}[${i}].size`, `a non-negative size in ${su}`, read.sizes[i]);
    }
    if (size === 0 && !keepZero) continue;
    out.push({ price, size });
  }
  return out;
}

/** Sort best-first and merge duplicate prices (sizes summed), so consumers can rely on strict order. */
function sortAndMerge(levels: BookLevel[], descending: boolean): BookLevel[] {
  let sorted = true;
  for (let i = 1; i < levels.length; i++) {
    const a = levels[i - 1]!.price;
    const b = levels[i]!.price;
    if (descending ? a <= b : a >= b) {
      sorted = false;
      break;
    }
  }
  if (sorted) return levels;
  levels.sort(descending ? (x, y) => y.price - x.price : (x, y) => x.price - y.price);
  const merged: BookLevel[] = [];
  for (const lv of levels) {
    const last = merged[merged.length - 1];
    if (last && last.price === lv.price) last.size += lv.size;
    else merged.push({ price: lv.price, size: lv.size });
  }
  return merged;
}

function parseTimestamp(v: unknown, endpoint: string): number {
  if (v === undefined || v === null || v === '') return 0;
  if (typeof v === 'number') {
    if (!Number.isFinite(v) || v < 0) throw new BadResponseError(endpoint, 'timestamp', 'a time', v);
    // seconds vs milliseconds: anything below 1e11 is seconds (1e11 ms is 1973)
    return v < 1e11 ? Math.round(v * 1000) : Math.round(v);
  }
  if (typeof v === 'string') {
    if (/^\d+$/.test(v)) return parseTimestamp(Number(v), endpoint);
    const t = Date.parse(v);
    if (Number.isFinite(t)) return t;
  }
  throw new BadResponseError(endpoint, 'timestamp', 'an ISO date or epoch number', v);
}

/**
 * Normalise one order-book snapshot `{marketId, bids, asks, timestamp}` (plus `seq`, `outcomeIndex` when
 * present) into integer units. Pure; throws BadResponseError naming the field on malformed input.
 */
export function normalizeOrderbook(json: unknown, opts: NormalizeOrderbookOptions = {}): BookSnapshot {
  const endpoint = opts.endpoint ?? DEFAULT_ENDPOINT;
  if (json === null || typeof json !== 'object' || Array.isArray(json)) {
    throw new BadResponseError(endpoint, '(body)', 'an order-book object', json);
  }
  const o = json as Record<string, unknown>;
  // a market id is normalised where it enters (src/model/ids.ts): the venue's are 32-byte ids
  // (docs/venue.md); a body without one is the book of `opts.marketId`, the market the caller asked for
  let marketId = opts.marketId;
  if (o.marketId !== undefined && o.marketId !== null) {
    const id = bytes32Of(o.marketId);
    if (id === null) throw new BadResponseError(endpoint, 'marketId', 'a market id (0x followed by 64 hex digits)', o.marketId);
    marketId = id;
  }
  if (marketId === undefined) throw new BadResponseError(endpoint, 'marketId', 'a market id', o.marketId);

  let outcomeIndex: OutcomeIndex = opts.outcomeIndex ?? 0;
  if (o.outcomeIndex !== undefined) {
    if (o.outcomeIndex !== 0 && o.outcomeIndex !== 1) throw new BadResponseError(endpoint, 'outcomeIndex', '0 or 1', o.outcomeIndex);
    outcomeIndex = o.outcomeIndex;
  }

  const stats: PriceStats = { max: 0, fractional: false };
  const rb = readLevels(o.bids, 'bids', endpoint, stats);
  const ra = readLevels(o.asks, 'asks', endpoint, stats);
  const requested = opts.priceUnits ?? 'auto';
  const pu: ConcreteUnits = requested === 'auto' ? unitsFromStats(stats) : requested;
  const su = opts.sizeUnits ?? 'shares';
  const keepZero = opts.keepZero ?? false;

  const bids = sortAndMerge(convertSide(rb, 'bids', pu, su, endpoint, keepZero), true);
  const asks = sortAndMerge(convertSide(ra, 'asks', pu, su, endpoint, keepZero), false);

  const snap: BookSnapshot = { marketId, outcomeIndex, bids, asks, venueTs: parseTimestamp(o.timestamp, endpoint) };
  if (o.seq !== undefined) {
    if (typeof o.seq !== 'number' || !Number.isSafeInteger(o.seq) || o.seq < 0) throw new BadResponseError(endpoint, 'seq', 'a non-negative integer', o.seq);
    snap.seq = o.seq;
  }
  return snap;
}

/**
 * The concrete price units 'auto' picks for a snapshot body (its bids and asks), so a stream can read the
 * deltas that follow in the same units as the snapshot. Malformed levels throw like `normalizeOrderbook`.
 */
export function orderbookPriceUnits(json: unknown, endpoint = DEFAULT_ENDPOINT): ConcreteUnits {
  const o = (json ?? {}) as Record<string, unknown>;
  const stats: PriceStats = { max: 0, fractional: false };
  readLevels(o.bids, 'bids', endpoint, stats);
  readLevels(o.asks, 'asks', endpoint, stats);
  return unitsFromStats(stats);
}
