/**
 * The orchestrator reads the bot child's IPC messages through readChildMessage: market ids and nonces
 * in any case come out in normal form (the referee compares with ===); a message whose id is not one
 * becomes an `unhandled` report, which the referee counts as a crash of the child.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readChildMessage, type ChildMessage } from '../../src/chaos/child-messages.ts';
import type { Bytes32 } from '../../src/model/order.ts';

const M = ('0x' + 'ab'.repeat(32)) as Bytes32;
const N = ('0x' + 'cd'.repeat(32)) as Bytes32;
const upper = (id: string) => `0x${id.slice(2).toUpperCase()}` as Bytes32;

test('ids from the child in any case are read in normal form', () => {
  const r = readChildMessage({
    type: 'reconciled',
    marketId: upper(M),
    listedAt: 1,
    at: 2,
    orders: [{ nonce: upper(N), marketId: upper(M), state: 'working', sentAt: 0 }],
  });
  assert.deepEqual(r, { type: 'reconciled', marketId: M, listedAt: 1, at: 2, orders: [{ nonce: N, marketId: M, state: 'working', sentAt: 0 }] });
  assert.deepEqual(readChildMessage({ type: 'submitted', nonce: upper(N), body: 'b', retry: false }), { type: 'submitted', nonce: N, body: 'b', retry: false });
  assert.deepEqual(readChildMessage({ type: 'health', at: 3, markets: { [upper(M)]: 'quoting' } }), { type: 'health', at: 3, markets: { [M]: 'quoting' } });
  const wide: ChildMessage = { type: 'reconciled', marketId: null, listedAt: 0, at: 0, orders: [] };
  assert.deepEqual(readChildMessage(wide), wide);
});

test('a message whose id is no id is reported as a fault of the child, not passed on', () => {
  for (const m of [
    { type: 'submitted', nonce: 'n-1' as Bytes32, body: 'b', retry: false },
    { type: 'reconciled', marketId: 'rain' as Bytes32, listedAt: 0, at: 0, orders: [] },
    { type: 'reconciled', marketId: null, listedAt: 0, at: 0, orders: [{ nonce: N, marketId: 'rain' as Bytes32, state: 'working', sentAt: 0 }] },
    { type: 'health', at: 0, markets: { rain: 'quoting' } as Record<Bytes32, string> },
  ] satisfies ChildMessage[]) {
    const r = readChildMessage(m);
    assert.equal(r.type, 'unhandled', JSON.stringify(m));
    if (r.type === 'unhandled') assert.match(r.message, /is not a 32-byte id/);
  }
});
