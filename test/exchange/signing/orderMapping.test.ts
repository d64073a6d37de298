import { test } from 'node:test';
import assert from 'node:assert/strict';
import { defaultMaxFee, orderKindOf, toSettlementV2Order, type OrderBodyFields } from '../../../src/exchange/signing/orderMapping.ts';
import { buildLimitOrderBody, DEFAULT_EXPIRY_SECONDS } from '../../../src/exchange/signing/orderBody.ts';
import { marketOrderToLimitOrder } from '../../../src/exchange/signing/marketOrder.ts';
import { BadInputError } from '../../../src/model/errors.ts';
import type { Address, Bytes32, LimitOrder } from '../../../src/model/order.ts';
import { MARKET, randomOrder, rng } from './fixtures.ts';

const TRADER = '0x1111111111111111111111111111111111111111' as Address;
const NONCE = ('0x' + '22'.repeat(32)) as Bytes32;
const NOW = 1_800_000_000;
const nonceSource = () => NONCE;

function bodyOf(o: LimitOrder) {
  return buildLimitOrderBody(o, TRADER, NOW, nonceSource);
}

function v2(o: LimitOrder) {
  const s = toSettlementV2Order(bodyOf(o));
  return {
    kind: s.orderKind,
    maxShares: s.maxShares,
    minSharesOut: s.minSharesOut,
    maxCollateralIn: s.maxCollateralIn,
    minCollateralOut: s.minCollateralOut,
    maxFee: s.maxFee,
  };
}

test('worked example 1: buy 12.345678 YES @ 37¢', () => {
  assert.deepEqual(v2({ marketId: MARKET, outcomeIndex: 1, side: 0, price: 370_000, size: 12_345_678 }), {
    kind: 0,
    maxShares: 0n,
    minSharesOut: 12_345_678n,
    maxCollateralIn: 4_613_580n,
    minCollateralOut: 0n,
    maxFee: 45_679n,
  });
});

test('worked example 2: sell from inventory 7.333333 YES @ 61¢ (mode 0 and mode 1)', () => {
  for (const inventoryMode of [0, 1] as const) {
    assert.deepEqual(v2({ marketId: MARKET, outcomeIndex: 1, side: 1, price: 610_000, size: 7_333_333, inventoryMode }), {
      kind: 1,
      maxShares: 7_333_333n,
      minSharesOut: 0n,
      maxCollateralIn: 0n,
      minCollateralOut: 4_428_600n,
      maxFee: 44_733n,
    });
  }
});

test('worked example 3: sell without inventory 10 NO @ 62¢ (mode 2)', () => {
  const r = v2({ marketId: MARKET, outcomeIndex: 0, side: 1, price: 620_000, size: 10_000_000, inventoryMode: 2 });
  assert.deepEqual(r, { kind: 2, maxShares: 10_000_000n, minSharesOut: 0n, maxCollateralIn: 3_862_000n, minCollateralOut: 0n, maxFee: 62_000n });
});

test('market buy examples: 50¢/$1 and 37¢/$25', () => {
  const a = marketOrderToLimitOrder({ marketId: MARKET, outcomeIndex: 1, side: 0, maxPrice: 500_000, buyValue: 1_000_000 });
  assert.equal(a.size, 2_000_000);
  assert.equal(a.timeInForce, 1);
  assert.equal(a.clientOrderType, 'market');
  const ba = bodyOf(a);
  assert.equal(ba.buyValue, '1000000');
  assert.equal(ba.maxFee, '10000');
  assert.equal(ba.timeInForce, 1);
  assert.equal(ba.clientOrderType, 'market');
  assert.equal(toSettlementV2Order(ba).maxCollateralIn, 1_010_000n);

  const b = marketOrderToLimitOrder({ marketId: MARKET, outcomeIndex: 1, side: 0, maxPrice: 370_000, buyValue: 25_000_000 });
  assert.equal(b.size, 67_567_567);
  const bb = bodyOf(b);
  assert.equal(bb.maxFee, '249999');
  const sb = toSettlementV2Order(bb);
  assert.equal(sb.maxCollateralIn, 25_249_999n);
  assert.equal(sb.minSharesOut, 67_567_567n);
});

test('market sell: S = size, IOC, no buyValue', () => {
  const m = marketOrderToLimitOrder({ marketId: MARKET, outcomeIndex: 0, side: 1, maxPrice: 400_000, size: 3_000_000 });
  assert.equal(m.size, 3_000_000);
  assert.equal(m.buyValue, undefined);
  assert.throws(() => marketOrderToLimitOrder({ marketId: MARKET, outcomeIndex: 0, side: 1, maxPrice: 400_000, size: 3, buyValue: 1 }), BadInputError);
  assert.throws(() => marketOrderToLimitOrder({ marketId: MARKET, outcomeIndex: 0, side: 0, maxPrice: 400_000 }), /buyValue/);
  assert.throws(() => marketOrderToLimitOrder({ marketId: MARKET, outcomeIndex: 0, side: 0, maxPrice: 999_999, buyValue: 0 }), /buyValue/);
});

test('defaults: maxFee max(1, ⌊⌊P·S/100⌋/1e6⌋), expiry now + 365 days, nonce from the source', () => {
  assert.equal(defaultMaxFee(1, 1), 1);
  assert.equal(defaultMaxFee(370_000, 12_345_678), 45_679);
  // P·S above 2^53 takes the bigint path and stays exact.
  assert.equal(defaultMaxFee(999_999, 9_000_000_000_000), Number((999_999n * 9_000_000_000_000n) / 100n / 1_000_000n));
  const b = bodyOf({ marketId: MARKET, outcomeIndex: 1, side: 0, price: 10_000, size: 1_000_000 });
  assert.equal(b.expiry, String(NOW + DEFAULT_EXPIRY_SECONDS));
  assert.equal(b.nonce, NONCE);
  assert.equal(b.maxFee, '100'); // 1% of $0.01 = 100 units
  assert.equal(bodyOf({ marketId: MARKET, outcomeIndex: 1, side: 0, price: 10_000, size: 1_000 }).maxFee, '1'); // floor 0 → 1
});

test('overrides of maxFee, expiry and nonce are kept', () => {
  const nonce = ('0x' + 'ab'.repeat(32)) as Bytes32;
  const b = bodyOf({ marketId: MARKET, outcomeIndex: 1, side: 0, price: 10_000, size: 1_000_000, maxFee: 0, expiry: 123, nonce });
  assert.equal(b.maxFee, '0');
  assert.equal(b.expiry, '123');
  assert.equal(b.nonce, nonce);
});

test('orderKindOf: buys are 0 whatever the mode; sells are 2 only with mode 2', () => {
  assert.equal(orderKindOf(0, 2), 0);
  assert.equal(orderKindOf(1, 0), 1);
  assert.equal(orderKindOf(1, 1), 1);
  assert.equal(orderKindOf(1, 2), 2);
});

/** An independent statement of docs/venue.md#from-a-limit-order-to-a-v2-order, checked against the implementation on random orders. */
function reference(P: bigint, S: bigint, F: bigint, side: number, mode: number, B?: bigint) {
  if (side === 0) return [0n, S, (B ?? -(-(P * S) / 1_000_000n)) + F, 0n];
  const C = (P * S) / 1_000_000n;
  return mode === 2 ? [S, 0n, S - C + F, 0n] : [S, 0n, 0n, C > F ? C - F : 0n];
}

test('property: 3000 random orders map as the reference formula says', () => {
  const r = rng(7);
  for (let i = 0; i < 3000; i++) {
    const o = randomOrder(r, (i % 3) as 0 | 1 | 2);
    const body = bodyOf(o);
    const s = toSettlementV2Order(body);
    const ceil = (x: bigint) => (x + 999_999n) / 1_000_000n;
    const P = BigInt(o.price),
      S = BigInt(o.size),
      F = BigInt(body.maxFee);
    let exp = reference(P, S, F, o.side, o.inventoryMode ?? 0, o.buyValue === undefined ? undefined : BigInt(o.buyValue));
    if (o.side === 0 && o.buyValue === undefined) exp = [0n, S, ceil(P * S) + F, 0n];
    assert.deepEqual([s.maxShares, s.minSharesOut, s.maxCollateralIn, s.minCollateralOut], exp, JSON.stringify(body));
    assert.equal(s.timeInForce, o.timeInForce ?? 0);
    assert.equal(s.makerRoleConstraint, o.makerRole ?? 0);
    assert.equal(s.outcomeIndex, o.outcomeIndex);
  }
});

test('toSettlementV2Order: a missing timeInForce means GTC', () => {
  const b: OrderBodyFields = { ...bodyOf({ marketId: MARKET, outcomeIndex: 1, side: 0, price: 10_000, size: 1_000_000 }) };
  delete b.timeInForce;
  assert.equal(toSettlementV2Order(b).timeInForce, 0);
});

test('toSettlementV2Order rejects malformed bodies with the field named', () => {
  const good = bodyOf({ marketId: MARKET, outcomeIndex: 1, side: 0, price: 10_000, size: 1_000_000 });
  const cases: [string, unknown][] = [
    ['marketId', '0x1234'],
    ['trader', '0xnothex'],
    ['price', '0'],
    ['price', '1000000'],
    ['price', '-5'],
    ['price', 12.5],
    ['size', '0'],
    ['size', '01'],
    ['maxFee', 'abc'],
    ['expiry', '1'.repeat(80)],
    ['outcomeIndex', 2],
    ['side', '0'],
    ['makerRoleConstraint', 3],
    ['inventoryModeConstraint', -1],
    ['timeInForce', 3],
    ['nonce', '0x' + 'zz'.repeat(32)],
    ['buyValue', '1.5'],
    ['type', 'market'],
  ];
  for (const [field, value] of cases) {
    assert.throws(
      () => toSettlementV2Order({ ...good, [field]: value } as OrderBodyFields),
      (e: unknown) => e instanceof BadInputError && e.field === field,
      `${field}=${String(value)}`,
    );
  }
  assert.throws(() => toSettlementV2Order(null as unknown as OrderBodyFields), BadInputError);
});
