import assert from 'node:assert/strict';
import { test } from 'node:test';
import { TESTNET } from '../../src/exchange/chains.ts';
import { VenueError } from '../../src/exchange/client/errors.ts';
import type { BulkOperation, BulkResult } from '../../src/exchange/client/orders-write.ts';
import { createSigner } from '../../src/exchange/signing/signer.ts';
import { recoverOrderSigner } from '../../src/exchange/signing/recover.ts';
import type { Bytes32, CancelBody, LimitOrderBody, VenueOrder } from '../../src/model/order.ts';
import type { PlannedOrder } from '../../src/model/venue.ts';
import { createLiveVenue, type LiveOrdersClient } from '../../src/runtime/live-venue.ts';
import { createBotMetrics } from '../../src/metrics/bot-metrics.ts';
import { orderOfBody } from '../support/stub-orders-client.ts';

const signer = createSigner({ privateKey: '0x' + '22'.repeat(32), chain: TESTNET });
const M = ('0x' + 'cd'.repeat(32)) as Bytes32;
let n = 0;
const nonce = (): Bytes32 => ('0x' + (++n).toString(16).padStart(64, '0')) as Bytes32;
const planned = (): PlannedOrder => ({ marketId: M, outcomeIndex: 1, side: 0, price: 450_000, size: 10_000_000, nonce: nonce() });

type Call = { kind: string; body: unknown; alreadySent?: boolean };

/** A scripted client: records every call; `fail` makes the next call throw. */
function fakeClient() {
  const calls: Call[] = [];
  const st = { fail: [] as unknown[], duplicate: false, pages: [] as VenueOrder[][] };
  const answer = (ops: BulkOperation[]): BulkResult => ({
    results: ops.map((o) =>
      o.type === 'create'
        ? { type: 'create' as const, ok: true as const, order: orderOfBody(o.order as LimitOrderBody) }
        : { type: 'cancel' as const, ok: true as const, trader: o.cancel.trader, nonce: o.cancel.nonce, alreadyCancelled: false },
    ),
    duplicate: false,
  });
  const maybeFail = (): void => {
    const e = st.fail.shift();
    if (e) throw e;
  };
  const client: LiveOrdersClient = {
    async bulk(ops, opts) {
      calls.push({ kind: 'bulk', body: ops, ...(opts?.alreadySent !== undefined ? { alreadySent: opts.alreadySent } : {}) });
      maybeFail();
      if (st.duplicate) return { results: [], duplicate: true };
      return answer(ops);
    },
    async bulkCreate(orders, opts) {
      calls.push({ kind: 'bulkCreate', body: orders, ...(opts?.alreadySent !== undefined ? { alreadySent: opts.alreadySent } : {}) });
      maybeFail();
      if (st.duplicate) return { results: [], duplicate: true };
      return answer(orders.map((o) => ({ type: 'create', order: o })));
    },
    async bulkCancel(cs: CancelBody[]) {
      calls.push({ kind: 'bulkCancel', body: cs });
      maybeFail();
      return answer(cs.map((c) => ({ type: 'cancel', cancel: c })));
    },
    async create(body, opts) {
      calls.push({ kind: 'create', body, ...(opts?.alreadySent !== undefined ? { alreadySent: opts.alreadySent } : {}) });
      maybeFail();
      return { nonce: body.nonce, order: null, duplicate: true };
    },
    async cancelReplace(cancel, create) {
      calls.push({ kind: 'cancelReplace', body: { cancel, create } });
      maybeFail();
      return {
        cancel: { trader: cancel.trader, nonce: cancel.nonce, alreadyCancelled: false },
        create: { nonce: create.nonce, order: orderOfBody(create), duplicate: false },
      };
    },
    async *iterate(p) {
      calls.push({ kind: 'iterate', body: p });
      for (const page of st.pages) for (const o of page) yield o;
    },
  };
  return { client, calls, st };
}

const venueError = (status: number, message: string, extra: Record<string, unknown> = {}) =>
  new VenueError({
    status,
    venueCode: (extra.code as string) ?? null,
    message,
    endpoint: 'POST /orders/bulk',
    retryAfterMs: null,
    body: { message, ...extra },
  });

test('creates and cancels together go out as one mixed bulk call; alone as bulk/create or bulk/cancel', async () => {
  const { client, calls } = fakeClient();
  const v = createLiveVenue({ client: { orders: client }, signer });
  const a = planned();
  const r = await v.batch([a, planned()], [nonce()]);
  assert.deepEqual(
    calls.map((c) => c.kind),
    ['bulk'],
  );
  assert.equal(r.creates.length, 2);
  assert.ok(r.creates.every((c) => c.ok));
  assert.ok(r.cancels[0]!.ok);
  const ops = calls[0]!.body as BulkOperation[];
  assert.equal(ops[0]!.type, 'cancel', 'cancels first, so they free collateral before the creates');
  await v.batch([planned()], []);
  await v.batch([], [nonce()]);
  assert.deepEqual(
    calls.map((c) => c.kind),
    ['bulk', 'bulkCreate', 'bulkCancel'],
  );
});

test('more than the batch limit is chunked, cancels first', async () => {
  const { client, calls } = fakeClient();
  const v = createLiveVenue({ client: { orders: client }, signer, batchLimit: 50 });
  const creates = Array.from({ length: 70 }, planned);
  const cancels = Array.from({ length: 40 }, nonce);
  const r = await v.batch(creates, cancels);
  assert.deepEqual(
    calls.map((c) => [c.kind, (c.body as unknown[]).length]),
    [
      ['bulk', 50],
      ['bulkCreate', 50],
      ['bulkCreate', 10],
    ],
  );
  assert.equal(r.creates.length, 70);
  assert.equal(r.cancels.length, 40);
});

test('a retry of the same planned order resends the very same signed bytes, marked alreadySent', async () => {
  const { client, calls, st } = fakeClient();
  const v = createLiveVenue({ client: { orders: client }, signer });
  const p = planned();
  st.fail.push(venueError(503, 'unavailable'));
  const first = await v.batch([p], []);
  assert.equal(first.creates[0]!.ok, false);
  assert.equal((first.creates[0] as { retryable: boolean }).retryable, true);
  const again = await v.batch([p], []);
  assert.equal(again.creates[0]!.ok, true);
  const [a, b] = calls.map((c) => (c.body as LimitOrderBody[])[0]!);
  assert.deepEqual(a, b);
  assert.equal(calls[1]!.alreadySent, true);
  assert.equal(v.keptBodies, 0, 'the body is released once placed');
});

test('a duplicate answer to a bulk resend settles each create alone', async () => {
  const { client, calls, st } = fakeClient();
  const v = createLiveVenue({ client: { orders: client }, signer });
  const p = planned();
  st.fail.push(venueError(500, 'boom'));
  await v.batch([p], []);
  st.duplicate = true;
  const r = await v.batch([p], []);
  assert.deepEqual(
    calls.map((c) => c.kind),
    ['bulkCreate', 'bulkCreate', 'create'],
  );
  assert.deepEqual(r.creates[0], { ok: true, nonce: p.nonce, order: null, duplicate: true });
});

test('a call refused for some items classifies those items and marks the rest retryable', async () => {
  const { client, st } = fakeClient();
  const v = createLiveVenue({ client: { orders: client }, signer });
  const [a, b, c] = [planned(), planned(), planned()];
  st.fail.push(
    venueError(409, '2 item(s) refused; nothing was applied', {
      errors: [
        { index: 0, error: 'nonce already used by this trader', code: 'nonce_already_used' },
        { index: 2, error: 'migration required: this wallet has legacy balances', code: 'MIGRATION_REQUIRED' },
      ],
    }),
  );
  const r = await v.batch([a, b, c], []);
  assert.deepEqual(r.creates[0], { ok: true, nonce: a.nonce, order: null, duplicate: true });
  assert.equal(r.creates[1]!.ok, false);
  assert.equal((r.creates[1] as { retryable: boolean }).retryable, true);
  assert.equal((r.creates[2] as { migration?: boolean }).migration, true);
  assert.equal((r.creates[2] as { retryable: boolean }).retryable, false);
});

test('429 and network failures apply to every item of the call', async () => {
  const { client, st } = fakeClient();
  const v = createLiveVenue({ client: { orders: client }, signer });
  st.fail.push(new VenueError({ status: 429, venueCode: null, message: 'slow down', endpoint: 'POST /orders/bulk', retryAfterMs: 500, body: null }));
  const r = await v.batch([planned()], [nonce()]);
  assert.equal((r.creates[0] as { code: string }).code, 'rate-limited');
  assert.equal((r.cancels[0] as { retryable: boolean }).retryable, true);
});

test('cancel-replace of an order the venue does not know sends the create alone', async () => {
  const { client, calls, st } = fakeClient();
  const v = createLiveVenue({ client: { orders: client }, signer });
  st.fail.push(venueError(404, 'order with nonce 0x… not found'));
  const p = planned();
  const r = await v.cancelReplace(nonce(), p);
  assert.deepEqual(
    calls.map((c) => c.kind),
    ['cancelReplace', 'bulkCreate'],
  );
  assert.equal(r.cancel.ok && r.cancel.alreadyCancelled, true);
  assert.equal(r.create.ok, true);
});

test('openOrders lists every page of the trader open orders', async () => {
  const { client, calls, st } = fakeClient();
  const v = createLiveVenue({ client: { orders: client }, signer });
  const body = signer.signOrder({ marketId: M, outcomeIndex: 1, side: 0, price: 400_000, size: 1_000_000 });
  st.pages = [[orderOfBody(body)], [orderOfBody({ ...body, nonce: nonce() })]];
  const list = await v.openOrders(M);
  assert.equal(list.length, 2);
  assert.deepEqual(calls[0]!.body, { trader: signer.address, status: ['open'], limit: 100, marketId: M });
  // the wallet is sent as the signer writes it, EIP-55 (docs/venue.md#encodings-and-enums)
  assert.equal(v.trader, signer.address);
  assert.notEqual(v.trader, signer.normalAddress, 'this key has letters: the checksummed spelling differs from the normal form');
});

test('cancel bodies signed ahead are dropped when the order ends without our cancel (forget)', async () => {
  const { client, calls } = fakeClient();
  const v = createLiveVenue({ client: { orders: client }, signer });
  const [a, b, c] = [planned(), planned(), planned()];
  await v.batch([a, b, c], []);
  await new Promise((r) => setImmediate(r)); // the idle-time presigning
  assert.equal(v.presignedCancels, 3);
  v.forget(a.nonce); // filled
  v.forget(b.nonce);
  assert.equal(v.presignedCancels, 1);
  // a cancel after all (a stale view) is still signed, on the spot
  const r = await v.batch([], [a.nonce, c.nonce]);
  assert.ok(r.cancels.every((x) => x.ok));
  const sent = calls.at(-1)!.body as CancelBody[];
  assert.deepEqual(
    sent.map((x) => x.nonce),
    [a.nonce, c.nonce],
  );
  assert.deepEqual(sent[0], signer.signCancel(a.nonce));
  assert.equal(v.presignedCancels, 0);
});

test('signing ahead does at most 4 cancels a turn, so a book event arriving meanwhile waits for 4, not for every order just placed', async () => {
  const { client } = fakeClient();
  const v = createLiveVenue({ client: { orders: client }, signer, aheadNonces: 0 });
  await v.batch(Array.from({ length: 10 }, planned), []);
  const turn = () => new Promise((r) => setImmediate(r));
  const seen: number[] = [];
  for (let i = 0; i < 4; i++) {
    await turn();
    seen.push(v.presignedCancels);
  }
  assert.deepEqual(seen, [4, 8, 10, 10]);
});

test('an order cancelled before its cancel was signed ahead leaves nothing to sign ahead', async () => {
  const { client } = fakeClient();
  const v = createLiveVenue({ client: { orders: client }, signer, aheadNonces: 0 });
  const a = planned();
  await v.batch([a], []);
  await v.batch([], [a.nonce]); // same turn: signed on the spot
  for (let i = 0; i < 3; i++) await new Promise((r) => setImmediate(r));
  assert.equal(v.presignedCancels, 0, 'no body kept for an order already cancelled');
});

test('an order forgotten before its cancel was signed ahead is not signed at all', async () => {
  const { client } = fakeClient();
  const v = createLiveVenue({ client: { orders: client }, signer });
  const a = planned();
  await v.batch([a], []);
  v.forget(a.nonce); // same turn: still queued for presigning
  await new Promise((r) => setImmediate(r));
  assert.equal(v.presignedCancels, 0);
});

test("refusals keep the venue's status, code and message: a whole call refused for items, and a 201 listing refused items in `errors`", async () => {
  const { client, st } = fakeClient();
  const v = createLiveVenue({ client: { orders: client }, signer });
  // a 403 naming every item (a key acting for another wallet)
  const [a, b] = [planned(), planned()];
  st.fail.push(
    venueError(403, '2 item(s) refused; nothing was applied', {
      code: 'FORBIDDEN',
      errors: [0, 1].map((index) => ({ index, error: "orders may only be placed for this API key's wallet", code: 'FORBIDDEN' })),
    }),
  );
  const r1 = await v.batch([a, b], []);
  for (const c of r1.creates) {
    assert.ok(!c.ok);
    assert.equal(c.code, 'forbidden');
    assert.equal(c.status, 403);
    assert.equal(c.venueCode, 'FORBIDDEN');
    assert.match(c.message, /API key's wallet/);
  }
  // a 201 that applied one create and lists the other in `errors` (the engine refused it)
  const [c, d] = [planned(), planned()];
  client.bulkCreate = async (orders) => ({
    results: [{ type: 'create', ok: true, order: orderOfBody(orders[0]!) }],
    errors: [{ index: 1, error: 'insufficient balance: not enough collateral', code: 'INSUFFICIENT_BALANCE' }],
    duplicate: false,
  });
  const r2 = await v.batch([c, d], []);
  assert.equal(r2.creates[0]!.ok, true);
  const refused = r2.creates[1]!;
  assert.ok(!refused.ok);
  assert.equal(refused.venueCode, 'INSUFFICIENT_BALANCE');
  assert.equal(refused.status, 400);
  assert.match(refused.message, /insufficient balance/);
  assert.equal(refused.retryable, false);
});

test("onWrite names the market of each request and whether it carries only cancels (a cancel-only call needs the caller's market)", async () => {
  const { client } = fakeClient();
  const writes: [Bytes32 | null, boolean][] = [];
  const v = createLiveVenue({ client: { orders: client }, signer, onWrite: (m, cancelOnly) => writes.push([m, cancelOnly]) });
  await v.batch([planned()], [nonce()]);
  await v.batch([planned()], []);
  await v.batch([], [nonce()], M); // a requote of market M that only cancels
  await v.batch([], [nonce()]); // cancels across markets (reconcile, cancel-all): no market
  await v.cancelReplace(nonce(), planned());
  assert.deepEqual(writes, [
    [M, false],
    [M, false],
    [M, true],
    [null, true],
    [M, false],
  ]);
});

test('order signatures use ECDSA nonces computed ahead in idle turns, 4 per turn, refilled once 16 are used; aheadNonces 0 turns it off', async () => {
  const turn = () => new Promise((r) => setImmediate(r));
  const s = createSigner({ privateKey: '0x' + '33'.repeat(32), chain: TESTNET });
  const { client, calls } = fakeClient();
  const v = createLiveVenue({ client: { orders: client }, signer: s, aheadNonces: 40 });
  assert.equal(s.precomputedNonces, 0, "nothing is computed on the caller's turn");
  await turn();
  assert.equal(s.precomputedNonces, 4, "one turn's worth per idle turn");
  for (let i = 0; i < 9; i++) await turn();
  assert.equal(s.precomputedNonces, 40);
  const r = await v.batch([planned(), planned(), planned()], []);
  assert.ok(r.creates.every((c) => c.ok));
  assert.equal(s.precomputedNonces, 37, 'each create took one');
  for (const b of calls[0]!.body as LimitOrderBody[]) assert.equal(recoverOrderSigner(b, TESTNET), s.address);
  // the three placed orders' cancels are signed ahead in the next turn; no refill for fewer than 16 used
  for (let i = 0; i < 4; i++) await turn();
  assert.equal(s.precomputedNonces, 37, 'no refill for fewer than 16 used');
  await v.batch(Array.from({ length: 13 }, planned), []);
  assert.equal(s.precomputedNonces, 24);
  // 13 cancels to sign ahead and 16 nonces to refill: 4 of each a turn
  await turn();
  assert.equal(s.precomputedNonces, 28);
  for (let i = 0; i < 3; i++) await turn();
  assert.equal(v.presignedCancels, 16);
  assert.equal(s.precomputedNonces, 40, 'refilled once 16 were used, 4 a turn');

  const off = createSigner({ privateKey: '0x' + '33'.repeat(32), chain: TESTNET });
  const v0 = createLiveVenue({ client: { orders: fakeClient().client }, signer: off, aheadNonces: 0 });
  await v0.batch([planned()], []);
  for (let i = 0; i < 4; i++) await turn();
  assert.equal(off.precomputedNonces, 0);
});

test('at most maxInFlight order calls are in flight; the rest wait unsent, in order, and onWrite fires when each is sent', async () => {
  const { client, calls } = fakeClient();
  const gates: (() => void)[] = [];
  const gated: LiveOrdersClient = {
    ...client,
    async bulkCreate(orders, o) {
      await new Promise<void>((r) => gates.push(r));
      return client.bulkCreate(orders, o);
    },
  };
  const writes: (string | null)[] = [];
  const v = createLiveVenue({ client: { orders: gated }, signer, maxInFlight: 2, aheadNonces: 0, onWrite: (m) => writes.push(m) });
  const ps = Array.from({ length: 5 }, () => v.batch([planned()], []));
  const turn = () => new Promise((r) => setImmediate(r));
  await turn();
  assert.equal(gates.length, 2, 'two calls sent');
  assert.equal(writes.length, 2);
  assert.equal(v.waitingCalls, 3);
  assert.equal(v.inFlightCalls, 2);
  // the same figures on /metrics, read at scrape time
  const metrics = createBotMetrics({ defaultMetrics: false });
  metrics.setOrderCalls(() => ({ waiting: v.waitingCalls, inFlight: v.inFlightCalls }));
  const scraped = await metrics.registry.metrics();
  assert.match(scraped, /^bookmaker_order_calls_waiting 3$/m);
  assert.match(scraped, /^bookmaker_order_calls_in_flight 2$/m);
  gates[0]!();
  await turn();
  assert.equal(gates.length, 3, 'a finished call lets the next one go');
  assert.equal(writes.length, 3);
  assert.equal(v.waitingCalls, 2);
  for (let i = 1; i < 5; i++) {
    await turn();
    gates[i]!();
  }
  const rs = await Promise.all(ps);
  assert.ok(rs.every((r) => r.creates.length === 1 && r.creates[0]!.ok));
  assert.equal(v.waitingCalls, 0);
  assert.equal(v.inFlightCalls, 0);
  assert.match(await metrics.registry.metrics(), /^bookmaker_order_calls_waiting 0$/m);
  // sent in the order they were asked for
  const sent = calls.filter((c) => c.kind === 'bulkCreate').map((c) => (c.body as LimitOrderBody[])[0]!.nonce);
  assert.deepEqual(
    sent,
    rs.map((r) => r.creates[0]!.nonce),
  );
});
