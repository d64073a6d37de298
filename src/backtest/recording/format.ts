/**
 * The recording format, version 1 (documented in the README, "Recording format").
 *
 * A recording is a directory:
 *   manifest.json            { format: "bookmaker-recording", version: 1, source, createdAt, markets[], files[] }
 *   events-000001.jsonl.gz   one event per line, gzip, in local-receive order within a file
 *   events-000002.jsonl.gz   … (rotated by size and time; a restarted recorder appends new files)
 *   book.cols                optional compact binary columns of the book/trade events (see ./columns.ts)
 *
 * Every event is in integer units (prices 1e-6 collateral per share, sizes 1e-6 shares) and in
 * YES terms for binary markets (one book per market; a NO-outcome bid at q is a YES ask at 1e6−q).
 * `vts` is the venue timestamp (ms), `lts` the local receive timestamp (ms); importers of data sets
 * without a receive time set lts = vts.
 */
import { BadInputError } from '../../model/errors.ts';
import { bytes32Of } from '../../model/ids.ts';
import type { Bytes32 } from '../../model/order.ts';

/**
 * A recorded market id in the form the replay compares (docs/architecture.md#ids-at-the-boundary): a
 * 32-byte id as lower-case hex whatever case the file holds; any other id (an import's ticker) as
 * recorded. Applied where a recording is read (events, manifest, columns header), so the replay, the
 * reports and the ranking compare ids with ===.
 */
export function recordedMarketId(id: string): string {
  return bytes32Of(id) ?? id;
}

/**
 * The id the replayed bot knows a recorded market by, for the kernel, store and sim venue of a backtest
 * (docs/backtesting.md#market-ids). A 32-byte id is the market's `Bytes32`, checked here. An import's
 * ticker (any other id) is not one; it keeps its text in the kernel's id slot, which the backtest only
 * keys and compares with `===`: nothing on this path signs, sends or parses an id (the sim venue takes
 * unsigned orders), and the reports show the id as recorded. This is the one place a ticker becomes a
 * market id; call it once per market, not per event.
 */
export function replayMarketId(recorded: string): Bytes32 {
  return bytes32Of(recorded) ?? (recorded as Bytes32);
}

export const RECORDING_FORMAT = 'bookmaker-recording';
export const RECORDING_VERSION = 1;

/** [price, size] pairs; size is the new absolute size at the level, 0 = removed. */
export type LevelPair = [number, number];

export type RecordedEvent =
  /** Book update: a full snapshot (`snap: true`: replaces both sides) or changed levels. */
  | { t: 'book'; m: string; vts: number; lts: number; seq?: number; snap?: true; b: LevelPair[]; a: LevelPair[] }
  /** A trade print; `side` is the taker's side in YES terms. */
  | { t: 'trade'; m: string; vts: number; lts: number; p: number; s: number; side: 'buy' | 'sell' }
  /** Venue-reported best bid/ask (ground truth for top of book where deltas are incomplete); 0 = none. */
  | { t: 'bbo'; m: string; vts: number; lts: number; bid: number; ask: number }
  /** Oracle probability (1e-6 units) and confidence label. */
  | { t: 'oracle'; m: string; vts: number; lts: number; probability: number; confidence: string | null }
  /** Market metadata snapshot (status, deadline, resolution…), as the venue sent it. */
  | { t: 'market'; m: string; vts: number; lts: number; meta: Record<string, unknown> }
  /**
   * The venue's drop copy (a local exchange tapped in-process, src/sim/flow-tap.ts): the book of
   * everybody but the recording bot, as the engine changed it (`snap: true` replaces both sides).
   */
  | { t: 'xbook'; m: string; vts: number; lts: number; snap?: true; b: LevelPair[]; a: LevelPair[] }
  /**
   * The drop copy's taker flow: an incoming order of somebody else that traded on arrival (or was
   * IOC / FOK): its YES-terms side, limit price `p` and share quantity `s`, before its fills.
   */
  | { t: 'taker'; m: string; vts: number; lts: number; p: number; s: number; side: 'buy' | 'sell' }
  /** The drop copy's quotes of the recorded bot itself: its resting size per YES-terms level, as the venue held them. */
  | { t: 'ownbook'; m: string; vts: number; lts: number; b: LevelPair[]; a: LevelPair[] }
  /** The drop copy's fills of the recorded bot itself (YES-terms side, price, shares; maker or taker): the check for a replay. */
  | { t: 'ownfill'; m: string; vts: number; lts: number; p: number; s: number; side: 'buy' | 'sell'; maker: boolean }
  /** Raw venue activity item (kept for completeness; replay ignores unknown kinds). */
  | { t: 'activity'; m: string; vts: number; lts: number; item: Record<string, unknown> };

export type RecordedEventType = RecordedEvent['t'];

export interface RecordedMarket {
  /** market id as the recording names it (a 0x hash for the venue, a ticker or token pair for imports) */
  id: string;
  name?: string;
  /** price tick in 1e-6 units */
  tick: number;
  /** for imports: where the market came from (e.g. the two Polymarket token ids, YES first) */
  origin?: Record<string, unknown>;
}

export interface RecordingFile {
  name: string;
  events: number;
  firstLts: number;
  lastLts: number;
}

export interface RecordingManifest {
  format: typeof RECORDING_FORMAT;
  version: number;
  source: string;
  createdAt: string;
  priceScale: 1_000_000;
  sizeScale: 1_000_000;
  /** true when prices are not probabilities (e.g. the Binance BTCUSDT capture) */
  genericPrices?: boolean;
  markets: RecordedMarket[];
  files: RecordingFile[];
  /** free-form importer statistics (counts that match the data READMEs) */
  stats?: Record<string, number>;
}

const isInt = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v);
const isNonNegInt = (v: unknown): v is number => isInt(v) && v >= 0;

function checkLevels(v: unknown, field: string): LevelPair[] {
  if (!Array.isArray(v)) throw new BadInputError(field, 'an array of [price, size]', v);
  for (let i = 0; i < v.length; i++) {
    const l = v[i];
    if (!Array.isArray(l) || l.length !== 2 || !isNonNegInt(l[0]) || l[0] === 0 || !isNonNegInt(l[1])) {
      throw new BadInputError(`${field}[${i}]`, '[price > 0, size ≥ 0] integers', l);
    }
  }
  return v as LevelPair[];
}

/** Validate one parsed line; throws BadInputError naming the field. */
export function validateEvent(x: unknown): RecordedEvent {
  if (typeof x !== 'object' || x === null) throw new BadInputError('event', 'an object', x);
  const e = x as Record<string, unknown>;
  if (typeof e.m !== 'string' || e.m.length === 0) throw new BadInputError('m', 'a market id string', e.m);
  e.m = recordedMarketId(e.m);
  if (!isNonNegInt(e.vts)) throw new BadInputError('vts', 'a timestamp in ms', e.vts);
  if (!isNonNegInt(e.lts)) throw new BadInputError('lts', 'a timestamp in ms', e.lts);
  switch (e.t) {
    case 'book':
    case 'xbook':
    case 'ownbook':
      checkLevels(e.b, 'b');
      checkLevels(e.a, 'a');
      if (e.seq !== undefined && !isNonNegInt(e.seq)) throw new BadInputError('seq', 'a non-negative integer', e.seq);
      return e as RecordedEvent;
    case 'trade':
    case 'taker':
    case 'ownfill':
      if (!isNonNegInt(e.p) || e.p === 0) throw new BadInputError('p', 'a positive integer price', e.p);
      if (!isNonNegInt(e.s) || e.s === 0) throw new BadInputError('s', 'a positive integer size', e.s);
      if (e.side !== 'buy' && e.side !== 'sell') throw new BadInputError('side', 'buy or sell', e.side);
      return e as RecordedEvent;
    case 'bbo':
      if (!isNonNegInt(e.bid)) throw new BadInputError('bid', 'a non-negative integer price', e.bid);
      if (!isNonNegInt(e.ask)) throw new BadInputError('ask', 'a non-negative integer price', e.ask);
      return e as RecordedEvent;
    case 'oracle':
      if (!isNonNegInt(e.probability) || e.probability > 1_000_000) throw new BadInputError('probability', 'an integer in [0, 1e6]', e.probability);
      return e as RecordedEvent;
    case 'market':
      if (typeof e.meta !== 'object' || e.meta === null) throw new BadInputError('meta', 'an object', e.meta);
      return e as RecordedEvent;
    case 'activity':
      if (typeof e.item !== 'object' || e.item === null) throw new BadInputError('item', 'an object', e.item);
      return e as RecordedEvent;
    default:
      throw new BadInputError('t', 'one of book, trade, bbo, xbook, taker, ownbook, ownfill, oracle, market, activity', e.t);
  }
}

export function validateManifest(x: unknown, where: string): RecordingManifest {
  if (typeof x !== 'object' || x === null) throw new BadInputError(`${where}`, 'a manifest object', x);
  const m = x as Partial<RecordingManifest>;
  if (m.format !== RECORDING_FORMAT) throw new BadInputError(`${where}: format`, `"${RECORDING_FORMAT}"`, m.format);
  if (m.version !== RECORDING_VERSION)
    throw new BadInputError(`${where}: version`, `${RECORDING_VERSION} (this build reads version ${RECORDING_VERSION})`, m.version);
  if (!Array.isArray(m.markets)) throw new BadInputError(`${where}: markets`, 'an array', m.markets);
  for (const [i, mk] of m.markets.entries()) {
    if (typeof mk?.id !== 'string' || mk.id.length === 0) throw new BadInputError(`${where}: markets[${i}].id`, 'a market id string', mk?.id);
    mk.id = recordedMarketId(mk.id);
  }
  if (!Array.isArray(m.files)) throw new BadInputError(`${where}: files`, 'an array', m.files);
  for (const [i, f] of m.files.entries()) {
    if (typeof f?.name !== 'string' || !/^events-\d{6}\.jsonl\.gz$/.test(f.name))
      throw new BadInputError(`${where}: files[${i}].name`, 'events-NNNNNN.jsonl.gz', f?.name);
  }
  return m as RecordingManifest;
}
