/**
 * Engine events → the exchange's stores and feeds: stored orders get their fills and final
 * status, markets their volume, last price and participants, the activity log a `trade` entry, and
 * the book streams their deltas and trades. Level changes are coalesced per market and flushed once
 * per turn of the event loop (a microtask), so one command gives one delta per stream.
 */
import type { Bytes32 } from '../model/order.ts';
import { notionalCeil, notionalFloor, ONE } from '../model/units.ts';
import type { EngineEvent, FillParty } from '../engine/types.ts';
import type { BookStreamHub, LevelChange } from './book-stream.ts';
import type { FlowTap } from './flow-tap.ts';
import type { ExchangeState } from './context.ts';
import type { EngineHost } from './engine-host.ts';
import type { OrderService } from './order-service.ts';
import type { StoredOrder } from './records.ts';
import type { MarketStats } from './market-stats.ts';

export class EngineEventHandler {
  private readonly pendingLevels = new Map<Bytes32, Map<string, LevelChange>>();
  private flushScheduled = false;
  /** the drop copy for in-process recorders (./flow-tap.ts), set by the exchange */
  tap: FlowTap | null = null;

  constructor(
    private readonly state: ExchangeState,
    private readonly hub: BookStreamHub,
    private readonly stats: MarketStats,
    private readonly host: EngineHost,
    private readonly orders: OrderService,
  ) {}

  handle = (e: EngineEvent): void => {
    if (this.tap?.active) this.tap.onEngineEvent(e);
    switch (e.type) {
      case 'fill':
        this.onFill(e);
        break;
      case 'done':
        this.onDone(e);
        break;
      case 'level':
        this.onLevel(e.market, e.side, e.price, e.size);
        break;
      case 'accepted':
        this.orders.bindPending(e.id);
        break;
      case 'resolved':
        break;
    }
  };

  private onLevel(market: number, side: 'bid' | 'ask', price: number, size: number): void {
    // level changes only feed the book streams; with none open (a new one starts from a snapshot)
    // there is nothing to coalesce, and every order command would pay for it
    if (!this.hub.hasStreams()) return;
    const id = this.host.marketId(market);
    if (!id) return;
    let m = this.pendingLevels.get(id);
    if (!m) {
      m = new Map();
      this.pendingLevels.set(id, m);
    }
    m.set(`${side}${price}`, { side, price, size });
    if (!this.flushScheduled) {
      this.flushScheduled = true;
      queueMicrotask(this.flush);
    }
  }

  /** Publish coalesced level changes (also called directly before a trade is published, to keep order). */
  flush = (): void => {
    this.flushScheduled = false;
    if (this.pendingLevels.size === 0) return;
    const now = this.state.clock.now();
    for (const [id, m] of this.pendingLevels) this.hub.publishChanges(id, [...m.values()], now);
    this.pendingLevels.clear();
  };

  private partyOrder(p: FillParty): StoredOrder | undefined {
    return this.orders.resolveEngineId(p.id);
  }

  private applyParty(o: StoredOrder, p: FillParty, yesPrice: number, size: number): void {
    const q = p.outcome === 1 ? yesPrice : ONE - yesPrice;
    o.filledShares += size;
    // the collateral exchanged, in the order's own outcome's terms: a buy paid ⌈q·n⌉, a sale from
    // inventory received ⌊q·n⌋, a sale without inventory paid n − ⌊q·n⌋ (the other side of its sets),
    // so the stated average fill price is what the order's fills settled at (src/engine/fill-math.ts legAmount)
    o.filledCollateral += p.kind === 0 ? notionalCeil(q, size) : notionalFloor(q, size);
    o.feesPaid += p.fee;
    // Order.size units: shares for sells; for V2 buys the all-in budget, so count collateral + fee
    if (o.sv2OrderKind === 0) o.filledSize += Math.max(0, -p.collateralDelta);
    else o.filledSize += size;
    if (o.filledSize > o.size) o.filledSize = o.size;
  }

  private onFill(e: Extract<EngineEvent, { type: 'fill' }>): void {
    const id = this.host.marketId(e.market);
    const maker = this.partyOrder(e.maker);
    const taker = this.partyOrder(e.taker);
    if (maker) this.applyParty(maker, e.maker, e.price, e.size);
    if (taker) this.applyParty(taker, e.taker, e.price, e.size);
    if (!id) return;
    const market = this.state.services.market(id);
    const notional = Math.round((e.price * e.size) / ONE);
    if (market) {
      market.volume += BigInt(notional);
      market.lastPrice = e.price;
      for (const p of [e.maker, e.taker]) {
        const a = this.host.traderAddress(p.trader);
        if (a && !market.participants.includes(a)) market.participants.push(a);
      }
    }
    this.stats.recordTrade(id, e.atMs, e.price, notional);
    const takerOutcome = e.taker.outcome;
    const takerPrice = takerOutcome === 1 ? e.price : ONE - e.price;
    this.state.services.addActivity({
      type: 'trade',
      marketId: id,
      ts: e.atMs,
      data: {
        side: takerOutcome === 1 ? 'yes' : 'no',
        price: takerPrice / ONE,
        amount: Math.round((takerPrice * e.size) / ONE) / ONE,
        contracts: e.size / ONE,
      },
      traders: [this.host.traderAddress(e.maker.trader), this.host.traderAddress(e.taker.trader)].filter((x) => x !== undefined),
    });
    this.flush();
    this.hub.publishTrade(id, e.price, e.size, e.takerSide === 'bid' ? 'buy' : 'sell', e.atMs);
  }

  private onDone(e: Extract<EngineEvent, { type: 'done' }>): void {
    const o = this.orders.resolveEngineId(e.id);
    if (!o) return;
    o.status = e.status;
    if (e.status === 'voided') {
      o.voidReason = e.voidReason;
      o.voidedAt = e.atMs;
    }
    if (e.status === 'filled') o.filledSize = o.size; // fully done: a buy's unspent budget is not "remaining"
    this.orders.forgetEngineId(e.id); // a finished order gets no more engine events
  }
}
