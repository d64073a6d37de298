/**
 * Claims made while the bot was down (src/runtime/claims/claims-tracker.ts, start-up): the books'
 * resolved-unclaimed markets the venue's portfolio shows claimed reach the books (onClaimed), once,
 * from one paged read; nothing else does (a balance still held, a claim in progress, a market the
 * venue does not list, a claimable one the claimable reads follow); no read when the books hold no
 * such market; a failed read is counted and said, never thrown. The same check, for one market, after a
 * resolution with a position that the venue never showed claimable (a quick auto-claim). The markets
 * held without a payout (a market no longer followed that resolved and was claimed while the bot was
 * down) are looked up in the same read; one shown claimed is recorded at the payout its market read
 * states, and not at all when it states none or fails.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { asyncScheduler } from 'rxjs';
import type { Clock } from '../../../src/core/clock.ts';
import { createLogger } from '../../../src/core/logger.ts';
import type { Claimable, Holding } from '../../../src/exchange/client/portfolio.ts';
import type { Bytes32 } from '../../../src/model/order.ts';
import { claimedAtVenue, ClaimsTracker, HOLDINGS_READ_MAX } from '../../../src/runtime/claims/claims-tracker.ts';
import { holdingRow, marketOf, TOKEN } from './holdings-fixture.ts';

const id = marketOf;
const row = holdingRow;
const A = id('a1');
const B = id('b2');
const C = id('c3');
const D = id('d4');
const E = id('e5');

const clock: Clock = { now: () => 1_800_000_000_000, scheduler: asyncScheduler, setTimeout: () => () => undefined };
const NONE: Claimable = { positions: [], markets: [], totalClaimable: 0n };

function tracker(o: {
  unclaimed: Bytes32[] | (() => Bytes32[]);
  rows?: Holding[];
  claimable?: Claimable;
  fail?: boolean;
  owns?: (m: Bytes32) => boolean;
  maxTries?: number;
  /** markets held without a payout in the books, and what their market read states (an Error: it fails) */
  heldUnresolved?: Bytes32[];
  payouts?: Record<string, bigint | null | Error>;
}) {
  const claimed: [Bytes32, bigint | null][] = [];
  const out: string[] = [];
  const asked: (Bytes32 | undefined)[] = [];
  let holdingReads = 0;
  let rowsRead = 0;
  const marketReads: Bytes32[] = [];
  const t = new ClaimsTracker({
    read: async () => o.claimable ?? NONE,
    unclaimed: typeof o.unclaimed === 'function' ? o.unclaimed : () => o.unclaimed as Bytes32[],
    readHoldings: async function* (marketId?: Bytes32) {
      holdingReads++;
      asked.push(marketId);
      if (o.fail) throw new Error('venue down');
      for (const r of o.rows ?? []) {
        rowsRead++;
        yield r;
      }
    },
    ...(o.heldUnresolved
      ? {
          heldUnresolved: () => o.heldUnresolved!,
          readPayout: async (m: Bytes32) => {
            marketReads.push(m);
            const p = o.payouts?.[m] ?? null;
            if (p instanceof Error) throw p;
            return p;
          },
        }
      : {}),
    owns: o.owns,
    maxTries: o.maxTries,
    clock,
    logger: createLogger({ level: 'info', destination: { write: (s: string) => void out.push(s) } }),
    onClaimed: (m, p) => void claimed.push([m, p]),
  });
  return {
    t,
    claimed,
    asked,
    reads: () => holdingReads,
    marketReads,
    rowsRead: () => rowsRead,
    lines: () => out.map((l) => JSON.parse(l) as { msg: string; level: number }),
  };
}

test('claimedAtVenue: tokens redeemed or autoclaimed and nothing held, claimable or being claimed', () => {
  assert.deepEqual(claimedAtVenue([row(A, { state: 'autoclaimed', redeemed: 10_000_000n })]), { tokens: 10_000_000n, state: 'autoclaimed' });
  // a person's claim: redeemed, no state
  assert.deepEqual(claimedAtVenue([row(A, { redeemed: 3n }), row(A, { outcome: 0, redeemed: 4n })]), { tokens: 7n, state: null });
  assert.equal(claimedAtVenue([]), null, 'not listed: no claim invented');
  assert.equal(claimedAtVenue([row(A)]), null, 'nothing redeemed');
  assert.equal(claimedAtVenue([row(A, { redeemed: 5n }), row(A, { outcome: 0, balance: 1n })]), null, 'a token still held');
  assert.equal(claimedAtVenue([row(A, { state: 'claiming', redeemed: 5n })]), null, 'being claimed');
  assert.equal(claimedAtVenue([row(A, { state: 'claimable', claimable: 5n, redeemed: 5n })]), null);
});

test('start-up: the markets the venue shows claimed reach the books once, from one read; the others stay held', async () => {
  const k = tracker({
    unclaimed: [A, B, C, D],
    rows: [
      row(A, { state: 'autoclaimed', redeemed: 10_000_000n }),
      row(B, { balance: 2_000_000n }), // still held (a lost side nobody claims)
      row(C, { state: 'claiming' }),
      row(E, { redeemed: 1n }), // not one of the books' markets
      // D: not listed
    ],
  });
  await k.t.start();
  assert.deepEqual(k.claimed, [[A, null]]);
  assert.equal(k.reads(), 1);
  const snap = k.t.report();
  assert.deepEqual(
    snap.markets.map((m) => [m.marketId, m.state]),
    [[A, 'claimed']],
  );
  assert.equal(snap.reads, 2, 'the claimable read and the portfolio read');
  const lines = k.lines();
  assert.ok(lines.some((l) => l.msg.includes(`market ${A}: claimed while the bot was down`)));
  assert.ok(lines.some((l) => l.msg.startsWith('3 resolved market(s) the books hold unclaimed: the venue shows none claimed')));
  // the feed's resolution of A later: already handled
  k.t.marketResolved(A, 1_000_000, true);
  assert.deepEqual(k.claimed, [[A, null]]);
  k.t.stop();
});

test('start-up: no portfolio read when the books hold no resolved-unclaimed market, or only claimable or foreign ones', async () => {
  const none = tracker({ unclaimed: [] });
  await none.t.start();
  assert.equal(none.reads(), 0);
  none.t.stop();
  const claimable: Claimable = {
    positions: [{ marketId: A, outcomeIndex: 1, outcomeName: 'Yes', tokenAddress: TOKEN, balance: 5n, claimableAmount: 5n }],
    markets: [{ id: A, outcomeTokens: [TOKEN, TOKEN], outcomeNames: ['No', 'Yes'], payouts: [0n, 1_000_000n] }],
    totalClaimable: 5n,
  };
  const k = tracker({ unclaimed: [A, B], claimable, owns: (m) => m !== B, rows: [row(A, { state: 'autoclaimed', redeemed: 5n })] });
  await k.t.start();
  assert.equal(k.reads(), 0, 'A is claimable (the claimable reads follow it), B is another shard’s');
  assert.deepEqual(k.claimed, []);
  k.t.stop();
});

test('start-up: a failed portfolio read is counted and said, nothing recorded, never thrown', async () => {
  const k = tracker({ unclaimed: [A], fail: true });
  await k.t.start();
  assert.deepEqual(k.claimed, []);
  assert.equal(k.t.report().readErrors, 1);
  assert.ok(k.lines().some((l) => l.msg.startsWith('the portfolio could not be read: 1 market(s)')));
  k.t.stop();
});

test('start-up: the portfolio read stops at HOLDINGS_READ_MAX rows', async () => {
  const rows = Array.from({ length: HOLDINGS_READ_MAX + 5 }, () => row(E, { balance: 1n }));
  rows.push(row(A, { state: 'autoclaimed', redeemed: 1n }));
  const k = tracker({ unclaimed: [A], rows });
  await k.t.start();
  assert.equal(k.rowsRead(), HOLDINGS_READ_MAX);
  assert.deepEqual(k.claimed, [], 'a market past the bound is not checked (said)');
  assert.ok(k.lines().some((l) => l.msg.startsWith(`the portfolio read stopped at ${HOLDINGS_READ_MAX} rows`)));
  k.t.stop();
});

test('a resolution with a position the venue never showed claimable: that market is looked up, its claim recorded', async () => {
  // A resolves while the bot runs and is auto-claimed before the first claimable read shows it
  let resolvedA = false;
  const k = tracker({
    unclaimed: () => (resolvedA && k.claimed.length === 0 ? [A] : []),
    rows: [row(A, { state: 'autoclaimed', redeemed: 4_000_000n })],
    maxTries: 1,
  });
  await k.t.start();
  assert.equal(k.reads(), 0, 'nothing resolved-unclaimed at start-up: no portfolio read');
  resolvedA = true;
  k.t.marketResolved(A, 1_000_000, true);
  for (let i = 0; i < 100 && k.claimed.length === 0; i++) await new Promise((r) => setImmediate(r));
  assert.deepEqual(k.claimed, [[A, 1_000_000n]]);
  assert.deepEqual(k.asked, [A], 'one read, of that market alone');
  assert.ok(k.lines().some((l) => l.msg.startsWith(`market ${A}: claimed (the venue shows 4.000000 tokens redeemed, autoclaimed)`)));
  assert.equal(k.t.report().markets.find((m) => m.marketId === A)?.state, 'claimed');
  k.t.stop();
});

test("start-up: a market held without a payout (no longer followed) the venue shows claimed reaches the books at its market read's payout", async () => {
  const k = tracker({
    unclaimed: [A],
    heldUnresolved: [B, C, D, E],
    payouts: { [B]: 1_000_000n, [C]: 0n, [E]: null },
    rows: [
      row(A, { state: 'autoclaimed', redeemed: 3_000_000n }),
      row(B, { state: 'autoclaimed', redeemed: 10_000_000n }), // resolved YES and claimed while down
      row(C, { outcome: 0, redeemed: 2_000_000n }), // a person claimed it (NO won)
      row(D, { balance: 5_000_000n }), // still held: an open market, nothing to look up
      row(E, { state: 'autoclaimed', redeemed: 1n }), // shown claimed, but the market read states no payout
    ],
  });
  await k.t.start();
  assert.equal(k.reads(), 1, 'one portfolio read for both kinds');
  assert.deepEqual(k.marketReads, [B, C, E], 'a market read only for the markets shown claimed whose payout the books lack');
  assert.deepEqual(k.claimed, [
    [A, null],
    [B, 1_000_000n],
    [C, 0n],
  ]);
  const snap = k.t.report();
  assert.deepEqual(
    snap.markets.map((m) => [m.marketId, m.state, m.payoutYes]),
    [
      [A, 'claimed', null],
      [B, 'claimed', 1_000_000n],
      [C, 'claimed', 0n],
    ],
  );
  const lines = k.lines();
  assert.ok(lines.some((l) => l.msg.startsWith(`market ${B}: resolved (a YES share pays 1.000000 USDC, the market read) and claimed while the bot was down`)));
  assert.ok(
    lines.some((l) => l.level === 40 && l.msg.startsWith('1 market(s) the venue shows claimed whose payout the books do not know')),
    'E: fail safe, no claim recorded without a stated payout (said at warn)',
  );
  assert.ok(!lines.some((l) => l.msg.includes('resolved market(s) the books hold unclaimed')), 'D is an ordinary held market: nothing said');
  k.t.stop();
});

test('start-up: a failed market read is counted and said, no claim recorded; no market read without held-unresolved markets shown claimed', async () => {
  const k = tracker({ unclaimed: [], heldUnresolved: [B], payouts: { [B]: new Error('503') }, rows: [row(B, { state: 'autoclaimed', redeemed: 1n })] });
  await k.t.start();
  assert.deepEqual(k.claimed, []);
  assert.equal(k.t.report().readErrors, 1);
  assert.ok(k.lines().some((l) => l.msg.startsWith(`market ${B}: its market read failed`)));
  k.t.stop();
  const held = tracker({ unclaimed: [], heldUnresolved: [B], payouts: { [B]: 1_000_000n }, rows: [row(B, { balance: 1n })] });
  await held.t.start();
  assert.equal(held.reads(), 1);
  assert.deepEqual(held.marketReads, []);
  assert.deepEqual(held.claimed, []);
  held.t.stop();
});
