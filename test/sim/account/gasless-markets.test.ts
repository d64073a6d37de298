/**
 * Gasless relays and market creation over HTTP: operator approval nonces (replay rejected), deadline
 * and version rules, Permit2 deposits; question submission progressing over simulated time, a real
 * tradeable market created from it, 403 without `can_create_markets`, the daily limit's 429.
 */
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { agentDraft, startHarness, type Harness } from './harness.ts';

let h: Harness;

before(async () => {
  h = await startHarness({
    apiKeys: [{ key: 'trader-key' }, { key: 'creator-key', perms: ['read', 'trade', 'can_create_markets'] }, { key: 'mallory-key' }],
    accounts: { marketsPerDay: 1, submissionProcessingAfterMs: 2_000, submissionCompletedAfterMs: 6_000 },
  });
});
after(() => h.close());

const body = (o: { user: string; settlementVersion: number; approved: boolean; nonce: string; deadline: string; signature: string }) => o;

test('gasless operator: the nonce must be current, then increments, so a replay fails', async () => {
  const s = h.signerOf('trader-key');
  const first = s.signOperatorApproval({ nonce: 0, approved: false });
  const ok = await h.call('POST', '/gasless/operator', { key: 'trader-key', body: body(first) });
  assert.equal(ok.status, 200, JSON.stringify(ok.body));
  assert.equal(ok.body.success, true);
  assert.equal(ok.body.user, s.address);
  assert.equal(ok.body.operator, h.ex.state.chain.settlementV2);
  assert.match(ok.body.txHash, /^0x[0-9a-f]{64}$/);
  const replay = await h.call('POST', '/gasless/operator', { key: 'trader-key', body: body(first) });
  assert.equal(replay.status, 400);
  assert.equal(replay.body.field, 'nonce');
  const next = s.signOperatorApproval({ nonce: 1 });
  assert.equal((await h.call('POST', '/gasless/operator', { key: 'mallory-key', body: body(next) })).status, 200, 'anyone may relay a valid signature');
  const st = (await h.call('GET', '/account/migration', { key: 'trader-key' })).body;
  assert.equal(st.newHoldingsOperatorNonce, '2');
  assert.equal(st.v2OperatorApproved, true);
});

test('gasless operator: forged, expired and legacy-version approvals are refused', async () => {
  const s = h.signerOf('mallory-key');
  const victim = h.walletOf('trader-key');
  const forged = { ...s.signOperatorApproval({ nonce: 2 }), user: victim };
  const f = await h.call('POST', '/gasless/operator', { key: 'mallory-key', body: forged });
  assert.equal(f.status, 400);
  assert.equal(f.body.code, 'INVALID_SIGNATURE');
  const expired = s.signOperatorApproval({ nonce: 0, deadline: Math.floor(h.clock.now() / 1000) - 10 });
  const e = await h.call('POST', '/gasless/operator', { key: 'mallory-key', body: expired });
  assert.equal(e.body.field, 'deadline');
  const v1 = s.signOperatorApproval({ nonce: 0, settlementVersion: 1 });
  const r1 = await h.call('POST', '/gasless/operator', { key: 'mallory-key', body: v1 });
  assert.equal(r1.status, 400);
  assert.equal(r1.body.field, 'settlementVersion', 'legacy settlement is retired while migration is active');
  // a V2 signature presented as V1 (wrong domain) would not verify either; and junk is a 400 naming the field
  assert.equal((await h.call('POST', '/gasless/operator', { key: 'mallory-key', body: { ...v1, signature: '0x1234' } })).body.field, 'signature');
  assert.equal((await h.call('POST', '/gasless/operator', { body: v1 })).status, 401);
});

test("deposit-with-permit moves the wallet's USDC into Holdings once per Permit2 nonce: it creates none", async () => {
  const s = h.signerOf('trader-key');
  const bal = async () =>
    (await h.call('GET', `/balance/${s.address}`, { key: 'trader-key' })).body.usdc as { balance: string; settlementBalance: string; walletBalance: string };
  const permit = s.signPermit2({ amount: 25_000_000n });
  // nothing in the wallet yet: the relay refuses (the chain's transfer would revert), and the nonce stays usable
  const empty = await h.call('POST', '/gasless/deposit-with-permit', { key: 'trader-key', body: permit });
  assert.equal(empty.status, 400, JSON.stringify(empty.body));
  assert.equal(empty.body.field, 'amount');
  h.ex.state.ext.walletUsdc = { [s.address.toLowerCase()]: 30_000_000n };
  const before = await bal();
  assert.equal(before.walletBalance, '30000000');
  assert.equal(BigInt(before.balance), BigInt(before.settlementBalance) + 30_000_000n);
  const ok = await h.call('POST', '/gasless/deposit-with-permit', { key: 'trader-key', body: permit });
  assert.equal(ok.status, 200, JSON.stringify(ok.body));
  assert.equal(ok.body.amount, '25000000');
  assert.equal(ok.body.token, h.ex.state.chain.usdc);
  const after = await bal();
  assert.equal(BigInt(after.settlementBalance) - BigInt(before.settlementBalance), 25_000_000n, 'Holdings credited');
  assert.equal(after.walletBalance, '5000000', 'the wallet debited by as much');
  assert.equal(after.balance, before.balance, 'the total is unchanged: a deposit moves money, it does not create it');
  assert.equal((await h.call('POST', '/gasless/deposit-with-permit', { key: 'trader-key', body: permit })).status, 409, 'nonce replay');
  const legacySpender = s.signPermit2({ amount: 1n, spender: h.ex.state.chain.holdingsLegacy });
  assert.equal(
    (await h.call('POST', '/gasless/deposit-with-permit', { key: 'trader-key', body: legacySpender })).status,
    200,
    'the SDK-0.6 spender (legacy Holdings) is accepted',
  );
  const forged = { ...h.signerOf('mallory-key').signPermit2({ amount: 5n }), user: s.address };
  const f = await h.call('POST', '/gasless/deposit-with-permit', { key: 'mallory-key', body: forged });
  assert.equal(f.body.code, 'INVALID_SIGNATURE');
  const tooMuch = s.signPermit2({ amount: 1n });
  assert.equal((await h.call('POST', '/gasless/deposit-with-permit', { key: 'trader-key', body: { ...tooMuch, amount: 'lots' } })).body.field, 'amount');
  const overdraw = s.signPermit2({ amount: 5_000_000n });
  assert.equal(
    (await h.call('POST', '/gasless/deposit-with-permit', { key: 'trader-key', body: overdraw })).body.field,
    'amount',
    'more than the wallet holds (4.999999 left)',
  );
  assert.equal((await bal()).walletBalance, '4999999');
});

test('questions and market creation need can_create_markets', async () => {
  for (const [method, path, b] of [
    ['POST', '/questions', { question: 'Will it rain?' }],
    ['POST', '/markets/create', { questionId: '0x' + '1'.repeat(64) }],
    ['GET', '/questions/submissions/sub_x', undefined],
  ] as const) {
    const r = await h.call(method, path, { key: 'trader-key', ...(b ? { body: b } : {}) });
    assert.equal(r.status, 403, path);
    assert.equal(r.body.code, 'FORBIDDEN');
  }
});

test('a submission completes over simulated time and becomes a real, tradeable market', async () => {
  const sub = await h.call('POST', '/questions', { key: 'creator-key', body: { question: 'Will the harbour bridge reopen before the spring festival?' } });
  assert.equal(sub.status, 200, JSON.stringify(sub.body));
  assert.equal(sub.body.status, 'pending');
  assert.ok(sub.headers.get('x-ratelimit-limit'));
  const id = sub.body.submissionId as string;
  assert.ok(sub.body.pollUrl.endsWith(`/v2/questions/submissions/${id}`));
  const poll = () => h.call('GET', `/questions/submissions/${id}`, { key: 'creator-key' });
  assert.equal((await poll()).body.status, 'pending');
  h.clock.advance(2_500);
  const processing = (await poll()).body;
  assert.equal(processing.status, 'processing');
  assert.equal(processing.questions.length, 0);
  h.clock.advance(4_000);
  const done = (await poll()).body;
  assert.equal(done.status, 'completed');
  assert.equal(done.questions.length, 1);
  const questionId = done.questions[0].id as string;
  assert.match(questionId, /^0x[0-9a-f]{64}$/);
  assert.equal((await h.call('GET', `/questions/submissions/${id}`, { key: 'mallory-key' })).status, 403, 'no permission');

  const created = await h.call('POST', '/markets/create', { key: 'creator-key', body: { questionId } });
  assert.equal(created.status, 200, JSON.stringify(created.body));
  assert.match(created.body.marketId, /^0x[0-9a-fA-F]{64}$/);
  assert.equal(created.headers.get('x-ratelimit-limit'), '1');
  const market = await h.call('GET', `/markets/${created.body.marketId}`);
  assert.equal(market.status, 200);
  assert.equal(market.body.market.questionSubmissionId, id);
  const bid = h.signerOf('trader-key').signOrder({ marketId: created.body.marketId, outcomeIndex: 1, side: 0, price: 500_000, size: 2_000_000 });
  const placed = await h.call('POST', '/orders', { key: 'trader-key', body: bid });
  assert.equal(placed.status, 201, 'the new market trades');
  const book = await h.call('GET', `/markets/${created.body.marketId}/orderbook?outcomeIndex=1`);
  assert.equal(book.body.bids.length, 1);

  const twice = await h.call('POST', '/markets/create', { key: 'creator-key', body: { questionId } });
  assert.equal(twice.status, 400, 'one market per question');
  assert.equal((await h.call('POST', '/markets/create', { key: 'creator-key', body: { questionId: '0x' + 'ab'.repeat(32) } })).status, 404);
});

test('agent-submit validates the draft, and the daily market limit answers 429', async () => {
  const bad = await h.call('POST', '/questions/agent-submit', { key: 'creator-key', body: { market: agentDraft({ marketType: 'VIBES' }) } });
  assert.equal(bad.body.field, 'market.marketType');
  const badTime = await h.call('POST', '/questions/agent-submit', { key: 'creator-key', body: { market: agentDraft({ endTime: '2027-02-30 00:00:00' }) } });
  assert.equal(badTime.body.field, 'market.endTime');
  const ok = await h.call('POST', '/questions/agent-submit', {
    key: 'creator-key',
    body: {
      market: agentDraft({
        formattedQuestion: 'Will the ferry run on time all week?',
        shortQuestion: 'Ferry on time?',
        evidenceMode: 'social_only',
        resolutionCriteria: 'Per the operator timetable.',
        endTime: '2027-01-01 12:00:00',
      }),
    },
  });
  assert.equal(ok.status, 200, JSON.stringify(ok.body));
  h.clock.advance(10_000);
  const done = (await h.call('GET', `/questions/submissions/${ok.body.submissionId}`, { key: 'creator-key' })).body;
  assert.equal(done.questions[0].shortText, 'Ferry on time?');
  assert.equal(done.questions[0].evidenceMode, 'social_only');
  const limited = await h.call('POST', '/markets/create', { key: 'creator-key', body: { questionId: done.questions[0].id } });
  assert.equal(limited.status, 429);
  assert.equal(limited.headers.get('x-ratelimit-remaining'), '0');
  assert.ok(limited.headers.get('x-ratelimit-reset'));
  h.clock.advance(86_400_000);
  assert.equal(
    (await h.call('POST', '/markets/create', { key: 'creator-key', body: { questionId: done.questions[0].id } })).status,
    200,
    'the limit resets the next day',
  );
});

test('a question too vague to resolve ends as failed with rejection reasons and makes no market', async () => {
  const sub = await h.call('POST', '/questions', { key: 'creator-key', body: { question: 'Rain?' } });
  assert.equal(sub.status, 200);
  h.clock.advance(10_000);
  const done = (await h.call('GET', `/questions/submissions/${sub.body.submissionId}`, { key: 'creator-key' })).body;
  assert.equal(done.status, 'failed');
  assert.deepEqual(done.questions, []);
  assert.equal(done.rejectionReasons[0].code, 'TOO_VAGUE');
  assert.equal(done.statusUpdates.at(-1).status, 'failed');
});
