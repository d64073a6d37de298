import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Bytes32 } from '../../../src/model/order.ts';
import { MarketLists, type FollowedMarkets } from '../../../src/runtime/phases/market-lists.ts';

const A = ('0x' + 'ab'.repeat(32)) as Bytes32;
const B = ('0x' + 'cd'.repeat(32)) as Bytes32;
const C = ('0x' + 'ef'.repeat(32)) as Bytes32;

test("until rotation is wired the start-up's selection answers", () => {
  const lists = new MarketLists([A, B]);
  assert.equal(lists.known(A), true);
  assert.equal(lists.known(B), true);
  assert.equal(lists.known(C), false);
  assert.deepEqual(lists.live(), [A, B]);
  assert.deepEqual(lists.tracked(), [A, B]);
  lists.retain(C); // nothing to retain into yet: no throw, nothing followed
  assert.equal(lists.known(C), false);
});

test('once rotation hands over its lists, every answer is theirs (added, released and retained markets)', () => {
  const lists = new MarketLists([A, B]);
  const retained: Bytes32[] = [];
  const ids: Bytes32[] = [B];
  const rotation: FollowedMarkets = {
    ids,
    tracked: () => [...ids, ...retained],
    known: (id) => [...ids, ...retained].includes(id),
    retain: (id) => void retained.push(id),
  };
  // the accessors the feeds were built with keep working across the handover (they are read at every poll)
  const { live, tracked, known } = lists;
  lists.follow(rotation);
  assert.equal(known(A), false, 'a market rotation released is not known any more');
  assert.deepEqual(live(), [B]);
  ids.push(C);
  assert.deepEqual(live(), [B, C], 'the live list, not a copy');
  lists.retain(A);
  assert.deepEqual(tracked(), [B, C, A]);
  assert.equal(known(A), true);
});
