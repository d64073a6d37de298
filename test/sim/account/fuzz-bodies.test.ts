/**
 * Bad input never crashes the account routes: thousands of generated bodies and query strings (random
 * JSON, and near-valid bodies with one field replaced by junk) always get a 4xx with `{message}` —
 * never a 5xx — and the exchange keeps answering and keeps its ledger invariants.
 */
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { agentDraft, startHarness, type Harness } from './harness.ts';

let h: Harness;
before(async () => {
  h = await startHarness({
    apiKeys: [{ key: 'fuzz', perms: ['read', 'trade', 'can_create_markets'] }],
    accounts: { mintsPerHour: 1_000_000, questionsPerHour: 1_000_000 },
  });
});
after(() => h.close());

const POSTS = [
  '/balance/mint-test-usdc',
  '/gasless/operator',
  '/gasless/deposit-with-permit',
  '/questions',
  '/questions/agent-submit',
  '/markets/create',
  '/account/migration/start',
  '/account/migration/migrate-funds',
  '/account/migration/restore-orders',
  '/account/migration/dismiss-orders',
];

const junk = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer(),
  fc.double(),
  fc.string({ maxLength: 30 }),
  fc.constant('0x'),
  fc.constant('1e400'),
  fc.constant('-1'),
  fc.constant('9'.repeat(90)),
  fc.array(fc.integer(), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 5 }), fc.integer(), { maxKeys: 3 }),
);

/** A plausible body per route, so mutations reach deep validation, not just the first field. */
function plausible(): Record<string, Record<string, unknown>> {
  const w = h.walletOf('fuzz');
  const sig = '0x' + '11'.repeat(65);
  const signed = { nonce: '1', deadline: String(Math.floor(h.clock.now() / 1000) + 60), signature: sig };
  return {
    '/balance/mint-test-usdc': { address: w, amount: '1.5' },
    '/gasless/operator': { user: w, settlementVersion: 2, approved: true, ...signed },
    '/gasless/deposit-with-permit': { user: w, amount: '5', ...signed },
    '/questions': { question: 'Will it?' },
    '/questions/agent-submit': {
      market: agentDraft({ endTime: '2030-01-01 00:00:00' }),
    },
    '/markets/create': { questionId: '0x' + 'ab'.repeat(32) },
    '/account/migration/start': { address: w },
    '/account/migration/migrate-funds': { chunks: [{ batchWithdraw: signed }], setOperator: signed },
    '/account/migration/restore-orders': { restorations: [{ legacyOrderId: 1, order: { type: 'limit' } }] },
    '/account/migration/dismiss-orders': { legacyOrderIds: [1, 2] },
  };
}

async function expectClientError(path: string, body: unknown, method = 'POST'): Promise<void> {
  const r = await h.call(method, path, { key: 'fuzz', body });
  assert.ok(r.status < 500, `${method} ${path} ${JSON.stringify(body)?.slice(0, 200)} → ${r.status} ${JSON.stringify(r.body)}`);
  if (r.status >= 400) assert.equal(typeof r.body?.message, 'string', `${path}: error bodies carry a message`);
}

test('random JSON bodies on every account POST route get a client error, never a 5xx', async () => {
  await fc.assert(
    fc.asyncProperty(fc.constantFrom(...POSTS), fc.jsonValue({ maxDepth: 3 }), async (path, body) => {
      await expectClientError(path, body);
    }),
    { numRuns: 400, seed: 11 },
  );
});

test('near-valid bodies with one field replaced by junk get a client error, never a 5xx', async () => {
  const base = plausible();
  await fc.assert(
    fc.asyncProperty(fc.constantFrom(...POSTS), fc.nat(), junk, async (path, pick, value) => {
      const body = structuredClone(base[path]!);
      const keys = Object.keys(body);
      body[keys[pick % keys.length]!] = value;
      await expectClientError(path, body);
    }),
    { numRuns: 700, seed: 12 },
  );
});

test('random query strings and path segments on the GET routes never give a 5xx', async () => {
  const w = h.walletOf('fuzz');
  const paths = (q: string, seg: string) => [
    `/portfolio/${seg}?${q}`,
    `/portfolio/${w}?${q}`,
    `/portfolio/${w}/positions?${q}`,
    `/portfolio/${seg}/stats`,
    `/portfolio/${w}/claimable?${q}`,
    `/balance/${seg}`,
    `/balance?${q}`,
    `/balance/settlement?${q}`,
    `/account/migration?${q}`,
    `/questions/submissions/${seg}`,
  ];
  const qs = fc
    .array(
      fc.tuple(fc.constantFrom('address', 'tokenAddress', 'kind', 'cursor', 'pageSize', 'limit', 'status', 'search', 'marketId'), fc.string({ maxLength: 70 })),
      { maxLength: 4 },
    )
    .map((pairs) => new URLSearchParams(pairs).toString());
  await fc.assert(
    fc.asyncProperty(qs, fc.string({ minLength: 1, maxLength: 50 }), fc.nat(), async (q, seg, pick) => {
      const list = paths(q, encodeURIComponent(seg));
      const r = await h.call('GET', list[pick % list.length]!, { key: 'fuzz' });
      assert.ok(r.status < 500, `${list[pick % list.length]} → ${r.status} ${JSON.stringify(r.body)}`);
    }),
    { numRuns: 400, seed: 13 },
  );
  assert.deepEqual(h.ex.state.engine.engine.checkInvariants(), [], 'ledger invariants hold after the fuzzing');
  assert.equal((await h.call('GET', `/balance/${w}`, { key: 'fuzz' })).status, 200, 'still serving');
});
