/**
 * What one run traded, read from the account's books (src/account/account.ts): the books now less
 * the books when the run began. The end-of-run report, the terminal summary and the log's summary
 * line read it, so their fills, volume, fees and realised PnL are the books' — the figures `ledger
 * summary` rebuilds from the same fills, /metrics shows, and the kill switch acts on — to the unit.
 * Every fill the books take counts: live and paper fills, fills of a market after the bot released
 * it, other traders' fills on the wallet, the stop's final sweep. See docs/books-and-pnl.md.
 *
 *   const run = new RunFigures(account)   // when the books are built, before the run's first fill
 *   run.totals()                          // { fills, shares?, volume, fees, realised }, 1e-6 units
 *   run.market(id)                        // one market's share of the run (its current book)
 *   run.after(id, earlier)                // its fills since an earlier reading (a released market's row)
 *   run.fills.get(id)                     // the summary's fills column
 *
 * Exact integers: volume and fees in 1e-6 USDC (the books' own per-market figures), shares in 1e-6.
 */
import type { Bytes32 } from '../model/order.ts';
import type { Account, AccountFigures, MarketFigures } from './account.ts';

/** A run's trading, 1e-6 units. */
export interface RunTrades {
  readonly fills: number;
  /** traded notional, 1e-6 USDC (each market's books figure) */
  readonly volume: bigint;
  /** fees paid, 1e-6 USDC */
  readonly fees: bigint;
  /** realised PnL net of fees, resolutions included, 1e-6 USDC */
  readonly realised: bigint;
}

/** One market's share of a run: its trading and the shares filled. */
export interface RunMarketTrades extends RunTrades {
  /** shares filled, 1e-6 */
  readonly shares: number;
  /** the books' market serial these figures were read from (MarketFigures.book; 0: none) */
  readonly book: number;
}

export const NO_RUN_TRADES: RunMarketTrades = { fills: 0, volume: 0n, fees: 0n, realised: 0n, shares: 0, book: 0 };

type Start = Pick<MarketFigures, 'book' | 'fills' | 'volume' | 'fees' | 'realised' | 'shares'>;

/** `a` less `b`, field by field. */
export function tradesLess(a: RunTrades, b: RunTrades): RunTrades {
  return { fills: a.fills - b.fills, volume: a.volume - b.volume, fees: a.fees - b.fees, realised: a.realised - b.realised };
}

/** `a` plus `b`, field by field (a market's figures before and after it was folded away). */
export function tradesPlus(a: RunMarketTrades, b: RunMarketTrades): RunMarketTrades {
  return {
    fills: a.fills + b.fills,
    volume: a.volume + b.volume,
    fees: a.fees + b.fees,
    realised: a.realised + b.realised,
    shares: a.shares + b.shares,
    book: b.book,
  };
}

const tradesOf = (f: AccountFigures): RunTrades => ({ fills: f.fills, volume: f.volume, fees: f.fees, realised: f.realised });

export class RunFigures {
  private readonly start: RunTrades;
  /** the books of each market when the run began (only markets the books held then) */
  private readonly startOf = new Map<Bytes32, Start>();
  /** the summary's fills column: this run's fills of a market (its current book) */
  readonly fills: { get(marketId: string): number | undefined };

  constructor(private readonly account: Account) {
    this.start = tradesOf(account.figures());
    for (const id of account.marketIds()) {
      const m = account.market(id)!;
      this.startOf.set(id, { book: m.book, fills: m.fills, volume: m.volume, fees: m.fees, realised: m.realised, shares: m.shares });
    }
    this.fills = { get: (id) => this.market(id as Bytes32).fills };
  }

  /** This run's fills, volume, fees and realised PnL over every market (released and folded ones included). */
  totals(): RunTrades {
    return tradesLess(tradesOf(this.account.figures()), this.start);
  }

  /**
   * One market's share of the run, as its current book holds it, a folded book the account keeps
   * included (NO_RUN_TRADES when the books keep nothing of it now). A book begun during the run (a new market, or one folded away and begun again
   * by a later fill) counts whole.
   */
  market(marketId: Bytes32): RunMarketTrades {
    // a released market folded away is still read while its book is kept: a later fill continues it,
    // so a reading taken while it was folded compares with one after
    const m = this.account.keptMarket(marketId);
    if (m === null) return NO_RUN_TRADES;
    const s = this.startOf.get(marketId);
    const base = s !== undefined && s.book === m.book ? s : null;
    return {
      fills: m.fills - (base?.fills ?? 0),
      volume: m.volume - (base?.volume ?? 0n),
      fees: m.fees - (base?.fees ?? 0n),
      realised: m.realised - (base?.realised ?? 0n),
      shares: m.shares - (base?.shares ?? 0),
      book: m.book,
    };
  }

  /**
   * A market's share of the run since an earlier reading of it (`at`: what market() said then; none:
   * since the run began): its fills after that reading while its book is the same one, the whole
   * book when a new one was begun since (folded away, then a later fill), nothing when it is gone.
   * A market retired and started again reports each stretch once this way.
   */
  after(marketId: Bytes32, at?: RunMarketTrades): RunMarketTrades {
    const now = this.market(marketId);
    if (at === undefined || now.book !== at.book) return now;
    return { ...tradesLess(now, at), shares: now.shares - at.shares, book: now.book };
  }
}
