/** End to end over HTTP: order entry with signatures made by the signing module. */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { bulk, call, cancelOp, createOp, harness, type Harness } from './helpers.ts';
import type { Bytes32 } from '../../src/model/order.ts';

let h: Harness;
before(async () => {
  h = await harness();
});
after(async () => {
  await h.close();
});

const A = 'alice-key';
const B = 'bob-key';

test('create → 201 with the stored Order; get by id and by hash; duplicate nonce → 409', async () => {
  const body = h.alice.signOrder({ marketId: h.marketId, outcomeIndex: 1, side: 0, price: 400_000, size: 10_000_000 });
  const r = await call(h.base, 'POST', '/orders', body, A);
  assert.equal(r.status, 201);
  assert.equal(r.body.success, true);
  const o = r.body.order;
  assert.equal(o.status, 'open');
  assert.equal(o.trader, h.alice.address);
  assert.equal(o.sv2OrderKind, 0);
  // a V2 buy's size is the all-in budget: ⌈P·S/1e6⌉ + maxFee
  assert.equal(o.size, String(4_000_000 + Number(body.maxFee)));
  assert.equal(o.sv2MaxCollateralIn, o.size);
  assert.equal(o.sv2MinSharesOut, '10000000');
  assert.match(o.hash, /^0x[0-9a-f]{64}$/);

  const byId = await call(h.base, 'GET', `/orders/${o.id}`, undefined, A);
  assert.equal(byId.status, 200);
  assert.equal(byId.body.nonce, body.nonce);
  assert.equal(byId.body.avgFillPrice, null);
  const byHash = await call(h.base, 'GET', `/orders/${o.hash}`, undefined, A);
  assert.equal(byHash.body.id, o.id);

  const dup = await call(h.base, 'POST', '/orders', body, A);
  assert.equal(dup.status, 409);
  assert.equal(dup.body.code, 'nonce_already_used');
});

test('a forged or tampered signature → 400 INVALID_SIGNATURE; nothing stored', async () => {
  const before = h.ex.state.stores.orders.length;
  const body = h.alice.signOrder({ marketId: h.marketId, outcomeIndex: 1, side: 0, price: 300_000, size: 5_000_000 });
  const tampered = { ...body, price: '310000' };
  const r1 = await call(h.base, 'POST', '/orders', tampered, A);
  assert.equal(r1.status, 400);
  assert.equal(r1.body.code, 'INVALID_SIGNATURE');
  // bob signs an order claiming alice as trader
  const forged = { ...h.bob.signOrderBody({ ...body, trader: h.bob.address }), trader: h.alice.address };
  const r2 = await call(h.base, 'POST', '/orders', forged, A);
  assert.equal(r2.status, 400);
  assert.equal(r2.body.code, 'INVALID_SIGNATURE');
  assert.equal(h.ex.state.stores.orders.length, before);
});

test('401 without or with an unknown key; 403 without permission or for another wallet', async () => {
  const body = h.alice.signOrder({ marketId: h.marketId, outcomeIndex: 1, side: 0, price: 300_000, size: 5_000_000 });
  assert.equal((await call(h.base, 'POST', '/orders', body)).status, 401);
  const unknown = await call(h.base, 'POST', '/orders', body, 'nope-key');
  assert.equal(unknown.status, 401);
  assert.equal(unknown.body.code, 'UNAUTHORIZED');
  const reader = await call(h.base, 'POST', '/orders', body, 'reader-key');
  assert.equal(reader.status, 403);
  assert.equal(reader.body.code, 'FORBIDDEN');
  const other = await call(h.base, 'POST', '/orders', body, B); // valid signature, but not bob's wallet
  assert.equal(other.status, 403);
  assert.equal((await call(h.base, 'GET', '/orders')).status, 401);
});

test('malformed bodies → 400 naming the field; unknown market → 404; bad JSON → 400', async () => {
  const good = h.alice.signOrder({ marketId: h.marketId, outcomeIndex: 1, side: 0, price: 300_000, size: 5_000_000 });
  const cases: [Record<string, unknown>, string][] = [
    [{ ...good, price: 'abc' }, 'price'],
    [{ ...good, price: '1000000' }, 'price'],
    [{ ...good, size: -5 }, 'size'],
    [{ ...good, outcomeIndex: 2 }, 'outcomeIndex'],
    [{ ...good, nonce: '0x12' }, 'nonce'],
    [{ ...good, trader: 'bob' }, 'trader'],
    [{ ...good, signature: '0xdead' }, 'signature'],
    [{ ...good, type: 'stop' }, 'type'],
    [{ ...good, timeInForce: 7 }, 'timeInForce'],
  ];
  for (const [body, field] of cases) {
    const r = await call(h.base, 'POST', '/orders', body, A);
    assert.equal(r.status, 400, `field ${field}`);
    assert.equal(r.body.field, field);
    assert.ok(String(r.body.message).includes(field));
  }
  const other = h.alice.signOrder({ marketId: `0x${'ab'.repeat(32)}` as Bytes32, outcomeIndex: 1, side: 0, price: 300_000, size: 5_000_000 });
  assert.equal((await call(h.base, 'POST', '/orders', other, A)).status, 404);
  const bad = await call(h.base, 'POST', '/orders', '{not json', A);
  assert.equal(bad.status, 400);
  assert.equal(bad.body.code, 'INVALID_JSON');
  assert.equal((await call(h.base, 'POST', '/orders', [], A)).status, 400);
  assert.equal((await call(h.base, 'GET', '/orders/abc', undefined, A)).status, 400);
  assert.equal((await call(h.base, 'GET', '/orders/999999', undefined, A)).status, 404);
});

test('crossing orders fill: maker and taker fills, avgFillPrice, trade activity, balances move', async () => {
  const bal0 = h.ex.state.engine.balance(h.bob.address)!.collateral;
  const ask = h.alice.signOrder({ marketId: h.marketId, outcomeIndex: 0, side: 0, price: 450_000, size: 8_000_000 }); // NO bid 45 = YES ask 55
  const a = await call(h.base, 'POST', '/orders', ask, A);
  assert.equal(a.status, 201);
  const take = h.bob.signOrder({ marketId: h.marketId, outcomeIndex: 1, side: 0, price: 560_000, size: 3_000_000 });
  const t = await call(h.base, 'POST', '/orders', take, B);
  assert.equal(t.status, 201);
  assert.equal(t.body.order.status, 'filled');
  const maker = await call(h.base, 'GET', `/orders/${a.body.order.id}`, undefined, A);
  assert.equal(maker.body.status, 'open');
  assert.ok(Number(maker.body.filledSize) > 0);
  assert.equal(maker.body.avgFillPrice, '450000'); // NO filled at 1 − 0.55
  const taker = await call(h.base, 'GET', `/orders/${t.body.order.id}`, undefined, B);
  assert.equal(taker.body.avgFillPrice, '550000');
  const bal1 = h.ex.state.engine.balance(h.bob.address)!.collateral;
  assert.ok(bal1 < bal0, 'the taker paid collateral');
  const act = await call(h.base, 'GET', `/markets/${h.marketId}/activity?types=trade&limit=1`);
  assert.equal(act.body.activity[0].type, 'trade');
  assert.equal(act.body.activity[0].data.side, 'yes');
  assert.equal(act.body.activity[0].data.contracts, 3);
});

test('cancel: 201 then 200 alreadyCancelled; another trader → 403; unknown nonce → 404; bad signature → 400', async () => {
  const body = h.alice.signOrder({ marketId: h.marketId, outcomeIndex: 1, side: 0, price: 200_000, size: 5_000_000 });
  const c = await call(h.base, 'POST', '/orders', body, A);
  assert.equal(c.status, 201);
  const cancel = h.alice.signCancel(body.nonce);
  assert.equal((await call(h.base, 'POST', '/orders/cancel', cancel, B)).status, 403);
  const forged = { ...h.bob.signCancel(body.nonce), trader: h.alice.address };
  const f = await call(h.base, 'POST', '/orders/cancel', forged, A);
  assert.equal(f.status, 400);
  assert.equal(f.body.code, 'INVALID_SIGNATURE');
  const r1 = await call(h.base, 'POST', '/orders/cancel', cancel, A);
  assert.equal(r1.status, 201);
  assert.deepEqual(r1.body, { success: true, alreadyCancelled: false });
  const r2 = await call(h.base, 'POST', '/orders/cancel', cancel, A);
  assert.equal(r2.status, 200);
  assert.equal(r2.body.alreadyCancelled, true);
  const got = await call(h.base, 'GET', `/orders/${c.body.order.id}`, undefined, A);
  assert.equal(got.body.status, 'cancelled');
  const missing = h.alice.signCancel(`0x${'cd'.repeat(32)}` as Bytes32);
  assert.equal((await call(h.base, 'POST', '/orders/cancel', missing, A)).status, 404);
});

test("cancel of an order no longer open answers as the venue's spec does: a filled one 200 alreadyCancelled (single, bulk item, cancel-replace leg), an unknown one 404", async () => {
  // a harness of its own: no other test's resting orders in the way of the fill
  const x = await harness({ seed: 13 });
  try {
    const bid = x.alice.signOrder({ marketId: x.marketId, outcomeIndex: 1, side: 0, price: 300_000, size: 2_000_000 });
    const placed = await call(x.base, 'POST', '/orders', bid, A);
    assert.equal(placed.status, 201);
    // bob's NO bid at 0.71 (a YES ask at 0.29) takes all of it
    const take = x.bob.signOrder({ marketId: x.marketId, outcomeIndex: 0, side: 0, price: 710_000, size: 2_000_000 });
    assert.equal((await call(x.base, 'POST', '/orders', take, B)).status, 201);
    assert.equal((await call(x.base, 'GET', `/orders/${placed.body.order.id}`, undefined, A)).body.status, 'filled');
    // the answer says only that nothing is left to cancel, not how the order ended
    const one = await call(x.base, 'POST', '/orders/cancel', x.alice.signCancel(bid.nonce), A);
    assert.deepEqual([one.status, one.body], [200, { success: true, alreadyCancelled: true }]);
    const many = await call(x.base, 'POST', '/orders/bulk/cancel', { cancels: [x.alice.signCancel(bid.nonce)] }, A);
    assert.equal(many.status, 200);
    assert.deepEqual(many.body, {
      success: true,
      results: [{ type: 'cancel', success: true, trader: x.alice.address, nonce: bid.nonce, alreadyCancelled: true }],
    });
    const next = x.alice.signOrder({ marketId: x.marketId, outcomeIndex: 1, side: 0, price: 200_000, size: 2_000_000 });
    const cr = await call(x.base, 'POST', '/orders/cancel-replace', { cancel: x.alice.signCancel(bid.nonce), create: next }, A);
    assert.equal(cr.status, 201);
    assert.deepEqual(cr.body.cancel, { success: true, trader: x.alice.address, nonce: bid.nonce, alreadyCancelled: true });
    assert.equal((await call(x.base, 'GET', `/orders/${placed.body.order.id}`, undefined, A)).body.status, 'filled', 'still filled');
    // an order the venue does not know: 404, PublicApiError {message, …}
    const unknown = await call(x.base, 'POST', '/orders/cancel', x.alice.signCancel(`0x${'ef'.repeat(32)}` as Bytes32), A);
    assert.equal(unknown.status, 404);
    assert.equal(typeof unknown.body.message, 'string');
  } finally {
    await x.close();
  }
});

test('cancel-replace moves an order in one call', async () => {
  const old = h.alice.signOrder({ marketId: h.marketId, outcomeIndex: 1, side: 0, price: 210_000, size: 5_000_000 });
  await call(h.base, 'POST', '/orders', old, A);
  const next = h.alice.signOrder({ marketId: h.marketId, outcomeIndex: 1, side: 0, price: 220_000, size: 5_000_000 });
  const r = await call(h.base, 'POST', '/orders/cancel-replace', { cancel: h.alice.signCancel(old.nonce), create: next }, A);
  assert.equal(r.status, 201);
  assert.equal(r.body.cancel.success, true);
  assert.equal(r.body.cancel.alreadyCancelled, false);
  assert.equal(r.body.cancel.nonce, old.nonce);
  assert.equal(r.body.create.order.price, '220000');
  const bad = await call(h.base, 'POST', '/orders/cancel-replace', { cancel: h.alice.signCancel(next.nonce), create: { ...next, price: 'x' } }, A);
  assert.equal(bad.status, 400);
  assert.equal(bad.body.field, 'create.price');
  const still = await call(h.base, 'GET', `/orders/${r.body.create.order.id}`, undefined, A);
  assert.equal(still.body.status, 'open', 'a refused cancel-replace changes nothing');
});

test('bulk: mixed operations with per-item results; a bad item refuses the whole call with indexed errors', async () => {
  const o1 = h.alice.signOrder({ marketId: h.marketId, outcomeIndex: 1, side: 0, price: 150_000, size: 2_000_000 });
  const o2 = h.alice.signOrder({ marketId: h.marketId, outcomeIndex: 1, side: 0, price: 160_000, size: 2_000_000 });
  const c = await call(h.base, 'POST', '/orders/bulk/create', { orders: [o1, o2] }, A);
  assert.equal(c.status, 201);
  assert.equal(c.body.success, true);
  assert.deepEqual(
    c.body.results.map((x: any) => [x.type, x.success, x.order.nonce]),
    [
      ['create', true, o1.nonce],
      ['create', true, o2.nonce],
    ],
  );
  const o3 = h.alice.signOrder({ marketId: h.marketId, outcomeIndex: 1, side: 0, price: 170_000, size: 2_000_000 });
  const mixed = await bulk(h.base, A, createOp(o3), cancelOp(h.alice.signCancel(o1.nonce)));
  assert.equal(mixed.status, 201);
  assert.deepEqual(
    mixed.body.results.map((x: any) => x.type),
    ['cancel', 'create'],
  );
  const o4 = h.alice.signOrder({ marketId: h.marketId, outcomeIndex: 1, side: 0, price: 180_000, size: 2_000_000 });
  const bad = await bulk(h.base, A, createOp(o4), createOp({ ...o4, nonce: o3.nonce }), cancelOp({ ...h.alice.signCancel(o2.nonce), signature: '0x00' }));
  assert.ok(bad.status === 400 || bad.status === 409);
  assert.deepEqual(
    bad.body.errors.map((e: any) => [e.index, e.operation]),
    [
      [1, 'create'],
      [2, 'cancel'],
    ],
  );
  const o4get = await call(h.base, 'GET', `/orders/${h.ex.orders.byTraderNonce(h.alice.address, o4.nonce)?.id ?? 999999}`, undefined, A);
  assert.equal(o4get.status, 404, 'nothing of a refused bulk call is applied');
  const cc = await call(h.base, 'POST', '/orders/bulk/cancel', { cancels: [h.alice.signCancel(o2.nonce), h.alice.signCancel(o1.nonce)] }, A);
  assert.equal(cc.status, 200);
  assert.deepEqual(
    cc.body.results.map((x: any) => x.alreadyCancelled),
    [false, true],
  );
});

test('the batch limit is a setting: more items → 400 BATCH_TOO_LARGE', async () => {
  const small = await harness({ batchLimit: 2, seed: 12 });
  try {
    const mk = () => small.alice.signOrder({ marketId: small.marketId, outcomeIndex: 1, side: 0, price: 100_000, size: 1_000_000 });
    const r = await call(small.base, 'POST', '/orders/bulk/create', { orders: [mk(), mk(), mk()] }, A);
    assert.equal(r.status, 400);
    assert.equal(r.body.code, 'BATCH_TOO_LARGE');
    assert.equal(r.body.field, 'orders');
    assert.equal((await call(small.base, 'POST', '/orders/bulk/create', { orders: [mk(), mk()] }, A)).status, 201);
    assert.equal((await call(small.base, 'POST', '/orders/bulk/create', { orders: [] }, A)).status, 400);
  } finally {
    await small.close();
  }
});

test('list: filters, status comma list, markets map, cursor pages with X-Next-Cursor; recent with windowSeconds', async () => {
  const page1 = await call(h.base, 'GET', `/orders?trader=${h.alice.address}&limit=2`, undefined, A);
  assert.equal(page1.status, 200);
  assert.equal(page1.body.orders.length, 2);
  assert.ok(page1.body.cursor);
  assert.equal(page1.headers.get('x-next-cursor'), page1.body.cursor);
  assert.ok(page1.body.markets[h.marketId].shortQuestion);
  assert.ok('avgFillPrice' in page1.body.orders[0]);
  const page2 = await call(h.base, 'GET', `/orders?trader=${h.alice.address}&limit=2&cursor=${page1.body.cursor}`, undefined, A);
  assert.ok(page2.body.orders[0].id < page1.body.orders[1].id);
  const open = await call(h.base, 'GET', `/orders?trader=${h.alice.address}&status=open,filled&limit=100`, undefined, A);
  assert.ok(open.body.orders.every((o: any) => o.status === 'open' || o.status === 'filled'));
  assert.equal((await call(h.base, 'GET', `/orders?status=open,bogus`, undefined, A)).body.field, 'status');
  assert.equal((await call(h.base, 'GET', `/orders?limit=101`, undefined, A)).status, 400);
  assert.equal((await call(h.base, 'GET', `/orders?cursor=zzz`, undefined, A)).body.field, 'cursor');
  const recent = await call(h.base, 'GET', `/orders/recent?windowSeconds=600&trader=${h.alice.address}`, undefined, A);
  assert.ok(recent.body.orders.length >= 5);
  assert.equal((await call(h.base, 'GET', `/orders/recent?windowSeconds=601`, undefined, A)).body.field, 'windowSeconds');
});
