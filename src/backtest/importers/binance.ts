/**
 * Importer for the Binance BTCUSDT captures (data/binance-hftbacktest/*.gz): diff-depth
 * streams, one REST snapshot, trades and bookTicker lines, each prefixed by a local receive time in ns.
 *
 * The local book follows Binance's documented procedure: diffs received before the snapshot are
 * buffered; diffs with u ≤ lastUpdateId are dropped; the first applied diff must satisfy
 * U ≤ lastUpdateId+1 ≤ u; afterwards continuity is checked (spot: U = previous u + 1; USD-M: pu =
 * previous u) and breaks are counted. Prices here are not probabilities, so the manifest is marked
 * `genericPrices`; prices and sizes are still integer 1e-6 units. `bbo` events come from bookTicker;
 * where a bookTicker carries the same update id as the last applied diff, the rebuilt top is checked
 * against it (stats `tickerChecks` / `tickerMismatches`).
 */
import { statSync, readdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import { BadInputError } from '../../model/errors.ts';
import { decimalToScaled } from '../../model/units.ts';
import type { LevelPair, RecordedEvent, RecordedMarket } from '../recording/format.ts';
import { readGzipLines } from './read-gz-lines.ts';
import { importedMarketId } from './market-id.ts';
import { writeAll, type ImportResult, type ImportStats } from './polymarket.ts';

const scaled = (s: unknown, field: string): number => {
  if (typeof s !== 'string') throw new BadInputError(field, 'a decimal string', s);
  return Number(decimalToScaled(s, 6, field, 'half-up'));
};

function levels(raw: unknown, field: string): LevelPair[] {
  if (!Array.isArray(raw)) throw new BadInputError(field, 'an array of [price, qty]', raw);
  return raw.map((l, i) => {
    if (!Array.isArray(l) || l.length < 2) throw new BadInputError(`${field}[${i}]`, '[price, qty]', l);
    return [scaled(l[0], `${field}[${i}].price`), scaled(l[1], `${field}[${i}].qty`)] as LevelPair;
  });
}

interface Diff {
  U: number;
  u: number;
  pu?: number;
  b: LevelPair[];
  a: LevelPair[];
  E: number;
  lts: number;
}

function importFile(path: string, kind: 'spot' | 'usdm', stats: ImportStats, events: RecordedEvent[]): RecordedMarket {
  const market: RecordedMarket = {
    id: importedMarketId(`binance:${kind}:BTCUSDT`),
    name: `BTCUSDT ${kind}`,
    tick: kind === 'spot' ? 10_000 : 100_000,
    origin: { venue: 'binance', kind, symbol: 'BTCUSDT', file: basename(path) },
  };
  const m = market.id;
  const lines = readGzipLines(path);
  const pre: Diff[] = [];
  let lastId = -1; // last applied update id; -1 until the snapshot
  const bids = new Map<number, number>();
  const asks = new Map<number, number>();
  const apply = (d: Diff) => {
    for (const [p, q] of d.b) q === 0 ? bids.delete(p) : bids.set(p, q);
    for (const [p, q] of d.a) q === 0 ? asks.delete(p) : asks.set(p, q);
    events.push({ t: 'book', m, vts: d.E, lts: d.lts, seq: d.u, b: d.b, a: d.a });
    stats[`${kind}DiffsApplied`]!++;
  };
  stats[`${kind}Lines`] = lines.length;
  for (const k of ['DiffsApplied', 'DiffsDropped', 'Gaps', 'Trades', 'Tickers', 'TickerChecks', 'TickerMismatches', 'Snapshots']) stats[`${kind}${k}`] = 0;
  let prevU = -1;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const where = `${basename(path)}:${i + 1}`;
    const sp = line.indexOf(' ');
    if (sp <= 0) throw new BadInputError(where, '"<ns> <json>"', line.slice(0, 40));
    const lts = Math.floor(Number(line.slice(0, sp)) / 1e6);
    let msg: Record<string, any>;
    try {
      msg = JSON.parse(line.slice(sp + 1));
    } catch {
      throw new BadInputError(where, 'JSON after the timestamp', line.slice(sp + 1, sp + 40));
    }
    if (!('stream' in msg)) {
      // The REST snapshot.
      stats[`${kind}Snapshots`]!++;
      const b = levels(msg.bids, `${where}: bids`).filter((l) => l[1] > 0);
      const a = levels(msg.asks, `${where}: asks`).filter((l) => l[1] > 0);
      bids.clear();
      asks.clear();
      for (const [p, q] of b) bids.set(p, q);
      for (const [p, q] of a) asks.set(p, q);
      lastId = Number(msg.lastUpdateId);
      events.push({ t: 'book', m, vts: Number(msg.E ?? msg.T ?? lts), lts, seq: lastId, snap: true, b, a });
      let first = true;
      for (const d of pre) {
        if (d.u <= lastId) {
          stats[`${kind}DiffsDropped`]!++;
          continue;
        }
        if (first && !(d.U <= lastId + 1 && lastId + 1 <= d.u)) stats[`${kind}Gaps`]!++;
        first = false;
        apply(d);
        lastId = d.u;
        prevU = d.u;
      }
      pre.length = 0;
      continue;
    }
    const data = msg.data as Record<string, any>;
    const stream = String(msg.stream);
    if (stream.includes('@depth')) {
      const d: Diff = {
        U: Number(data.U),
        u: Number(data.u),
        pu: data.pu === undefined ? undefined : Number(data.pu),
        b: levels(data.b, `${where}: b`),
        a: levels(data.a, `${where}: a`),
        E: Number(data.E),
        lts,
      };
      if (lastId < 0) {
        pre.push(d);
        continue;
      }
      if (d.u <= lastId) {
        stats[`${kind}DiffsDropped`]!++;
        continue;
      }
      const continuous = kind === 'spot' ? d.U === prevU + 1 : d.pu === prevU;
      if (!continuous) stats[`${kind}Gaps`]!++;
      apply(d);
      lastId = d.u;
      prevU = d.u;
    } else if (stream.endsWith('@trade')) {
      stats[`${kind}Trades`]!++;
      events.push({
        t: 'trade',
        m,
        vts: Number(data.T ?? data.E),
        lts,
        p: scaled(data.p, `${where}: p`),
        s: scaled(data.q, `${where}: q`),
        side: data.m ? 'sell' : 'buy',
      });
    } else if (stream.endsWith('@bookTicker')) {
      stats[`${kind}Tickers`]!++;
      const bid = scaled(data.b, `${where}: b`);
      const ask = scaled(data.a, `${where}: a`);
      events.push({ t: 'bbo', m, vts: Number(data.E ?? data.T ?? lts), lts, bid, ask });
      if (lastId >= 0 && Number(data.u) === lastId) {
        stats[`${kind}TickerChecks`]!++;
        let bb = 0;
        for (const p of bids.keys()) if (p > bb) bb = p;
        let ba = Number.POSITIVE_INFINITY;
        for (const p of asks.keys()) if (p < ba) ba = p;
        if (bb !== bid || ba !== ask) stats[`${kind}TickerMismatches`]!++;
      }
    }
  }
  return market;
}

/** PATH is one capture file or the folder holding spot_*.gz and/or usdm_*.gz. */
export async function importBinance(path: string, outDir: string): Promise<ImportResult> {
  let files: string[];
  try {
    files = statSync(path).isDirectory()
      ? readdirSync(path)
          .filter((f) => /^(spot|usdm)_.*\.gz$/.test(f))
          .sort()
          .map((f) => join(path, f))
      : [path];
  } catch {
    throw new BadInputError('PATH', 'a Binance capture file or folder', path);
  }
  if (files.length === 0) throw new BadInputError('PATH', 'a folder with spot_*.gz or usdm_*.gz captures', path);
  const stats: ImportStats = {};
  const events: RecordedEvent[] = [];
  const markets: RecordedMarket[] = [];
  for (const f of files) {
    const kind = basename(f).startsWith('usdm') ? 'usdm' : 'spot';
    markets.push(importFile(f, kind, stats, events));
  }
  // Merge the files by local receive time (stable).
  events.sort((a, b) => a.lts - b.lts);
  return writeAll(outDir, 'binance-hftbacktest', markets, events, stats, true);
}
