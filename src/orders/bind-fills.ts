/**
 * Feeds the store's fills into the order manager so an order's remaining size shrinks as it fills
 * (the diff then tops it up or leaves it, per the size tolerance).
 *
 * Entry point: `const unbind = bindFillsToOrderManager(store, om)`.
 */
import type { StateStore } from '../state/store.ts';
import type { OrderManager } from './order-manager.ts';

export function bindFillsToOrderManager(store: StateStore, om: Pick<OrderManager, 'applyFill'>): () => void {
  const sub = store.changes$.subscribe(({ events }) => {
    for (const e of events) if (e.type === 'OrderFilled' && e.nonce) om.applyFill(e.nonce, e.size);
  });
  return () => sub.unsubscribe();
}
