/**
 * The claims tracker's check of a market that left the bot's store for good (src/runtime/claims/claims-tracker.ts
 * positionGone; the rotation calls it from BotMarkets' onGone): the venue may have claimed its tokens before the
 * bot saw it resolve (an auto-claim quicker than the market feed: the balance read shows none held, the
 * retired market's store record is swept and the feed that would have told the resolution goes with it). One
 * portfolio read of that market alone; shown claimed, the claim reaches the books (onClaimed) at the payout
 * the market read states, or the one the feed gave (no market read then). Nothing else is recorded, and
 * there is no read at all when the books hold none of its tokens unclaimed or its claim is already seen.
 * On the old code there was no such check: the claim waited for the periodic holdings check (15 min), or
 * for the six claimable reads after a resolution the feed told (~1 min).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { systemClock } from '../../../src/core/clock.ts';
import { createLogger } from '../../../src/core/logger.ts';
import type { Claimable, Holding } from '../../../src/exchange/client/portfolio.ts';
import type { Bytes32 } from '../../../src/model/order.ts';
import { ClaimsTracker } from '../../../src/runtime/claims/claims-tracker.ts';
import { holdingRow as row, marketOf } from './holdings-fixture.ts';

const U = marketOf('a1');
const V = marketOf('b2');
const W = marketOf('c3');
const settle = async () => {
  for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
};

/**
 * A tracker whose books hold tokens without a payout in `held` and with one in `resolved` (a market leaves
 * both when recorded claimed); the venue's portfolio rows are `rows` (read per market), its market reads
 * state `payout`. Every read is counted.
 */
function goneTracker(held: Bytes32[], resolved: Bytes32[], rows: Map<Bytes32, Holding[]>, payout: bigint | null) {
  const claimed: [Bytes32, bigint | null][] = [];
  const reads = { holdings: [] as (Bytes32 | undefined)[], markets: [] as Bytes32[], claimable: 0 };
  const lines: { msg: string }[] = [];
  let unresolved = [...held];
  let unclaimed = [...resolved];
  const t = new ClaimsTracker({
    read: async (): Promise<Claimable> => {
      reads.claimable++;
      return { positions: [], markets: [], totalClaimable: 0n };
    },
    unclaimed: () => unclaimed,
    heldUnresolved: () => unresolved,
    readPayout: async (m) => {
      reads.markets.push(m);
      return payout;
    },
    readHoldings: async function* (m) {
      reads.holdings.push(m);
      for (const [id, rs] of rows) if (m === undefined || m === id) yield* rs;
    },
    follows: () => false,
    clock: systemClock,
    logger: createLogger({ level: 'info', destination: { write: (x: string) => void lines.push(JSON.parse(x) as { msg: string }) } }),
    onClaimed: (m, p) => {
      claimed.push([m, p]);
      unresolved = unresolved.filter((x) => x !== m);
      unclaimed = unclaimed.filter((x) => x !== m);
    },
  });
  return { t, claimed, reads, lines };
}

test('a market gone from the store, auto-claimed before the bot saw it resolve: one portfolio read of it, one market read, the claim at the stated payout; once', async () => {
  const rows = new Map<Bytes32, Holding[]>([
    [U, [row(U, { state: 'autoclaimed', redeemed: 10n })]],
    [V, [row(V, { balance: 5n })]],
  ]);
  const { t, claimed, reads, lines } = goneTracker([U, V], [], rows, 1_000_000n);
  t.positionGone(U);
  await settle();
  assert.deepEqual(reads.holdings, [U], "one portfolio read, of U's rows alone");
  assert.deepEqual(reads.markets, [U], 'one market read: its payout');
  assert.deepEqual(claimed, [[U, 1_000_000n]]);
  assert.ok(t.report().markets.some((m) => m.marketId === U && m.state === 'claimed'));
  assert.ok(lines.some((l) => l.msg.startsWith(`market ${U}: resolved (a YES share pays 1.000000 USDC, the market read) and claimed (its position left`)));
  // again (a second sweep, a restart of the market and its release): nothing read, nothing recorded twice
  t.positionGone(U);
  // a market the books hold nothing of: no read
  t.positionGone(W);
  await settle();
  assert.deepEqual(reads.holdings, [U]);
  assert.deepEqual(claimed, [[U, 1_000_000n]]);
  assert.equal(reads.claimable, 0, 'no claimable read: nothing shown claimable');
  t.stop();
});

test('a market gone from the store that the venue does not show claimed: nothing recorded, no market read; one shown claimable makes the claimable list read', async () => {
  const rows = new Map<Bytes32, Holding[]>([
    // balance 0 and nothing redeemed: a sale the books have not had yet, say; not a claim
    [U, [row(U, {})]],
    [V, [row(V, { balance: 10n, state: 'claimable', claimable: 10n })]],
  ]);
  const { t, claimed, reads } = goneTracker([U, V], [], rows, 1_000_000n);
  t.positionGone(U);
  await settle();
  assert.deepEqual([reads.holdings, reads.markets, claimed], [[U], [], []]);
  t.positionGone(V);
  await settle();
  assert.deepEqual([reads.holdings, reads.markets, claimed], [[U, V], [], []]);
  assert.equal(reads.claimable, 1, 'V shown claimable: the claimable list is read, and follows it');
  t.stop();
});

test('a market the feed said resolved (its payout known, read pending) gone from the store and shown claimed: recorded at that payout, no market read, its pending reads end', async () => {
  const rows = new Map<Bytes32, Holding[]>([[U, [row(U, { state: 'autoclaimed', redeemed: 10n })]]]);
  const { t, claimed, reads, lines } = goneTracker([], [U], rows, null);
  t.marketResolved(U, 0, true);
  await settle();
  assert.ok(t.report().markets.some((m) => m.marketId === U && m.state === 'pending'));
  t.positionGone(U);
  await settle();
  assert.deepEqual(claimed, [[U, 0n]], 'at the payout the feed gave');
  assert.deepEqual(reads.markets, [], 'no market read');
  assert.ok(t.report().markets.some((m) => m.marketId === U && m.state === 'claimed'));
  assert.equal(t.heldMarketState, 2, 'U listed (claimed) and remembered as resolved: no longer pending');
  assert.ok(lines.some((l) => l.msg.startsWith(`market ${U}: claimed (its position left the bot's store`)));
  t.stop();
});
