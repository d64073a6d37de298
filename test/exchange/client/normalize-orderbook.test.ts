import { test } from 'node:test';
import assert from 'node:assert/strict';
import { detectPriceUnits, normalizeOrderbook, normalizePrice, normalizeSize } from '../../../src/exchange/client/normalize-orderbook.ts';
import { BadInputError, BadResponseError } from '../../../src/model/errors.ts';
import type { Bytes32 } from '../../../src/model/order.ts';
import { checkBytes32 } from '../../../src/exchange/client/inputs.ts';

const M = '0x' + 'ab'.repeat(32);

test("'auto' price units: cents, dollars, micro decided over the whole snapshot", () => {
  assert.equal(detectPriceUnits([45, 46.5, 1]), 'cents');
  assert.equal(detectPriceUnits([0.45, 0.5]), 'dollars');
  assert.equal(detectPriceUnits([1]), 'cents'); // 1¢, not $1 (a price of $1 is not a valid level)
  assert.equal(detectPriceUnits([450000, 460000]), 'micro');
  const cents = normalizeOrderbook({ marketId: M, bids: [{ price: 45, size: 10 }], asks: [{ price: 46.5, size: 2.5 }] });
  assert.deepEqual(cents.bids, [{ price: 450000, size: 10_000_000 }]);
  assert.deepEqual(cents.asks, [{ price: 465000, size: 2_500_000 }]);
  const dollars = normalizeOrderbook({ marketId: M, bids: [{ price: 0.45, size: 1 }], asks: [{ price: 0.47, size: 1 }] });
  assert.equal(dollars.bids[0]!.price, 450000);
  assert.equal(dollars.asks[0]!.price, 470000);
  const micro = normalizeOrderbook({ marketId: M, bids: [{ price: 450000, size: 1 }], asks: [] });
  assert.equal(micro.bids[0]!.price, 450000);
});

test('explicit units and micro sizes', () => {
  const b = normalizeOrderbook({ marketId: M, bids: [{ price: 0.5, size: 1500000 }], asks: [] }, { priceUnits: 'cents', sizeUnits: 'micro' });
  assert.deepEqual(b.bids, [{ price: 5000, size: 1500000 }]);
  assert.throws(() => normalizeOrderbook({ marketId: M, bids: [{ price: 45.5, size: 1 }], asks: [] }, { priceUnits: 'micro' }), BadResponseError);
});

test('float artefacts do not leak: 0.29 shares is 290000 units, 29.01¢ is 290100', () => {
  const b = normalizeOrderbook({ marketId: M, bids: [{ price: 29.01, size: 0.29 }], asks: [{ price: 57.3, size: 0.1 + 0.2 }] });
  assert.deepEqual(b.bids[0], { price: 290100, size: 290000 });
  assert.deepEqual(b.asks[0], { price: 573000, size: 300000 });
  assert.equal(normalizeSize('12.3456789', 'shares'), 12345678); // floored
  assert.equal(normalizePrice('45.5', 'cents'), 455000);
  assert.equal(normalizePrice(0.455, 'auto'), 455000);
});

test('sorted best-first, duplicates merged, zero sizes dropped unless kept', () => {
  const b = normalizeOrderbook({
    marketId: M,
    bids: [
      { price: 40, size: 1 },
      { price: 44, size: 2 },
      { price: 40, size: 3 },
      { price: 41, size: 0 },
    ],
    asks: [
      { price: 50, size: 1 },
      { price: 47, size: 2 },
    ],
  });
  assert.deepEqual(b.bids, [
    { price: 440000, size: 2_000_000 },
    { price: 400000, size: 4_000_000 },
  ]);
  assert.deepEqual(
    b.asks.map((l) => l.price),
    [470000, 500000],
  );
  const k = normalizeOrderbook({ marketId: M, bids: [{ price: 41, size: 0 }], asks: [] }, { keepZero: true });
  assert.deepEqual(k.bids, [{ price: 410000, size: 0 }]);
});

test('metadata: marketId fallback, outcomeIndex, timestamp forms, seq', () => {
  const b = normalizeOrderbook({ bids: [], asks: [], timestamp: '2026-11-21T10:00:00.000Z', seq: 7 }, { marketId: M as Bytes32, outcomeIndex: 1 });
  assert.equal(b.marketId, M);
  assert.equal(b.outcomeIndex, 1);
  assert.equal(b.venueTs, Date.parse('2026-11-21T10:00:00.000Z'));
  assert.equal(b.seq, 7);
  assert.equal(normalizeOrderbook({ marketId: M, bids: [], asks: [], timestamp: 1_800_000_000 }).venueTs, 1_800_000_000_000);
  assert.equal(normalizeOrderbook({ marketId: M, bids: [], asks: [], timestamp: 1_800_000_000_123 }).venueTs, 1_800_000_000_123);
  assert.equal(normalizeOrderbook({ marketId: M, bids: [], asks: [] }).venueTs, 0);
  assert.equal(normalizeOrderbook({ marketId: M, outcomeIndex: 1, bids: [], asks: [] }).outcomeIndex, 1);
});

test('malformed input names the field', () => {
  const bad = (json: unknown, field: string): void => {
    assert.throws(
      () => normalizeOrderbook(json),
      (e: unknown) => e instanceof BadResponseError && e.field === field,
    );
  };
  bad(null, '(body)');
  bad([], '(body)');
  bad({ bids: [], asks: [] }, 'marketId');
  bad({ marketId: M, bids: {}, asks: [] }, 'bids');
  bad({ marketId: M, bids: [null], asks: [] }, 'bids[0]');
  bad({ marketId: M, bids: [], asks: [{ price: 'NaN', size: 1 }] }, 'asks[0].price');
  bad({ marketId: M, bids: [], asks: [{ price: 45, size: -1 }] }, 'asks[0].size');
  bad(
    {
      marketId: M,
      bids: [
        { price: 45, size: 1 },
        { price: Infinity, size: 1 },
      ],
      asks: [],
    },
    'bids[1].price',
  );
  bad({ marketId: M, bids: [{ price: 0, size: 1 }], asks: [] }, 'bids[0].price'); // 0 is not a price
  bad({ marketId: M, bids: [{ price: 100, size: 1 }], asks: [] }, 'bids[0].price'); // 100¢ neither
  bad({ marketId: M, outcomeIndex: 2, bids: [], asks: [] }, 'outcomeIndex');
  bad({ marketId: M, bids: [], asks: [], timestamp: 'yesterday' }, 'timestamp');
  bad({ marketId: M, bids: [], asks: [], seq: -1 }, 'seq');
  assert.throws(() => normalizePrice(-1, 'cents'), BadInputError);
  assert.throws(() => normalizeSize(1.5, 'micro'), BadInputError);
});

test('property: any cents/shares book normalises exactly, sorted, without losing size', async () => {
  const fc = await import('fast-check');
  // prices 0.0001¢..99.9999¢ and sizes up to 1e6 shares with 6 decimals, written as JSON numbers
  const level = fc.record({ p: fc.integer({ min: 1, max: 999_999 }), s: fc.integer({ min: 1, max: 1e12 }) });
  fc.assert(
    fc.property(fc.array(level, { maxLength: 30 }), fc.array(level, { maxLength: 30 }), (bids, asks) => {
      const wire = (l: { p: number; s: number }) => ({ price: Number((l.p / 10_000).toFixed(4)), size: Number((l.s / 1e6).toFixed(6)) });
      const allPrices = [...bids, ...asks].map((l) => l.p);
      // the 'auto' rule needs one price above 1¢ or a fractional one to pick cents; force cents explicitly here
      const b = normalizeOrderbook({ marketId: M, bids: bids.map(wire), asks: asks.map(wire) }, { priceUnits: 'cents' });
      for (let i = 1; i < b.bids.length; i++) assert.ok(b.bids[i - 1]!.price > b.bids[i]!.price);
      for (let i = 1; i < b.asks.length; i++) assert.ok(b.asks[i - 1]!.price < b.asks[i]!.price);
      const sum = (xs: { s: number }[]) => xs.reduce((a, x) => a + x.s, 0);
      assert.equal(
        b.bids.reduce((a, l) => a + l.size, 0),
        sum(bids),
      );
      assert.equal(
        b.asks.reduce((a, l) => a + l.size, 0),
        sum(asks),
      );
      const seen = new Set([...b.bids, ...b.asks].map((l) => l.price));
      for (const p of seen) assert.ok(allPrices.includes(p));
    }),
    { numRuns: 300, seed: 20261121 },
  );
});

test('orderbookPriceUnits tells a stream which units the snapshot used', async () => {
  const { orderbookPriceUnits } = await import('../../../src/exchange/client/normalize-orderbook.ts');
  assert.equal(orderbookPriceUnits({ bids: [{ price: 45, size: 1 }], asks: [] }), 'cents');
  assert.equal(orderbookPriceUnits({ bids: [{ price: 0.45, size: 1 }], asks: [] }), 'dollars');
  assert.equal(orderbookPriceUnits({ bids: [], asks: [{ price: 450000, size: 1 }] }), 'micro');
  assert.equal(normalizePrice(1, orderbookPriceUnits({ bids: [{ price: 45, size: 1 }], asks: [] })), 10000);
});

test('a book body names its market by a 32-byte id: a ticker or slug there is a bad response, not a market id', () => {
  for (const marketId of ['will-it-rain', 'TICKER-1', '0x12', 7]) {
    assert.throws(
      () => normalizeOrderbook({ marketId, bids: [], asks: [] }, { marketId: M as Bytes32 }),
      (e: unknown) => e instanceof BadResponseError && e.field === 'marketId',
      String(marketId),
    );
  }
  assert.equal(normalizeOrderbook({ marketId: null, bids: [], asks: [] }, { marketId: M as Bytes32 }).marketId, M, 'absent: the asked-for market');
});

test('checkBytes32 (the client inputs) gives the normal form of a 32-byte id in any case', () => {
  assert.equal(checkBytes32('0x' + 'AB'.repeat(32), 'marketId'), '0x' + 'ab'.repeat(32));
  assert.throws(() => checkBytes32('0x12', 'marketId'), /marketId/);
});
