/**
 * A signed order body is one object literal, not `{ ...body, signature }`: a spread followed by a new key gave
 * every signed body a V8 map of its own (docs/performance/map-churn.md). Counted with V8's %HaveSameMap (natives syntax,
 * switched on for one function made here); the JSON sent keeps its key order, and bodies of another shape
 * are still signed as before.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { distinctMaps, haveSameMap } from '../../support/v8-maps.ts';
import { MAINNET } from '../../../src/exchange/chains.ts';
import { buildLimitOrderBody } from '../../../src/exchange/signing/orderBody.ts';
import { createSigner } from '../../../src/exchange/signing/signer.ts';
import type { LimitOrder } from '../../../src/model/order.ts';
import { rng, randHex, TEST_KEYS } from './fixtures.ts';

const NOW = 1_800_000_000;

function order(r: () => number, i: number): LimitOrder {
  return { marketId: randHex(r, 32), outcomeIndex: (i % 2) as 0 | 1, side: 0, price: 1000 + i, size: 1_000_000 + i, inventoryMode: 0 };
}

test('40 signed bodies of the usual shape share one map, and their JSON keeps its key order', () => {
  const signer = createSigner({ privateKey: TEST_KEYS[0], chain: MAINNET });
  const r = rng(7);
  const bodies = Array.from({ length: 40 }, (_, i) => signer.signOrder(order(r, i), NOW));
  assert.equal(distinctMaps(bodies), 1);
  const keys = Object.keys(bodies[0]!);
  assert.deepEqual(keys, [
    'type',
    'marketId',
    'trader',
    'price',
    'size',
    'outcomeIndex',
    'side',
    'nonce',
    'expiry',
    'maxFee',
    'makerRoleConstraint',
    'inventoryModeConstraint',
    'timeInForce',
    'signature',
  ]);
  // the same body, signed again through signOrderBody, is the same JSON
  const { signature: _, ...unsigned } = bodies[0]!;
  assert.equal(JSON.stringify(signer.signOrderBody(unsigned)), JSON.stringify(bodies[0]));
  // the check tells maps apart: a body of another shape has another map
  assert.equal(haveSameMap(bodies[0]!, { ...bodies[0]!, extra: 1 }), false);
});

test('a body with optional keys (buyValue, clientOrderType) is signed with all its keys, in its order', () => {
  const signer = createSigner({ privateKey: TEST_KEYS[0], chain: MAINNET });
  const r = rng(11);
  const o: LimitOrder = { ...order(r, 3), buyValue: 5_000, clientOrderType: 'market' };
  const unsigned = buildLimitOrderBody(o, signer.address, NOW, () => randHex(r, 32));
  const signed = signer.signOrderBody(unsigned);
  assert.deepEqual(Object.keys(signed), [...Object.keys(unsigned), 'signature']);
  assert.equal(signed.buyValue, '5000');
  assert.equal(signed.clientOrderType, 'market');
  assert.equal(signed.signature, signer.signOrderBody(unsigned).signature);
});
