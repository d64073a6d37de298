import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { BookEventParser } from '../../../src/exchange/stream/parse-book-event.ts';
import { BadResponseError } from '../../../src/model/errors.ts';

const M = '0x' + '12'.repeat(32);
const mk = (opts: Partial<ConstructorParameters<typeof BookEventParser>[0]> = {}) => new BookEventParser({ marketId: M, outcomeIndex: 1, ...opts });

function ok(r: ReturnType<BookEventParser['parse']>) {
  if (!r.ok) throw new Error(`expected ok, got ${r.error.message}`);
  return r.event;
}
function bad(r: ReturnType<BookEventParser['parse']>): BadResponseError {
  if (r.ok) throw new Error(`expected a drop, got ${JSON.stringify(r.event)}`);
  assert.ok(r.error instanceof BadResponseError);
  return r.error;
}

test('snapshot: cents and shares become integer units, seq and timestamps kept', () => {
  const p = mk();
  const e = ok(
    p.parse(
      'snapshot',
      JSON.stringify({
        marketId: M,
        outcomeIndex: 1,
        bids: [
          { price: 44, size: 1 },
          { price: 45.5, size: 2.25 },
        ],
        asks: [],
        timestamp: '2026-11-21T00:00:00Z',
        seq: 3,
      }),
      '3',
      77,
    ),
  );
  assert.equal(e.type, 'snapshot');
  if (e.type !== 'snapshot') return;
  assert.deepEqual(e.book.bids, [
    { price: 455_000, size: 2_250_000 },
    { price: 440_000, size: 1_000_000 },
  ]);
  assert.equal(e.seq, 3);
  assert.equal(e.book.seq, 3);
  assert.equal(e.localTs, 77);
  assert.equal(e.book.venueTs, Date.parse('2026-11-21T00:00:00Z'));
  assert.equal(p.resolvedPriceUnits, 'cents');
});

test('any event with bids and asks is a snapshot, whatever its name; seq falls back to the SSE id', () => {
  const e = ok(mk().parse('book', JSON.stringify({ bids: [], asks: [{ price: 60, size: 1 }] }), '12', 0));
  assert.equal(e.type, 'snapshot');
  assert.equal(e.seq, 12);
});

test('deltas reuse the units the snapshot decided (a lone 1-cent price is not read as dollars)', () => {
  const p = mk();
  ok(p.parse('snapshot', JSON.stringify({ bids: [{ price: 0.45, size: 1 }], asks: [{ price: 0.5, size: 1 }], seq: 1 }), '', 0));
  assert.equal(p.resolvedPriceUnits, 'dollars');
  const d = ok(p.parse('delta', JSON.stringify({ seq: 2, changes: [{ side: 'ask', price: 0.51, size: 0 }] }), '', 0));
  assert.equal(d.type, 'delta');
  if (d.type === 'delta') assert.deepEqual(d.asks, [{ price: 510_000, size: 0 }]);

  const c = mk();
  ok(c.parse('snapshot', JSON.stringify({ bids: [{ price: 45, size: 1 }], asks: [], seq: 1 }), '', 0));
  const d2 = ok(c.parse('delta', JSON.stringify({ seq: 2, changes: [{ side: 'bid', price: 1, size: 3 }] }), '', 0));
  if (d2.type === 'delta') assert.deepEqual(d2.bids, [{ price: 10_000, size: 3_000_000 }]);
});

test('explicit units: micro prices and micro sizes', () => {
  const p = mk({ priceUnits: 'micro', sizeUnits: 'micro' });
  const e = ok(p.parse('delta', JSON.stringify({ seq: 9, changes: [{ side: 'bid', price: 450000, size: '1500000' }] }), '', 0));
  if (e.type === 'delta') assert.deepEqual(e.bids, [{ price: 450_000, size: 1_500_000 }]);
});

test('trade events', () => {
  const e = ok(mk().parse('trade', JSON.stringify({ marketId: M, seq: 4, price: 47, size: 2, takerSide: 'sell', timestamp: 1_790_000_000 }), '4', 5));
  assert.deepEqual(e, {
    type: 'trade',
    marketId: M,
    outcomeIndex: 1,
    seq: 4,
    price: 470_000,
    size: 2_000_000,
    takerSide: 'sell',
    venueTs: 1_790_000_000_000,
    localTs: 5,
  });
});

test('malformed events are returned as BadResponseError naming the field, never thrown', () => {
  const p = mk();
  assert.equal(bad(p.parse('delta', 'nope', '', 0)).field, '(data)');
  assert.equal(bad(p.parse('delta', '[1]', '', 0)).field, '(data)');
  assert.equal(bad(p.parse('delta', JSON.stringify({ changes: [] }), '', 0)).field, 'seq');
  assert.equal(bad(p.parse('delta', JSON.stringify({ seq: -1, changes: [] }), '', 0)).field, 'seq');
  assert.equal(bad(p.parse('delta', JSON.stringify({ seq: 1, changes: {} }), '', 0)).field, 'changes');
  assert.equal(bad(p.parse('delta', JSON.stringify({ seq: 1, changes: [null] }), '', 0)).field, 'changes[0]');
  assert.equal(bad(p.parse('delta', JSON.stringify({ seq: 1, changes: [{ side: 'x', price: 4, size: 1 }] }), '', 0)).field, 'changes[0].side');
  assert.equal(bad(p.parse('delta', JSON.stringify({ seq: 1, changes: [{ side: 'bid', price: 100, size: 1 }] }), '', 0)).field, 'changes[0].price');
  assert.equal(bad(p.parse('delta', JSON.stringify({ seq: 1, changes: [{ side: 'bid', price: 40, size: -2 }] }), '', 0)).field, 'changes[0].size');
  assert.equal(bad(p.parse('delta', JSON.stringify({ seq: 1, changes: [{ side: 'bid', price: 40, size: true }] }), '', 0)).field, 'changes[0].size');
  assert.equal(bad(p.parse('delta', JSON.stringify({ seq: 1, timestamp: 'yesterday', changes: [] }), '', 0)).field, 'timestamp');
  assert.equal(bad(p.parse('delta', JSON.stringify({ seq: 1, marketId: '0x' + '99'.repeat(32), changes: [] }), '', 0)).field, 'marketId');
  assert.equal(bad(p.parse('delta', JSON.stringify({ seq: 1, outcomeIndex: 0, changes: [] }), '', 0)).field, 'outcomeIndex');
  assert.equal(bad(p.parse('trade', JSON.stringify({ seq: 1, price: 40, size: 1, takerSide: 'up' }), '', 0)).field, 'takerSide');
  assert.equal(bad(p.parse('trade', JSON.stringify({ seq: 1, price: 40, size: 0, takerSide: 'buy' }), '', 0)).field, 'size');
  assert.equal(bad(p.parse('other', JSON.stringify({ seq: 1 }), '', 0)).field, '(event)');
  assert.match(bad(p.parse('snapshot', JSON.stringify({ bids: [{ price: 'x', size: 1 }], asks: [], seq: 1 }), '', 0)).field, /bids\[0\]\.price/);
  // a bad snapshot does not decide the units
  assert.equal(p.resolvedPriceUnits, 'auto');
});

test('a subscription by a mixed-case id: events in any case match it, and every event carries the id in normal form', () => {
  const id = '0x' + 'ab'.repeat(32);
  const upper = `0x${'aB'.repeat(32)}`;
  const p = mk({ marketId: upper });
  const s = ok(p.parse('snapshot', JSON.stringify({ bids: [{ price: 45, size: 1 }], asks: [], seq: 1 }), '', 0));
  const d = ok(p.parse('delta', JSON.stringify({ seq: 2, changes: [] }), '', 0));
  const t = ok(p.parse('trade', JSON.stringify({ marketId: upper, seq: 3, price: 47, size: 2, takerSide: 'sell' }), '', 0));
  const e = ok(p.parse('delta', JSON.stringify({ seq: 4, marketId: id, changes: [] }), '', 0));
  assert.deepEqual(
    [s, d, t, e].map((x) => (x.type === 'snapshot' ? x.book.marketId : x.marketId)),
    [id, id, id, id],
  );
  assert.equal(bad(p.parse('delta', JSON.stringify({ seq: 5, marketId: 'will-it-rain', changes: [] }), '', 0)).field, 'marketId');
});

test('a stream subscribes by market id: a slug is refused up front (the caller resolves it), so every event is checked', () => {
  assert.throws(() => new BookEventParser({ marketId: 'will-it-rain', outcomeIndex: 0 }), /marketId: expected a market id/);
  const p = new BookEventParser({ marketId: M, outcomeIndex: 0 });
  assert.equal(bad(p.parse('snapshot', JSON.stringify({ marketId: 'will-it-rain', bids: [], asks: [], seq: 1 }), '', 0)).field, 'marketId');
});

test('property: arbitrary JSON never throws out of parse()', () => {
  const p = mk();
  fc.assert(
    fc.property(
      fc.constantFrom('snapshot', 'delta', 'trade', 'message', 'x'),
      fc.oneof(fc.json(), fc.string()),
      fc.string({ maxLength: 5 }),
      (name, data, id) => {
        const r = p.parse(name, data, id, 0);
        assert.equal(typeof r.ok, 'boolean');
      },
    ),
    { numRuns: 2000, seed: 7 },
  );
  fc.assert(
    fc.property(
      fc.record({
        seq: fc.oneof(fc.nat(), fc.double(), fc.string()),
        changes: fc.array(
          fc.record({ side: fc.constantFrom('bid', 'ask', 'x'), price: fc.oneof(fc.double(), fc.nat(), fc.string()), size: fc.oneof(fc.double(), fc.nat()) }),
        ),
      }),
      (obj) => {
        const r = p.parse('delta', JSON.stringify(obj), '', 0);
        if (r.ok && r.event.type === 'delta') {
          for (const l of [...r.event.bids, ...r.event.asks]) {
            assert.ok(Number.isSafeInteger(l.price) && l.price > 0 && l.price < 1_000_000);
            assert.ok(Number.isSafeInteger(l.size) && l.size >= 0);
          }
        }
      },
    ),
    { numRuns: 2000, seed: 8 },
  );
});

test('event: status: the market status and, when resolved, the payout of YES; unknown statuses and outcomes are drops', () => {
  const p = mk();
  const closed = ok(
    p.parse(
      'status',
      JSON.stringify({
        marketId: M,
        outcomeIndex: 1,
        seq: 7,
        timestamp: '2026-11-21T00:00:00Z',
        status: 'closed',
        resolutionStatus: 'pending',
        outcome: null,
        payoutPcts: null,
        resolvedAt: null,
      }),
      '7',
      5,
    ),
  );
  assert.deepEqual(closed, {
    type: 'market-status',
    marketId: M,
    outcomeIndex: 1,
    seq: 7,
    status: 'closed',
    payoutYes: null,
    venueTs: Date.parse('2026-11-21T00:00:00Z'),
    localTs: 5,
  });
  const yes = ok(p.parse('status', JSON.stringify({ seq: 8, status: 'resolved', outcome: 1, payoutPcts: [0, 100] }), '8', 0));
  assert.equal(yes.type === 'market-status' && yes.payoutYes, 1_000_000);
  const no = ok(p.parse('status', JSON.stringify({ status: 'resolved', outcome: 0 }), '9', 0));
  assert.equal(no.type === 'market-status' && no.payoutYes, 0);
  assert.equal(no.seq, 9, 'seq from the SSE id');
  // a split payout is not guessed (the market poll's rule)
  const split = ok(p.parse('status', JSON.stringify({ seq: 10, status: 'resolved', outcome: null, payoutPcts: [62.5, 37.5] }), '', 0));
  assert.equal(split.type === 'market-status' && split.payoutYes, null);

  assert.equal(bad(p.parse('status', JSON.stringify({ seq: 1, status: 'frozen' }), '', 0)).message.includes('status'), true);
  assert.equal(bad(p.parse('status', JSON.stringify({ seq: 1 }), '', 0)).message.includes('status'), true);
  assert.equal(bad(p.parse('status', JSON.stringify({ seq: 1, status: 'resolved', outcome: 'yes' }), '', 0)).message.includes('outcome'), true);
  assert.equal(bad(p.parse('status', JSON.stringify({ status: 'closed' }), '', 0)).message.includes('seq'), true);
  assert.equal(
    bad(p.parse('status', JSON.stringify({ seq: 1, status: 'closed', marketId: '0x' + '34'.repeat(32) }), '', 0)).message.includes('marketId'),
    true,
  );
  assert.equal(bad(p.parse('status', 'not json', '', 0)).message.includes('JSON'), true);
});
