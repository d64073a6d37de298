/**
 * What the books hold resolved and unclaimed, and what claiming it pays: per market whose payout the
 * books know and whose tokens they still hold, the payout of those tokens (⌊payoutYes × YES⌋ +
 * ⌊payoutNo × NO⌋, 1e-6 USDC: what a claim adds to the books' cash, src/account/account.ts claimed).
 * The one function behind every place that shows the books' figure: the run report's `after
 * resolution` block, the gauge `bookmaker_books_claimable_usdc` and `bookmaker ledger summary`
 * (`claimable`). Pure: reads the books, no clock, no I/O.
 *
 * It is the books' word, not the venue's: the venue's claimable list (the tracker's total,
 * `bookmaker_claimable_total_usdc`) is what the venue states now. They agree once the venue lists a
 * resolution the books hold; they differ while a claim the bot has not seen yet is pending (the
 * venue's list no longer shows it, the books still hold it: docs/running-for-weeks.md).
 */
import type { Account } from './account.ts';
import type { Bytes32 } from '../model/order.ts';
import { ONE, notionalFloor } from '../model/units.ts';

export interface BooksClaimableMarket {
  readonly marketId: Bytes32;
  /** what one YES share pays, 1e-6 USDC */
  readonly payoutYes: number;
  /** 1e-6 shares held */
  readonly yes: number;
  readonly no: number;
  /** what claiming them pays, 1e-6 USDC */
  readonly claimable: bigint;
}

export interface BooksClaimable {
  /** by market id */
  readonly markets: readonly BooksClaimableMarket[];
  /** Σ claimable, 1e-6 USDC */
  readonly total: bigint;
}

/** The payout of `yes` YES and `no` NO tokens of a market resolved at `payoutYes`, 1e-6 USDC. */
export function claimPayout(payoutYes: number, yes: number, no: number): bigint {
  return BigInt(notionalFloor(payoutYes, Math.max(0, yes)) + notionalFloor(ONE - payoutYes, Math.max(0, no)));
}

export function booksClaimable(account: Pick<Account, 'unclaimedResolved' | 'market'>): BooksClaimable {
  const markets: BooksClaimableMarket[] = [];
  let total = 0n;
  for (const id of [...account.unclaimedResolved()].sort()) {
    const m = account.market(id);
    if (m === null || m.payoutYes === null) continue;
    const claimable = claimPayout(m.payoutYes, m.yes, m.no);
    markets.push({ marketId: id, payoutYes: m.payoutYes, yes: m.yes, no: m.no, claimable });
    total += claimable;
  }
  return { markets, total };
}
