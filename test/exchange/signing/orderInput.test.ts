import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseOrderInput } from '../../../src/exchange/signing/orderInput.ts';
import { BadInputError } from '../../../src/model/errors.ts';
import { MARKET } from './fixtures.ts';

const NOW = 1_800_000_000;
const hl = { marketId: MARKET, outcome: 'yes', side: 'buy', priceCents: 37, size: 12.345678 };

test('high-level order → integer units', () => {
  assert.deepEqual(parseOrderInput(hl, NOW), { kind: 'limit', order: { marketId: MARKET, outcomeIndex: 1, side: 0, price: 370_000, size: 12_345_678 } });
  const p = parseOrderInput(
    {
      ...hl,
      outcome: 'NO',
      side: 'sell',
      priceCents: '45.5',
      size: '3',
      inventoryMode: 'mint',
      timeInForce: 'fok',
      maxFee: '12',
      expirySeconds: 60,
      makerRole: 'taker',
    },
    NOW,
  );
  assert.deepEqual(p, {
    kind: 'limit',
    order: {
      marketId: MARKET,
      outcomeIndex: 0,
      side: 1,
      price: 455_000,
      size: 3_000_000,
      inventoryMode: 2,
      timeInForce: 2,
      maxFee: 12,
      expiry: NOW + 60,
      makerRole: 2,
    },
  });
  // 0.29 is 0.28999… in binary; the decimal spelling is used, so no unit is lost.
  assert.equal((parseOrderInput({ ...hl, priceCents: 0.29, size: 0.29 }, NOW).order as { price: number }).price, 2_900);
  assert.equal((parseOrderInput({ ...hl, buyValue: 4.5 }, NOW).order as { buyValue: number }).buyValue, 4_500_000);
});

test('raw order in integer units (numbers or decimal strings)', () => {
  const p = parseOrderInput(
    { marketId: MARKET, outcomeIndex: 0, side: 1, price: '620000', size: 10_000_000, inventoryModeConstraint: 2, expiry: 1_900_000_000 },
    NOW,
  );
  assert.deepEqual(p, {
    kind: 'limit',
    order: { marketId: MARKET, outcomeIndex: 0, side: 1, price: 620_000, size: 10_000_000, inventoryMode: 2, expiry: 1_900_000_000 },
  });
  assert.equal(parseOrderInput({ marketId: MARKET, outcomeIndex: 1, side: 'buy', price: 1, size: 1 }, NOW).order.side, 0);
});

test('market orders: a buy needs buyValue (USD), a sell needs size', () => {
  const b = parseOrderInput({ type: 'market', marketId: MARKET, outcome: 'yes', side: 'buy', priceCents: 50, buyValue: 1 }, NOW);
  assert.deepEqual(b, { kind: 'market', order: { marketId: MARKET, outcomeIndex: 1, side: 0, maxPrice: 500_000, buyValue: 1_000_000 } });
  const s = parseOrderInput({ type: 'market', marketId: MARKET, outcome: 'no', side: 'sell', priceCents: 40, size: 2 }, NOW);
  assert.deepEqual(s, { kind: 'market', order: { marketId: MARKET, outcomeIndex: 0, side: 1, maxPrice: 400_000, size: 2_000_000 } });
  assert.throws(() => parseOrderInput({ type: 'market', marketId: MARKET, outcome: 'yes', side: 'buy', priceCents: 50 }, NOW), /buyValue/);
  assert.throws(
    () => parseOrderInput({ type: 'market', marketId: MARKET, outcome: 'yes', side: 'buy', priceCents: 50, buyValue: 1, timeInForce: 'gtc' }, NOW),
    /timeInForce/,
  );
});

test('bad input names the field (with the array prefix)', () => {
  const cases: [string, Record<string, unknown>][] = [
    ['marketId', { marketId: '0xabc' }],
    ['outcome', { outcome: 'maybe' }],
    ['side', { side: 'hold' }],
    ['priceCents', { priceCents: 0 }],
    ['priceCents', { priceCents: 100 }],
    ['priceCents', { priceCents: 101 }],
    ['priceCents', { priceCents: -5 }],
    ['priceCents', { priceCents: '1e3' }],
    ['priceCents', { priceCents: 12.34567 }],
    ['size', { size: 0 }],
    ['size', { size: '1.0000001' }],
    ['size', { size: 1e-7 }],
    ['inventoryMode', { inventoryMode: 'borrow' }],
    ['timeInForce', { timeInForce: 'day' }],
    ['makerRole', { makerRole: 'maker' }],
    ['expirySeconds', { expirySeconds: 0 }],
    ['expiry', { expiry: 5 }],
    ['expiry', { expiry: NOW }],
    ['expirySeconds', { expiry: 5, expirySeconds: 5 }],
    ['nonce', { nonce: '0x01' }],
    ['prices', { prices: 3 }],
    ['outcomeIndex', { outcomeIndex: 1 }],
    ['type', { type: 'stop' }],
  ];
  for (const [field, patch] of cases) {
    assert.throws(
      () => parseOrderInput({ ...hl, ...patch }, NOW, 'orders[3].'),
      (e: unknown) => e instanceof BadInputError && e.field === `orders[3].${field}`,
      `${field} ${JSON.stringify(patch)}`,
    );
  }
  const raw = { marketId: MARKET, outcomeIndex: 1, side: 0, price: 1, size: 1 };
  for (const [field, patch] of [
    ['makerRoleConstraint', { makerRoleConstraint: 1 }],
    ['outcomeIndex', { outcomeIndex: 2 }],
    ['price', { price: 1_000_000 }],
    ['price', { price: 5.5 }],
  ] as const)
    assert.throws(
      () => parseOrderInput({ ...raw, ...patch }, NOW),
      (e: unknown) => e instanceof BadInputError && e.field === field,
      `${field} ${JSON.stringify(patch)}`,
    );
  assert.throws(() => parseOrderInput([], NOW), BadInputError);
  assert.throws(() => parseOrderInput('x', NOW), BadInputError);
});

test('a market id and nonce given in any case enter in normal form (lower-case hex): the order carries them so', () => {
  const up = (h: string) => '0x' + h.slice(2).toUpperCase();
  const nonce = '0x' + 'ab'.repeat(32);
  const p = parseOrderInput({ ...hl, marketId: up(MARKET), nonce: up(nonce) }, NOW);
  assert.equal(p.kind, 'limit');
  assert.equal(p.order.marketId, MARKET);
  assert.equal(p.order.nonce, nonce);
});
