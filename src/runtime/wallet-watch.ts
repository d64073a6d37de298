/**
 * Another trader on this bot's wallet (docs/control.md#another-trader-on-this-wallet): a second bot
 * started with another ledger (`--new-ledger`, another path, another host), a person, or an SDK script.
 * Two writers on one wallet cancel each other's orders at every reconcile, and a halted or latched bot's
 * wallet keeps trading through the other one; a second bot on the same ledger or admin port is refused
 * elsewhere (the ledger lock, the admin port), this is the case neither can see.
 *
 * Every open-orders listing the order manager reads passes through `observe` (`watchedVenue`). An order
 * is this bot's when its nonce carries this ledger's tag (src/orders/nonces.ts) or the ledger recorded it
 * (placed, adopted, restored); any other open order in this bot's markets (reconcileScope) is foreign.
 * - At start-up (until `running()`): foreign orders are noted and kept from the order manager, which
 *   neither adopts nor cancels them; the start-up then refuses to quote (`foundAtStart`, exit 7),
 *   unless the operator said they are left over (`run --cancel-foreign-orders`; always with an
 *   in-memory ledger, which remembers no earlier run): then they pass through and the start-up
 *   reconcile adopts or cancels them, as every later reconcile does while they stand.
 * - While running: a foreign order not seen at start is a live writer (a crash's leftovers exist at
 *   start and only ever go away). An order with this ledger's own tag that this process neither signed
 *   nor found and the ledger does not hold is one too: a copy of this ledger (a restored backup, another
 *   host) signing with the same tag. `onAppeared` is told once per such order (the runtime halts the bot,
 *   latched: `bookmaker ctl resume` alone lifts it), and the order is kept from the order manager: the
 *   halted bot does not adopt it, nor cancel it, nor count it as its own.
 *
 *   const watch = new WalletWatch({ ours, scope, cancelAtStart, onAppeared });
 *   const venue = watchedVenue(inner, watch);   // the order manager's venue
 *   …start-up reconcile…; watch.foundAtStart() → null or what was found; watch.running();
 */
import type { Bytes32, VenueOrder } from '../model/order.ts';
import type { VenuePort } from '../model/venue.ts';

/** Foreign orders of one nonce tag (the first 8 bytes of the nonce: a bookmaker ledger's tag when several share it). */
export interface ForeignTag {
  readonly tag: string;
  readonly orders: number;
  readonly markets: readonly Bytes32[];
  /** the venue's `insertedAt` of the oldest of them ('' when the venue gave none) */
  readonly oldest: string;
}

export interface ForeignOrders {
  readonly orders: number;
  readonly markets: number;
  /** by tag, most orders first */
  readonly tags: readonly ForeignTag[];
}

export interface WalletWatchOptions {
  /**
   * this bot's order: at start-up, one whose nonce carries the ledger's tag (a crash's, recorded or
   * not) or that the ledger recorded; while running, a tagged one only when this process signed or
   * found it, or the ledger recorded it (else another process runs on a copy of this ledger)
   */
  readonly ours: (nonce: Bytes32, starting: boolean) => boolean;
  /** the markets whose orders are the bot's (orders.reconcileScope), null: the whole wallet */
  readonly scope: () => readonly Bytes32[] | null;
  /** `run --cancel-foreign-orders`: orders found at start-up are leftovers; the start-up reconcile cancels them */
  readonly cancelAtStart: boolean;
  /** foreign orders appeared while the bot runs (each order is told once) */
  readonly onAppeared: (found: ForeignOrders) => void;
  /**
   * a sharded bot: the sibling shard whose nonce tag an order carries (src/runtime/shard-tags.ts), null
   * when none. A sibling's order in this bot's markets is not another trader's: it is kept from the order
   * manager (never adopted into this ledger's books, nor counted), found at start-up it is cancelled
   * (`siblingsAtStart`), and while running `onSiblings` hears of them at every listing
   */
  readonly sibling?: (nonce: Bytes32) => number | null;
  /**
   * while running, after every listing: the sibling orders in this bot's markets (market → the shards and
   * their orders), and the markets the listing covered (null: the whole wallet)
   */
  readonly onSiblings?: (found: ReadonlyMap<Bytes32, SiblingOrders>, covered: readonly Bytes32[] | null) => void;
}

/** A sibling shard's open orders in one market of this bot. */
export interface SiblingOrders {
  /** the lowest index among the shards whose orders stand there */
  readonly shard: number;
  readonly orders: readonly VenueOrder[];
}

/** told orders remembered at most (a bot halted beside a busy writer must not grow without bound) */
const TOLD_MEMORY = 10_000;

export class WalletWatch {
  private starting = true;
  private readonly atStart = new Map<Bytes32, VenueOrder>();
  /** leftovers the operator let the start-up cancel: they pass through until gone */
  private readonly leftovers = new Set<Bytes32>();
  private readonly told = new Set<Bytes32>();
  private readonly siblingStart = new Map<Bytes32, { order: VenueOrder; shard: number }>();
  /** foreign orders seen so far (each counted once): bookmaker_wallet_foreign_orders_total */
  seen = 0;
  /** at least one listing was read */
  listed = false;

  constructor(private readonly o: WalletWatchOptions) {}

  /**
   * The listing as the order manager may act on it: without the foreign and the sibling shards' orders
   * it must not touch. `marketId`: the listing was of that market only (else of the whole wallet).
   */
  observe(open: VenueOrder[], marketId?: Bytes32): VenueOrder[] {
    this.listed = true;
    const own = this.o.scope();
    const scope = own === null ? null : new Set(own);
    let foreign: VenueOrder[] | null = null;
    let siblings: Map<Bytes32, SiblingOrders> | null = null;
    const sibling = this.o.sibling;
    for (const v of open) {
      if (v.status !== 'open' || (scope !== null && !scope.has(v.marketId))) continue;
      if (!this.knownForeign(v.nonce) && this.o.ours(v.nonce, this.starting)) continue;
      const j = sibling?.(v.nonce) ?? null;
      if (j === null) {
        (foreign ??= []).push(v);
        continue;
      }
      siblings ??= new Map();
      const was = siblings.get(v.marketId);
      siblings.set(v.marketId, { shard: Math.min(j, was?.shard ?? j), orders: [...(was?.orders ?? []), v] });
      if (this.starting) this.siblingStart.set(v.nonce, { order: v, shard: j });
    }
    if (!this.starting && this.o.onSiblings) this.o.onSiblings(siblings ?? new Map(), marketId !== undefined ? [marketId] : own);
    if (siblings !== null) {
      const away = new Set<Bytes32>();
      for (const s of siblings.values()) for (const v of s.orders) away.add(v.nonce);
      open = open.filter((v) => !away.has(v.nonce));
    }
    if (foreign === null) return open;
    const fresh: VenueOrder[] = [];
    for (const v of foreign) {
      if (this.leftovers.has(v.nonce) || this.atStart.has(v.nonce) || this.told.has(v.nonce)) continue;
      this.seen++;
      if (this.starting) {
        this.atStart.set(v.nonce, v);
        if (this.o.cancelAtStart) this.leftovers.add(v.nonce);
      } else {
        if (this.told.size >= TOLD_MEMORY) this.told.clear();
        this.told.add(v.nonce);
        fresh.push(v);
      }
    }
    if (fresh.length > 0) this.o.onAppeared(describeForeign(fresh));
    const keep = new Set(foreign.filter((v) => !this.leftovers.has(v.nonce)).map((v) => v.nonce));
    return keep.size === 0 ? open : open.filter((v) => !keep.has(v.nonce));
  }

  private knownForeign(nonce: Bytes32): boolean {
    return this.leftovers.has(nonce) || this.atStart.has(nonce) || this.told.has(nonce);
  }

  /** Orders of sibling shards the start-up found in this bot's markets (each with its shard): the start-up cancels them. */
  siblingsAtStart(): { order: VenueOrder; shard: number }[] {
    return [...this.siblingStart.values()];
  }

  /** What the start-up found (null: nothing foreign, or the operator let the start-up cancel it). */
  foundAtStart(): ForeignOrders | null {
    if (this.atStart.size === 0) return null;
    return describeForeign([...this.atStart.values()]);
  }

  /** Start-up is over: from now on a foreign order is a live writer. */
  running(): void {
    this.starting = false;
  }
}

/** The first 8 bytes of a nonce, as 16 hex digits (a bookmaker ledger's nonce tag). */
export function nonceTagOf(nonce: Bytes32): string {
  return nonce.slice(2, 18).toLowerCase();
}

export function describeForeign(orders: readonly VenueOrder[]): ForeignOrders {
  const by = new Map<string, { orders: number; markets: Set<Bytes32>; oldest: string }>();
  const markets = new Set<Bytes32>();
  for (const v of orders) {
    const tag = nonceTagOf(v.nonce);
    let g = by.get(tag);
    if (!g) by.set(tag, (g = { orders: 0, markets: new Set(), oldest: '' }));
    g.orders++;
    g.markets.add(v.marketId);
    markets.add(v.marketId);
    const at = typeof v.insertedAt === 'string' ? v.insertedAt : '';
    if (at !== '' && (g.oldest === '' || at < g.oldest)) g.oldest = at;
  }
  const tags = [...by]
    .map(([tag, g]) => ({ tag, orders: g.orders, markets: [...g.markets].sort(), oldest: g.oldest }))
    .sort((a, b) => b.orders - a.orders || (a.tag < b.tag ? -1 : 1));
  return { orders: orders.length, markets: markets.size, tags };
}

/**
 * "6 orders with nonce tag 3f9a… in 2 markets (oldest placed …); 1 order with nonce tag …", at most `max`
 * tags; a tag equal to `ownTag` (this ledger's) is said to be a copy of this ledger at work elsewhere.
 */
export function foreignText(f: ForeignOrders, max = 5, ownTag: string | null = null): string {
  const one = (t: ForeignTag): string =>
    `${t.orders} order${t.orders === 1 ? '' : 's'} with nonce tag ${t.tag}` +
    (t.tag === ownTag ? " (this ledger's own tag, not signed by this process: a copy of this ledger runs elsewhere)" : '') +
    ` in ${t.markets.length} market${t.markets.length === 1 ? '' : 's'}` +
    (t.markets.length === 1 ? ` (${t.markets[0]})` : '') +
    (t.oldest ? `, oldest placed ${t.oldest}` : '');
  const shown = f.tags.slice(0, max).map(one);
  const more = f.tags.length - shown.length;
  return shown.join('; ') + (more > 0 ? `; and ${more} more tag${more === 1 ? '' : 's'}` : '');
}

/** The order manager's venue with every open-orders listing passing through the watch first. */
export function watchedVenue(inner: VenuePort, watch: WalletWatch): VenuePort {
  return {
    get trader() {
      return inner.trader;
    },
    get batchLimit() {
      return inner.batchLimit;
    },
    batch: (creates, cancels, marketId) => inner.batch(creates, cancels, marketId),
    cancelReplace: (cancelNonce, create) => inner.cancelReplace(cancelNonce, create),
    openOrders: async (marketId) => watch.observe(await inner.openOrders(marketId), marketId),
  };
}

/** The start-up found open orders of another trader in this bot's markets: it refuses to quote (exit 7). */
export class WalletSharedError extends Error {
  constructor(
    message: string,
    readonly found: ForeignOrders,
  ) {
    super(message);
    this.name = 'WalletSharedError';
  }
}
