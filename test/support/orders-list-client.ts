/**
 * A venue's order reads over an array of orders, as the own-orders poll (src/feeds/own-orders-feed.ts)
 * reads them: `list` filters by market and statuses, newest id first, `limit` a page (100 by default)
 * with the last id as the cursor; `iterate` walks the pages; `get` finds one by id, hash or nonce.
 * `onList` hears each page asked for before it is answered (it may throw to fail it), `onGet` each lookup.
 *
 *   const client = { orders: ordersListClient(orders, { onList: (p) => void pages++ }) };
 */
import type { ListOrdersParams } from '../../src/exchange/client/orders-read.ts';
import type { VenueOrder } from '../../src/model/order.ts';

export function ordersListClient(orders: readonly VenueOrder[], on: { onList?: (p: ListOrdersParams) => void; onGet?: () => void } = {}) {
  const list = async (p: ListOrdersParams) => {
    on.onList?.(p);
    const all = orders
      .filter(
        (o) =>
          (p.marketId === undefined || o.marketId === p.marketId) &&
          (!p.status || p.status.includes(o.status)) &&
          (p.cursor === undefined || Number(o.id) < Number(p.cursor)),
      )
      .sort((a, b) => Number(b.id) - Number(a.id));
    const page = all.slice(0, p.limit ?? 100);
    return { orders: page, cursor: all.length > page.length ? String(page[page.length - 1]!.id) : null };
  };
  return {
    list,
    async *iterate(p: Omit<ListOrdersParams, 'cursor'>) {
      let cursor: string | undefined;
      for (;;) {
        const page = await list({ ...p, ...(cursor !== undefined ? { cursor } : {}) });
        yield* page.orders;
        if (page.cursor === null) return;
        cursor = page.cursor;
      }
    },
    async get(id: number | string): Promise<VenueOrder> {
      on.onGet?.();
      return orders.find((o) => o.id === id || o.hash === id || o.nonce === id)!;
    },
  };
}
