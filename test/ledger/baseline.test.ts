/**
 * The venue history a new ledger is checked against (src/ledger/baseline.ts): the whole wallet's for
 * a lone instance; for an instance scoped to some markets of a shared wallet (shards,
 * orders.reconcileScope markets), only its own markets' orders and holdings, so a sibling that is
 * already quoting does not make its first start refuse (exit 2). Before: any order of the wallet did.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { hasHistory, readVenueHistory, type HistorySource } from '../../src/ledger/baseline.ts';
import type { Address, Bytes32, VenueOrder } from '../../src/model/order.ts';

const TRADER = ('0x' + '33'.repeat(20)) as Address;
const A = '0x' + 'aa'.repeat(32);
const B = '0x' + 'bb'.repeat(32);

function venue(orderMarkets: string[], tokens: { marketId: string; outcomeIndex: 0 | 1; balance: bigint }[]): HistorySource {
  return {
    balance: {
      summary: async () => ({ usdc: { balance: 5_000_000n, settlementBalance: 0n }, outcomeTokens: tokens }),
    },
    orders: {
      async *iterate() {
        for (const [i, m] of orderMarkets.entries()) yield { marketId: m as Bytes32, nonce: ('0x' + String(i).padStart(64, '0')) as Bytes32 } as VenueOrder;
      },
    },
  } as unknown as HistorySource;
}

test('a lone instance: any order or holding of the wallet is history', async () => {
  assert.equal(hasHistory(await readVenueHistory(venue([B], []), TRADER)), true);
  assert.equal(hasHistory(await readVenueHistory(venue([], [{ marketId: B, outcomeIndex: 1, balance: 1n }]), TRADER)), true);
  assert.equal(hasHistory(await readVenueHistory(venue([], []), TRADER)), false);
});

test("a scoped instance: a sibling's orders and holdings are not its history; its own markets' are", async () => {
  const ownsA = (m: string) => m === A;
  const sibling = await readVenueHistory(venue([B, B, B], [{ marketId: B, outcomeIndex: 1, balance: 7n }]), TRADER, { owns: ownsA });
  assert.equal(hasHistory(sibling), false);
  assert.deepEqual(sibling.holdings, []);
  const mine = await readVenueHistory(
    venue(
      [B, A],
      [
        { marketId: A, outcomeIndex: 0, balance: 3n },
        { marketId: B, outcomeIndex: 1, balance: 7n },
      ],
    ),
    TRADER,
    { owns: ownsA },
  );
  assert.equal(mine.hasOrders, true);
  assert.deepEqual(mine.holdings, [{ marketId: A, outcomeIndex: 0, shares: 3n }], "only its markets' holdings are adopted");
  // the search is bounded; the bound is reported
  const many = await readVenueHistory(venue(Array(50).fill(B), []), TRADER, { owns: ownsA, maxOrders: 10 });
  assert.equal(many.hasOrders, false);
  assert.equal(many.bounded, true);
});
