/**
 * Bad input never crashes, blocks or corrupts the exchange: seeded random bodies, queries and paths
 * get 4xx `{message, code}` answers (never 500), oversized bodies get 413, and the engine's
 * invariants hold afterwards.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { call, onHarness } from './helpers.ts';

const PATHS = ['/orders', '/orders/cancel', '/orders/cancel-replace', '/orders/bulk', '/orders/bulk/create', '/orders/bulk/cancel', '/orders/simulate'];

test('random JSON bodies on every order path: 4xx with a code, never 5xx; invariants hold', async () => {
  await onHarness(
    async (h) => {
      const good = h.alice.signOrder({ marketId: h.marketId, outcomeIndex: 1, side: 0, price: 200_000, size: 1_000_000 });
      // mutate a valid order field by field, plus fully random values
      const mutated = fc.record({
        key: fc.constantFrom(...Object.keys(good)),
        value: fc.oneof(fc.string(), fc.integer(), fc.double(), fc.boolean(), fc.constant(null), fc.array(fc.integer()), fc.bigInt().map(String), fc.object()),
      });
      const samples = fc.sample(
        fc.oneof(
          mutated.map((m) => ({ ...good, [m.key]: m.value })),
          fc.anything(),
          fc.jsonValue(),
        ),
        { numRuns: 250, seed: 42 },
      );
      let i = 0;
      for (const body of samples) {
        const path = PATHS[i++ % PATHS.length]!;
        const wrapped = path.endsWith('bulk') ? { operations: [{ type: 'create', order: body }] } : path.endsWith('bulk/create') ? { orders: [body] } : body;
        const r = await call(h.base, 'POST', path, JSON.stringify(wrapped) ?? 'null', 'alice-key');
        assert.ok(r.status < 500, `${path} answered ${r.status} for ${JSON.stringify(wrapped)?.slice(0, 200)}`);
        if (r.status >= 400) assert.equal(typeof r.body.code, 'string');
      }
      assert.deepEqual(h.ex.state.engine.engine.checkInvariants(), []);
    },
    { rateLimit: { capacity: 1e9, refillPerSecond: 1e9 } },
  );
});

test('random query strings and path parameters on public routes: never 5xx', async () => {
  await onHarness(
    async (h) => {
      const words = fc.sample(fc.string({ maxLength: 40 }), { numRuns: 120, seed: 7 });
      const names = ['limit', 'cursor', 'depth', 'outcomeIndex', 'types', 'startTime', 'status', 'sortBy', 'timeframe', 'q', 'offset', 'createdAfter'];
      let n = 0;
      for (const w of words) {
        const e = encodeURIComponent(w);
        const name = names[n++ % names.length]!;
        for (const path of [
          `/markets?${name}=${e}`,
          `/markets/search?${name}=${e}`,
          `/activity?${name}=${e}`,
          `/markets/${e || 'x'}`,
          `/markets/${h.marketId}/orderbook?${name}=${e}`,
          `/markets/${e || 'x'}/prices?${name}=${e}`,
          `/orders/${e || 'x'}`,
        ]) {
          const r = await call(h.base, 'GET', path, undefined, 'alice-key');
          assert.ok(r.status < 500, `${path} → ${r.status}`);
        }
      }
      const raw = await fetch(`${h.base}/markets/%E0%A4%A`, {});
      assert.ok(raw.status < 500);
    },
    { rateLimit: { capacity: 1e9, refillPerSecond: 1e9 } },
  );
});

test('body size limit → 413; wrong content type → 415; unknown path → 404; wrong method → 405', async () => {
  await onHarness(
    async (h) => {
      const big = await call(h.base, 'POST', '/orders', { pad: 'x'.repeat(5000) }, 'alice-key');
      assert.equal(big.status, 413);
      assert.equal(big.body.code, 'PAYLOAD_TOO_LARGE');
      const r = await fetch(`${h.base}/orders`, {
        method: 'POST',
        headers: { authorization: 'Bearer alice-key', 'content-type': 'text/plain' },
        body: 'hello',
      });
      assert.equal(r.status, 415);
      assert.equal((await call(h.base, 'GET', '/nope')).status, 404);
      assert.equal((await fetch(h.base.replace('/v2', '/v1/markets'))).status, 404);
      const m = await call(h.base, 'DELETE', '/markets');
      assert.equal(m.status, 405);
      assert.equal(m.body.code, 'METHOD_NOT_ALLOWED');
      // still serving
      assert.equal((await call(h.base, 'GET', '/markets?limit=1')).status, 200);
    },
    { bodyLimitBytes: 1000 },
  );
});
