/** Benchmark fixtures built from the real data in data/ (the repository's copy), cached in the OS temp dir. */
import { existsSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { importBinance } from '../../src/backtest/importers/binance.ts';
import { importKalshi } from '../../src/backtest/importers/kalshi.ts';
import { importPolymarket } from '../../src/backtest/importers/polymarket.ts';
import { readEvents, readManifest } from '../../src/backtest/recording/reader.ts';
import { toColumns, writeColumns } from '../../src/backtest/recording/columns.ts';
import { oncePerMachine } from '../support/machine-cache.ts';

export const DATA_DIR = fileURLToPath(new URL('../../data/', import.meta.url));

/**
 * `dir` as a recording imported by `importInto(dir)` with its book.cols; built once per machine (the files that
 * want it at the same time wait for one import: test/support/machine-cache.ts), then reused.
 */
async function cachedRecording(dir: string, importInto: (dir: string) => Promise<unknown>): Promise<string> {
  await oncePerMachine(
    dir,
    async (own) => {
      mkdirSync(own, { recursive: true });
      await importInto(own);
      writeBookColumns(own);
    },
    (d) => existsSync(join(d, 'book.cols')),
  );
  return dir;
}

/** The recording's book.cols from its events. */
function writeBookColumns(dir: string): void {
  writeColumns(
    dir,
    toColumns(
      readEvents(dir),
      readManifest(dir).markets.map((m) => m.id),
    ),
  );
}

/** The Polymarket capture imported as a recording (with book.cols); returns its directory. */
export function polymarketRecording(): Promise<string> {
  return cachedRecording(join(tmpdir(), 'bookmaker-bench-polymarket-v1'), (dir) =>
    importPolymarket(join(DATA_DIR, 'polymarket-tickscope', 'events.jsonl.gz'), dir),
  );
}

/** The Binance BTCUSDT capture (spot + USD-M) imported as a genericPrices recording with book.cols. */
export function binanceRecording(): Promise<string> {
  return cachedRecording(join(tmpdir(), 'bookmaker-bench-binance-v1'), (dir) => importBinance(join(DATA_DIR, 'binance-hftbacktest'), dir));
}

/** The Kalshi KXINX trade tape imported as a recording (with book.cols). */
export function kalshiRecording(): Promise<string> {
  return cachedRecording(join(tmpdir(), 'bookmaker-test-kalshi-v1'), (dir) => importKalshi(join(DATA_DIR, 'kalshi-kxinx-trades', 'trades.csv.gz'), dir));
}
