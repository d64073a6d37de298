/** Latency models: constant and sampled delay tables, when orders and cancels take effect in the sim venue, and the feed delay in a whole backtest. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { latencyModel, recordedFeedDelays } from '../../src/backtest/latency-model.ts';
import { queueModel } from '../../src/backtest/queue-model.ts';
import { SimExchange, type SimFill } from '../../src/backtest/sim-exchange.ts';
import { SimVenue } from '../../src/backtest/sim-venue.ts';
import { VirtualClock } from '../../src/backtest/virtual-clock.ts';
import { BadInputError } from '../../src/model/errors.ts';
import { book, cols, M, order, trade } from './helpers.ts';
import { RecordingWriter } from '../../src/backtest/recording/writer.ts';
import { toColumns, writeColumns } from '../../src/backtest/recording/columns.ts';
import { readEvents } from '../../src/backtest/recording/reader.ts';
import { loadBacktestConfig } from '../../src/backtest/backtest-config.ts';
import { loadReplaySource } from '../../src/backtest/replay-source.ts';
import { runBacktest } from '../../src/backtest/run-backtest.ts';

test('constant latency: every draw is the constant', () => {
  const m = latencyModel({ feedMs: 5, entryMs: 20, responseMs: 30 });
  assert.equal(m.constant, true);
  assert.deepEqual([m.feed(), m.entry(), m.response(), m.entry()], [5, 20, 30, 20]);
});

test('sampled latency: draws come from the recorded samples, reproducibly for a seed', () => {
  const spec = { feedMs: 0, entryMs: { samples: [10, 20, 30] }, responseMs: { samples: [7] } };
  const a = latencyModel(spec, 42);
  const b = latencyModel(spec, 42);
  const da = Array.from({ length: 200 }, () => a.entry());
  const db = Array.from({ length: 200 }, () => b.entry());
  assert.deepEqual(da, db);
  assert.equal(a.constant, false);
  assert.deepEqual(
    [...new Set(da)].sort((x, y) => x - y),
    [10, 20, 30],
  );
  assert.equal(a.response(), 7);
  // roughly uniform: each sample drawn at least 40 times out of 200
  for (const v of [10, 20, 30]) assert.ok(da.filter((x) => x === v).length >= 40, `sample ${v} drawn too rarely`);
});

test('entryMin: the least entry delay a model draws (the constant, or the least sample)', () => {
  assert.equal(latencyModel({ feedMs: 0, entryMs: 20, responseMs: 30 }).entryMin, 20);
  const m = latencyModel({ feedMs: 0, entryMs: { samples: [30, 12, 45] }, responseMs: 0 }, 7);
  assert.equal(m.entryMin, 12);
  for (let i = 0; i < 50; i++) assert.ok(m.entry() >= m.entryMin);
});

test('the sim venue tells when its earliest call on the way reaches the exchange', async () => {
  const clock = new VirtualClock(1_000);
  const c = cols([book(0, [[400_000, 10_000_000]], [[600_000, 10_000_000]])]);
  const x = new SimExchange({ cols: c, ticks: [10_000], queue: queueModel('level'), fees: { makerBps: 0, takerBps: 0 }, onFill: () => undefined });
  const spec = { feedMs: 0, entryMs: { samples: [50, 20] }, responseMs: 5 };
  const v = new SimVenue({ clock, exchange: x, latency: latencyModel(spec, 3), batchLimit: 10, onDelivered: () => undefined });
  assert.equal(v.nextEntryDue(), Infinity);
  // the same seed draws the same entry delays: each call's entry is due at 1,000 + its draw
  const twin = latencyModel(spec, 3);
  const dues = [0, 1, 2, 3].map(() => 1_000 + twin.entry());
  for (let k = 0; k < 4; k++) void v.openOrders();
  assert.ok(new Set(dues).size > 1, 'both samples drawn');
  const left = [...dues].sort((a, b) => a - b);
  while (left.length > 0) {
    assert.equal(v.nextEntryDue(), left[0]);
    clock.runNext(); // an entry (or an answer, 5 ms after its entry)
    if (v.entryRan) {
      v.entryRan = false;
      assert.equal(clock.now(), left.shift());
    }
  }
  assert.equal(v.nextEntryDue(), Infinity);
});

test('latency specs are validated with the field named', () => {
  assert.throws(
    () => latencyModel({ feedMs: -1, entryMs: 0, responseMs: 0 }),
    (e: unknown) => e instanceof BadInputError && e.field === 'latency.feedMs',
  );
  assert.throws(
    () => latencyModel({ feedMs: 0, entryMs: { samples: [] }, responseMs: 0 }),
    (e: unknown) => e instanceof BadInputError && e.field === 'latency.entryMs',
  );
  assert.throws(
    () => latencyModel({ feedMs: 0, entryMs: 0, responseMs: { samples: [1, Number.NaN] } }),
    (e: unknown) => e instanceof BadInputError && e.field === 'latency.responseMs.samples[1]',
  );
});

test('recorded feed delays are local minus venue time', () => {
  assert.deepEqual(recordedFeedDelays([105, 210, 300], [100, 200, 300]), [5, 10, 0]);
});

/** entry / response latency → (when the order rests, when the bot hears back). */
const timing: { entry: number; response: number; restsAt: number; ackAt: number }[] = [
  { entry: 0, response: 0, restsAt: 1000, ackAt: 1000 },
  { entry: 50, response: 0, restsAt: 1050, ackAt: 1050 },
  { entry: 50, response: 30, restsAt: 1050, ackAt: 1080 },
  { entry: 200, response: 100, restsAt: 1200, ackAt: 1300 },
];
for (const row of timing) {
  test(`sim venue: entry ${row.entry} ms, response ${row.response} ms → order rests at +${row.restsAt - 1000}, answer at +${row.ackAt - 1000}`, async () => {
    const clock = new VirtualClock(1000);
    const x = new SimExchange({
      cols: cols([book(0, [[400_000, 10_000_000]], [[600_000, 10_000_000]])]),
      ticks: [10_000],
      queue: queueModel('level'),
      fees: { makerBps: 0, takerBps: 0 },
      onFill: () => undefined,
    });
    const v = new SimVenue({
      clock,
      exchange: x,
      latency: latencyModel({ feedMs: 0, entryMs: row.entry, responseMs: row.response }),
      batchLimit: 10,
      onDelivered: () => undefined,
    });
    const o = order({ side: 0, price: 450_000, size: 1_000_000 });
    let answeredAt = -1;
    void v.batch([o], []).then(() => (answeredAt = clock.now()));
    let restedAt = -1;
    while (clock.runNext()) {
      if (restedAt < 0 && x.get(o.nonce)) restedAt = clock.now();
      await Promise.resolve();
      await Promise.resolve();
    }
    await new Promise((r) => setImmediate(r));
    assert.equal(restedAt, row.restsAt);
    assert.equal(answeredAt, row.ackAt);
  });
}

test('a cancel takes effect only after the entry latency: a trade in between still fills the order', async () => {
  const fills: SimFill[] = [];
  const clock = new VirtualClock(0);
  const c = cols([book(0, [[400_000, 10_000_000]], [[600_000, 10_000_000]]), trade(30, 400_000, 12_000_000, 'sell')]);
  const x = new SimExchange({ cols: c, ticks: [10_000], queue: queueModel('level'), fees: { makerBps: 0, takerBps: 0 }, onFill: (f) => fills.push(f) });
  x.applyRow(0, 0); // rows 0 and 1: the book's bid and ask levels
  x.applyRow(1, 0);
  const v = new SimVenue({
    clock,
    exchange: x,
    latency: latencyModel({ feedMs: 0, entryMs: 50, responseMs: 0 }),
    batchLimit: 10,
    onDelivered: () => undefined,
  });
  const o = order({ side: 0, price: 400_000, size: 5_000_000 });
  assert.equal(x.place(o, 0).ok, true); // rests behind 10 shares
  void v.batch([], [o.nonce]); // sent at t=0, lands at t=50
  clock.advanceTo(30);
  x.applyRow(2, 30); // 12 shares sold at 40¢: 10 ahead of us, 2 reach us
  while (clock.runNext()) await Promise.resolve();
  assert.deepEqual(
    fills.map((f) => [f.size, f.cause, f.at]),
    [[2_000_000, 'trade', 30]],
  );
  assert.equal(x.get(o.nonce)!.state, 'cancelled');
  assert.equal(x.get(o.nonce)!.remaining, 3_000_000);
});

/**
 * Feed latency end to end: a three-row recording replayed through the whole backtest; the bot's store
 * sees the last book at its recorded time plus the feed delay (constant, or one of the samples).
 */
const FEED_T0 = 1_780_000_000_000;
async function feedRecording(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'bm-feed-'));
  const w = new RecordingWriter({ dir, source: 'test', markets: [{ id: M, tick: 10_000 }] });
  w.write({ t: 'book', m: M, vts: FEED_T0, lts: FEED_T0, snap: true, b: [[400_000, 100_000_000]], a: [[600_000, 100_000_000]] });
  w.write({ t: 'book', m: M, vts: FEED_T0 + 3000, lts: FEED_T0 + 3000, b: [[410_000, 50_000_000]], a: [] });
  w.write({ t: 'book', m: M, vts: FEED_T0 + 6000, lts: FEED_T0 + 6000, b: [], a: [[590_000, 50_000_000]] });
  await w.close();
  writeColumns(dir, toColumns(readEvents(dir), [M]));
  return dir;
}

test('feed latency in a backtest: the bot sees the last recorded book at its time + the feed delay', async () => {
  const dir = await feedRecording();
  try {
    const cfg = await loadBacktestConfig('config/backtest.yaml', {}, {});
    const seenAt = async (feedMs: number | { samples: number[] }): Promise<number> => {
      const run = await runBacktest({
        source: loadReplaySource(dir),
        config: cfg.bot,
        settings: { ...cfg.settings, latency: { ...cfg.settings.latency, feedMs } },
      });
      assert.ok(run.exchange.placed > 0, 'the bot quoted on the books it saw');
      return run.store.state.markets.get(M)!.bookUpdatedAt - (FEED_T0 + 6000);
    };
    assert.equal(await seenAt(0), 0);
    assert.equal(await seenAt(250), 250);
    const sampled = await seenAt({ samples: [100, 400] });
    assert.ok(sampled === 100 || sampled === 400, `a recorded sample (${sampled})`);
    assert.equal(await seenAt({ samples: [100, 400] }), sampled, 'the same seed draws the same delays');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
