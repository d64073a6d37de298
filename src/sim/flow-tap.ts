/**
 * The local exchange's drop copy for a recorder in the same process: the venue's own sequence of
 * events of some markets, as the matching engine produced them, split by who they belong to.
 *
 *   book   the book of everybody but one trader (the bot being recorded): YES-terms levels with
 *          their new absolute size, as the engine changes them (the engine coalesces a level's
 *          changes within one command, not across commands), and a full snapshot when the tap opens. The bot's own resting orders are left out, so a replay
 *          can put its own simulated orders in their place.
 *   taker  every incoming order of the others that trades on arrival (or is IOC / FOK, traded or
 *          not): its YES-terms side, limit price and share quantity, emitted before the fills and
 *          level changes it causes — the taker flow a replay matches against its own book.
 *   own    the excluded trader's resting size per level (its quotes as the venue held them).
 *   fill   each fill of the excluded trader, at the venue's time: what the recorded bot really
 *          traded, the check a replay's fills are compared with.
 *
 * The public stream (./book-stream.ts) cannot carry this: it has no trader identity, coalesces
 * level changes per turn of the event loop (a maker's cancel-and-replace then looks like a small
 * size change, which hides that the queue behind it was reset), and reports trades, not the orders
 * that made them. Events are delivered synchronously from the engine's sink, so their order is the
 * venue's; `atMs` is the exchange clock's time. Only markets a tap asks for cost anything.
 */
import type { EngineEvent, MarketIndex, TraderIndex } from '../engine/types.ts';
import type { EngineHost } from './engine-host.ts';
import { mustAddress, mustBytes32 } from './wire-ids.ts';

export type FlowLevel = [price: number, size: number];

export type FlowEvent =
  | { readonly type: 'book'; readonly marketId: string; readonly atMs: number; readonly snap: boolean; readonly bids: FlowLevel[]; readonly asks: FlowLevel[] }
  | {
      readonly type: 'taker';
      readonly marketId: string;
      readonly atMs: number;
      readonly side: 'buy' | 'sell';
      readonly limit: number;
      readonly size: number;
      readonly timeInForce: number;
    }
  /** the excluded trader's own resting size at a YES-terms level changed (its quotes, as the venue held them) */
  | { readonly type: 'own'; readonly marketId: string; readonly atMs: number; readonly side: 'bid' | 'ask'; readonly price: number; readonly size: number }
  /** a fill of the excluded trader (the recorded bot): its YES-terms side, the price and shares, maker or taker */
  | {
      readonly type: 'fill';
      readonly marketId: string;
      readonly atMs: number;
      readonly side: 'buy' | 'sell';
      readonly price: number;
      readonly size: number;
      readonly maker: boolean;
    }
  /** every trade of the market (with `trades: true`): the taker's YES-terms side, the price and shares (what the public stream prints) */
  | { readonly type: 'trade'; readonly marketId: string; readonly atMs: number; readonly side: 'buy' | 'sell'; readonly price: number; readonly size: number };

export interface FlowTapOptions {
  /** market ids to tap */
  readonly markets: readonly string[];
  /** the trader whose own orders are left out of the book and whose orders are not taker flow */
  readonly exclude?: string;
  /** also every trade print (`trade` events; default false) */
  readonly trades?: boolean;
}

interface Sub {
  readonly markets: Map<MarketIndex, string>;
  readonly exclude: TraderIndex | undefined;
  readonly trades: boolean;
  readonly sink: (e: FlowEvent) => void;
  /** the others' book as last emitted, per market: "b<price>" / "a<price>" → size */
  readonly last: Map<MarketIndex, Map<string, number>>;
  /** the excluded trader's levels as last emitted, per market */
  readonly lastOwn: Map<MarketIndex, Map<string, number>>;
  /** GTC orders accepted in this command that have not traded yet: id → taker event to emit on their first fill */
  readonly gtc: Map<number, Extract<FlowEvent, { type: 'taker' }>>;
}

export class FlowTap {
  private readonly subs = new Set<Sub>();

  constructor(
    private readonly host: EngineHost,
    /** the exchange clock (level events carry no time of their own) */
    private readonly now: () => number,
  ) {}

  get active(): boolean {
    return this.subs.size > 0;
  }

  /** Start tapping: a snapshot of each market's others' book now, then events. Returns the stop function. */
  open(o: FlowTapOptions, sink: (e: FlowEvent) => void): () => void {
    const nowMs = this.now();
    const markets = new Map<MarketIndex, string>();
    for (const id of o.markets) {
      const idx = this.host.marketIndex(mustBytes32(id, 'flow tap market'));
      if (idx !== undefined) markets.set(idx, id);
    }
    const exclude = o.exclude === undefined ? undefined : this.host.traderIndex(mustAddress(o.exclude, 'flow tap exclude'));
    const sub: Sub = { markets, exclude, trades: o.trades === true, sink, last: new Map(), lastOwn: new Map(), gtc: new Map() };
    for (const [idx, id] of markets) {
      const book = this.host.engine.book(idx);
      const last = new Map<string, number>();
      const bids: FlowLevel[] = [];
      const asks: FlowLevel[] = [];
      for (const l of book.bids) {
        const s = l.size - this.ownAt(sub, idx, 'bid', l.price);
        if (s > 0) bids.push([l.price, s]), last.set(`b${l.price}`, s);
      }
      for (const l of book.asks) {
        const s = l.size - this.ownAt(sub, idx, 'ask', l.price);
        if (s > 0) asks.push([l.price, s]), last.set(`a${l.price}`, s);
      }
      sub.last.set(idx, last);
      sink({ type: 'book', marketId: id, atMs: nowMs, snap: true, bids, asks });
      // the excluded trader's quotes already resting
      const lastOwn = new Map<string, number>();
      if (exclude !== undefined)
        for (const ord of this.host.engine.openOrders({ trader: exclude, market: idx })) {
          const key = `${ord.side === 'bid' ? 'b' : 'a'}${ord.bookPrice}`;
          lastOwn.set(key, (lastOwn.get(key) ?? 0) + ord.remainingShares);
        }
      sub.lastOwn.set(idx, lastOwn);
      for (const [key, size] of lastOwn)
        sink({ type: 'own', marketId: id, atMs: nowMs, side: key[0] === 'b' ? 'bid' : 'ask', price: Number(key.slice(1)), size });
    }
    this.subs.add(sub);
    return () => {
      this.subs.delete(sub);
    };
  }

  /** Every engine event, synchronously (the handler calls this before its own work). */
  onEngineEvent(e: EngineEvent): void {
    for (const sub of this.subs) {
      switch (e.type) {
        case 'accepted': {
          if (!sub.markets.has(e.market) || e.trader === sub.exclude) break;
          const o = this.host.engine.order(e.id);
          if (!o) break;
          const t = {
            type: 'taker' as const,
            marketId: sub.markets.get(e.market)!,
            atMs: e.atMs,
            side: e.side === 'bid' ? ('buy' as const) : ('sell' as const),
            limit: e.bookPrice,
            size: o.quantity,
            timeInForce: o.timeInForce,
          };
          // an IOC or FOK order is taker flow whether it trades or not; a GTC one only if it trades on arrival
          if (o.timeInForce !== 0) sub.sink(t);
          else sub.gtc.set(e.id, t);
          break;
        }
        case 'fill': {
          if (sub.exclude !== undefined && sub.markets.has(e.market)) {
            const id = sub.markets.get(e.market)!;
            const own = (maker: boolean, bid: boolean): void =>
              sub.sink({ type: 'fill', marketId: id, atMs: e.atMs, side: bid ? 'buy' : 'sell', price: e.price, size: e.size, maker });
            if (e.maker.trader === sub.exclude) own(true, e.takerSide === 'ask');
            if (e.taker.trader === sub.exclude) own(false, e.takerSide === 'bid');
          }
          const t = sub.gtc.get(e.taker.id);
          if (t !== undefined) {
            sub.gtc.delete(e.taker.id);
            sub.sink(t);
          }
          if (sub.trades && sub.markets.has(e.market))
            sub.sink({
              type: 'trade',
              marketId: sub.markets.get(e.market)!,
              atMs: e.atMs,
              side: e.takerSide === 'bid' ? 'buy' : 'sell',
              price: e.price,
              size: e.size,
            });
          break;
        }
        case 'level': {
          if (!sub.markets.has(e.market)) break;
          // the end of a command: a GTC order accepted in it that has not traded rests, it is no taker
          sub.gtc.clear();
          const own = this.ownAt(sub, e.market, e.side, e.price);
          const size = Math.max(0, e.size - own);
          const key = `${e.side === 'bid' ? 'b' : 'a'}${e.price}`;
          const lastOwn = sub.lastOwn.get(e.market)!;
          if ((lastOwn.get(key) ?? 0) !== own) {
            if (own > 0) lastOwn.set(key, own);
            else lastOwn.delete(key);
            sub.sink({ type: 'own', marketId: sub.markets.get(e.market)!, atMs: this.now(), side: e.side, price: e.price, size: own });
          }
          const last = sub.last.get(e.market)!;
          if ((last.get(key) ?? 0) === size) break; // only the excluded trader's orders changed
          if (size > 0) last.set(key, size);
          else last.delete(key);
          const l: FlowLevel[] = [[e.price, size]];
          sub.sink({
            type: 'book',
            marketId: sub.markets.get(e.market)!,
            atMs: this.now(),
            snap: false,
            bids: e.side === 'bid' ? l : [],
            asks: e.side === 'ask' ? l : [],
          });
          break;
        }
        default:
          break;
      }
    }
  }

  private ownAt(sub: Sub, market: MarketIndex, side: 'bid' | 'ask', price: number): number {
    if (sub.exclude === undefined) return 0;
    let n = 0;
    for (const o of this.host.engine.openOrders({ trader: sub.exclude, market })) if (o.side === side && o.bookPrice === price) n += o.remainingShares;
    return n;
  }
}
