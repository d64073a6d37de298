/**
 * The own-orders reader asks the venue for recent orders with params built as one literal, not `{ ...p, limit }`:
 * a spread followed by a new key gave each poll's params a V8 map of its own once the function had its feedback
 * (docs/performance/map-churn.md: 242 maps for 300 polls). Counted with V8's %HaveSameMap (natives syntax, switched on for
 * one function made here); the params keep their keys and order.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { distinctMaps, haveSameMap } from '../support/v8-maps.ts';
import { ownOrdersReader, RECENT_LIMIT } from '../../src/feeds/own-orders-feed.ts';
import type { Address, VenueOrder } from '../../src/model/order.ts';

const TRADER = '0x0000000000000000000000000000000000000001' as Address;

test("100 polls' recent-orders params share one map, with the keys trader, windowSeconds, limit in that order", async () => {
  const asked: object[] = [];
  const client = {
    orders: {
      async *iterate() {},
      async recent(p: object): Promise<VenueOrder[]> {
        asked.push(p);
        return [];
      },
      async get(): Promise<VenueOrder> {
        throw new Error('not looked up');
      },
    },
  };
  let now = 1_000;
  const read = ownOrdersReader({ client, trader: TRADER, clock: { now: () => now } as never, recentWindowSeconds: 30 });
  for (let i = 0; i < 100; i++) {
    await read();
    now += 1_000;
  }
  assert.equal(asked.length, 100);
  assert.deepEqual(asked[0], { trader: TRADER, windowSeconds: 30, limit: RECENT_LIMIT });
  assert.deepEqual(Object.keys(asked[99]!), ['trader', 'windowSeconds', 'limit']);
  assert.equal(distinctMaps(asked), 1);
  // the check tells maps apart: params of another shape have another map
  assert.equal(haveSameMap(asked[0]!, { ...asked[0]!, status: 'filled' }), false);
});
