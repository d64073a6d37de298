import assert from 'node:assert/strict';
import { test } from 'node:test';
import { systemClock } from '../../src/core/clock.ts';
import { feedEvent, type FeedEvent } from '../../src/feeds/feed-event.ts';
import { FeedHealth } from '../../src/feeds/feed-health.ts';
import { pollFeed } from '../../src/feeds/poll-feed.ts';

test('a failing read is counted and skipped; the feed keeps polling and never errors', async () => {
  const health = new FeedHealth();
  let reads = 0;
  const got: FeedEvent[] = [];
  let errored = false;
  await new Promise<void>((done) => {
    const sub = pollFeed({
      name: 'x',
      clock: systemClock,
      intervalMs: 5,
      health,
      read: async () => {
        reads++;
        if (reads % 2 === 0) throw new Error('venue down');
        return [feedEvent('x', { type: 'BalanceUpdated', collateral: BigInt(reads), ts: 0 }, 0, 0)];
      },
    }).subscribe({
      next: (e) => {
        got.push(e);
        if (got.length === 3) {
          sub.unsubscribe();
          done();
        }
      },
      error: () => (errored = true),
    });
  });
  assert.equal(errored, false);
  assert.deepEqual(
    got.map((e) => (e.event.type === 'BalanceUpdated' ? e.event.collateral : -1n)),
    [1n, 3n, 5n],
  );
  const h = health.all()[0]!;
  assert.equal(h.okCount, 3);
  assert.ok(h.errorCount >= 2);
  assert.equal(h.lastError, 'venue down');
  assert.deepEqual(health.stale(h.lastOkAt + 1), []);
  assert.deepEqual(health.stale(h.lastOkAt + h.staleAfterMs + 1), ['x']);
});

test('one read at a time: a slow answer delays the next poll instead of piling up requests', async () => {
  let inFlight = 0;
  let maxInFlight = 0;
  let reads = 0;
  await new Promise<void>((done) => {
    const sub = pollFeed({
      name: 'slow',
      clock: systemClock,
      intervalMs: 1,
      read: async () => {
        inFlight++;
        maxInFlight = Math.max(maxInFlight, inFlight);
        await new Promise((r) => setTimeout(r, 15));
        inFlight--;
        if (++reads === 3) {
          sub.unsubscribe();
          done();
        }
        return [];
      },
    }).subscribe();
  });
  assert.equal(maxInFlight, 1);
});
