/**
 * parseOrder (src/exchange/client/parse-order.ts) gives every parsed order one object shape: `id`, `hash` and
 * `avgFillPrice` are always keys (undefined when the venue did not send them). Added only when present, they
 * made up to eight maps by transitions, which died with the last order holding them, and V8 then discarded the
 * optimised code that had embedded them (docs/performance/reoptimisation.md). Checked with V8's %HaveSameMap
 * (natives syntax, switched on for one function made here) over every combination of the three; and the
 * orders' JSON is what it was (the keys the venue sent, in the same order: undefined keys are left out).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { parseOrder } from '../../../src/exchange/client/parse-order.ts';
import type { VenueOrder } from '../../../src/model/order.ts';

setFlagsFromString('--allow-natives-syntax');
const haveSameMap = new Function('a', 'b', 'return %HaveSameMap(a, b);') as (a: object, b: object) => boolean;

const AT = { ep: 'GET /orders', path: 'orders[0]' };
const HASH = '0x' + 'cd'.repeat(32);

/** A venue Order (GET /orders item), with the optional fields chosen. */
function answer(withId: boolean, withHash: boolean, withAvg: boolean, n: number): Record<string, unknown> {
  const o: Record<string, unknown> = {
    marketId: '0x' + 'ab'.repeat(32),
    trader: '0x' + '11'.repeat(20),
    nonce: '0x' + n.toString(16).padStart(64, '0'),
    side: n % 2,
    outcomeIndex: 1,
    price: '500000',
    size: '2000000',
    filledSize: withAvg ? '1000000' : '0',
    remainingSize: withAvg ? '1000000' : '2000000',
    percentFilled: withAvg ? 50 : 0,
    type: 'limit',
    status: 'open',
    voidReason: null,
    insertedAt: '2026-01-01T00:00:00Z',
    expiry: '0',
    settlementVersion: 2,
    sv2OrderKind: 0,
    sv2TimeInForce: 0,
    sv2MinSharesOut: null,
    sv2MaxCollateralIn: '1010000',
    sv2MinCollateralOut: null,
  };
  if (withId) o.id = n;
  if (withHash) o.hash = HASH;
  if (withAvg) o.avgFillPrice = '0.5';
  return o;
}

const json = (v: unknown): string => JSON.stringify(v, (_k, x: unknown) => (typeof x === 'bigint' ? `${x}n` : x));

/** The JSON the parsed order had when the three keys were added only when the venue sent them (before this change). */
function jsonAsBefore(p: VenueOrder, withId: boolean, withHash: boolean, withAvg: boolean): string {
  const { id, hash, avgFillPrice, ...rest } = p;
  const o: Record<string, unknown> = { ...rest };
  if (withId) o.id = id;
  if (withHash) o.hash = hash;
  if (withAvg) o.avgFillPrice = avgFillPrice;
  return json(o);
}

test('every parsed order has one map, whichever of id, hash and avgFillPrice the venue sent; its JSON is unchanged', () => {
  const parsed: VenueOrder[] = [];
  let n = 1;
  for (const withId of [false, true])
    for (const withHash of [false, true])
      for (const withAvg of [false, true]) {
        const p = parseOrder(answer(withId, withHash, withAvg, n), AT);
        assert.equal(p.id, withId ? n : undefined);
        assert.equal(p.hash, withHash ? HASH : undefined);
        assert.equal(p.avgFillPrice, withAvg ? 500_000 : undefined);
        assert.equal(json(p), jsonAsBefore(p, withId, withHash, withAvg));
        parsed.push(p);
        n++;
      }
  // the venue's `orderHash` spelling and an explicit null avgFillPrice: the same map
  const orderHash = answer(false, false, false, 99);
  orderHash.orderHash = HASH;
  orderHash.avgFillPrice = null;
  const alt = parseOrder(orderHash, AT);
  assert.equal(alt.hash, HASH);
  assert.equal(alt.avgFillPrice, null);
  parsed.push(alt);
  for (const p of parsed) assert.ok(haveSameMap(parsed[0]!, p), json(p));
  // keys in the literal's order: the three optional ones last, as they were added before
  assert.deepEqual(Object.keys(parsed[0]!).slice(-3), ['id', 'hash', 'avgFillPrice']);
  // the check itself tells maps apart: an order with one key more
  assert.equal(haveSameMap(parsed[0]!, { ...parsed[0]!, extra: 1 }), false);
});
