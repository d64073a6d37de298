/**
 * The local exchange's request hold (src/sim/http-server.ts RequestHold, for tests): a request held
 * after it ran has changed the exchange before its answer is sent; one held before it ran whose
 * client went away meanwhile is dropped, never run; without a hold nothing waits.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { HeldRequest } from '../../src/sim/http-server.ts';
import { call, onHarness, placeBid, type Harness } from './helpers.ts';

/** alice's open orders, as the exchange holds them */
async function openOf(h: Harness): Promise<unknown[]> {
  const r = await call(h.base, 'GET', `/orders?trader=${h.alice.address}&status=open`, undefined, 'alice-key');
  assert.equal(r.status, 200);
  return r.body.orders as unknown[];
}

test('held after it ran: the order rests before its answer is sent; the answer comes once let go', async () => {
  await onHarness(async (h) => {
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    const seen: HeldRequest[] = [];
    let reached!: () => void;
    const atHold = new Promise<void>((r) => (reached = r));
    h.ex.holdRequests((r) => {
      if (r.method !== 'POST' || r.stage !== 'after') return undefined;
      seen.push(r);
      reached();
      return released;
    });
    try {
      let answered = false;
      const placing = placeBid(h, h.alice, 400_000).then((r) => {
        answered = true;
        return r;
      });
      await atHold;
      assert.equal((await openOf(h)).length, 1, 'the order rests while its answer is held');
      assert.equal(answered, false);
      assert.deepEqual(
        seen.map((r) => [r.method, r.path, r.stage]),
        [['POST', '/orders', 'after']],
      );
      release();
      assert.equal((await placing).status, 201);
    } finally {
      release();
      h.ex.holdRequests(null);
    }
  });
});

test('held before it ran and its client gone: dropped, the exchange never ran it', async () => {
  await onHarness(async (h) => {
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    let held: HeldRequest | undefined;
    let reached!: () => void;
    const atHold = new Promise<void>((r) => (reached = r));
    h.ex.holdRequests((r) => {
      if (r.method !== 'POST' || r.stage !== 'before') return undefined;
      held = r;
      reached();
      return released;
    });
    const abort = new AbortController();
    try {
      const body = JSON.stringify(h.alice.signOrder({ marketId: h.marketId, outcomeIndex: 1, side: 0, price: 400_000, size: 1_000_000 }));
      const sent = fetch(`${h.base}/orders`, {
        method: 'POST',
        headers: { authorization: 'Bearer alice-key', 'content-type': 'application/json' },
        body,
        signal: abort.signal,
      }).catch((e: Error) => e);
      await atHold;
      abort.abort(); // the client goes away while its request is held
      assert.ok((await sent) instanceof Error);
      await held!.gone;
      release();
      h.ex.holdRequests(null);
      // a request after it: answered at once (the dropped one ran nothing)
      assert.equal((await openOf(h)).length, 0, 'the dropped create placed nothing');
      assert.equal((await placeBid(h, h.alice, 410_000)).status, 201);
      assert.equal((await openOf(h)).length, 1);
    } finally {
      release();
      h.ex.holdRequests(null);
    }
  });
});
