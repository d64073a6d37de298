/** The bot's planned order → engine order: the same V2 limits the live signer signs (toSettlementV2Order). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { toEngineOrder } from '../../src/backtest/engine-order.ts';
import { tapeOrder } from '../../src/backtest/tape-order.ts';
import type { Bytes32 } from '../../src/model/order.ts';
import { defaultMaxFee, toSettlementV2Order } from '../../src/exchange/signing/orderMapping.ts';
import type { PlannedOrder } from '../../src/model/venue.ts';
import { M } from './helpers.ts';

const NONCE = `0x${'07'.repeat(32)}` as Bytes32;
const TRADER = `0x${'11'.repeat(20)}` as const;

test('toEngineOrder carries exactly the signed Settlement V2 limits', () => {
  const planned = fc.record({
    side: fc.constantFrom(0 as const, 1 as const),
    outcomeIndex: fc.constantFrom(0 as const, 1 as const),
    price: fc.integer({ min: 1, max: 999_999 }),
    size: fc.integer({ min: 1, max: 1e13 }),
    inventoryMode: fc.constantFrom(0 as const, 1 as const, 2 as const),
    maxFee: fc.option(fc.integer({ min: 0, max: 1e9 }), { nil: undefined }),
    buyValue: fc.option(fc.integer({ min: 1, max: 1e12 }), { nil: undefined }),
    timeInForce: fc.constantFrom(0 as const, 1 as const, 2 as const),
    expiry: fc.integer({ min: 1, max: 4e9 }),
  });
  fc.assert(
    fc.property(planned, (o) => {
      const { maxFee, buyValue, ...rest } = o;
      const p: PlannedOrder = {
        marketId: M,
        nonce: NONCE,
        ...rest,
        ...(maxFee !== undefined ? { maxFee } : {}),
        ...(buyValue !== undefined && rest.side === 0 ? { buyValue } : {}),
      };
      const e = toEngineOrder(p, 3, 7, 1_000);
      const fee = p.maxFee ?? defaultMaxFee(p.price, p.size);
      const v2 = toSettlementV2Order({
        marketId: M,
        trader: TRADER,
        price: String(p.price),
        size: String(p.size),
        outcomeIndex: p.outcomeIndex,
        side: p.side,
        nonce: NONCE,
        expiry: String(p.expiry),
        maxFee: String(fee),
        makerRoleConstraint: 0,
        inventoryModeConstraint: p.inventoryMode ?? 0,
        timeInForce: p.timeInForce ?? 0,
        ...(p.buyValue !== undefined ? { buyValue: String(p.buyValue) } : {}),
      });
      assert.deepEqual(
        [e.kind, e.maxShares, e.minSharesOut, e.maxCollateralIn, e.minCollateralOut, e.maxFee, e.outcome, e.expiry, e.timeInForce],
        [
          v2.orderKind,
          Number(v2.maxShares),
          Number(v2.minSharesOut),
          Number(v2.maxCollateralIn),
          Number(v2.minCollateralOut),
          Number(v2.maxFee),
          v2.outcomeIndex,
          Number(v2.expiry),
          v2.timeInForce,
        ],
      );
      assert.deepEqual([e.market, e.trader, e.price, e.nowMs], [3, 7, p.price, 1_000]);
    }),
    { numRuns: 500, seed: 5 },
  );
});

test('an absent expiry is "never" in the engine; a market order is flagged', () => {
  const e = toEngineOrder({ marketId: M, nonce: NONCE, outcomeIndex: 1, side: 0, price: 500_000, size: 1_000_000, clientOrderType: 'market' }, 0, 0, 5);
  assert.equal(e.expiry, 0);
  assert.equal(e.marketOrder, true);
});

test('the tape sells inventory it holds, otherwise buys the complementary outcome', () => {
  const base = { market: 0, trader: 1, yesPrice: 400_000, size: 2_000_000, timeInForce: 1 as const, nowMs: 0 };
  const a = tapeOrder({ ...base, side: 'ask', inventory: 2_000_000n });
  assert.deepEqual([a.outcome, a.kind, a.price, a.maxShares], [1, 1, 400_000, 2_000_000]); // SELL YES @ p
  const b = tapeOrder({ ...base, side: 'ask', inventory: 1_999_999n });
  assert.deepEqual([b.outcome, b.kind, b.price, b.minSharesOut], [0, 0, 600_000, 2_000_000]); // BUY NO @ 1 − p
  const c = tapeOrder({ ...base, side: 'bid', inventory: 0n });
  assert.deepEqual([c.outcome, c.kind, c.price], [1, 0, 400_000]); // BUY YES @ p
  const d = tapeOrder({ ...base, side: 'bid', inventory: 5_000_000n });
  assert.deepEqual([d.outcome, d.kind, d.price], [0, 1, 600_000]); // SELL NO @ 1 − p
  assert.ok(b.maxCollateralIn >= 1_200_000 + b.maxFee, 'its budget never binds');
});
