/**
 * Compact binary columns of a recording's market-data events, for fast replay (docs/architecture.md#the-pipeline: JSONL
 * replays at ~0.5 M events/s, typed columns at tens of millions). One row per price level change,
 * trade or top-of-book report:
 *
 *   kind  0 LEVEL      set level (side, price) to absolute size (0 removes)
 *         1 CLEAR      a snapshot starts: clear both sides of the market's book (price = size = 0)
 *         2 TRADE      side 0 = taker buy, 1 = taker sell
 *         3 BBO        price = best bid, size = best ask (0 = none)
 *         4 XLEVEL     the venue's drop copy (`xbook`): set the others' level (side, price) to size
 *         5 XCLEAR     a drop-copy snapshot starts: clear the others' book
 *         6 TAKER      a drop-copy taker order: side 0 = buy, 1 = sell; price = limit; size = shares
 *
 * File `book.cols`: "BMKCOLS1", u32 header length, JSON header {version, rows, markets}, padding to
 * 8 bytes, then the columns lts f64, vts f64, price f64, size f64, market u16, kind u8, side u8.
 */
import { closeSync, fstatSync, openSync, readSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BadInputError } from '../../model/errors.ts';
import { recordedMarketId, type RecordedEvent } from './format.ts';

export const KIND_LEVEL = 0;
export const KIND_CLEAR = 1;
export const KIND_TRADE = 2;
export const KIND_BBO = 3;
export const KIND_XLEVEL = 4;
export const KIND_XCLEAR = 5;
export const KIND_TAKER = 6;

export interface Columns {
  rows: number;
  markets: string[];
  lts: Float64Array;
  vts: Float64Array;
  price: Float64Array;
  size: Float64Array;
  market: Uint16Array;
  kind: Uint8Array;
  side: Uint8Array;
}

const MAGIC = 'BMKCOLS1';

/** Columns with room for `n` rows, none used. */
export function allocColumns(n: number, markets: string[]): Columns {
  return {
    rows: 0,
    markets,
    lts: new Float64Array(n),
    vts: new Float64Array(n),
    price: new Float64Array(n),
    size: new Float64Array(n),
    market: new Uint16Array(n),
    kind: new Uint8Array(n),
    side: new Uint8Array(n),
  };
}

/** Build columns from recorded events (book, trade, bbo, xbook and taker; other kinds are not market data). */
export function toColumns(events: Iterable<RecordedEvent>, markets: readonly string[]): Columns {
  const index = new Map(markets.map((m, i) => [m, i]));
  if (markets.length > 65535) throw new BadInputError('markets', 'at most 65535 markets', markets.length);
  const c = allocColumns(1024, [...markets]);
  for (const e of events) {
    let m = index.get(e.m);
    if (m === undefined) {
      m = c.markets.length;
      c.markets.push(e.m);
      index.set(e.m, m);
    }
    appendEventRows(c, m, e);
  }
  return shrink(c);
}

/** The rows of one recorded event of market `m` (book, trade, bbo, xbook, taker; other kinds write none). */
export function appendEventRows(c: Columns, m: number, e: RecordedEvent): void {
  if (e.t === 'book') {
    if (e.snap) appendRow(c, e.lts, e.vts, m, KIND_CLEAR, 0, 0, 0);
    for (const [p, s] of e.b) appendRow(c, e.lts, e.vts, m, KIND_LEVEL, 0, p, s);
    for (const [p, s] of e.a) appendRow(c, e.lts, e.vts, m, KIND_LEVEL, 1, p, s);
  } else if (e.t === 'trade') appendRow(c, e.lts, e.vts, m, KIND_TRADE, e.side === 'buy' ? 0 : 1, e.p, e.s);
  else if (e.t === 'bbo') appendRow(c, e.lts, e.vts, m, KIND_BBO, 0, e.bid, e.ask);
  else if (e.t === 'xbook') {
    if (e.snap) appendRow(c, e.lts, e.vts, m, KIND_XCLEAR, 0, 0, 0);
    for (const [p, s] of e.b) appendRow(c, e.lts, e.vts, m, KIND_XLEVEL, 0, p, s);
    for (const [p, s] of e.a) appendRow(c, e.lts, e.vts, m, KIND_XLEVEL, 1, p, s);
  } else if (e.t === 'taker') appendRow(c, e.lts, e.vts, m, KIND_TAKER, e.side === 'buy' ? 0 : 1, e.p, e.s);
}

/** Append one row, doubling the columns in place when full (the same object: readers hold it, not its arrays). */
export function appendRow(c: Columns, lts: number, vts: number, m: number, kind: number, side: number, price: number, size: number): void {
  if (c.rows === c.lts.length) {
    const n = allocColumns(c.lts.length * 2, c.markets);
    for (const k of ['lts', 'vts', 'price', 'size', 'market', 'kind', 'side'] as const) (n[k] as { set(a: ArrayLike<number>): void }).set(c[k]);
    c.lts = n.lts;
    c.vts = n.vts;
    c.price = n.price;
    c.size = n.size;
    c.market = n.market;
    c.kind = n.kind;
    c.side = n.side;
  }
  const i = c.rows++;
  c.lts[i] = lts;
  c.vts[i] = vts;
  c.market[i] = m;
  c.kind[i] = kind;
  c.side[i] = side;
  c.price[i] = price;
  c.size[i] = size;
}

function shrink(c: Columns): Columns {
  const r = c.rows;
  return {
    ...c,
    lts: c.lts.slice(0, r),
    vts: c.vts.slice(0, r),
    price: c.price.slice(0, r),
    size: c.size.slice(0, r),
    market: c.market.slice(0, r),
    kind: c.kind.slice(0, r),
    side: c.side.slice(0, r),
  };
}

export function writeColumns(dir: string, c: Columns): string {
  const header = Buffer.from(JSON.stringify({ version: 1, rows: c.rows, markets: c.markets }));
  let off = 8 + 4 + header.length;
  const pad = (8 - (off % 8)) % 8;
  off += pad;
  const parts: Buffer[] = [Buffer.from(MAGIC), Buffer.alloc(4), header, Buffer.alloc(pad)];
  parts[1]!.writeUInt32LE(header.length);
  for (const col of [c.lts, c.vts, c.price, c.size, c.market, c.kind, c.side]) parts.push(Buffer.from(col.buffer, col.byteOffset, col.byteLength));
  const path = join(dir, 'book.cols');
  writeFileSync(path, Buffer.concat(parts));
  return path;
}

/** Bytes per row over all seven columns (4 × f64, u16, 2 × u8). */
const ROW_BYTES = 4 * 8 + 2 + 1 + 1;

function readHeader(text: string, path: string): { version: number; rows: number; markets: string[] } {
  let h: unknown;
  try {
    h = JSON.parse(text);
  } catch {
    throw new BadInputError(`${path}: header`, 'a JSON header', text);
  }
  const o = (h ?? {}) as { version?: unknown; rows?: unknown; markets?: unknown };
  if (o.version !== 1) throw new BadInputError(`${path}: version`, '1', o.version);
  if (typeof o.rows !== 'number' || !Number.isSafeInteger(o.rows) || o.rows < 0) throw new BadInputError(`${path}: rows`, 'a non-negative integer', o.rows);
  if (!Array.isArray(o.markets) || !o.markets.every((m) => typeof m === 'string'))
    throw new BadInputError(`${path}: markets`, 'an array of market ids', o.markets);
  return { version: 1, rows: o.rows, markets: (o.markets as string[]).map(recordedMarketId) };
}

/** A whole file read into a fresh ArrayBuffer. */
function readAligned(path: string): ArrayBuffer {
  const fd = openSync(path, 'r');
  try {
    const size = fstatSync(fd).size;
    const ab = new ArrayBuffer(size);
    const bytes = new Uint8Array(ab);
    let at = 0;
    while (at < size) {
      const n = readSync(fd, bytes, at, size - at, at);
      if (n === 0) break;
      at += n;
    }
    return at === size ? ab : ab.slice(0, at);
  } finally {
    closeSync(fd);
  }
}

export function readColumns(dir: string): Columns {
  const path = join(dir, 'book.cols');
  // Read straight into an ArrayBuffer of our own (8-aligned at its start, and the columns start at an
  // 8-aligned offset of the file), so the typed arrays view it without a copy of the whole file.
  const ab = readAligned(path);
  const buf = Buffer.from(ab);
  if (buf.length < 12 || buf.toString('latin1', 0, 8) !== MAGIC) throw new BadInputError(path, `a ${MAGIC} columns file`, buf.toString('latin1', 0, 8));
  const hl = buf.readUInt32LE(8);
  if (12 + hl > buf.length) throw new BadInputError(`${path}: header`, `${hl} header bytes`, `${buf.length - 12} bytes`);
  const header = readHeader(buf.toString('utf8', 12, 12 + hl), path);
  const n = header.rows;
  let off = 12 + hl;
  off += (8 - (off % 8)) % 8;
  // A truncated or corrupt file must be a clear error, not a RangeError from a typed-array view.
  if (off > buf.length || n * ROW_BYTES > buf.length - off) throw new BadInputError(path, `${n} rows of columns`, `${Math.max(0, buf.length - off)} bytes`);
  let o = off;
  const take = <T>(Ctor: { new (b: ArrayBuffer, o: number, n: number): T; BYTES_PER_ELEMENT: number }): T => {
    const a = new Ctor(ab, o, n);
    o += n * Ctor.BYTES_PER_ELEMENT;
    return a;
  };
  const lts = take(Float64Array);
  const vts = take(Float64Array);
  const price = take(Float64Array);
  const size = take(Float64Array);
  const market = take(Uint16Array);
  const kind = take(Uint8Array);
  const side = take(Uint8Array);
  if (o > ab.byteLength) throw new BadInputError(path, `${n} rows of columns`, `${ab.byteLength - off} bytes`);
  return { rows: n, markets: header.markets, lts, vts, price, size, market, kind, side };
}
