import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Bytes32 } from '../../src/model/order.ts';
import { TrackedOrders, type Entry } from '../../src/orders/tracked-orders.ts';

const M1 = `0x${'1'.repeat(64)}` as Bytes32;
const M2 = `0x${'2'.repeat(64)}` as Bytes32;
const nonce = (i: number): Bytes32 => `0x${i.toString(16).padStart(64, '0')}` as Bytes32;

function entry(marketId: Bytes32, i: number): Entry {
  return {
    marketId,
    slot: `${marketId}:bid:${i}`,
    planned: { marketId, size: 1_000_000, outcomeIndex: 1, side: 0, price: 500_000, inventoryMode: 0, nonce: nonce(i) },
    remaining: 1_000_000,
    state: 'working',
    sentAt: 0,
    attempts: 0,
    resend: false,
  };
}

test("a market's orders come as the same list until they change, then as a new one; a list handed out never changes", () => {
  const t = new TrackedOrders();
  assert.deepEqual(t.entriesOf(M1), []);
  const a = entry(M1, 1);
  const b = entry(M1, 2);
  t.set(nonce(1), a);
  t.set(nonce(2), b);
  t.set(nonce(3), entry(M2, 3));
  const first = t.entriesOf(M1);
  assert.deepEqual(first, [a, b]);
  assert.equal(t.entriesOf(M1), first, 'nothing changed: the same list');
  t.delete(nonce(1));
  const second = t.entriesOf(M1);
  assert.deepEqual(second, [b]);
  assert.deepEqual(first, [a, b], 'the list handed out before the delete is as it was');
  // set again: the order moves to the end, as in the map it is read from
  t.set(nonce(1), a);
  assert.deepEqual(t.entriesOf(M1), [b, a]);
  assert.deepEqual(second, [b]);
  assert.deepEqual([...t.ofMarket(M1)], [b, a]);
  assert.equal(t.countOf(M1), 2);
  t.delete(nonce(1));
  t.delete(nonce(2));
  assert.deepEqual(t.entriesOf(M1), []);
  assert.equal(t.countOf(M1), 0);
  assert.deepEqual(
    t.entriesOf(M2).map((e) => e.planned.nonce),
    [nonce(3)],
  );
});
