/** Benchmark fixtures built from the real data in data/ (the repository's copy), cached in the OS temp dir. */
import { existsSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { importBinance } from '../../src/backtest/importers/binance.ts';
import { importPolymarket } from '../../src/backtest/importers/polymarket.ts';
import { readEvents, readManifest } from '../../src/backtest/recording/reader.ts';
import { toColumns, writeColumns } from '../../src/backtest/recording/columns.ts';

export const DATA_DIR = fileURLToPath(new URL('../../data/', import.meta.url));

/** The Polymarket capture imported as a recording (with book.cols); returns its directory. */
export async function polymarketRecording(): Promise<string> {
  const dir = join(tmpdir(), 'bookmaker-bench-polymarket-v1');
  if (!existsSync(join(dir, 'book.cols'))) {
    mkdirSync(dir, { recursive: true });
    await importPolymarket(join(DATA_DIR, 'polymarket-tickscope', 'events.jsonl.gz'), dir);
    writeColumns(dir, toColumns(readEvents(dir), readManifest(dir).markets.map((m) => m.id)));
  }
  return dir;
}

/** The Binance BTCUSDT capture (spot + USD-M) imported as a genericPrices recording with book.cols. */
export async function binanceRecording(): Promise<string> {
  const dir = join(tmpdir(), 'bookmaker-bench-binance-v1');
  if (!existsSync(join(dir, 'book.cols'))) {
    mkdirSync(dir, { recursive: true });
    await importBinance(join(DATA_DIR, 'binance-hftbacktest'), dir);
    writeColumns(dir, toColumns(readEvents(dir), readManifest(dir).markets.map((m) => m.id)));
  }
  return dir;
}
