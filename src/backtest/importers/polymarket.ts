/**
 * Importer for the Polymarket CLOB capture (data/polymarket-tickscope/events.jsonl.gz).
 *
 * What the data needs (its README, "caveats"):
 * 1. Each change is usually reported for both tokens of a market (BID at p on one ⇔ ASK at 1−p, same
 *    size, on the complement, adjacent in file order). Token pairs are found from those mirrored
 *    pairs; the second event of each pair is a duplicate and dropped. The YES token of a pair is the
 *    one with the smaller numeric asset id (the capture does not say which is which; documented).
 * 2. Everything is converted to one YES-terms book per market: a NO-token bid at q is a YES ask at
 *    1−q and vice versa; a NO-token trade bought at q is a YES sell at 1−q.
 * 3. Rows are not strictly time-ordered: events are sorted stably by timestamp (ties keep file order).
 * 4. No book snapshots exist and levels consumed by trades are never announced, so a book rebuilt from
 *    deltas goes stale at the top. The exchange-reported best_bid/best_ask is taken as ground truth:
 *    whenever the rebuilt book shows a better price than reported, the stale levels are removed by an
 *    extra book event (counted as `topCorrections`), and every change of the reported top is also
 *    written as a `bbo` event.
 * 5. LAST_TRADE rows carry best_bid = best_ask = 0; they are trades, not an empty book.
 */
import type { RecordedEvent, RecordedMarket, LevelPair } from '../recording/format.ts';
import { RecordingWriter } from '../recording/writer.ts';
import { BadInputError } from '../../model/errors.ts';
import { numberToScaled } from '../../model/units.ts';
import { readGzipLines } from './read-gz-lines.ts';
import { importedMarketId } from './market-id.ts';

interface PmRow {
  ts_ms: number;
  event_type: 'PRICE_CHANGE' | 'LAST_TRADE';
  asset_id: string;
  side: 'BID' | 'ASK';
  price: number;
  size: number;
  best_bid: number;
  best_ask: number;
}

export interface ImportStats {
  [k: string]: number;
}

export interface ImportResult {
  markets: RecordedMarket[];
  events: number;
  stats: ImportStats;
}

const ONE = 1_000_000;

function parseRow(line: string, lineNo: number): PmRow {
  let o: Record<string, unknown>;
  try {
    o = JSON.parse(line);
  } catch {
    throw new BadInputError(`line ${lineNo}`, 'a JSON object', line);
  }
  const num = (k: string) => {
    const v = o[k];
    if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) throw new BadInputError(`line ${lineNo}: ${k}`, 'a finite non-negative number', v);
    return v;
  };
  if (o.event_type !== 'PRICE_CHANGE' && o.event_type !== 'LAST_TRADE')
    throw new BadInputError(`line ${lineNo}: event_type`, 'PRICE_CHANGE or LAST_TRADE', o.event_type);
  if (o.side !== 'BID' && o.side !== 'ASK') throw new BadInputError(`line ${lineNo}: side`, 'BID or ASK', o.side);
  if (typeof o.asset_id !== 'string' || !/^\d+$/.test(o.asset_id)) throw new BadInputError(`line ${lineNo}: asset_id`, 'a decimal token id', o.asset_id);
  const price = num('price');
  if (price <= 0 || price >= 1) throw new BadInputError(`line ${lineNo}: price`, 'a price in (0, 1)', price);
  return {
    ts_ms: num('ts_ms'),
    event_type: o.event_type,
    asset_id: o.asset_id,
    side: o.side,
    price,
    size: num('size'),
    best_bid: num('best_bid'),
    best_ask: num('best_ask'),
  };
}

/**
 * Dollars/shares → 1e-6 units. The capture has at most 6 decimals, so x·1e6 is within float error of
 * an integer and rounding is exact; anything finer falls back to the exact decimal path (floor).
 */
function toMicro(x: number, field: string): number {
  const v = x * 1e6;
  const r = Math.round(v);
  return Math.abs(v - r) < 1e-6 * Math.max(1, Math.abs(v)) ? r : numberToScaled(x, 6, field, 'floor');
}
const px = (p: number) => toMicro(p, 'price');
const sz = (s: number) => toMicro(s, 'size');

function isMirror(a: PmRow, b: PmRow): boolean {
  return (
    a.event_type === 'PRICE_CHANGE' &&
    b.event_type === 'PRICE_CHANGE' &&
    a.asset_id !== b.asset_id &&
    a.ts_ms === b.ts_ms &&
    a.side !== b.side &&
    a.size === b.size &&
    px(a.price) + px(b.price) === ONE
  );
}

/** Sorted price → size map per side, just enough to find the rebuilt best levels. */
class SideBook {
  readonly levels = new Map<number, number>();
  constructor(readonly isBid: boolean) {}
  set(p: number, s: number): void {
    if (s === 0) this.levels.delete(p);
    else this.levels.set(p, s);
  }
  /** prices strictly better than `bound` (above for bids, below for asks) */
  betterThan(bound: number): number[] {
    const out: number[] = [];
    for (const p of this.levels.keys()) if (this.isBid ? p > bound : p < bound) out.push(p);
    return out;
  }
}

export async function importPolymarket(path: string, outDir: string): Promise<ImportResult> {
  const lines = readGzipLines(path);
  const rows = lines.map((l, i) => parseRow(l, i + 1));
  const stats: ImportStats = { inputRows: rows.length, priceChanges: 0, trades: 0, mirroredDropped: 0, backwardSteps: 0, topCorrections: 0, bboEvents: 0 };

  // 1. Token pairs from mirrored adjacent events; duplicates marked in file order.
  const partnerCounts = new Map<string, Map<string, number>>();
  const dup = new Uint8Array(rows.length);
  for (let i = 1; i < rows.length; i++) {
    if (!dup[i - 1] && isMirror(rows[i - 1]!, rows[i]!)) {
      dup[i] = 1;
      const a = rows[i - 1]!.asset_id;
      const b = rows[i]!.asset_id;
      for (const [x, y] of [
        [a, b],
        [b, a],
      ] as const) {
        const m = partnerCounts.get(x) ?? new Map<string, number>();
        m.set(y, (m.get(y) ?? 0) + 1);
        partnerCounts.set(x, m);
      }
    }
  }
  const tokens = [...new Set(rows.map((r) => r.asset_id))];
  const yesOf = new Map<string, { yes: string; no: string | null }>();
  for (const t of tokens) {
    const partners = partnerCounts.get(t);
    let best: string | null = null;
    let bestN = 0;
    for (const [p, n] of partners ?? []) if (n > bestN) [best, bestN] = [p, n];
    if (best === null) yesOf.set(t, { yes: t, no: null });
    else {
      const [yes, no] = BigInt(t) < BigInt(best) ? [t, best] : [best, t];
      yesOf.set(t, { yes, no });
    }
  }
  // 2. Markets, deterministic order by YES token id.
  const marketByYes = new Map<string, RecordedMarket>();
  for (const { yes, no } of yesOf.values()) {
    if (!marketByYes.has(yes)) {
      marketByYes.set(yes, { id: importedMarketId(`polymarket:${yes}`), tick: ONE / 100, origin: { venue: 'polymarket', yesToken: yes, noToken: no } });
    }
  }
  const markets = [...marketByYes.values()].sort((a, b) => (BigInt(a.origin!.yesToken as string) < BigInt(b.origin!.yesToken as string) ? -1 : 1));

  // 3. Stable sort by timestamp over the non-duplicate rows.
  const order: number[] = [];
  for (let i = 0; i < rows.length; i++) if (!dup[i]) order.push(i);
  for (let i = 1; i < rows.length; i++) if (rows[i]!.ts_ms < rows[i - 1]!.ts_ms) stats.backwardSteps!++;
  order.sort((a, b) => rows[a]!.ts_ms - rows[b]!.ts_ms || a - b);
  stats.mirroredDropped = rows.length - order.length;

  // 4. Convert to YES terms, correct stale tops against the reported best, write.
  const books = new Map<string, { bids: SideBook; asks: SideBook; bbo: [number, number]; tick: number }>();
  for (const m of markets) books.set(m.id, { bids: new SideBook(true), asks: new SideBook(false), bbo: [-1, -1], tick: ONE / 100 });
  const out: RecordedEvent[] = [];
  for (const i of order) {
    const r = rows[i]!;
    const { yes } = yesOf.get(r.asset_id)!;
    const isYes = r.asset_id === yes;
    const market = marketByYes.get(yes)!;
    const bk = books.get(market.id)!;
    const p = isYes ? px(r.price) : ONE - px(r.price);
    if (p % 10_000 !== 0) bk.tick = Math.min(bk.tick, p % 1_000 === 0 ? 1_000 : 1);
    const ts = r.ts_ms;
    if (r.event_type === 'LAST_TRADE') {
      stats.trades!++;
      const takerBuysToken = r.side === 'BID';
      const side: 'buy' | 'sell' = takerBuysToken === isYes ? 'buy' : 'sell';
      const s = sz(r.size);
      if (s > 0) out.push({ t: 'trade', m: market.id, vts: ts, lts: ts, p, s, side });
      continue;
    }
    stats.priceChanges!++;
    const yesBidSide = (r.side === 'BID') === isYes;
    const s = sz(r.size);
    (yesBidSide ? bk.bids : bk.asks).set(p, s);
    const lvl: LevelPair[] = [[p, s]];
    out.push({ t: 'book', m: market.id, vts: ts, lts: ts, b: yesBidSide ? lvl : [], a: yesBidSide ? [] : lvl });
    // Reported best of this token, in YES terms.
    const bestBid = isYes ? px(r.best_bid) : r.best_ask > 0 ? ONE - px(r.best_ask) : 0;
    const bestAsk = isYes ? px(r.best_ask) : r.best_bid > 0 ? ONE - px(r.best_bid) : 0;
    const staleBids = bk.bids.betterThan(bestBid);
    const staleAsks = bestAsk > 0 ? bk.asks.betterThan(bestAsk) : [];
    if (staleBids.length || staleAsks.length) {
      stats.topCorrections!++;
      for (const q of staleBids) bk.bids.set(q, 0);
      for (const q of staleAsks) bk.asks.set(q, 0);
      out.push({
        t: 'book',
        m: market.id,
        vts: ts,
        lts: ts,
        b: staleBids.sort((a, b) => b - a).map((q) => [q, 0]),
        a: staleAsks.sort((a, b) => a - b).map((q) => [q, 0]),
      });
    }
    if (bk.bbo[0] !== bestBid || bk.bbo[1] !== bestAsk) {
      bk.bbo = [bestBid, bestAsk];
      stats.bboEvents!++;
      out.push({ t: 'bbo', m: market.id, vts: ts, lts: ts, bid: bestBid, ask: bestAsk });
    }
  }
  for (const m of markets) m.tick = books.get(m.id)!.tick;
  stats.markets = markets.length;
  stats.tokens = tokens.length;
  return writeAll(outDir, 'polymarket-tickscope', markets, out, stats);
}

export async function writeAll(
  outDir: string,
  source: string,
  markets: RecordedMarket[],
  events: RecordedEvent[],
  stats: ImportStats,
  genericPrices = false,
): Promise<ImportResult> {
  const w = new RecordingWriter({ dir: outDir, source, markets, genericPrices, rotateMs: Number.POSITIVE_INFINITY });
  await w.writeMany(events);
  stats.outputEvents = events.length;
  w.setStats(stats);
  await w.close();
  return { markets, events: events.length, stats };
}
