/**
 * What the chaos checks read from the local exchange, in-process and without HTTP (so the injected
 * faults never blur the referee's view): one trader's orders as the venue would list them, its
 * positions and each market's mark, and which markets' book streams are currently stalled.
 *
 *   const v = traderView(ex, trader);      // { orders, open, positions, marks }
 *   stalledMarkets(ex)                      // lower-case market ids whose every subscriber is stalled
 */
import { at } from '../exchange/client/fields.ts';
import { parseOrder } from '../exchange/client/parse-order.ts';
import { bytes32Of } from '../model/ids.ts';
import type { Bytes32, NormalAddress, VenueOrder } from '../model/order.ts';
import type { LocalExchange } from '../sim/local-exchange.ts';
import { orderJson } from '../sim/order-json.ts';
import { accountLedger } from '../sim/routes/account/ledger-of.ts';

export interface TraderView {
  /** every order the trader ever placed, in placement order */
  readonly orders: readonly VenueOrder[];
  /** the open ones (status open) */
  readonly open: readonly VenueOrder[];
  /** net YES position per market (YES − NO shares, 1e-6), lower-case id */
  readonly net: ReadonlyMap<string, number>;
  /** YES mark per market (mid, else last price; 1e-6), lower-case id */
  readonly marks: ReadonlyMap<string, number>;
}

const AT = at('chaos exchange view');

export function traderView(ex: LocalExchange, trader: NormalAddress): TraderView {
  const stored = ex.orders.byTrader.get(trader) ?? [];
  // the wire JSON and the client's own parser: the referee reads orders exactly as the bot would
  const orders = stored.map((o) => parseOrder(orderJson(o), AT));
  const open = orders.filter((o) => o.status === 'open');
  const ledger = accountLedger(ex.state);
  const net = new Map<string, number>();
  const marks = new Map<string, number>();
  for (const p of ledger.positions(trader)) net.set(p.marketId, Number(p.yes - p.no));
  for (const m of ex.state.stores.markets.values()) {
    const mark = ledger.mark(m.id).yesMark;
    if (mark !== null) marks.set(m.id, mark);
  }
  return { orders, open, net, marks };
}

interface HubInternals {
  streams?: Map<string, { marketId: string; subs: Set<{ stalled: boolean; res: { destroyed: boolean } }> }>;
}

/**
 * Markets whose live stream subscribers are all stalled (a silent stall fault). The hub keeps this
 * private; the referee peeks at it read-only because the fault is decided per event inside the hub
 * and nothing else records which connection went silent.
 */
export function stalledMarkets(ex: LocalExchange): Set<Bytes32> {
  const out = new Set<Bytes32>();
  const streams = (ex.hub as unknown as HubInternals).streams;
  if (!streams) return out;
  for (const s of streams.values()) {
    const live = [...s.subs].filter((x) => !x.res.destroyed);
    // the hub keeps the id as subscribed: normalised here, where the referee reads it (src/model/ids.ts)
    const id = bytes32Of(s.marketId);
    if (id !== null && live.length > 0 && live.every((x) => x.stalled)) out.add(id);
  }
  return out;
}
