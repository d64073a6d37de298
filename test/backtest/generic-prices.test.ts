/** A recording of non-probability prices (the Binance import) is refused by a backtest with the reason, not replayed to an empty report. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RecordingWriter } from '../../src/backtest/recording/writer.ts';
import { toColumns, writeColumns } from '../../src/backtest/recording/columns.ts';
import { readEvents } from '../../src/backtest/recording/reader.ts';
import { loadBacktestConfig } from '../../src/backtest/backtest-config.ts';
import { loadReplaySource } from '../../src/backtest/replay-source.ts';
import { runBacktest } from '../../src/backtest/run-backtest.ts';
import { BadInputError } from '../../src/model/errors.ts';
import { M } from './helpers.ts';

test('a genericPrices recording is a BadInputError naming --data and the reason', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'bm-generic-'));
  try {
    // BTCUSDT around 60,000 USD: 6e10 in 1e-6 units, far outside a probability book
    const w = new RecordingWriter({ dir, source: 'binance-like', markets: [{ id: M, tick: 10_000 }], genericPrices: true });
    w.write({ t: 'book', m: M, vts: 1, lts: 1, snap: true, b: [[60_000_000_000, 1_000_000]], a: [[60_000_010_000, 1_000_000]] });
    w.write({ t: 'trade', m: M, vts: 2, lts: 2, p: 60_000_000_000, s: 1_000_000, side: 'sell' });
    await w.close();
    writeColumns(dir, toColumns(readEvents(dir), [M]));
    const cfg = await loadBacktestConfig('config/backtest.yaml', {}, {});
    await assert.rejects(
      () => runBacktest({ source: loadReplaySource(dir), config: cfg.bot, settings: cfg.settings, fast: true }),
      (e: unknown) => e instanceof BadInputError && e.field === '--data' && /binance-like has genericPrices/.test(e.message),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
