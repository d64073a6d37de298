import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Bytes32 } from '../../src/model/order.ts';
import { endedOrderNonce } from '../../src/runtime/ended-order.ts';
import type { StateEvent } from '../../src/state/events.ts';

const M = ('0x' + 'ab'.repeat(32)) as Bytes32;
const N = ('0x' + '01'.repeat(32)) as Bytes32;

test('events that end an order name its nonce; the others name none', () => {
  const rows: [StateEvent, Bytes32 | null][] = [
    [{ type: 'OrderClosed', marketId: M, nonce: N, status: 'filled', ts: 1 }, N],
    [{ type: 'OrderGone', marketId: M, nonce: N, ts: 1 }, N],
    [{ type: 'OrderCancelled', marketId: M, nonce: N, alreadyCancelled: false, ts: 1 }, N],
    [{ type: 'OrderRemainingChanged', marketId: M, nonce: N, remaining: 0, ts: 1 }, N],
    [{ type: 'OrderRemainingChanged', marketId: M, nonce: N, remaining: 5, ts: 1 }, null],
    [{ type: 'OrderAccepted', marketId: M, nonce: N, duplicate: false, ts: 1 }, null],
    [{ type: 'BalanceUpdated', collateral: 1n, ts: 1 }, null],
  ];
  for (const [e, want] of rows) assert.equal(endedOrderNonce(e), want, e.type);
});
