/** Rate limits and fault injection: 429 with X-RateLimit-* headers, injected faults counted by kind, restart keeps state. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { call, onHarness, placeBid, readSse } from './helpers.ts';
import { FAULT_PROFILE_NAMES, FAULT_PROFILES, NO_FAULTS, faultProfile, resolveFaultProfile } from '../../src/sim/faults.ts';

test('per-key token bucket: 429 with X-RateLimit-Limit/Remaining/Reset once the bucket is empty', async () => {
  await onHarness(
    async (h) => {
      const statuses: number[] = [];
      let last;
      for (let i = 0; i < 4; i++) {
        last = await call(h.base, 'GET', '/orders', undefined, 'alice-key');
        statuses.push(last.status);
        assert.equal(last.headers.get('x-ratelimit-limit'), '3');
        assert.ok(Number(last.headers.get('x-ratelimit-reset')) >= Math.floor(Date.now() / 1000));
      }
      assert.deepEqual(statuses, [200, 200, 200, 429]);
      assert.equal(last!.headers.get('x-ratelimit-remaining'), '0');
      assert.equal(last!.body.code, 'RATE_LIMITED');
      assert.ok(Number(last!.headers.get('retry-after')) > 0);
      // buckets are per key: bob still has his
      assert.equal((await call(h.base, 'GET', '/orders', undefined, 'bob-key')).status, 200);
    },
    { rateLimit: { capacity: 3, refillPerSecond: 0.001 } },
  );
});

test('5xx, 429 bursts, latency and slow bodies are injected and counted; state untouched by a failed request', async () => {
  await onHarness(
    async (h) => {
      const seen = new Map<number, number>();
      for (let i = 0; i < 60; i++) {
        const r = await call(h.base, 'GET', '/markets?limit=2');
        seen.set(r.status, (seen.get(r.status) ?? 0) + 1);
        if (r.status >= 400) assert.ok(typeof r.body.message === 'string' && typeof r.body.code === 'string');
        else assert.equal(r.body.markets.length, 2, 'slow bodies still arrive whole');
      }
      const c = h.ex.faults.counts;
      assert.equal(c.error5xx, (seen.get(500) ?? 0) + (seen.get(503) ?? 0));
      assert.equal(c.burst429, seen.get(429) ?? 0);
      assert.ok(c.error5xx > 0 && c.burst429 > 0 && c.slowBody > 0);
      assert.equal(c.latency, 60);
    },
    {
      faults: {
        errorRate: 0.3,
        burst429Rate: 0.1,
        burst429Length: 3,
        latencyMs: 1,
        latencyJitterMs: 2,
        slowBodyRate: 0.5,
        slowBodyChunkBytes: 64,
        slowBodyPauseMs: 1,
      },
    },
  );
});

test('stream faults: duplicates and out-of-order events are counted; a drop ends the stream; a stall goes silent', async () => {
  await onHarness(
    async (h) => {
      const url = `${h.base}/markets/${h.marketId}/orderbook?outcomeIndex=1`;
      /** Sets `faults`, then reads the stream: once the snapshot is in, `place` runs once (events to stream); `done` ends the read. */
      const readWith = (faults: Parameters<typeof h.ex.faults.configure>[0], place: () => unknown, done: (f: unknown[]) => boolean, ms?: number) => {
        h.ex.faults.configure(faults);
        let posted = false;
        const onFrames = (f: unknown[]): boolean => {
          if (f.length >= 1 && !posted) {
            posted = true;
            void place();
          }
          return done(f);
        };
        return readSse(url, {}, onFrames, ms);
      };
      /** alice places one bid at `price` */
      const bid = (price: number) => () =>
        call(h.base, 'POST', '/orders', h.alice.signOrder({ marketId: h.marketId, outcomeIndex: 1, side: 0, price, size: 1_000_000 }), 'alice-key');
      const dup = await readWith({ streamDuplicateRate: 1 }, bid(100_000), (f) => f.length >= 3);
      assert.equal(dup.frames[1]!.data.seq, dup.frames[2]!.data.seq, 'the same event twice');
      assert.ok(h.ex.faults.counts.streamDuplicate >= 1);

      // read until the server ends the stream
      const dropped = await readWith({ streamDropRate: 1 }, bid(110_000), () => false, 3000);
      assert.equal(dropped.frames.length, 2, 'snapshot, the delta, then the server closed the stream');
      assert.ok(h.ex.faults.counts.streamDrop >= 1);

      const stalled = await readWith({ streamStallRate: 1 }, bid(120_000), () => false, 600);
      assert.equal(stalled.frames.length, 1, 'no events after the stall');
      const afterStall = stalled.comments.length;
      assert.ok(h.ex.faults.counts.streamStall >= 1);
      assert.ok(afterStall <= 3, 'no heartbeats after the stall either');
    },
    { heartbeatMs: 50 },
  );
  // (no heartbeat between the two events: a heartbeat sends a held frame first, below)
  await onHarness(
    async (h) => {
      h.ex.faults.configure({ streamReorderRate: 1 });
      let posted = false;
      const reordered = await readSse(`${h.base}/markets/${h.marketId}/orderbook?outcomeIndex=1`, {}, (f) => {
        if (f.length >= 1 && !posted) {
          posted = true;
          void (async () => {
            await placeBid(h, h.alice, 130_000);
            await placeBid(h, h.alice, 140_000);
          })();
        }
        return f.length >= 3;
      });
      assert.ok(reordered.frames[1]!.data.seq > reordered.frames[2]!.data.seq, 'the later event arrives first');
      assert.ok(h.ex.faults.counts.streamReorder >= 1);
    },
    { heartbeatMs: 600_000 },
  );
});

test("a heartbeat carries the exchange's clock and goes out after every event before it, a frame held by the reorder fault included", async () => {
  await onHarness(
    async (h) => {
      h.ex.faults.configure({ streamReorderRate: 1 });
      const ac = new AbortController();
      /** the stream in order: frames by seq, heartbeats by their time */
      const seen: string[] = [];
      let placedAt = 0;
      try {
        const r = await fetch(`${h.base}/markets/${h.marketId}/orderbook?outcomeIndex=1`, { headers: { accept: 'text/event-stream' }, signal: ac.signal });
        const reader = r.body!.getReader();
        const dec = new TextDecoder();
        let buf = '';
        let deltaSeq = -1;
        for (let beatsAfter = 0; beatsAfter < 2; ) {
          const { value, done } = await reader.read();
          if (done) break;
          buf += dec.decode(value, { stream: true });
          let i: number;
          while ((i = buf.indexOf('\n\n')) >= 0) {
            const block = buf.slice(0, i);
            buf = buf.slice(i + 2);
            const beat = /^: heartbeat (\d+)$/.exec(block);
            if (beat) {
              const ts = Number(beat[1]);
              if (placedAt > 0 && ts >= placedAt) {
                beatsAfter++;
                seen.push('beat');
              }
              continue;
            }
            const data = JSON.parse(
              block
                .split('\n')
                .find((l) => l.startsWith('data: '))!
                .slice(6),
            );
            if (block.startsWith('event: snapshot')) {
              placedAt = h.ex.state.clock.now();
              await placeBid(h, h.alice, 130_000); // its delta is held by the fault, for the next event
            } else if (block.startsWith('event: delta')) {
              deltaSeq = data.seq;
              seen.push(`delta ${data.seq}`);
              assert.ok(Date.parse(data.timestamp) >= placedAt - 1);
            }
          }
        }
        assert.ok(deltaSeq > 0);
        assert.deepEqual(
          seen,
          [`delta ${deltaSeq}`, 'beat', 'beat'],
          'the held delta before the heartbeat stamped after it (old code: held until the next event)',
        );
      } finally {
        ac.abort();
      }
    },
    { heartbeatMs: 100 },
  );
});

test('restart keeps state and the port; counted as a fault', async () => {
  await onHarness(async (h) => {
    const body = h.alice.signOrder({ marketId: h.marketId, outcomeIndex: 1, side: 0, price: 330_000, size: 1_000_000 });
    const r = await call(h.base, 'POST', '/orders', body, 'alice-key');
    const base2 = await h.ex.restart();
    assert.equal(base2, h.base);
    assert.equal(h.ex.faults.counts.restart, 1);
    const got = await call(base2, 'GET', `/orders/${r.body.order.id}`, undefined, 'alice-key');
    assert.equal(got.body.nonce, body.nonce);
    assert.equal((await call(base2, 'POST', '/orders', body, 'alice-key')).status, 409);
  });
});

test('named profiles: one vocabulary, old CLI names resolve with a deprecation, unknown names are refused', () => {
  assert.deepEqual(Object.keys(FAULT_PROFILES), [...FAULT_PROFILE_NAMES]);
  assert.deepEqual(FAULT_PROFILES.none, NO_FAULTS);
  for (const [old, now] of [
    ['off', 'none'],
    ['stream-chaos', 'streams'],
    ['chaos', 'mixed'],
  ] as const) {
    const r = resolveFaultProfile(old);
    assert.equal(r.name, now);
    assert.match(r.deprecation!, new RegExp(`'${old}' is deprecated: use '${now}'`));
    assert.deepEqual(faultProfile(old), FAULT_PROFILES[now]);
  }
  assert.equal(resolveFaultProfile('heavy').deprecation, undefined);
  assert.equal(faultProfile('off').errorRate, 0);
  assert.throws(() => faultProfile('nope'), /unknown fault profile 'nope': expected one of none, latency, slow, flaky, streams, mixed, heavy/);
  assert.throws(() => faultProfile('light'), /'light' is not a profile.*'flaky' is the nearest/);
});
