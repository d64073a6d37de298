/**
 * What the views derive from the store's states as a whole, remembered between ticks: the account
 * totals (every market's PnL, worst-case position and notional, summed) and their view with the
 * books' PnL. Held by the store's state, as a market's memo (./market-memo.ts) is held by the
 * market's.
 *
 * Entry point: `new StateMemo()` (emptyState makes one; every state the reducer makes from it
 * carries the same one). Owner of the fields: src/state/market-view.ts (accountTotals).
 *
 * Why here: the sums follow one store's states, one state after the next, so they belong to that
 * lineage of states. Two stores in one process (a backtest beside a sweep, a test's stores) keep
 * their own sums instead of summing every market again each time the other is viewed, and a
 * dropped store takes its sums with it (docs/architecture.md#who-owns-per-market-state).
 *
 * Each field is checked against the identity of the state, map or books it was made from, so a
 * memo shared by two states of one lineage (a test forking a store) only recomputes, never
 * confuses. Not part of the state's value: `toJSON` leaves it out of any serialised state.
 */
import type { PooledToxicity, ViewAccount } from '../strategy/types.ts';
import type { Contribution } from './market-memo.ts';

export class StateMemo {
  // ---- account totals (src/state/market-view.ts accountTotals) ----
  /** the state the sums are for (null: none yet) */
  state: object | null = null;
  /** that state's markets map */
  markets: ReadonlyMap<string, unknown> | null = null;
  /** the books the sums read holdings from (undefined: the store's own positions) */
  books: object | undefined = undefined;
  /** the books' version the sums were made at (-1 without books) */
  version = -1;
  /** the contribution counted in the sums, by market key */
  counted = new Map<string, Contribution>();
  pnl = 0n;
  position = 0;
  notional = 0;
  /** the view of the sums (null: none yet) */
  view: ViewAccount | null = null;
  // ---- the totals with the books' PnL ----
  /** the totals view `booksView` was made from */
  booksBase: ViewAccount | null = null;
  booksView: ViewAccount | null = null;

  // ---- the account's pooled toxicity at a time (src/state/market-view.ts, poolView) ----
  /** the pool the view is of (null: none yet) */
  pool: object | null = null;
  poolNow = Number.NaN;
  poolView: PooledToxicity | null = null;

  /** Derived, not state: left out of JSON. */
  toJSON(): undefined {
    return undefined;
  }
}
