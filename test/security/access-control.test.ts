/**
 * The local exchange refuses what a real venue must refuse: forged signatures (signed by
 * another key, or a tampered field under a valid signature), replayed nonces (create and cancel), keys
 * without the trade permission, orders for another key's wallet, and cancels of another trader's order.
 * After every refusal the victim's order is still open and untouched.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createLocalExchange, type LocalExchange } from '../../src/sim/local-exchange.ts';
import { createSigner, type Signer } from '../../src/exchange/signing/signer.ts';
import { TESTNET } from '../../src/exchange/chains.ts';
import type { Bytes32 } from '../../src/model/order.ts';

let ex: LocalExchange;
let base: string;
let alice: Signer;
let bob: Signer;
let marketId: Bytes32;

before(async () => {
  ex = createLocalExchange({ seed: 31, apiKeys: [{ key: 'alice-key' }, { key: 'bob-key' }, { key: 'reader-key', perms: ['read'] }], expirySweepMs: 0 });
  base = await ex.start(0);
  alice = createSigner({ privateKey: ex.state.keys.get('alice-key')!.privateKey!, chain: TESTNET });
  bob = createSigner({ privateKey: ex.state.keys.get('bob-key')!.privateKey!, chain: TESTNET });
  marketId = [...ex.state.stores.markets.values()][0]!.id;
});
after(() => ex.close());

async function post(
  path: string,
  body: unknown,
  key: string,
): Promise<{ status: number; body: { code?: string; message?: string } & Record<string, unknown> }> {
  const r = await fetch(base + path, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: r.status, body: (await r.json()) as { code?: string; message?: string } };
}

function statusOf(trader: string, nonce: string): string | undefined {
  return ex.orders.byTraderNonce(trader, nonce)?.status;
}

function refused(r: { status: number; body: { code?: string; message?: string } }, statuses: number[], what: string): void {
  assert.ok(statuses.includes(r.status), `${what}: status ${r.status} ${JSON.stringify(r.body)}`);
  assert.equal(typeof r.body.code, 'string', what);
  assert.ok((r.body.message ?? '').length > 0, what);
}

test('forged signatures are refused: signed by another key, or a field changed after signing', async () => {
  // bob signs an order that claims alice as the trader
  const forged = { ...bob.signOrder({ marketId, outcomeIndex: 1, side: 0, price: 100_000, size: 1_000_000 }), trader: alice.address };
  refused(await post('/orders', forged, 'alice-key'), [400, 401, 403], 'order signed by another key');
  assert.equal(statusOf(alice.address, forged.nonce), undefined, 'nothing stored');
  // alice's own signature, but the price raised afterwards
  const good = alice.signOrder({ marketId, outcomeIndex: 1, side: 0, price: 100_000, size: 1_000_000 });
  refused(await post('/orders', { ...good, price: '200000' }, 'alice-key'), [400, 401, 403], 'tampered price');
  refused(await post('/orders', { ...good, signature: '0x' + '00'.repeat(65) }, 'alice-key'), [400, 401, 403], 'zero signature');
  refused(
    await post('/orders', { ...good, signature: good.signature.slice(0, -2) + (good.signature.endsWith('1b') ? '1c' : '1b') }, 'alice-key'),
    [400, 401, 403],
    'flipped recovery id',
  );
  assert.equal(statusOf(alice.address, good.nonce), undefined);
});

test('replayed nonces are refused: the same create twice, and a cancelled nonce re-used', async () => {
  const o = alice.signOrder({ marketId, outcomeIndex: 1, side: 0, price: 110_000, size: 1_000_000 });
  assert.equal((await post('/orders', o, 'alice-key')).status, 201);
  refused(await post('/orders', o, 'alice-key'), [409], 'replayed create');
  const c = alice.signCancel(o.nonce);
  assert.ok([200, 201].includes((await post('/orders/cancel', c, 'alice-key')).status));
  assert.equal(statusOf(alice.address, o.nonce), 'cancelled');
  // a fresh order signed with the cancelled nonce must not come back to life
  const again = alice.signOrder({ marketId, outcomeIndex: 1, side: 0, price: 120_000, size: 1_000_000, nonce: o.nonce });
  refused(await post('/orders', again, 'alice-key'), [409], 'create with a used nonce');
  assert.equal(statusOf(alice.address, o.nonce), 'cancelled');
});

test('keys without permission, and keys acting for another wallet, are refused', async () => {
  const o = alice.signOrder({ marketId, outcomeIndex: 1, side: 0, price: 130_000, size: 1_000_000 });
  refused(await post('/orders', o, 'reader-key'), [403], 'read-only key creating');
  refused(await post('/orders', o, 'bob-key'), [400, 401, 403], "bob's key placing alice's signed order");
  refused(await post('/orders', o, 'no-such-key'), [401], 'unknown key');
  assert.equal(statusOf(alice.address, o.nonce), undefined);
});

test("another trader's order cannot be cancelled", async () => {
  const o = alice.signOrder({ marketId, outcomeIndex: 1, side: 0, price: 140_000, size: 1_000_000 });
  assert.equal((await post('/orders', o, 'alice-key')).status, 201);
  // bob signs a cancel of alice's nonce, with his own key or claiming to be alice
  refused(await post('/orders/cancel', bob.signCancel(o.nonce), 'bob-key'), [400, 403, 404], "bob cancels alice's nonce");
  refused(
    await post('/orders/cancel', { ...bob.signCancel(o.nonce), trader: alice.address }, 'bob-key'),
    [400, 401, 403, 404],
    'cancel claiming alice, signed by bob',
  );
  refused(
    await post('/orders/cancel', { ...bob.signCancel(o.nonce), trader: alice.address }, 'alice-key'),
    [400, 401, 403],
    "bob's signature under alice's key",
  );
  refused(await post('/orders/bulk/cancel', { cancels: [bob.signCancel(o.nonce)] }, 'bob-key'), [400, 403, 404], 'bulk cancel of a foreign nonce');
  refused(await post('/orders/cancel', alice.signCancel(o.nonce), 'bob-key'), [400, 401, 403], "alice's valid cancel sent with bob's key");
  assert.equal(statusOf(alice.address, o.nonce), 'open', "alice's order is untouched");
  assert.deepEqual(ex.state.engine.engine.checkInvariants(), []);
});
