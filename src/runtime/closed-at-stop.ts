/**
 * The stop's last word to the store on the orders the cancel-all found ended at the venue without a cancel
 * of its own ending them (OrderManager.endedAtStop): an order filled (or expired, voided) while the stop's
 * cancels ran, after the feeds had closed, so no OrderClosed came: gone from the cancel-all's list while
 * it still tracked them (the order manager let them go; the store would still show them open: the final
 * status line's `orders`, the health model's `quoting`), or listed and then answered `alreadyCancelled` by
 * its cancel (nothing left to cancel: the venue answers so for a filled order too, docs/venue.md; the store
 * let those go with that answer, `answered`, and the sweep reads their end for the ledger alone).
 *
 *   const gone = om.endedAtStop();
 *   let read = null;
 *   await bookLedger.finalSweep(client, trader, books, { nonces: gone.map((g) => g.nonce), read: (r) => (read = r) });
 *   closeAtStop({ core, clock, log, ends: (n) => bookLedger.orderEndsOf(n) }, gone, read);
 *
 * Their end is never guessed before the sweep: an OrderGone would end them 'gone' in the ledger, and the
 * sweep would then look up only the recent ones, missing an older order's racing fill. The sweep reads
 * each one at the venue and records its fills and its real end; then each one read closed goes to the
 * core as an OrderClosed with the venue's status (its fills are in the books first, as the feeds order
 * them): the kernel settles it and the store drops it (QuotingKernel.closeOrder). One the sweep could
 * not read (the sweep failed, paper trading, a start refused for another trader) is dropped from the
 * store alone, since the venue listed it open no more: the ledger keeps it unfinished, and the next
 * start's catch-up reads its end. One the venue shows open again is left as it is, and logged.
 * docs/operating.md ("Stopping").
 *
 * The log line counts them apart from the orders the stop's cancels ended (answered 201 `cancelled`: the
 * `stopped` line's `cancelled`): `alreadyEnded`, of them `answeredAlreadyCancelled` (the store let those
 * go with the answer) and `foundGone` (gone from the cancel-all's list: the ones closed, unread or open
 * here), and `endedAs`, their ends as the ledger holds them after the sweep (`notEnded`: no end read yet),
 * by the count of the run report's `orders` line (src/ledger/order-ends.ts orderEndsOf).
 */
import type { Clock } from '../core/clock.ts';
import type { Logger } from '../core/logger.ts';
import type { TradingCore } from '../kernel/trading-core.ts';
import type { VenueOrderStatus } from '../ledger/catch-up.ts';
import type { OrderEnds } from '../ledger/order-ends.ts';
import type { Bytes32 } from '../model/order.ts';
import type { StateEvent } from '../state/events.ts';

export interface ClosedAtStop {
  /** closed in the store with the venue's status */
  readonly closed: number;
  /** dropped from the store without a status read (their end comes with the next start) */
  readonly unread: number;
  /** shown open by the venue after the cancel-all listed none: left in the store */
  readonly open: number;
}

export function closeAtStop(
  o: {
    readonly core: Pick<TradingCore, 'store' | 'receiveAll'>;
    readonly clock: Clock;
    readonly log: Logger;
    /** the orders by end as the ledger holds them (BotLedger.orderEndsOf); absent or null: not logged */
    readonly ends?: (nonces: readonly Bytes32[]) => OrderEnds | null;
  },
  gone: readonly { readonly nonce: Bytes32; readonly marketId: Bytes32; readonly answered?: true }[],
  read: readonly VenueOrderStatus[] | null,
): ClosedAtStop {
  const status = new Map((read ?? []).map((v) => [v.nonce, v.status]));
  const now = o.clock.now();
  const events: StateEvent[] = [];
  let unread = 0;
  let open = 0;
  for (const g of gone) {
    // settled meanwhile (a cancel answer of a later round, a start-up stop's cancel-all)
    if (!o.core.store.state.markets.get(g.marketId)?.orders.has(g.nonce)) continue;
    const s = status.get(g.nonce);
    if (s === 'open') {
      open++;
      o.log.warn({ marketId: g.marketId, nonce: g.nonce }, 'stop: an order the cancel-all found gone is open at the venue again; left as the venue shows it');
    } else if (s !== undefined) {
      // no voidReason: the close is told after the cancels, never a reason to halt the stop again
      events.push({ type: 'OrderClosed', marketId: g.marketId, nonce: g.nonce, status: s, ts: now });
    } else {
      unread++;
      o.core.store.dispatch({ type: 'OrderGone', marketId: g.marketId, nonce: g.nonce, ts: now });
    }
  }
  o.core.receiveAll(events);
  if (gone.length > 0) {
    const answered = gone.filter((g) => g.answered === true).length;
    const ends = o.ends?.(gone.map((g) => g.nonce)) ?? null;
    o.log.info(
      {
        alreadyEnded: gone.length,
        answeredAlreadyCancelled: answered,
        foundGone: gone.length - answered,
        ...(ends ? { endedAs: ends.ended, notEnded: ends.unended } : {}),
        closed: events.length,
        unread,
        open,
      },
      'stop: orders that ended while the cancels ran, not by a cancel of ours (their end unseen, the feeds closed), ' +
        "closed in the store with the venue's status",
    );
  }
  return { closed: events.length, unread, open };
}
