/** Test helpers: synthetic recorded columns and a sim exchange over them, recordings in temp folders, the bands backtest. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseDocument } from 'yaml';
import { buildBacktestConfig } from '../../src/backtest/backtest-config.ts';
import { writeColumns } from '../../src/backtest/recording/columns.ts';
import { readEvents } from '../../src/backtest/recording/reader.ts';
import { RecordingWriter } from '../../src/backtest/recording/writer.ts';
import { queueModel, type QueueModelName } from '../../src/backtest/queue-model.ts';
import { SimExchange, type HoldingsAfter, type SimFill } from '../../src/backtest/sim-exchange.ts';
import { toColumns, type Columns } from '../../src/backtest/recording/columns.ts';
import type { RecordedEvent } from '../../src/backtest/recording/format.ts';
import type { PlannedOrder } from '../../src/model/venue.ts';
import type { Bytes32 } from '../../src/model/order.ts';

export const M = ('0x' + 'ab'.repeat(32)) as Bytes32;

/** A recording's manifest.json in `dir`: one market of tick 0.01, the given event files, created at `t0`. */
export function writeTestManifest(dir: string, market: string, t0: number, files: readonly unknown[] = []): void {
  const manifest = {
    format: 'bookmaker-recording',
    version: 1,
    source: 'test',
    createdAt: new Date(t0).toISOString(),
    priceScale: 1_000_000,
    sizeScale: 1_000_000,
    markets: [{ id: market, tick: 10_000 }],
    files,
  };
  writeFileSync(join(dir, 'manifest.json'), JSON.stringify(manifest));
}

export function cols(events: RecordedEvent[]): Columns {
  return toColumns(events, [M]);
}

export const book = (t: number, b: [number, number][], a: [number, number][], snap = false): RecordedEvent => ({
  t: 'book',
  m: M,
  vts: t,
  lts: t,
  b,
  a,
  ...(snap ? { snap: true as const } : {}),
});
export const trade = (t: number, p: number, s: number, side: 'buy' | 'sell'): RecordedEvent => ({ t: 'trade', m: M, vts: t, lts: t, p, s, side });

let n = 0;
export function order(o: Partial<PlannedOrder> & Pick<PlannedOrder, 'side' | 'price' | 'size'>): PlannedOrder {
  n++;
  return { marketId: M, outcomeIndex: 1, nonce: ('0x' + n.toString(16).padStart(64, '0')) as Bytes32, ...o };
}

/**
 * A sim exchange over `events` (market M, tick 1¢; the level queue and no fees unless given) that notes
 * every fill and the holdings after it; `until(t)` applies the recorded rows up to time `t`; `c` the columns.
 */
export function simOver(events: RecordedEvent[], o: { queue?: QueueModelName; fees?: { makerBps: number; takerBps: number }; collateral?: bigint } = {}) {
  const c = cols(events);
  const fills: SimFill[] = [];
  const after: HoldingsAfter[] = [];
  const x = new SimExchange({
    cols: c,
    ticks: [10_000],
    queue: queueModel(o.queue ?? 'level'),
    fees: o.fees ?? { makerBps: 0, takerBps: 0 },
    ...(o.collateral !== undefined ? { collateral: o.collateral } : {}),
    onFill: (f, a) => {
      fills.push(f);
      after.push(a);
    },
  });
  let next = 0;
  const until = (t: number) => {
    while (next < c.rows && c.lts[next]! <= t) x.applyRow(next, c.lts[next]!), next++;
  };
  return { x, fills, after, until, c };
}

/**
 * `body(dir)` on a recording of market M (tick 1¢) in a temp folder, with its book columns: the others'
 * book at `t0` (a snapshot: 100 shares bid at 0.40 and offered at 0.60), then what `write` adds. The
 * folder is removed after the body, whatever it did.
 */
export async function onRecording(t0: number, write: (w: RecordingWriter) => void, body: (dir: string) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'bm-recording-'));
  try {
    const w = new RecordingWriter({ dir, source: 'test', markets: [{ id: M, tick: 10_000 }] });
    w.write({ t: 'xbook', m: M, vts: t0, lts: t0, snap: true, b: [[400_000, 100_000_000]], a: [[600_000, 100_000_000]] });
    write(w);
    await w.close();
    writeColumns(dir, toColumns(readEvents(dir), [M]));
    await body(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The backtest config of these tests: bands of 1–3¢ × 10 shares on every market, 200 shares / 150 USDC
 * of risk, requotes every 0.25 s, the level queue, the recorded feed at once, 2 ms entry and response;
 * `latency` adds latency keys (`fillPollMs: 1000`).
 */
export function bandsBacktest(name: string, latency = '') {
  const text = `
venue: local
defaults:
  strategy: { name: bands, params: { bands: [ { minMargin: 0.01, targetMargin: 0.02, maxMargin: 0.03, size: 10 } ] } }
  risk: { maxPosition: 200, maxNotional: 150 }
markets: all
orders: { requoteIntervalSeconds: 0.25 }
backtest: { queueModel: level, latency: { feedMs: 0, entryMs: 2, responseMs: 2${latency ? `, ${latency}` : ''} } }
`;
  return buildBacktestConfig(name, parseDocument(text).toJS() as Record<string, unknown>, {}, {});
}
