/**
 * closeAtStop (src/runtime/closed-at-stop.ts): the orders the cancel-all found gone with their end
 * unseen, after the stop's sweep. One the sweep read closed goes to the core as an OrderClosed with the
 * venue's status (the kernel then drops it from the store); one it could not read is dropped from the
 * store alone (no event the ledger sees: it stays unfinished there for the next start); one the venue
 * shows open is left in the store; one the store no longer holds is left alone.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { silentLogger } from '../../src/core/logger.ts';
import type { Bytes32 } from '../../src/model/order.ts';
import { closeAtStop } from '../../src/runtime/closed-at-stop.ts';
import type { StateEvent } from '../../src/state/events.ts';
import { settableClock } from '../support/venue-order.ts';

const M = ('0x' + '11'.repeat(32)) as Bytes32;
const n = (c: string): Bytes32 => ('0x' + c.repeat(64)) as Bytes32;

/** a core whose store holds `held` open in M; records what reaches the store alone and the core */
function fakeCore(held: Bytes32[]) {
  const orders = new Map<string, unknown>(held.map((k) => [k, {}]));
  const storeOnly: StateEvent[] = [];
  const core: StateEvent[] = [];
  return {
    storeOnly,
    told: core,
    core: {
      store: {
        state: { markets: new Map([[M, { orders }]]) },
        dispatch: (e: StateEvent) => {
          storeOnly.push(e);
          if (e.type === 'OrderGone') orders.delete(e.nonce);
        },
      },
      receiveAll: (es: readonly StateEvent[]) => core.push(...es),
    } as never,
  };
}

test('closed with the venue status through the core; unread dropped from the store alone; open left; already gone untouched', () => {
  const clock = settableClock(5_000);
  const [filled, unread, open, settled] = [n('a'), n('b'), n('c'), n('d')];
  const f = fakeCore([filled, unread, open]);
  const r = closeAtStop(
    { core: f.core, clock, log: silentLogger },
    [filled, unread, open, settled].map((nonce) => ({ nonce, marketId: M })),
    [
      { nonce: filled, marketId: M, status: 'filled' },
      { nonce: open, marketId: M, status: 'open' },
      { nonce: settled, marketId: M, status: 'cancelled' },
    ],
  );
  assert.deepEqual(r, { closed: 1, unread: 1, open: 1 });
  assert.deepEqual(f.told, [{ type: 'OrderClosed', marketId: M, nonce: filled, status: 'filled', ts: 5_000 }]);
  assert.deepEqual(f.storeOnly, [{ type: 'OrderGone', marketId: M, nonce: unread, ts: 5_000 }]);
});

test('no sweep (failed, paper, refused start): every order the store still holds is dropped from the store alone', () => {
  const f = fakeCore([n('a'), n('b')]);
  const r = closeAtStop(
    { core: f.core, clock: settableClock(1), log: silentLogger },
    [
      { nonce: n('a'), marketId: M },
      { nonce: n('b'), marketId: M },
    ],
    null,
  );
  assert.deepEqual(r, { closed: 0, unread: 2, open: 0 });
  assert.deepEqual(f.told, []);
  assert.deepEqual(
    f.storeOnly.map((e) => e.type),
    ['OrderGone', 'OrderGone'],
  );
});
