import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DEFAULT_RISK } from '../../../src/config/parse-risk.ts';
import { KEEPALIVE_STATUS_MS } from '../../../src/exchange/stream/book-stream.ts';
import type { SnapshotFetcher } from '../../../src/exchange/stream/snapshot-fetcher.ts';
import type { Bytes32 } from '../../../src/model/order.ts';
import type { RiskLimits } from '../../../src/risk/types.ts';
import { keepaliveStatusMsFor } from '../../../src/runtime/phases/feeds.ts';
import { until } from '../../exchange/stream/event-collector.ts';
import { ManualClock } from '../../exchange/stream/manual-clock.ts';
import { startFixtureStream } from '../../exchange/stream/stream-setup.ts';

const M = ('0x' + 'cd'.repeat(32)) as Bytes32;
const entry = (over: Partial<RiskLimits>): { risk: RiskLimits } => ({ risk: { ...DEFAULT_RISK, ...over } });

test('the keep-alive period is half the tightest stream-silence or book-age limit, at most the default, never 0', () => {
  assert.equal(keepaliveStatusMsFor([entry({})]), KEEPALIVE_STATUS_MS, 'the default limits (20 s, 30 s) keep the default');
  assert.equal(keepaliveStatusMsFor([]), KEEPALIVE_STATUS_MS);
  assert.equal(keepaliveStatusMsFor([entry({}), entry({ maxStreamSilenceMs: 3_000 })]), 1_500);
  assert.equal(keepaliveStatusMsFor([entry({ maxBookAgeMs: 4_000 }), entry({ maxStreamSilenceMs: 9_000 })]), 2_000);
  assert.equal(keepaliveStatusMsFor([entry({ maxStreamSilenceMs: 1 })]), 1, '0 would turn the keep-alives off');
});

test('a quiet live stream with the keep-alive period of a 3 s stream-silence limit is heard alive within the limit', async () => {
  // the e2e config's limit: with the fixed 5 s keep-alive a quiet market was judged silent after 3 s
  // though heartbeats came every 500 ms, and its quotes (adopted at a restart, say) were pulled
  const limitMs = 3_000;
  const clock = new ManualClock();
  const fetchSnapshot = (async () => ({ status: 200, book: { marketId: M, outcomeIndex: 1, bids: [], asks: [], venueTs: 0 } })) as SnapshotFetcher;
  const t = await startFixtureStream(
    { marketId: M, bids: [{ price: 45, size: 10 }], asks: [{ price: 47, size: 3 }], timestamp: '2026-11-21T10:00:00.000Z', seq: 1 },
    { clock, fetchSnapshot, keepaliveStatusMs: keepaliveStatusMsFor([entry({ maxStreamSilenceMs: limitMs })]) },
  );
  try {
    const c = await t.server.waitForConn(1);
    c.send('snapshot', { marketId: M, bids: [{ price: 45, size: 10 }], asks: [{ price: 47, size: 3 }], timestamp: '2026-11-21T10:00:00.000Z', seq: 1 });
    await t.col.waitFor((e) => e.type === 'snapshot', 'snapshot');
    // what the store counts as heard alive (src/state/market-state.ts streamLastEventAt): book events and 'live' statuses
    let heardAt = clock.now();
    let worst = 0;
    let seen = t.col.events.length;
    for (let i = 0; i < 40; i++) {
      const before = t.stream.stats.lastActivityTs;
      clock.advance(500);
      c.heartbeat();
      await until(() => t.stream.stats.lastActivityTs > before, 'heartbeat seen');
      for (const e of t.col.events.slice(seen)) if (e.type === 'status' && e.state === 'live') heardAt = clock.now();
      seen = t.col.events.length;
      worst = Math.max(worst, clock.now() - heardAt);
    }
    assert.ok(worst <= limitMs, `silent for ${worst} ms at worst, with heartbeats every 500 ms (limit ${limitMs})`);
  } finally {
    await t.done();
  }
});
