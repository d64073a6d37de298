/**
 * A stranger's slot: an order reconciliation found at the venue that this run does not want (another
 * run's, a crash's, another trader's in the bot's markets) is taken into the order table under
 * `orphan:<nonce>` while its cancel runs, so it counts against the limits until it is gone
 * (src/orders/reconciler.ts). It is not adopted into a quote slot, so it is not an adoption:
 * `bookmaker_orders_adopted_total` (src/metrics/bind-store-metrics.ts) and the ledger's adopted orders
 * (src/ledger/order-ends.ts, `adopted_at`) both count an OrderAdopted by this one test.
 */
export const ORPHAN_SLOT_PREFIX = 'orphan:';

/** The slot reconciliation gives a stranger it cancels. */
export const orphanSlot = (nonce: string): string => `${ORPHAN_SLOT_PREFIX}${nonce}`;

/** Is this an orphan's slot (a stranger being cancelled), not a quote slot? */
export const isOrphanSlot = (slot: string): boolean => slot.startsWith(ORPHAN_SLOT_PREFIX);

/** Does an OrderAdopted count as an adoption (into a quote slot)? The one test the metric and the ledger share. */
export const adoptedIntoSlot = (e: { readonly slot: string }): boolean => !isOrphanSlot(e.slot);

/**
 * The mark the events of a stranger's cancel carry (CancelSubmitted, OrderCancelled, CancelFailed:
 * `stranger: true`), from its slot: a stranger's cancel is not one of this bot's orders cancelled. The
 * ledger records it so (`cancels.stranger`, src/ledger/bot-ledger.ts) and the metrics count it apart
 * (src/metrics/bind-store-metrics.ts), both by `isStrangerCancel`.
 */
export const strangerMark = (slot: string | undefined): { stranger?: true } => (slot !== undefined && isOrphanSlot(slot) ? { stranger: true } : {});

/** Is this cancel event a stranger's (see strangerMark)? The one test the ledger and the metrics share. */
export const isStrangerCancel = (e: { readonly stranger?: true }): boolean => e.stranger === true;
