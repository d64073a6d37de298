import { test } from 'node:test';
import assert from 'node:assert/strict';
import { classify, failureOf } from '../../../src/exchange/client/classify.ts';
import { NetworkError, TimeoutError, VenueError, venueErrorFromBody } from '../../../src/exchange/client/errors.ts';
import { BadResponseError, BookmakerError } from '../../../src/model/errors.ts';
import { backoffDelay, nextDelay, DEFAULT_RETRY } from '../../../src/exchange/client/backoff.ts';
import { parseRetryAfter, retryAfterMsOf } from '../../../src/exchange/client/retry-after.ts';

const ve = (status: number, body: unknown, retryAfterMs: number | null = null): VenueError => venueErrorFromBody(status, body, 'POST /orders', retryAfterMs);

test('429 → backoff, carrying the venue wait when given', () => {
  assert.deepEqual(classify(ve(429, { message: 'slow down' }, 1500)), { action: 'backoff', reason: 'rate-limited', retryAfterMs: 1500 });
  assert.deepEqual(classify(ve(429, null)), { action: 'backoff', reason: 'rate-limited' });
  // a 429 was refused, not applied: back-off is safe even for non-idempotent calls
  assert.equal(classify(ve(429, null), { idempotent: false }).action, 'backoff');
});

test('5xx, network and timeout retry only when idempotent', () => {
  assert.deepEqual(classify(ve(503, { message: 'down' })), { action: 'retry', reason: 'server-error' });
  assert.deepEqual(classify(ve(500, null), { idempotent: false }), { action: 'fail', reason: 'not-idempotent' });
  assert.equal(classify(new NetworkError('GET /x', 'refused', 'ECONNREFUSED')).action, 'retry');
  assert.equal(classify(new TimeoutError('GET /x', 100)).reason, 'timeout');
  assert.equal(classify(new TimeoutError('GET /x', 100), { idempotent: false }).action, 'fail');
});

test('4xx fail with a reason', () => {
  assert.equal(classify(ve(400, { message: 'price out of range', code: 'validation_error' })).reason, 'bad-request');
  assert.equal(classify(ve(401, { message: 'no key' })).reason, 'unauthorized');
  assert.equal(classify(ve(403, { message: 'missing permission' })).reason, 'forbidden');
  assert.equal(classify(ve(404, { message: 'no such market' })).reason, 'not-found');
  for (const s of [400, 401, 403, 404]) assert.equal(classify(ve(s, { message: 'x' })).action, 'fail');
});

test('409: duplicate vs migration-required vs plain conflict (documented rule)', () => {
  assert.deepEqual(classify(ve(409, { message: 'Nonce already used', code: 'nonce_already_used' })), { action: 'fail', reason: 'duplicate' });
  assert.equal(classify(ve(409, { message: 'Duplicate order' })).reason, 'duplicate');
  assert.deepEqual(classify(ve(409, { message: 'Wallet must migrate to Settlement V2 first', code: 'migration_required' })), {
    action: 'halt',
    reason: 'migration-required',
  });
  // migration wins over wording that also looks like a duplicate
  assert.equal(classify(ve(409, { message: 'migration active: orders already exist on legacy' })).reason, 'migration-required');
  assert.deepEqual(classify(ve(409, { message: 'market closed' })), { action: 'fail', reason: 'conflict' });
});

test('invalid signature 400 → halt', () => {
  assert.deepEqual(classify(ve(400, { message: 'Invalid signature', code: 'invalid_signature' })), { action: 'halt', reason: 'invalid-signature' });
  assert.equal(classify(ve(400, { message: 'x', code: 'INVALID_SIGNATURE' })).action, 'halt');
});

test('malformed answers and unknown throwables fail', () => {
  assert.deepEqual(classify(new BadResponseError('GET /x', 'a', 'b', 1)), { action: 'fail', reason: 'bad-response' });
  assert.deepEqual(classify(new Error('boom')), { action: 'fail', reason: 'unknown' });
  assert.deepEqual(classify('weird'), { action: 'fail', reason: 'unknown' });
});

test('venue error bodies: {message, code}, {error, message}, text, empty', () => {
  const a = ve(400, { message: 'bad price', code: 'validation_error' });
  assert.equal(a.status, 400);
  assert.equal(a.venueCode, 'validation_error');
  assert.equal(a.venueMessage, 'bad price');
  assert.equal(a.endpoint, 'POST /orders');
  assert.match(a.message, /POST \/orders: HTTP 400 validation_error: bad price/);
  const b = venueErrorFromBody(404, { error: 'not_found', message: 'token unknown' }, 'GET /balance', null);
  assert.equal(b.venueCode, 'not_found');
  assert.equal(b.venueMessage, 'token unknown');
  assert.match(venueErrorFromBody(502, '<html>bad gateway</html>', 'GET /x', null).message, /bad gateway/);
  assert.match(venueErrorFromBody(500, null, 'GET /x', null).message, /status 500/);
  assert.equal(ve(429, null).code, 'RATE_LIMITED');
});

test('back-off: full jitter under an exponential ceiling; Retry-After honoured', () => {
  const p = { ...DEFAULT_RETRY, baseDelayMs: 100, maxDelayMs: 1000 };
  assert.equal(
    backoffDelay(1, p, () => 0.999999),
    99,
  );
  assert.equal(
    backoffDelay(3, p, () => 0.5),
    200,
  );
  assert.equal(
    backoffDelay(10, p, () => 0.999999),
    999,
  );
  assert.equal(
    backoffDelay(2, p, () => 0),
    0,
  );
  assert.equal(
    nextDelay(1, p, 5000, () => 0.5),
    5000,
  );
  assert.equal(
    nextDelay(1, p, undefined, () => 0.5),
    50,
  );
});

test('Retry-After: seconds, HTTP date, X-RateLimit-Reset, body retryAfter', () => {
  const now = Date.parse('2026-11-21T10:00:00Z');
  assert.equal(parseRetryAfter('3', now), 3000);
  assert.equal(parseRetryAfter('Sat, 21 Nov 2026 10:00:07 GMT', now), 7000);
  assert.equal(parseRetryAfter('garbage', now), null);
  assert.equal(retryAfterMsOf({ 'x-ratelimit-reset': String(now / 1000 + 12) }, null, now), 12000);
  assert.equal(retryAfterMsOf({}, { message: 'wait', retryAfter: 2 }, now), 2000);
  assert.equal(retryAfterMsOf({ 'retry-after': '1', 'x-ratelimit-reset': String(now / 1000 + 12) }, null, now), 1000);
  assert.equal(retryAfterMsOf({}, null, now), null);
});

test('failureOf: one failure vocabulary for venue answers and our own thrown errors', () => {
  assert.equal(failureOf(ve(429, null)), 'rate-limited');
  assert.equal(failureOf(ve(409, { message: 'wallet must migrate' })), 'migration-required');
  assert.equal(failureOf(new NetworkError('POST /orders', 'reset', 'ECONNRESET')), 'network');
  // our own typed errors name the same reasons as the venue's answers would
  assert.equal(failureOf(new BookmakerError('RATE_LIMITED', 'local limiter')), 'rate-limited');
  assert.equal(failureOf(new BookmakerError('SIGNING', 'no key')), 'invalid-signature');
  assert.equal(failureOf(new BookmakerError('NETWORK', 'down')), 'network');
  assert.equal(failureOf(new BookmakerError('CONFIG', 'x')), 'unknown');
  assert.equal(failureOf(new Error('plain')), 'unknown');
});
