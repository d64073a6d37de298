/**
 * YES-terms desired quotes → venue limit orders (pure).
 *
 * A YES-terms bid at p adds one unit of net YES exposure per share: either buy YES at p, or sell NO
 * at 1e6 − p. An ask at p removes one: sell YES at p, or buy NO at 1e6 − p. Both forms move the net
 * position (YES − NO) by the same amount, so which one to send is a question of capital:
 *  - sell from inventory when we hold enough of the outcome being sold (it frees collateral);
 *  - otherwise buy the other form (bid → buy YES, ask → buy NO), which locks price × size;
 *  - or, when configured (`noInventory: 'sell-no-inventory'`), sell without inventory: the venue
 *    mints complete sets from collateral on fill, locking (1e6 − price) × size instead.
 * Inventory is consumed as quotes are mapped, so two asks never both sell the same YES shares.
 * Holdings reserved by our other open sells must be excluded by the caller (`available`).
 */
import { InventoryMode, Outcome, Side, type Bytes32, type LimitOrder } from '../model/order.ts';
import { ONE } from '../model/units.ts';
import { levelOrder } from './level-order.ts';
import { snapPrice } from './snap-price.ts';
import type { DesiredQuote, WorkingQuote } from './types.ts';

export type NoInventoryMode = 'buy-complement' | 'sell-no-inventory';

export interface ToOrdersOptions {
  readonly marketId: Bytes32;
  readonly tick: number;
  /** what to send when not holding enough of the outcome to sell (default 'buy-complement') */
  readonly noInventory?: NoInventoryMode;
}

/** Shares we may sell from inventory right now (held minus what open sells already reserve). */
export interface AvailableInventory {
  readonly yes: number;
  readonly no: number;
}

export type OrderForm = 'buy-yes' | 'buy-no' | 'sell-yes' | 'sell-no' | 'sell-yes-mint' | 'sell-no-mint';

export interface MappedOrder {
  /** the quote it came from, with its price snapped to the tick */
  readonly quote: DesiredQuote;
  readonly form: OrderForm;
  readonly order: LimitOrder;
}

/**
 * Snap a quote in YES terms, then choose the venue form. The NO-terms price is 1e6 − p; on a tick
 * that divides 1e6 it is on the grid too, otherwise it is re-snapped in NO terms in the passive
 * direction (a NO buy down, a NO sell up).
 */
export function toOrder(q: DesiredQuote, inv: AvailableInventory, opts: ToOrdersOptions): MappedOrder {
  // Hot path (every quote of every tick): explicit literals instead of spreads and no per-call
  // closures; a quote the strategy already snapped (the usual case) is reused as it is.
  const price = snapPrice(q.price, q.side, opts.tick);
  const quote: DesiredQuote = price === q.price ? q : { ...q, price };
  const mint = opts.noInventory === 'sell-no-inventory';
  const marketId = opts.marketId;
  const size = q.size;
  if (q.side === 'bid') {
    if (inv.no >= size) {
      return {
        quote,
        form: 'sell-no',
        order: {
          marketId,
          size,
          outcomeIndex: Outcome.NO,
          side: Side.SELL,
          price: snapPrice(ONE - price, 'ask', opts.tick),
          inventoryMode: InventoryMode.REQUIRE_INVENTORY,
        },
      };
    }
    if (mint) {
      return {
        quote,
        form: 'sell-no-mint',
        order: {
          marketId,
          size,
          outcomeIndex: Outcome.NO,
          side: Side.SELL,
          price: snapPrice(ONE - price, 'ask', opts.tick),
          inventoryMode: InventoryMode.REQUIRE_NO_INVENTORY,
        },
      };
    }
    return { quote, form: 'buy-yes', order: { marketId, size, outcomeIndex: Outcome.YES, side: Side.BUY, price, inventoryMode: InventoryMode.ANY } };
  }
  if (inv.yes >= size) {
    return {
      quote,
      form: 'sell-yes',
      order: { marketId, size, outcomeIndex: Outcome.YES, side: Side.SELL, price, inventoryMode: InventoryMode.REQUIRE_INVENTORY },
    };
  }
  if (mint) {
    return {
      quote,
      form: 'sell-yes-mint',
      order: { marketId, size, outcomeIndex: Outcome.YES, side: Side.SELL, price, inventoryMode: InventoryMode.REQUIRE_NO_INVENTORY },
    };
  }
  return {
    quote,
    form: 'buy-no',
    order: { marketId, size, outcomeIndex: Outcome.NO, side: Side.BUY, price: snapPrice(ONE - price, 'bid', opts.tick), inventoryMode: InventoryMode.ANY },
  };
}

/**
 * Map a whole quote set, closest levels first so the best quotes get the inventory. The output is in
 * the input order.
 */
export function toOrders(quotes: readonly DesiredQuote[], inv: AvailableInventory, opts: ToOrdersOptions): MappedOrder[] {
  const order = levelOrder(quotes);
  // one mutable inventory record for the whole set: toOrder only reads it
  const left = { yes: Math.max(0, inv.yes), no: Math.max(0, inv.no) };
  const out = new Array<MappedOrder>(quotes.length);
  for (let k = 0; k < order.length; k++) {
    const i = order[k]!;
    const m = toOrder(quotes[i]!, left, opts);
    if (m.form === 'sell-yes') left.yes -= m.order.size;
    if (m.form === 'sell-no') left.no -= m.order.size;
    out[i] = m;
  }
  return out;
}

/**
 * Inventory free to sell: holdings minus what the given open sells (the ones that stay) would
 * deliver. Sells without inventory (mode 2) mint on fill and reserve nothing.
 */
export function availableInventory(position: { readonly yes: number; readonly no: number }, open: readonly WorkingQuote[]): AvailableInventory {
  let yes = position.yes;
  let no = position.no;
  for (const w of open) {
    if (w.venueSide !== 'sell' || w.inventoryMode === InventoryMode.REQUIRE_NO_INVENTORY) continue;
    if (w.outcomeIndex === Outcome.YES) yes -= w.size;
    else no -= w.size;
  }
  return { yes: Math.max(0, yes), no: Math.max(0, no) };
}

/** The YES-terms side and price of a venue order (inverse mapping, for own orders read back). */
export function toYesTerms(outcomeIndex: 0 | 1, side: 0 | 1, price: number): { side: 'bid' | 'ask'; price: number } {
  if (outcomeIndex === Outcome.YES) return { side: side === Side.BUY ? 'bid' : 'ask', price };
  return { side: side === Side.BUY ? 'ask' : 'bid', price: ONE - price };
}
