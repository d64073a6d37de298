/**
 * Fuzz of the order-book stream parser (src/exchange/stream/parse-book-event.ts): garbage text, wrong
 * types, huge / negative / non-finite numbers, missing fields and giant payloads. The parser must never
 * throw, and whatever it accepts must be in integer units within range (no silent wrong value): every
 * price strictly inside (0, 1e6), every size a safe non-negative integer, seq a safe integer.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { BookEventParser, type ParsedBookEvent } from '../../src/exchange/stream/parse-book-event.ts';
import { BadResponseError } from '../../src/model/errors.ts';
import type { BookLevel } from '../../src/model/book.ts';
import { junk, mutateJson } from './mutate.ts';

const MARKET = '0x' + 'ab'.repeat(32);
const RUNS = 4000;

function checkLevels(levels: readonly BookLevel[], what: string): void {
  for (const l of levels) {
    assert.ok(Number.isSafeInteger(l.price) && l.price > 0 && l.price < 1_000_000, `${what} price ${l.price}`);
    assert.ok(Number.isSafeInteger(l.size) && l.size >= 0, `${what} size ${l.size}`);
  }
}

/** The contract: never throws; a drop is a BadResponseError; an accepted event is in range. */
function checkResult(r: ParsedBookEvent): void {
  if (!r.ok) {
    assert.ok(r.error instanceof BadResponseError, `drop is a BadResponseError: ${String(r.error)}`);
    assert.ok(r.error.message.length > 0 && r.error.message.length < 2000, 'short message');
    return;
  }
  const e = r.event;
  if (e.type === 'snapshot') {
    checkLevels(e.book.bids, 'bid');
    checkLevels(e.book.asks, 'ask');
    assert.ok(Number.isSafeInteger(e.seq), `seq ${e.seq}`);
    assert.ok(Number.isFinite(e.book.venueTs), 'venueTs finite');
  } else if (e.type === 'delta') {
    checkLevels(e.bids, 'delta bid');
    checkLevels(e.asks, 'delta ask');
    assert.ok(Number.isSafeInteger(e.seq), `seq ${e.seq}`);
    assert.ok(Number.isFinite(e.venueTs), 'venueTs finite');
  } else if (e.type === 'market-status') {
    assert.ok(['active', 'pending', 'resolved', 'closed'].includes(e.status), `market status ${e.status}`);
    assert.ok(e.payoutYes === null || (Number.isSafeInteger(e.payoutYes) && e.payoutYes >= 0 && e.payoutYes <= 1_000_000), `payoutYes ${e.payoutYes}`);
  } else {
    assert.ok(Number.isSafeInteger(e.price) && e.price > 0 && e.price < 1_000_000, `trade price ${e.price}`);
    assert.ok(Number.isSafeInteger(e.size) && e.size > 0, `trade size ${e.size}`);
    assert.ok(e.takerSide === 'buy' || e.takerSide === 'sell');
  }
}

const level = fc.record({ price: fc.integer({ min: 1, max: 99 }), size: fc.integer({ min: 0, max: 10_000 }) });
const validEvent = fc.oneof(
  fc.record({
    type: fc.constant('snapshot'),
    data: fc.record({
      marketId: fc.constant(MARKET),
      outcomeIndex: fc.constant(1),
      bids: fc.array(level, { maxLength: 6 }),
      asks: fc.array(level, { maxLength: 6 }),
      timestamp: fc.constant('2026-11-21T10:00:00Z'),
      seq: fc.nat(1000),
    }),
  }),
  fc.record({
    type: fc.constant('delta'),
    data: fc.record({
      marketId: fc.constant(MARKET),
      outcomeIndex: fc.constant(1),
      seq: fc.nat(1000),
      timestamp: fc.constant('2026-11-21T10:00:00Z'),
      changes: fc.array(fc.record({ side: fc.constantFrom('bid', 'ask'), price: fc.integer({ min: 1, max: 99 }), size: fc.nat(10_000) }), { maxLength: 5 }),
    }),
  }),
  fc.record({
    type: fc.constant('trade'),
    data: fc.record({
      marketId: fc.constant(MARKET),
      outcomeIndex: fc.constant(1),
      seq: fc.nat(1000),
      timestamp: fc.constant('2026-11-21T10:00:00Z'),
      price: fc.integer({ min: 1, max: 99 }),
      size: fc.integer({ min: 1, max: 100 }),
      takerSide: fc.constantFrom('buy', 'sell'),
    }),
  }),
);

test('mutated valid events: never a throw, accepted values always in range', (t) => {
  let n = 0;
  fc.assert(
    fc.property(validEvent, fc.integer(), fc.constantFrom('auto', 'cents', 'micro', 'dollars'), fc.nat(3), (ev, seed, units, mutations) => {
      n++;
      const parser = new BookEventParser({ marketId: MARKET, outcomeIndex: 1, priceUnits: units as 'auto' });
      const data = mutateJson(ev.data, seed, mutations);
      const eventType = seed % 7 === 0 ? 'message' : ev.type;
      checkResult(parser.parse(eventType, JSON.stringify(data) ?? 'undefined', String(seed), 1));
    }),
    { numRuns: RUNS, seed: 601 },
  );
  t.diagnostic(`fuzz cases: ${n}`);
});

test('arbitrary text, event names and ids: never a throw', (t) => {
  let n = 0;
  const text = fc.oneof(
    fc.string({ maxLength: 200 }),
    fc.jsonValue().map((v) => JSON.stringify(v)),
    fc.constantFrom('', '{', 'null', '[]', '{"bids":1,"asks":2}', '{"changes":null}', '{"takerSide":"buy"}', '{"bids":[],"asks":[],"seq":1e400}'),
  );
  fc.assert(
    fc.property(
      fc.oneof(fc.constantFrom('snapshot', 'delta', 'trade', 'message', ''), fc.string({ maxLength: 10 })),
      text,
      fc.string({ maxLength: 25 }),
      (type, data, id) => {
        n++;
        const parser = new BookEventParser({ marketId: MARKET, outcomeIndex: 0 });
        checkResult(parser.parse(type, data, id, 1));
      },
    ),
    { numRuns: RUNS, seed: 602 },
  );
  t.diagnostic(`fuzz cases: ${n}`);
});

test('junk in every field of a snapshot, delta and trade: never a throw', (t) => {
  let n = 0;
  fc.assert(
    fc.property(junk, junk, junk, junk, (a, b, c, d) => {
      n++;
      const parser = new BookEventParser({ marketId: MARKET, outcomeIndex: 1 });
      checkResult(parser.parse('snapshot', JSON.stringify({ marketId: MARKET, bids: [{ price: a, size: b }], asks: c, seq: d, timestamp: a }), '', 1));
      checkResult(parser.parse('delta', JSON.stringify({ seq: a, changes: [{ side: 'bid', price: b, size: c }, d] }), '', 1));
      checkResult(parser.parse('trade', JSON.stringify({ seq: d, price: a, size: b, takerSide: c, timestamp: d }), '', 1));
    }),
    { numRuns: RUNS, seed: 603 },
  );
  t.diagnostic(`fuzz cases: ${n * 3}`);
});

test('giant payloads are parsed or dropped, never a throw', (t) => {
  const parser = new BookEventParser({ marketId: MARKET, outcomeIndex: 1 });
  const levels = Array.from({ length: 50_000 }, (_, i) => ({ price: 1 + (i % 98), size: i }));
  checkResult(parser.parse('snapshot', JSON.stringify({ bids: levels, asks: levels, seq: 1 }), '1', 1));
  checkResult(parser.parse('delta', JSON.stringify({ seq: 2, changes: levels.map((l) => ({ side: 'ask', ...l })) }), '2', 1));
  checkResult(parser.parse('snapshot', '{"bids":[' + '['.repeat(5000) + ']'.repeat(5000) + '],"asks":[]}', '3', 1));
  checkResult(parser.parse('delta', 'x'.repeat(5_000_000), '4', 1));
  t.diagnostic('fuzz cases: 4');
});
