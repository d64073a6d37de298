import assert from 'node:assert/strict';
import { test } from 'node:test';
import { tradingReader } from '../../src/feeds/trading-feed.ts';
import type { BalanceSummary } from '../../src/exchange/client/balance.ts';
import type { Address, Bytes32, VenueOrder } from '../../src/model/order.ts';
import { venueOrder } from '../support/venue-order.ts';

const M = ('0x' + 'ab'.repeat(32)) as Bytes32;
const N = ('0x' + '01'.repeat(32)) as Bytes32;
const TRADER = '0x0000000000000000000000000000000000000001' as Address;

/** A resting sell of 10 YES at 0.55, `filled` of it filled. */
const sell = (filledSize: number): VenueOrder =>
  venueOrder({ id: 7, marketId: M, trader: TRADER, nonce: N, price: 550_000, filledSize, insertedAt: '2026-11-21T00:00:00.000Z' });

test('fills read before a failed balance read are not lost: they lead the next good poll', async () => {
  let filled = 0;
  let balanceFails = 0;
  const summary = { usdc: { balance: 5_000_000n, settlementBalance: 5_000_000n }, outcomeTokens: [] } as unknown as BalanceSummary;
  const client = {
    orders: {
      async *iterate() {
        yield sell(filled);
      },
      async get(): Promise<VenueOrder> {
        throw new Error('not used');
      },
    },
    balance: {
      async summary(): Promise<BalanceSummary> {
        if (balanceFails > 0) {
          balanceFails--;
          throw new Error('503 from the balance read');
        }
        return summary;
      },
    },
  };
  const read = tradingReader({ client, trader: TRADER, marketIds: [M], clock: { now: () => 1 } as never });
  assert.deepEqual(
    (await read()).map((e) => e.event.type),
    ['BalanceUpdated', 'PositionSynced'],
    'the first poll is a baseline',
  );
  filled = 3_000_000;
  balanceFails = 2;
  await assert.rejects(read(), /503/);
  filled = 4_000_000;
  await assert.rejects(read(), /503/, 'the balance read fails again: the orders read still ran');
  const types = (await read()).map((e) => e.event);
  assert.deepEqual(
    types.map((e) => e.type),
    ['OrderFilled', 'OrderFilled', 'BalanceUpdated', 'PositionSynced'],
    'both fills, in order, before the balances',
  );
  assert.deepEqual(
    types.flatMap((e) => (e.type === 'OrderFilled' ? [e.size] : [])),
    [3_000_000, 1_000_000],
  );
  assert.deepEqual(
    (await read()).map((e) => e.event.type),
    ['BalanceUpdated', 'PositionSynced'],
    'carried once, not again',
  );
});
