/**
 * Importer for the Kalshi trade tape (data/kalshi-kxinx-trades/trades.csv.gz).
 * One market per ticker; prices from the integer `price_cents` column (the double `price` has binary
 * artefacts); `yes_taker` = the taker bought YES, `no_taker` = the taker bought NO, i.e. sold YES.
 * There is no book in this data: the recording holds trades only (a trade-tape fill model uses them).
 */
import { BadInputError } from '../../model/errors.ts';
import type { RecordedEvent, RecordedMarket } from '../recording/format.ts';
import { readGzipLines } from './read-gz-lines.ts';
import { importedMarketId } from './market-id.ts';
import { writeAll, type ImportResult, type ImportStats } from './polymarket.ts';

const HEADER = ['ts_ms', 'ts_iso', 'ticker', 'date', 'side_of_close', 'price', 'price_cents', 'quantity', 'direction', 'liquidity_event', 'group'];

export async function importKalshi(path: string, outDir: string): Promise<ImportResult> {
  const lines = readGzipLines(path);
  const head = lines[0]?.split(',') ?? [];
  if (head.join(',') !== HEADER.join(',')) throw new BadInputError(`${path}: header`, HEADER.join(','), lines[0]);
  const col = Object.fromEntries(HEADER.map((h, i) => [h, i])) as Record<string, number>;
  const stats: ImportStats = { trades: 0, yesTaker: 0, noTaker: 0, tickers: 0, group_1_2: 0, group_1_4: 0 };
  const markets = new Map<string, RecordedMarket>();
  const events: RecordedEvent[] = [];
  for (let i = 1; i < lines.length; i++) {
    const f = lines[i]!.split(',');
    const where = `${path}:${i + 1}`;
    if (f.length !== HEADER.length) throw new BadInputError(where, `${HEADER.length} columns`, f.length);
    const ts = Number(f[col.ts_ms!]);
    const cents = Number(f[col.price_cents!]);
    const qty = Number(f[col.quantity!]);
    const dir = f[col.direction!];
    const ticker = f[col.ticker!]!;
    if (!Number.isSafeInteger(ts) || ts <= 0) throw new BadInputError(`${where}: ts_ms`, 'a positive integer', f[col.ts_ms!]);
    if (!Number.isInteger(cents) || cents < 1 || cents > 99) throw new BadInputError(`${where}: price_cents`, 'an integer 1..99', f[col.price_cents!]);
    if (!Number.isFinite(qty) || qty <= 0 || !Number.isInteger(qty))
      throw new BadInputError(`${where}: quantity`, 'a whole number of contracts > 0', f[col.quantity!]);
    if (dir !== 'yes_taker' && dir !== 'no_taker') throw new BadInputError(`${where}: direction`, 'yes_taker or no_taker', dir);
    let m = markets.get(ticker);
    if (!m) {
      m = {
        id: importedMarketId(`kalshi:${ticker}`),
        name: ticker,
        tick: 10_000,
        origin: { venue: 'kalshi', ticker, group: f[col.group!], date: f[col.date!] },
      };
      markets.set(ticker, m);
    }
    stats.trades!++;
    if (dir === 'yes_taker') stats.yesTaker!++;
    else stats.noTaker!++;
    stats[`group_${f[col.group!]}`] = (stats[`group_${f[col.group!]}`] ?? 0) + 1;
    events.push({ t: 'trade', m: m.id, vts: ts, lts: ts, p: cents * 10_000, s: qty * 1_000_000, side: dir === 'yes_taker' ? 'buy' : 'sell' });
  }
  // The derived CSV is sorted by time already; keep a stable sort for safety.
  events.sort((a, b) => a.vts - b.vts);
  stats.tickers = markets.size;
  const list = [...markets.values()].sort((a, b) => a.name!.localeCompare(b.name!));
  return writeAll(outDir, 'kalshi-kxinx-trades', list, events, stats);
}
