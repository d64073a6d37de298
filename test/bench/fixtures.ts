/** Benchmark fixtures built from the real data in data/ (the repository's copy), cached in the OS temp dir. */
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { importBinance } from '../../src/backtest/importers/binance.ts';
import { importKalshi } from '../../src/backtest/importers/kalshi.ts';
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
    writeColumns(
      dir,
      toColumns(
        readEvents(dir),
        readManifest(dir).markets.map((m) => m.id),
      ),
    );
  }
  return dir;
}

/** The Binance BTCUSDT capture (spot + USD-M) imported as a genericPrices recording with book.cols. */
export async function binanceRecording(): Promise<string> {
  const dir = join(tmpdir(), 'bookmaker-bench-binance-v1');
  if (!existsSync(join(dir, 'book.cols'))) {
    mkdirSync(dir, { recursive: true });
    await importBinance(join(DATA_DIR, 'binance-hftbacktest'), dir);
    writeColumns(
      dir,
      toColumns(
        readEvents(dir),
        readManifest(dir).markets.map((m) => m.id),
      ),
    );
  }
  return dir;
}

/**
 * The Kalshi KXINX trade tape imported as a recording (with book.cols). Built in a folder of this
 * process's own and renamed into place, so test files running at once never see (or clear) a
 * half-written cache of another.
 */
export async function kalshiRecording(): Promise<string> {
  const dir = join(tmpdir(), 'bookmaker-test-kalshi-v1');
  if (existsSync(join(dir, 'book.cols'))) return dir;
  const mine = `${dir}.${process.pid}`;
  rmSync(mine, { recursive: true, force: true });
  mkdirSync(mine, { recursive: true });
  await importKalshi(join(DATA_DIR, 'kalshi-kxinx-trades', 'trades.csv.gz'), mine);
  writeColumns(
    mine,
    toColumns(
      readEvents(mine),
      readManifest(mine).markets.map((m) => m.id),
    ),
  );
  if (existsSync(join(dir, 'book.cols'))) rmSync(mine, { recursive: true, force: true });
  else {
    rmSync(dir, { recursive: true, force: true }); // a cache left half-written by a killed run
    try {
      renameSync(mine, dir);
    } catch {
      rmSync(mine, { recursive: true, force: true }); // another process put its copy there first
    }
  }
  return dir;
}
