/**
 * Recorder end to end: the in-process local exchange with simulated counterparties, two markets
 * recorded for a few seconds through the real stream client, read back (snapshots, deltas, trades,
 * metadata, an oracle quote, activity; YES terms; venue and local times), then a restart appends to the same recording, and the
 * result replays through the backtest engine.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLocalExchange } from '../../src/sim/local-exchange.ts';
import { startCounterparties } from '../../src/sim/counterparties.ts';
import { startRecorder } from '../../src/backtest/recorder.ts';
import { readEvents, readManifest } from '../../src/backtest/recording/reader.ts';
import { readColumns } from '../../src/backtest/recording/columns.ts';
import { loadReplaySource } from '../../src/backtest/replay-source.ts';
import type { Bytes32 } from '../../src/model/order.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test('record the local exchange for a few seconds, read it back, resume after a restart', async () => {
  const out = mkdtempSync(join(tmpdir(), 'bookmaker-rec-'));
  const ex = createLocalExchange({ seed: 7, apiKeys: [{ key: 'rec-key', perms: ['read'] }], markets: 2 });
  const agents = startCounterparties(ex, { seed: 7, intervalMs: 50, newMarketEveryMs: 0 });
  const base = await ex.start(0);
  try {
    const markets = [...ex.state.stores.markets.values()].map((m) => m.id as Bytes32);
    assert.equal(markets.length, 2);
    // an oracle quote for the first market (the venue completes it ~2 s after the request); the
    // second market has none, and its 404 answers are "no quote yet", not recorder errors
    const quotes = `${base}/markets/${markets[0]}/oracle/quotes`;
    assert.equal((await fetch(quotes, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).status, 202);
    for (let i = 0; i < 100; i++) {
      const latest = (await (await fetch(`${quotes}/latest`)).json()) as { quote: { status: string } };
      if (latest.quote.status === 'completed') break;
      await sleep(100);
    }
    const rec = await startRecorder({
      baseUrl: base,
      apiKey: 'rec-key',
      markets,
      out,
      metadataPollMs: 1000,
      oraclePollMs: 300,
      activityPollMs: 500,
      rotateMs: 1500,
    });
    await sleep(3500);
    const m1 = await rec.stop();
    assert.equal(rec.stats.errors, 0, 'no failed polls');
    assert.equal(rec.stats.oracle, 1, 'the completed quote, once, although every poll reads it again');
    assert.ok(rec.stats.book > 2, `book events recorded (${rec.stats.book})`);
    assert.ok(rec.stats.market >= 2, 'metadata recorded');
    assert.ok(rec.stats.activity > 0, `activity recorded (${rec.stats.activity})`);
    assert.ok(m1.files.length >= 2, `rotated by time (${m1.files.length} files)`);

    const events = [...readEvents(out)];
    const oracle = events.filter((e) => e.t === 'oracle');
    assert.equal(oracle.length, 1);
    assert.equal(oracle[0]!.m, markets[0]);
    if (oracle[0]!.t === 'oracle')
      assert.ok(oracle[0].probability >= 0 && oracle[0].probability <= 1_000_000 && oracle[0].lts >= oracle[0].vts, JSON.stringify(oracle[0]));
    assert.equal(readManifest(out).stats?.oracleEvents, 1);
    // the manifest names each market by its slug, for reports
    const slugs = new Map([...ex.state.stores.markets.values()].map((m) => [m.id.toLowerCase(), (m as { slug?: string }).slug]));
    for (const mk of readManifest(out).markets) {
      assert.ok(typeof mk.name === 'string' && mk.name.length > 0, `named: ${mk.id}`);
      assert.equal(mk.name, slugs.get(mk.id.toLowerCase()), `name of ${mk.id}`);
    }
    const acts = events.filter((e) => e.t === 'activity');
    assert.equal(acts.length, rec.stats.activity);
    const keys = acts.map((e) => JSON.stringify(e.t === 'activity' ? e.item : null));
    assert.equal(new Set(keys).size, keys.length, 'activity items are not recorded twice');
    const snaps = events.filter((e) => e.t === 'book' && e.snap);
    const deltas = events.filter((e) => e.t === 'book' && !e.snap);
    assert.ok(snaps.length >= 2, 'a snapshot per market stream');
    assert.ok(deltas.length > 0, 'deltas');
    for (const e of events) {
      assert.ok(markets.includes(e.m as Bytes32), 'only recorded markets');
      assert.ok(e.lts >= e.vts - 5, 'local receive time at or after venue time');
      if (e.t === 'book')
        for (const [p] of [...e.b, ...e.a]) assert.ok(p > 0 && p < 1_000_000 && p % 10_000 === 0, `YES price in 1e-6 units on the 1¢ tick (${p})`);
    }
    // the book built from the recording is not crossed
    const cols = readColumns(out);
    assert.equal(cols.rows > 0, true);
    assert.equal(readManifest(out).stats?.marketEvents, rec.stats.market);

    // restart: a second session appends new files to the same recording
    const before = readdirSync(out).filter((f) => f.startsWith('events-')).length;
    const rec2 = await startRecorder({ baseUrl: base, apiKey: 'rec-key', markets, out, metadataPollMs: 1000, oraclePollMs: 1000 });
    await sleep(800);
    const m2 = await rec2.stop();
    assert.ok(m2.files.length > m1.files.length, 'new files after the restart');
    assert.ok(readdirSync(out).filter((f) => f.startsWith('events-')).length > before);
    assert.equal(m2.markets.length, 2);
    assert.equal(m2.stats?.marketEvents, rec.stats.market + rec2.stats.market, 'side events counted across sessions');

    // and it replays: side events (metadata) are picked up from the JSONL
    const src = loadReplaySource(out);
    assert.ok(src.rows.length > 0);
    assert.ok(src.side.length >= rec.stats.market + rec2.stats.market);
  } finally {
    agents.stop();
    await ex.close();
    rmSync(out, { recursive: true, force: true });
  }
});
