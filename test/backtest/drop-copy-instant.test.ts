/**
 * A venue command's drop-copy rows reach the replayed bot as one instant: the recorder stamps every row
 * of one synchronous burst with one local time, and the replay applies every row of an instant before
 * the book it publishes (a maker's cancel-and-replace never shows the bot a half-changed book that the
 * venue's stream, one message per command, never showed the live bot).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startRecorder } from '../../src/backtest/recorder.ts';
import { readEvents } from '../../src/backtest/recording/reader.ts';
import type { RecordingWriter } from '../../src/backtest/recording/writer.ts';
import { loadReplaySource } from '../../src/backtest/replay-source.ts';
import { runBacktest } from '../../src/backtest/run-backtest.ts';
import { systemClock } from '../../src/core/clock.ts';
import type { FlowEvent } from '../../src/sim/flow-tap.ts';
import { bandsBacktest, M, onRecording } from './helpers.ts';

const S = 1_000_000;
const T0 = 1_780_000_000_000;

test('replay: the rows of one drop-copy instant are all applied before the bot sees the book', async () => {
  // every 3 s, one command of the other maker: its ask moves between 60 and 59 (removed, then added)
  const commands = (w: RecordingWriter) => {
    for (let k = 1; k <= 5; k++) {
      const t = T0 + k * 3000 + 500; // off the housekeeping ticks (every second), so the book event ticks at once
      const [from, to] = k % 2 === 1 ? [600_000, 590_000] : [590_000, 600_000];
      w.write({ t: 'xbook', m: M, vts: t, lts: t, b: [], a: [[from, 0]] });
      w.write({ t: 'xbook', m: M, vts: t, lts: t, b: [], a: [[to, 100 * S]] });
    }
  };
  await onRecording(T0, commands, async (dir) => {
    const bt = await bandsBacktest('instant.yaml');
    const run = await runBacktest({ source: loadReplaySource(dir), config: bt.bot, settings: bt.settings });
    assert.ok(run.exchange.placed > 0, 'the bot quoted');
    // half a command leaves the others' book without an ask: bands would return nothing on that tick
    // (on the old order of replay: 'two-sided only with own quotes' once per command)
    const because = { ...run.diagnostics.returnedNothingBecause };
    delete because['no book yet']; // the first tick, before the first book
    assert.deepEqual(because, {}, 'never a half-applied command');
  });
});

test('recorder: every drop-copy row of one synchronous burst has one local time', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'bm-burst-'));
  let t = T0;
  // a clock that moves on every read: stamping row by row would give every row its own time
  const clock = { ...systemClock, now: () => ++t };
  let sink: ((e: FlowEvent) => void) | null = null;
  const rec = await startRecorder({
    baseUrl: 'http://127.0.0.1:9/v2',
    markets: [],
    out: dir,
    clock,
    flow: {
      tap: (_o, s) => {
        sink = s;
        return () => undefined;
      },
    },
  });
  try {
    const level = (price: number, size: number): FlowEvent => ({ type: 'book', marketId: M, atMs: T0, snap: false, bids: [], asks: [[price, size]] });
    sink!(level(600_000, 0));
    sink!(level(590_000, 100 * S));
    sink!({ type: 'taker', marketId: M, atMs: T0, side: 'buy', limit: 600_000, size: S, timeInForce: 0 });
    await Promise.resolve();
    sink!(level(590_000, 99 * S));
    sink!(level(580_000, 5 * S));
  } finally {
    await rec.stop();
  }
  const lts = [...readEvents(dir)].filter((e) => e.t === 'xbook' || e.t === 'taker').map((e) => e.lts);
  rmSync(dir, { recursive: true, force: true });
  assert.equal(lts.length, 5);
  assert.deepEqual(new Set(lts.slice(0, 3)).size, 1, `the first burst: ${lts}`);
  assert.deepEqual(new Set(lts.slice(3)).size, 1, `the second burst: ${lts}`);
  assert.ok(lts[3]! > lts[0]!, 'a later burst, a later time');
});
