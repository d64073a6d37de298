/**
 * A store fill event (OrderFilled) as a fill of the account's books: the one place that maps the
 * feeds' events to AccountFill, so the live books, the ledger's replay and the backtest key a fill
 * the same way.
 */
import type { OrderFilled, StateEvent } from '../state/events.ts';
import type { Account, AccountFill, Drift, FillOrigin } from './account.ts';

/** The fill's identity: the venue's id, else what makes it unique here (as the ledger records it). */
export function fillKey(e: Pick<OrderFilled, 'fillId' | 'nonce' | 'ts' | 'size' | 'price'>): string {
  return e.fillId ?? `${e.nonce ?? 'none'}:${e.ts}:${e.size}:${e.price}`;
}

/** The fill's market and terms (outcome, side, price, size, fee), as the books and the ledger both record them. */
export function fillTerms(e: OrderFilled) {
  return { marketId: e.marketId, outcomeIndex: e.outcomeIndex, side: e.side, price: e.price, size: e.size, fee: e.fee };
}

/**
 * Whose order the fill was, as the books and the ledger both record it (one function, so the two
 * never disagree): what the feed says (src/ledger/bot-ledger.ts isOwn), else 'own' for a fill of an
 * order (it carries a nonce) and 'foreign' for a fill of no order. docs/books-and-pnl.md.
 */
export function fillOrigin(e: Pick<OrderFilled, 'origin' | 'nonce'>): FillOrigin {
  return e.origin ?? (e.nonce ? 'own' : 'foreign');
}

export function accountFill(e: OrderFilled): AccountFill {
  // the fills feed says when the fee is the configured model's (the venue states none)
  const feeSource = e.feeSource ?? 'venue';
  // literals with the keys in fillTerms' order, the optional ones only when present (as the spreads
  // this was wrote them): a spread of conditional objects takes V8's slow path on every fill
  const { marketId, outcomeIndex, side, price, size, fee, ts, orderKind, notional } = e;
  const fillId = fillKey(e);
  const origin = fillOrigin(e);
  if (orderKind === undefined && notional === undefined) return { fillId, marketId, outcomeIndex, side, price, size, fee, feeSource, ts, origin };
  if (notional === undefined) return { fillId, marketId, outcomeIndex, side, price, size, fee, feeSource, ts, origin, orderKind };
  if (orderKind === undefined) return { fillId, marketId, outcomeIndex, side, price, size, fee, feeSource, ts, origin, notional };
  return { fillId, marketId, outcomeIndex, side, price, size, fee, feeSource, ts, origin, orderKind, notional };
}

/**
 * The account's share of a store event: fills, balance reads (reconciled, never written),
 * resolutions, releases. Returns the drifts a balance read found (empty otherwise). The kernel calls
 * it for every event; so does the runtime for events that arrive before the kernel exists.
 */
export function applyToBooks(account: Account, e: StateEvent): readonly Drift[] {
  switch (e.type) {
    case 'OrderFilled':
      account.applyFill(accountFill(e));
      return NONE;
    case 'PositionSynced':
      return account.reconcile(e.marketId, e.yes, e.no, e.ts);
    case 'MarketMetadataUpdated':
      if (e.payoutYes !== undefined && e.payoutYes !== null) account.resolve(e.marketId, e.payoutYes, e.ts);
      return NONE;
    case 'MarketReleased':
      account.release(e.marketId);
      return NONE;
    default:
      return NONE;
  }
}

const NONE: readonly Drift[] = [];
