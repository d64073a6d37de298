/**
 * The books' resolved-unclaimed markets and what claiming them pays (src/account/books-claimable.ts):
 * the one function behind `bookmaker ledger summary`'s `claimable`, the run report's `the books:` line and
 * the gauge `bookmaker_books_claimable_usdc`. Checked to the unit: each market's amount is what its claim
 * adds to the books' cash; `ledger summary` (text and JSON) shows the same figure as the function over the
 * same books; the run report built from them shows it too. On the old code `ledger summary` has no
 * `claimable` (the test fails there).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { asyncScheduler } from 'rxjs';
import { Account, type AccountFill } from '../../../src/account/account.ts';
import type { Clock } from '../../../src/core/clock.ts';
import { accountFromLedger, ledgerSummary } from '../../../src/ledger/books.ts';
import { openLedger, type LedgerFill } from '../../../src/ledger/ledger.ts';
import type { Bytes32 } from '../../../src/model/order.ts';
import { booksClaimable, claimPayout } from '../../../src/account/books-claimable.ts';
import { buildRunReport, formatRunReport } from '../../../src/runtime/run-report.ts';
import { STOPPED_RUN } from '../../support/run-report.ts';
import { withTmpLedger } from '../../ledger/tmp-ledger.ts';

const S = 1_000_000;
const T0 = 1_800_000_000_000;
const A = ('0x' + 'a1'.repeat(32)) as Bytes32;
const B = ('0x' + 'b2'.repeat(32)) as Bytes32;
const C = ('0x' + 'c3'.repeat(32)) as Bytes32;
const D = ('0x' + 'd4'.repeat(32)) as Bytes32;
const clock: Clock = { now: () => T0 + 60_000, scheduler: asyncScheduler, setTimeout: () => () => undefined };

let seq = 0;
const fill = (marketId: Bytes32, outcomeIndex: 0 | 1, side: 0 | 1, price: number, size: number): LedgerFill => ({
  fillId: `f${++seq}`,
  nonce: null,
  marketId,
  outcomeIndex,
  side,
  price,
  size,
  fee: 0,
  ts: T0 + seq,
  source: 'test',
});
const accountFill = (f: LedgerFill): AccountFill => ({
  fillId: f.fillId,
  marketId: f.marketId,
  outcomeIndex: f.outcomeIndex as 0 | 1,
  side: f.side as 0 | 1,
  price: f.price,
  size: f.size,
  fee: f.fee,
  ts: f.ts,
  feeSource: 'venue',
  origin: 'own',
});

/** A held YES in A (resolved YES), YES and NO in B (resolved at 0.37), NO in C (resolved YES: worth 0), D open. */
const FILLS = [
  fill(A, 1, 0, 400_000, 10 * S + 7),
  fill(B, 1, 0, 300_000, 3_333_333),
  fill(B, 0, 0, 600_000, 1_000_001),
  fill(C, 0, 0, 200_000, 5 * S),
  fill(D, 1, 0, 500_000, 2 * S),
];
const RESOLVED: [Bytes32, number][] = [
  [A, 1_000_000],
  [B, 370_000],
  [C, 1_000_000],
];

test('claimPayout: the floor of each side, as the venue redeems and the books book a claim', () => {
  assert.equal(claimPayout(1_000_000, 10 * S + 7, 0), 10_000_007n);
  assert.equal(claimPayout(370_000, 3_333_333, 1_000_001), 1_233_333n + 630_000n);
  assert.equal(claimPayout(1_000_000, 0, 5 * S), 0n);
  assert.equal(claimPayout(500_000, -3, -4), 0n, 'nothing held short is paid');
});

test("the books' resolved-unclaimed markets: each amount is what its claim adds to the cash, to the unit", () => {
  const a = new Account();
  for (const f of FILLS) a.applyFill(accountFill(f));
  for (const [id, p] of RESOLVED) a.resolve(id, p, T0 + 100);
  const got = booksClaimable(a);
  assert.deepEqual(
    got.markets.map((m) => [m.marketId, m.claimable]),
    [
      [A, 10_000_007n],
      [B, 1_863_333n],
      [C, 0n],
    ],
    'D is not resolved; C holds only the losing side (0 to claim, still held unclaimed)',
  );
  assert.equal(got.total, 11_863_340n);
  for (const m of got.markets) {
    const before = a.figures().cash;
    a.claimed(m.marketId);
    assert.equal(a.figures().cash - before, m.claimable, `${m.marketId}: the claim pays what the figure said`);
  }
  assert.deepEqual(booksClaimable(a), { markets: [], total: 0n }, 'claimed: nothing left');
});

test('`ledger summary` claimable and the run report show the function’s figure over the same books', () =>
  withTmpLedger(({ file }) => {
    const l = openLedger({ path: file, clock });
    try {
      for (const f of FILLS) l.fill(f);
      for (const [id, p] of RESOLVED) l.resolution(id, p, T0 + 100);
      l.flush();
      const books = booksClaimable(accountFromLedger(l));
      const s = ledgerSummary(l);
      assert.equal(s.claimable.totalUsdc, Number(books.total) / 1e6);
      assert.equal(s.claimable.totalUsdc, 11.86334);
      assert.deepEqual(
        s.claimable.markets.map((m) => [m.marketId, m.payoutYes, m.yes, m.no, m.claimableUsdc]),
        books.markets.map((m) => [m.marketId, m.payoutYes / 1e6, m.yes / 1e6, m.no / 1e6, Number(m.claimable) / 1e6]),
      );
      assert.deepEqual(ledgerSummary(l, { market: B }).claimable, { totalUsdc: 1.863333, markets: [s.claimable.markets[1]] });
      // the run report, from the same books (as the running bot builds it: src/runtime/phases/report.ts)
      const report = buildRunReport({
        ...STOPPED_RUN,
        claims: { markets: [], total: 0n, reads: 1, readErrors: 0, earlierSettled: 0, overdue: { afterMs: 86_400_000, markets: 0, total: 0n, largest: [] } },
        booksClaimable: books,
      });
      assert.deepEqual(report.claims?.books, { markets: 3, claimableUsdc: '11.863340' });
      const text = formatRunReport(report).join('\n');
      assert.match(text, /the books: 3 resolved market\(s\) held unclaimed, 11\.86 USDC to claim/);
      // a claim recorded: gone from the figure
      l.claim(A, T0 + 200);
      l.flush();
      assert.equal(ledgerSummary(l).claimable.totalUsdc, 1.863333);
    } finally {
      l.close();
    }
  }));
