/**
 * The ledger's route during start-up (src/runtime/phases/core.ts HeldForeignFills): another trader's fills
 * wait until the start-up checks pass, then go in, in order; a start refused for that trader drops them;
 * everything else goes straight through.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Bytes32 } from '../../../src/model/order.ts';
import { HeldForeignFills } from '../../../src/runtime/phases/core.ts';
import type { StateEvent } from '../../../src/state/events.ts';

const M = `0x${'11'.repeat(32)}` as Bytes32;
const fill = (n: number, origin: 'own' | 'foreign'): StateEvent =>
  ({
    type: 'OrderFilled',
    marketId: M,
    nonce: `0x${String(n).padStart(64, '0')}` as Bytes32,
    outcomeIndex: 1,
    side: 0,
    price: 500_000,
    size: 1_000_000,
    fee: 0,
    ts: n,
    origin,
  }) as StateEvent;

function route(): { held: HeldForeignFills; written: number[] } {
  const written: number[] = [];
  return { held: new HeldForeignFills({ onEvent: (e: StateEvent) => void written.push((e as { ts: number }).ts) }), written };
}

test('foreign fills wait for the checks and then go in, in order; own fills and later ones go straight in', () => {
  const { held, written } = route();
  held.onEvent(fill(1, 'foreign'));
  held.onEvent(fill(2, 'own'));
  held.onEvent(fill(3, 'foreign'));
  assert.deepEqual(written, [2]);
  held.release(true);
  assert.deepEqual(written, [2, 1, 3]);
  held.onEvent(fill(4, 'foreign'));
  held.release(true); // a second release (the stop's) writes nothing twice
  assert.deepEqual(written, [2, 1, 3, 4]);
});

test('a start refused for the other trader drops their fills, and a later release writes none of them', () => {
  const { held, written } = route();
  held.onEvent(fill(1, 'foreign'));
  held.release(false);
  held.release(true);
  assert.deepEqual(written, []);
});
