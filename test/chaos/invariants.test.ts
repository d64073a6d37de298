/**
 * The chaos referee's checks on hand-made snapshots: each one holds on a clean picture and reports
 * the breach it exists for (so a soak with zero violations means something).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { VenueOrder } from '../../src/model/order.ts';
import {
  InvariantTally,
  nonceBodyConflicts,
  notionalBreaches,
  overQuoted,
  positionBreaches,
  reconcileMismatches,
  reusedNonces,
  unsettledAfterRestart,
  worstCase,
  yesSide,
  silentlyNotQuoting,
  ordersInEndedMarkets,
} from '../../src/chaos/invariants.ts';
import type { Bytes32 } from '../../src/model/order.ts';

const M = ('0x' + 'aa'.repeat(32)) as Bytes32;
let n = 0;
function order(p: Partial<VenueOrder>): VenueOrder {
  n++;
  return {
    marketId: M,
    trader: '0x' + '11'.repeat(20),
    nonce: '0x' + n.toString(16).padStart(64, '0'),
    side: 1,
    outcomeIndex: 1,
    price: 500_000,
    size: 10_000_000,
    remainingSize: 10_000_000,
    filledSize: 0,
    status: 'open',
    insertedAt: new Date(1_000).toISOString(),
    settlementVersion: 1,
    sv2MinSharesOut: null,
    sv2OrderKind: null,
    expiry: 0,
    ...p,
  } as VenueOrder;
}
const LIMITS = { maxPosition: 60e6, maxNotional: 40e6, toleranceShares: 1e6 };

test('YES-terms sides: buy YES and sell NO are bids; sell YES and buy NO are asks', () => {
  assert.equal(yesSide({ outcomeIndex: 1, side: 0 }), 'bid');
  assert.equal(yesSide({ outcomeIndex: 0, side: 1 }), 'bid');
  assert.equal(yesSide({ outcomeIndex: 1, side: 1 }), 'ask');
  assert.equal(yesSide({ outcomeIndex: 0, side: 0 }), 'ask');
});

test('position limit: worst case counts every open order; a breach names the market', () => {
  const asks = [order({ side: 1 }), order({ side: 1 })];
  assert.deepEqual(worstCase(0, asks), { long: 0, short: 20e6 });
  assert.deepEqual(positionBreaches(new Map([[M, -30e6]]), asks, LIMITS), []);
  const over = positionBreaches(new Map([[M, -45e6]]), asks, LIMITS);
  assert.equal(over.length, 1);
  assert.match(over[0]!, /65 shares > limit 60/);
  // a V2 buy's budget is converted back into shares: its minSharesOut less the shares bought (half
  // its budget spent at its limit, 0.50: 20 of 40 shares; src/orders/venue-order-shares.ts remainingShares)
  const v2buy = order({ side: 0, settlementVersion: 2, sv2MinSharesOut: 40_000_000n, size: 20_000_000, filledSize: 10_000_000, remainingSize: 10_000_000 });
  assert.deepEqual(worstCase(0, [v2buy]), { long: 20e6, short: 0 });
});

test('notional limit: only a breach at every nearby mark is reported', () => {
  const bids = [order({ side: 0, outcomeIndex: 1, remainingSize: 50e6, size: 50e6 })];
  assert.deepEqual(notionalBreaches(new Map([[M, 30e6]]), bids, new Map([[M, 400_000]]), LIMITS), []); // 80 × 0.35 = 28 at worst-favourable mark
  assert.equal(notionalBreaches(new Map([[M, 60e6]]), bids, new Map([[M, 500_000]]), LIMITS).length, 1); // 110 × 0.45 = 49.5
});

test('over-quoting, nonce reuse and body conflicts are found', () => {
  assert.deepEqual([...overQuoted([order({}), order({})], 2)], []);
  assert.deepEqual([...overQuoted([order({}), order({}), order({})], 2)], [`${M}:ask`]);
  const a = order({});
  assert.deepEqual(reusedNonces([a, order({})]), []);
  assert.equal(reusedNonces([a, { ...a }]).length, 1);
  const seen = new Map<Bytes32, string>();
  const n = ('0x' + 'ab'.repeat(32)) as Bytes32;
  assert.equal(nonceBodyConflicts(seen, n, 'm:1:0:100:5'), null);
  assert.equal(nonceBodyConflicts(seen, n, 'm:1:0:100:5'), null, 'a resend of the same body is fine');
  assert.match(nonceBodyConflicts(seen, n, 'm:1:0:200:5') ?? '', /reused for a different order/);
});

test('reconcile view: leaks, stale working orders and phantoms are found; recent changes are not', () => {
  const open = order({ insertedAt: new Date(1_000).toISOString() });
  const fresh = order({ insertedAt: new Date(9_000).toISOString() });
  const filled = order({ status: 'filled' });
  const cutoff = 5_000;
  const closedAt = new Map([[filled.nonce, 2_000]]);
  const view = (o: VenueOrder, state: 'working' | 'pending-cancel' = 'working', sentAt = 1_000) => ({ nonce: o.nonce, marketId: M, state, sentAt });
  assert.deepEqual(reconcileMismatches([view(open)], [open, fresh], closedAt, cutoff), [], 'an order placed after the list need not be known yet');
  assert.match(reconcileMismatches([], [open], closedAt, cutoff)[0] ?? '', /does not track/);
  assert.match(reconcileMismatches([view(filled)], [filled], closedAt, cutoff)[0] ?? '', /closed \(filled\)/);
  assert.deepEqual(reconcileMismatches([view(filled, 'pending-cancel')], [filled], closedAt, cutoff), []);
  const phantom = { nonce: ('0x' + 'ff'.repeat(32)) as Bytes32, marketId: M, state: 'working' as const, sentAt: 1_000 };
  assert.match(reconcileMismatches([phantom], [], closedAt, cutoff)[0] ?? '', /never had/);
});

test('restart: every order open at the kill must be closed or tracked afterwards', () => {
  const a = order({});
  const b = order({});
  const c = order({ status: 'cancelled' });
  const tracked = [{ nonce: a.nonce, marketId: M, state: 'working' as const, sentAt: 0 }];
  assert.deepEqual(unsettledAfterRestart([a.nonce, c.nonce], tracked, [a, b, c]), []);
  assert.equal(unsettledAfterRestart([a.nonce, b.nonce], tracked, [a, b, c]).length, 1);
});

test('the tally counts checks and violations by invariant', () => {
  const t = new InvariantTally();
  t.record('position-limit', [], 1);
  t.record('position-limit', ['x', 'y'], 2);
  assert.equal(t.checks['position-limit'], 2);
  assert.equal(t.violationCounts['position-limit'], 2);
  assert.equal(t.totalViolations, 2);
  assert.equal(t.violations[1]!.detail, 'y');
});

test('no silent not-quoting: a market without a live quote must have a reason in the health model', () => {
  const known = new Set(['quoting', 'stale-book', 'strategy-error', 'starting']);
  const open = new Map<Bytes32, number>([
    ['0xaa' as Bytes32, 2],
    ['0xbb' as Bytes32, 0],
  ]);
  // quoting with orders at the venue, or not quoting with a reason: fine
  assert.deepEqual(
    silentlyNotQuoting(
      open,
      new Map<Bytes32, string>([
        ['0xaa' as Bytes32, 'quoting'],
        ['0xbb' as Bytes32, 'stale-book'],
        ['0xcc' as Bytes32, 'strategy-error'],
      ]),
      known,
    ),
    [],
  );
  // (ids are in normal form here: the child's report is read through readChildMessage)
  // nothing at the venue while the model says quoting, or a state the model does not know: silent
  assert.deepEqual(
    silentlyNotQuoting(
      open,
      new Map<Bytes32, string>([
        ['0xaa' as Bytes32, 'quoting'],
        ['0xbb' as Bytes32, 'quoting'],
        ['0xcc' as Bytes32, 'mystery'],
      ]),
      known,
    ),
    ['0xbb' as Bytes32, '0xcc'],
  );
});

test('no order in an ended market: resolved is always a breach, closed only past the grace', () => {
  const A = M as Bytes32;
  const B = `0x${'bb'.repeat(32)}` as Bytes32;
  const C = `0x${'cc'.repeat(32)}` as Bytes32;
  const open = [order({ marketId: A }), order({ marketId: B }), order({ marketId: C })];
  const markets = new Map([
    [A, { status: 'active', deadline: 100_000 }],
    [B, { status: 'closed', deadline: 50_000 }],
    [C, { status: 'active', deadline: 200_000 }],
  ]);
  assert.deepEqual(ordersInEndedMarkets(open, markets, 54_000, 5_000), [], 'inside the grace after B’s deadline');
  const late = ordersInEndedMarkets(open, markets, 56_000, 5_000);
  assert.equal(late.length, 1);
  assert.match(late[0]!, /6000 ms after its deadline \(status closed\)/);
  markets.set(C, { status: 'resolved', deadline: 200_000 });
  const resolved = ordersInEndedMarkets(open, markets, 54_000, 5_000);
  assert.equal(resolved.length, 1);
  assert.match(resolved[0]!, /resolved market 0xcc/);
  assert.deepEqual(ordersInEndedMarkets(open, new Map(), 1e12, 0), [], 'an unknown market is not judged');
});

test('books-equal-venue: equal books pass; a unit of collateral or of one holding is reported', async () => {
  const { booksMismatches } = await import('../../src/chaos/invariants.ts');
  const v = { collateral: 10_000_000n, holdings: new Map([['0xab:1', 5_000_000n]]) };
  assert.deepEqual(booksMismatches({ collateral: 10_000_000n, holdings: new Map([['0xab:1', 5_000_000n]]) }, v), []);
  const off = booksMismatches(
    {
      collateral: 10_000_001n,
      holdings: new Map([
        ['0xab:1', 4_999_999n],
        ['0xcd:0', 1n],
      ]),
    },
    v,
  );
  assert.equal(off.length, 3);
  assert.match(off[0]!, /collateral: books 10000001 vs venue 10000000/);
  assert.match(off[1]!, /0xab:1: books 4999999 vs venue 5000000/);
  assert.match(off[2]!, /0xcd:0: books 1 vs venue 0/);
});

test("books-equal-venue: books short of the venue's cash is a violation again; a difference within the stated averages' rounding is not", async () => {
  const { booksMismatches, averageRounding } = await import('../../src/chaos/invariants.ts');
  const v = { collateral: 10_000_000n, holdings: new Map([['0xab:1', 5_000_000n]]) };
  const short = { collateral: 9_740_000n, holdings: new Map([['0xab:1', 5_000_000n]]) };
  assert.equal(booksMismatches(short, v).length, 1, 'a fill booked at the wrong price is no longer a tolerated gap');
  assert.match(booksMismatches(short, v)[0]!, /collateral: books 9740000 vs venue 10000000 \(1e-6 USDC, diff -260000\)/);
  assert.equal(booksMismatches({ collateral: 10_000_001n, holdings: v.holdings }, v).length, 1);
  // 7 shares for 3.53 USDC (average 0.504286, rounded): 7 + 1 units; 12 for 6.18 (0.515, exact): none
  const rounding = averageRounding([
    { filledShares: 7_000_000, filledCollateral: 3_530_000 },
    { filledShares: 12_000_000, filledCollateral: 6_180_000 },
    { filledShares: 0, filledCollateral: 0 },
  ]);
  assert.equal(rounding, 8n);
  assert.deepEqual(booksMismatches({ collateral: 10_000_002n, holdings: v.holdings }, v, rounding), []);
  assert.deepEqual(booksMismatches({ collateral: 9_999_992n, holdings: v.holdings }, v, rounding), []);
  assert.match(booksMismatches({ collateral: 9_999_991n, holdings: v.holdings }, v, rounding)[0]!, /the averages' rounding allows 8/);
});

test("books-equal-venue, the running books: a fill only the stop's final sweep recorded, of an order closed many polls before, is a violation; one that raced the stop's cancels is not", async () => {
  const { missedByLiveFeed } = await import('../../src/chaos/invariants.ts');
  const A = `0x${'0a'.repeat(32)}` as Bytes32;
  const B = `0x${'0b'.repeat(32)}` as Bytes32;
  const C = `0x${'0c'.repeat(32)}` as Bytes32;
  // A closed at 100 and 12 polls followed; B closed at 111 (2 polls before the stop); C still open at the stop
  const closedAt = new Map([
    [A, 100],
    [B, 111],
  ]);
  const polls = Array.from({ length: 12 }, (_, i) => 101 + i);
  const swept = [
    { nonce: A, size: 8_000_000 },
    { nonce: B, size: 5_000_000 },
    { nonce: C, size: 10_000_000 },
  ];
  const found = missedByLiveFeed(swept, closedAt, polls, 12);
  assert.equal(found.length, 1, found.join('\n'));
  assert.match(found[0]!, new RegExp(`order ${A}: 8 share\\(s\\) recorded only by the stop's final sweep, 12 fills polls after`));
  assert.deepEqual(missedByLiveFeed(swept, closedAt, polls.slice(1), 12), [], 'one poll fewer: the feed might still have been on its way');
  assert.deepEqual(missedByLiveFeed([{ nonce: A, size: 999_999 }], closedAt, polls, 12), [], "a rounding's part of a share");
  assert.deepEqual(missedByLiveFeed([], closedAt, polls, 12), []);
});

test('stall-pulls-quotes: judged after the bot had its fills polls past the silence limit; a bot that never pulls still fails', async () => {
  const { stallVerdict } = await import('../../src/chaos/invariants.ts');
  const rule = { limitMs: 4_000, graceMs: 3_000, minPolls: 3 };
  const since = 100_000;
  const stall = { market: M, since, endedAt: null };
  const quote = order({ insertedAt: new Date(since - 2_000).toISOString() });
  const every = (from: number, to: number, step: number) => Array.from({ length: Math.floor((to - from) / step) + 1 }, (_, i) => from + i * step);
  // a bot that keeps polling once a second and never pulls its quote: judged 7 s in, and a violation
  const polling = every(since + 500, since + 6_500, 1_000);
  const never = stallVerdict(stall, [quote], polling, since + 7_000, rule);
  assert.equal(never?.length, 1);
  assert.match(never![0]!, /1 order\(s\) still open 7000 ms into a silent stall, 3 fills polls of the bot after its 4000 ms silence limit/);
  // not before the wall-time floor, however many polls
  assert.equal(stallVerdict(stall, [quote], every(since + 4_100, since + 6_900, 100), since + 6_900, rule), null);
  // a starved bot (a poll every 2.5 s): 7.3 s in it has had one poll past the limit, so it is not judged yet
  const starved = every(since + 1_000, since + 11_000, 2_500);
  assert.equal(
    stallVerdict(
      stall,
      [quote],
      starved.filter((t) => t <= since + 7_321),
      since + 7_321,
      rule,
    ),
    null,
  );
  // once it had three, its quote must be gone: it is (held), or it is not (a violation)
  assert.deepEqual(stallVerdict(stall, [], starved, since + 11_100, rule), []);
  assert.equal(stallVerdict(stall, [quote], starved, since + 11_100, rule)?.length, 1);
  // another market's orders are not this stall's
  assert.deepEqual(stallVerdict(stall, [order({ marketId: `0x${'bb'.repeat(32)}` as Bytes32 })], polling, since + 7_000, rule), []);
});

test('stall-pulls-quotes, a stall that is over: short ones hold; a long one judges the orders placed before the limit', async () => {
  const { stallVerdict } = await import('../../src/chaos/invariants.ts');
  const rule = { limitMs: 4_000, graceMs: 3_000, minPolls: 3 };
  const since = 100_000;
  const old = order({ insertedAt: new Date(since + 1_000).toISOString() });
  const requoted = order({ insertedAt: new Date(since + 10_500).toISOString() });
  const polls = [since + 5_000, since + 6_000, since + 7_000, since + 8_000];
  assert.deepEqual(stallVerdict({ market: M, since, endedAt: since + 5_000 }, [old], [], since + 5_000, rule), [], 'over before the floor');
  const long = { market: M, since, endedAt: since + 10_000 };
  assert.deepEqual(stallVerdict(long, [requoted], polls, since + 11_000, rule), [], 'quoted again on the new stream');
  const left = stallVerdict(long, [old, requoted], polls, since + 11_000, rule);
  assert.equal(left?.length, 1);
  assert.match(left![0]!, /1 order\(s\) still open after a silent stall of 10000 ms \(placed before its limit\)/);
  assert.equal(stallVerdict(long, [old], polls.slice(0, 2), since + 11_000, rule), null, 'two polls past the limit: not judged yet');
});

test("books-equal-venue waits for the quiet window in wall time and in the bot's fills polls since the venue last changed", async () => {
  const { quietFor } = await import('../../src/chaos/invariants.ts');
  const since = 50_000;
  assert.equal(quietFor(since, since + 3_999, [since + 1_000, since + 2_000], 4_000, 2), false, 'not 4 s yet');
  assert.equal(quietFor(since, since + 4_000, [since - 500, since + 1_000, since + 2_000], 4_000, 2), true);
  // a starved bot: one poll in 6 s since the change, so the books are not judged yet
  assert.equal(quietFor(since, since + 6_000, [since - 1_000, since + 5_500], 4_000, 2), false);
  assert.equal(quietFor(since, since + 9_000, [since - 1_000, since + 5_500, since + 8_000], 4_000, 2), true);
  assert.equal(quietFor(since, since + 9_000, [], 4_000, 2), false);
});
