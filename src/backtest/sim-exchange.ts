/**
 * The exchange side of a backtest: the recorded book of every market (YES terms) and the bot's own
 * orders, which live in the real matching engine (src/engine/). Driven in exchange time by the
 * replay loop: recorded rows come in through `applyRow`, orders through `place` / `cancel` (already
 * delayed by the entry latency), fills go out through `onFill`, each with the recorded row that
 * explains it and the bot's holdings right after it, as the engine booked them.
 *
 * Who decides what:
 * - The engine holds and validates the bot's orders: one engine market per recorded market, the bot
 *   one engine trader funded with the starting collateral. It reserves collateral or tokens at entry
 *   (an order the bot cannot afford is refused UNDER_COLLATERALIZED), enforces the signed V2 limits
 *   and maxFee on every fill, charges the configured maker/taker fees, books mints, merges and
 *   transfers exactly, expires dead-man orders and voids what can no longer fill.
 * - The recorded book is NOT in the engine. The queue model (./queue-model.ts) decides, as before,
 *   when and how much of a resting own order the recorded flow fills:
 *     'trade'  a recorded trade on our side reached it (at our price past the queue in front, or
 *              through our price: the taker swept our level). Bounded by the trade's size.
 *     'cross'  the recorded book crossed our price: new liquidity on the other side at or through our
 *              price (the increase of that level) trades with us at our price, as maker.
 *     'take'   our order crossed the recorded book when it arrived: it takes the recorded levels at
 *              their prices, as taker; the taken size is removed from the recorded level until the
 *              recording next sets that level (simple market impact).
 *   A fill is then executed in the engine by the tape (./tape-order.ts), a synthetic counterparty:
 *   an IOC at our order's price for exactly that quantity, or, for a take, resting orders at the
 *   recorded levels for our order to hit. Fills of several own orders follow the engine's
 *   price-time priority (best price first; at one price, first placed first), so a recorded trade or
 *   a crossing level is shared among them best first rather than counted for each.
 * - For a take the tape rests only levels strictly beyond our own best order on that side: a level
 *   our resting order already crosses is treated as being worked by that order (the tape would
 *   otherwise trade with it instead of with the new one).
 * Own orders never enter the recorded book, and the recorded flow does not react to them. Snapshots
 * (a CLEAR row then levels at the same timestamp) re-state the book: they neither cross nor advance
 * queues, they only cap the queue in front at the new level size.
 *
 * A market recorded with the venue's drop copy (XLEVEL / XCLEAR / TAKER rows, src/sim/flow-tap.ts)
 * is replayed from it instead of from the public stream: the book is the others' book (the recorded
 * bot's own quotes left out, so our orders take their place rather than queue behind them), and
 * fills come from the recorded taker orders, not from the recorded trades (which include the
 * recorded bot's own fills):
 *     'taker'  a recorded taker order reached our resting order: it is walked through the others'
 *              levels and our orders in price-time priority (others strictly better first; at our
 *              price the queue in front of us first, then us), up to its limit and quantity. The
 *              others it consumed at our price advance our queue (and are credited against the
 *              level decrease the drop copy reports next).
 *   'cross' and 'take' work as above on the others' book. The public stream's rows of such a market
 *   (its book, which carries the recorded bot's quotes, and its trades) are skipped here; the
 *   replay feed still gives them to the bot as its view of the market.
 */
import { L2Book } from '../core/l2-book.ts';
import { MatchingEngine } from '../engine/matching-engine.ts';
import type { Balance, EngineEvent, FillParty, MatchKind, Position, RejectCode } from '../engine/types.ts';
import { BadInputError, InvariantError } from '../model/errors.ts';
import type { Bytes32, OrderStatus, OutcomeIndex, SideValue, VenueOrder, VoidReason } from '../model/order.ts';
import type { PlannedOrder } from '../model/venue.ts';
import { ONE } from '../model/units.ts';
import { KIND_CLEAR, KIND_LEVEL, KIND_TAKER, KIND_TRADE, KIND_XCLEAR, KIND_XLEVEL, type Columns } from './recording/columns.ts';
import { toEngineOrder } from './engine-order.ts';
import { engineMarketConfig, type FeeSpec } from '../engine/fee-model.ts';
import type { QueueModel, QueueState } from './queue-model.ts';
import { tapeOrder } from './tape-order.ts';
import type { BookRewind } from './book-rewind.ts';

export type FillCause = 'trade' | 'cross' | 'take' | 'taker';

export interface SimFill {
  readonly at: number;
  readonly market: number;
  readonly marketId: Bytes32;
  readonly nonce: Bytes32;
  /** the order's own terms */
  readonly outcomeIndex: OutcomeIndex;
  readonly side: SideValue;
  readonly price: number;
  /** YES terms: 'bid' bought YES exposure */
  readonly yesSide: 'bid' | 'ask';
  readonly yesPrice: number;
  readonly size: number;
  /** charged by the engine: the maker or taker rate, within the order's signed maxFee */
  readonly fee: number;
  readonly maker: boolean;
  readonly cause: FillCause;
  /** how the engine booked it: a complete set minted, merged, or tokens transferred */
  readonly match: MatchKind;
  /** the order's kind (0 buy, 1 sale from inventory, 2 sale without: it mints), as the venue's order read states it */
  readonly orderKind: 0 | 1 | 2;
  /** the recorded row that explains it (trade or crossing level), -1 for 'take' */
  readonly row: number;
  readonly seq: number;
}

/** The bot's holdings in the fill's market and its collateral right after a fill (engine ledger). */
export interface HoldingsAfter {
  readonly yes: number;
  readonly no: number;
  readonly collateral: bigint;
}

export interface SimOrder {
  readonly key: Bytes32;
  readonly planned: PlannedOrder;
  readonly market: number;
  /** 0 = bid, 1 = ask in the YES book */
  readonly yesSide: 0 | 1;
  readonly yesPrice: number;
  /** the engine's id of the order */
  engineId: number;
  remaining: number;
  filled: number;
  fees: number;
  q: QueueState;
  state: OrderStatus;
  voidReason: VoidReason | null;
  readonly placedAt: number;
  /** placedAt as an ISO time, made by the first listing that reads it (toVenueOrder): a reconcile lists every open order */
  placedIso: string | null;
}

/** Why the exchange model refused an order: its own checks first, then the matching engine's codes. */
export type PlaceRejectCode = 'duplicate' | 'market-not-found' | 'invalid-side' | 'invalid-outcome' | 'invalid-price' | 'invalid-size' | RejectCode;

export type PlaceResult = { ok: true; order: SimOrder } | { ok: false; code: PlaceRejectCode; message: string };

export interface SimExchangeOptions {
  readonly cols: Columns;
  /** price tick per market (1e-6 USDC) */
  readonly ticks: readonly number[];
  readonly queue: QueueModel;
  readonly fees: FeeSpec;
  /** the bot's starting collateral, 1e-6 USDC (default 10 000 USDC) */
  readonly collateral?: bigint;
  readonly onFill: (f: SimFill, after: HoldingsAfter) => void;
  /**
   * Our resting size at a YES-terms level of a drop-copy market changed (an order rested, filled,
   * was cancelled or expired): `size` is the new total of our orders at (side, price). For a replay
   * feed that shows the bot its own orders in the book, as the venue's stream does.
   */
  readonly onOwnLevel?: (market: number, side: 'bid' | 'ask', price: number, size: number) => void;
  /** replay from the public stream even where the recording has the venue's drop copy (the old way, for comparisons) */
  readonly ignoreDropCopy?: boolean;
  /**
   * per market, 1 when the columns have a drop-copy row (the load's pass: dropCopyOf in
   * src/backtest/recording/check-columns.ts); without it the exchange passes over the rows to find them
   */
  readonly dropCopy?: Uint8Array;
  /** one of our orders ended at the venue (filled, cancelled, expired or voided), for a feed that reports it */
  readonly onOrderDone?: (o: SimOrder) => void;
}

export const DEFAULT_SIM_COLLATERAL = 10_000_000_000n;
/** The tape's collateral: far beyond any backtest's flow, well inside the engine's 2^53 ledger. */
const TAPE_COLLATERAL = 2n ** 50n;

const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));

export class SimExchange {
  readonly books: L2Book[];
  /**
   * per market, the price grid every recorded price is taken on: the tick's gcd with 0.1 cent (a book
   * may hold its levels on the coarser market tick until a row needs this grid: L2Book fineTick)
   */
  readonly bookGrid: readonly number[];
  readonly engine: MatchingEngine;
  /** engine trader indices of the bot and of the tape */
  readonly bot: number;
  readonly tape: number;
  private readonly marketIndex = new Map<string, number>();
  private readonly engineTicks: number[];
  /** per market, our open orders: every public method sweeps out the orders it ended before it returns */
  private readonly own: SimOrder[][];
  /**
   * per market, the lowest and highest price of our bids and of our asks (±Infinity when none), kept
   * with `own` (place, sweep): a level row outside them reaches none of our orders (applySilent)
   */
  private readonly bidLo: Float64Array;
  private readonly bidHi: Float64Array;
  private readonly askLo: Float64Array;
  private readonly askHi: Float64Array;
  private readonly byKey = new Map<string, SimOrder>();
  private readonly byEngineId = new Map<number, SimOrder>();
  private readonly snapshotAt: Float64Array;
  /** per market, the mid applySilent last gave the collector, and in which of its passes (a count) */
  private readonly midTold: Float64Array;
  private readonly midToldIn: Float64Array;
  private passes = 0;
  /** 1 for a market recorded with the venue's drop copy (replayed from XLEVEL / XCLEAR / TAKER rows) */
  readonly exact: Uint8Array;
  /** 1 for a market that resolved (`resolve`) */
  private readonly resolved: Uint8Array;
  /** our resting size per market and YES-terms level ("b<price>" / "a<price>"), for onOwnLevel */
  private readonly ownLevels: Map<string, number>[];
  /** markets whose own levels may have changed since the last flush */
  private readonly ownDirty: number[] = [];
  /**
   * the engine's fill and done events of the command being handled (`nEvents` of them): a list with a
   * count, not emptied by `length = 0`, which gave up the array's storage at every command (a new one
   * grown at the next: ~3,000 venue commands a run of the capture)
   */
  private readonly events: EngineEvent[] = [];
  private nEvents = 0;
  /** the bot's holdings per market and its collateral, moved by the engine's fill deltas only */
  private readonly yes: number[];
  private readonly no: number[];
  private collateral: bigint;
  /** the earliest expiry (ms) an open own order may have; Infinity when none */
  private nextExpiry = Infinity;
  private fillSeq = 0;
  /** orders placed, cancelled, rejected (for the order-to-fill ratio) */
  placed = 0;
  cancelled = 0;
  rejected = 0;
  /** refusals by code (the engine's, e.g. UNDER_COLLATERALIZED, or the pre-checks' 'invalid-price' …) */
  readonly rejectedBy = new Map<PlaceRejectCode, number>();
  /** own orders the engine ended by itself: dead-man expiry, void (limits, minimum fill), self-trade */
  expired = 0;
  voided = 0;
  selfTradeCancels = 0;
  /**
   * Set by a replay whose feed shows the bot these books rewound instead of keeping its own copy
   * (src/backtest/book-rewind.ts): every row applied is then a position in the replay's rows (applyRow
   * the next one, applySilent from its `i`), and every level row logs the size it found.
   */
  rewind: BookRewind | null = null;

  constructor(private readonly opts: SimExchangeOptions) {
    const n = opts.cols.markets.length;
    // A book grid fine enough for every recorded price: the tick's gcd with 0.1¢.
    const grid = opts.cols.markets.map((_, i) => gcd(opts.ticks[i] ?? 1_000, 1_000));
    this.bookGrid = grid;
    // each book starts on its market's own tick where that is a multiple of the grid (a 1-cent market:
    // 101 slots a side, its top levels a few cache lines) and moves to the grid at the first recorded
    // price only the grid holds (L2Book fineTick): the same book, denser while the rows allow it
    this.books = grid.map((g, i) => {
      const t = opts.ticks[i] ?? g;
      return new L2Book({ tick: t % g === 0 && ONE % t === 0 ? t : g, fineTick: g });
    });
    opts.cols.markets.forEach((m, i) => this.marketIndex.set(m, i));
    this.own = Array.from({ length: n }, () => []);
    this.bidLo = new Float64Array(n).fill(Infinity);
    this.bidHi = new Float64Array(n).fill(-Infinity);
    this.askLo = new Float64Array(n).fill(Infinity);
    this.askHi = new Float64Array(n).fill(-Infinity);
    this.snapshotAt = new Float64Array(n).fill(-1);
    this.midTold = new Float64Array(n);
    this.midToldIn = new Float64Array(n);
    // (a copy: a market listed while a closed-loop run goes becomes a drop-copy market here, applyRow)
    this.exact = opts.ignoreDropCopy === true ? new Uint8Array(n) : opts.dropCopy !== undefined ? opts.dropCopy.slice(0, n) : dropCopyMarkets(opts.cols);
    this.resolved = new Uint8Array(n);
    this.ownLevels = Array.from({ length: n }, () => new Map<string, number>());
    this.yes = new Array<number>(n).fill(0);
    this.no = new Array<number>(n).fill(0);
    // (ownDone reads a done event's id, status and cause: not the order's final state; nothing here
    // reads the engine's level events: the recorded book is this exchange's own)
    this.engine = new MatchingEngine({ sink: (e) => this.onEngineEvent(e), doneOrders: false, levelEvents: false });
    // the engine's tick must be ≥ 100 units (0.01¢); a finer recorded grid keeps its off-grid levels out of the tape
    this.engineTicks = grid.map((g) => Math.max(100, g));
    for (const t of this.engineTicks) this.engine.addMarket(engineMarketConfig(t, opts.fees));
    this.bot = this.engine.addTrader();
    this.tape = this.engine.addTrader();
    this.collateral = opts.collateral ?? DEFAULT_SIM_COLLATERAL;
    // the engine refuses a zero deposit; a bot with nothing can still run (every order is refused)
    if (this.collateral < 0n || (this.collateral > 0n && !this.engine.deposit(this.bot, this.collateral).ok)) {
      throw new BadInputError('startingCollateral', 'from 0 to 1e9 USDC', this.collateral);
    }
    this.engine.deposit(this.tape, TAPE_COLLATERAL);
  }

  marketOf(marketId: string): number {
    return this.marketIndex.get(marketId) ?? -1;
  }

  openOrders(market?: number): SimOrder[] {
    const out: SimOrder[] = [];
    for (let m = 0; m < this.own.length; m++) {
      if (market !== undefined && market !== m) continue;
      for (const o of this.own[m]!) if (o.state === 'open') out.push(o);
    }
    return out;
  }

  get(nonce: Bytes32): SimOrder | undefined {
    return this.byKey.get(nonce);
  }

  /** Best own bid / ask resting in a market (YES terms), -1 when none. Only own orders rest in the engine between commands. */
  ownTop(market: number): { bid: number; ask: number } {
    return { bid: this.ownBid(market), ask: this.ownAsk(market) };
  }

  /** ownTop's bid without its object (the collector's samples read both sides of every market) */
  ownBid(market: number): number {
    const bid = this.engine.bestBid(market);
    return bid > 0 ? bid : -1;
  }

  ownAsk(market: number): number {
    const ask = this.engine.bestAsk(market);
    return ask > 0 ? ask : -1;
  }

  /** The bot's balance and positions in the engine's ledger. */
  account(): { balance: Balance; positions: Position[] } {
    return { balance: this.engine.balance(this.bot), positions: this.engine.positions(this.bot) };
  }

  /** Broken invariants: the engine's own (conservation, reservations), and the fill deltas reported vs its ledger. */
  checkInvariants(): string[] {
    const out = this.engine.checkInvariants();
    const bal = this.engine.balance(this.bot);
    if (bal.collateral !== this.collateral) out.push(`reported collateral ${this.collateral} != engine ${bal.collateral}`);
    for (let m = 0; m < this.own.length; m++) {
      const p = this.engine.position(this.bot, m);
      if (p.yes !== BigInt(this.yes[m]!) || p.no !== BigInt(this.no[m]!))
        out.push(`market ${m}: reported holdings ${this.yes[m]}/${this.no[m]} != engine ${p.yes}/${p.no}`);
    }
    return out;
  }

  /** Apply recorded row i at exchange time `at`. */
  applyRow(i: number, at: number): void {
    if (at >= this.nextExpiry) this.expireUntil(at);
    const u = this.rewind;
    const pos = u !== null ? u.applied++ : -1;
    const c = this.opts.cols;
    const m = c.market[i]!;
    let k = c.kind[i]!;
    // a market with the venue's drop copy: its rows replace the public stream's on this side
    if (this.exact[m] === 0 && k >= KIND_XLEVEL) {
      if (this.opts.ignoreDropCopy === true) return; // a drop copy this replay does not use
      // a market listed while a closed-loop run goes (src/backtest/synthetic-source.ts) had no row when
      // the exchange was built: its first drop-copy row makes it a drop-copy market, as dropCopyMarkets
      // does for a recording's (the feed reads the same flags: it shows the bot this market's book too)
      this.exact[m] = 1;
    }
    if (this.exact[m] === 1) k = k === KIND_XLEVEL ? KIND_LEVEL : k === KIND_XCLEAR ? KIND_CLEAR : k === KIND_TAKER ? KIND_TAKER : -1;
    const book = this.books[m]!;
    const orders = this.own[m]!;
    if (k === KIND_LEVEL) {
      const side = c.side[i]!;
      const price = c.price[i]!;
      const size = c.size[i]!;
      // the level's size before the row, -1 when the book refuses the level (off-grid or out of range): so do we
      const prev = book.set(side, price, size);
      if (u !== null) u.log(m, pos, side, price, prev);
      if (prev < 0) return;
      // most level rows (~94 % on the capture) are at none of our prices and reach none of our orders
      if (orders.length === 0 || !reachesOwn(orders, side, price, prev, size)) return;
      const inSnapshot = this.snapshotAt[m] === c.lts[i];
      this.onLevel(orders, side, price, prev, size, inSnapshot, i, at);
    } else if (k === KIND_TRADE) {
      if (orders.length > 0) this.onTrade(orders, c.side[i]!, c.price[i]!, c.size[i]!, i, at);
    } else if (k === KIND_CLEAR) {
      book.clear();
      if (u !== null) u.cleared(m);
      this.snapshotAt[m] = c.lts[i]!;
    } else if (k === KIND_TAKER) {
      if (orders.length > 0) this.onTaker(m, orders, c.side[i]!, c.price[i]!, c.size[i]!, i, at);
    }
  }

  /**
   * Apply rows[i], rows[i + 1], … while each is silent, with the collector's mid after each as the
   * replay loop would report it, and return the index of the first row not applied: a row whose
   * exchange time (its lts: rows in time order) is before `before` and the earliest own expiry, that
   * fills none of our orders (not a level adding liquidity at or through one of our prices, not a
   * trade at or through one), of a market replayed from its public stream. Such a row changes the
   * recorded book only, and at one of our prices our queue position (onLevel, which then reads no
   * time), which nothing reads before `before` (the caller's next call reaching the exchange,
   * resolution or sample, and the earliest time a call the bot sends from now on can reach it), so
   * applying it ahead of them is applying it in its turn. The collector is
   * told the mid after each row except a trade, as the loop tells it; a call that repeats the mid it
   * was given last in this pass is left out (it records only a change).
   */
  applySilent(rows: Uint32Array, i: number, end: number, before: number, collector: { onMid(m: number, t: number, mid: number): void }): number {
    const c = this.opts.cols;
    const { market, kind, lts, side, price, size } = c;
    const told = this.midTold;
    const toldIn = this.midToldIn;
    const pass = ++this.passes;
    const stop = Math.min(before, this.nextExpiry);
    const u = this.rewind;
    let last = -Infinity;
    for (; i < end; i++) {
      const r = rows[i]!;
      const t = lts[r]!;
      if (!(t < stop && t >= last)) break;
      last = t;
      const m = market[r]!;
      if (this.exact[m] === 1) break;
      const k = kind[r]!;
      const orders = this.own[m]!;
      const book = this.books[m]!;
      if (k === KIND_LEVEL) {
        const sd = side[r]!;
        const p = price[r]!;
        const z = size[r]!;
        // most rows are at none of our prices and through none of the other side's (levelReach would
        // find nothing): told from our price bounds, without a walk of the orders
        if (
          sd === 0 ? p < this.askLo[m]! && !(p >= this.bidLo[m]! && p <= this.bidHi[m]!) : p > this.bidHi[m]! && !(p >= this.askLo[m]! && p <= this.askHi[m]!)
        ) {
          const prev = book.set(sd, p, z);
          if (u !== null) u.log(m, i, sd, p, prev);
        } else {
          // the level's growth matters only to a cross: read the level's size only then (most rows cross nothing)
          let reach = levelReach(orders, sd, p, true);
          if (reach === REACH_CROSS && !(z > book.sizeAt(sd === 0 ? 'bid' : 'ask', p))) reach = levelReach(orders, sd, p, false);
          // a level that crosses one of our orders may fill it: the loop's row, at its time
          if (reach === REACH_CROSS) break;
          const prev = book.set(sd, p, z);
          if (u !== null) u.log(m, i, sd, p, prev);
          // at our price it moves our queue position only (onLevel finds nothing crossing: no fill, no time read)
          if (reach === REACH_QUEUE && prev >= 0) this.queueAt(orders, sd, p, prev, z, this.snapshotAt[m] === t);
        }
      } else if (k === KIND_TRADE) {
        if (orders.length > 0 && tradeReachesOwn(orders, side[r]!, price[r]!)) break;
        continue; // the loop reports no mid after a trade
      } else if (k === KIND_CLEAR) {
        book.clear();
        if (u !== null) u.cleared(m);
        this.snapshotAt[m] = t;
      }
      // (a top-of-book row, or a drop copy this replay does not use: the book is as it was)
      const mid = book.mid();
      if (toldIn[m] !== pass || mid !== told[m]) {
        toldIn[m] = pass;
        told[m] = mid;
        collector.onMid(m, t, mid);
      }
    }
    if (u !== null) u.applied = i;
    return i;
  }

  /**
   * The mid a market observer sees at the venue: the recorded book's; for a drop-copy market the
   * others' book with our resting orders in it (what the venue's public book shows). NaN when a side is empty.
   */
  mid(m: number): number {
    const b = this.books[m]!;
    if (this.exact[m] !== 1) return b.mid();
    let bid = b.bestBid();
    let ask = b.bestAsk();
    const ob = this.engine.bestBid(m);
    const oa = this.engine.bestAsk(m);
    if (ob > 0 && ob > bid) bid = ob;
    if (oa > 0 && (ask < 0 || oa < ask)) ask = oa;
    return bid > 0 && ask > 0 ? (bid + ask) / 2 : NaN;
  }

  /**
   * Market m resolved at `at` (one YES share pays `payoutYes`, 1e-6 USDC), as the venue resolves it:
   * the engine voids our open orders there (MARKET_RESOLVED) and refuses new ones; the tokens stay in
   * the engine's ledger, claimable. False when the market was resolved already or the payout is not
   * one the engine takes (then nothing changes).
   */
  resolve(m: number, payoutYes: number, at: number): boolean {
    if (this.resolved[m] === 1) return false;
    const r = this.engine.resolve(m, payoutYes, at);
    if (!r.ok) return false;
    this.resolved[m] = 1;
    this.drain('trade', -1, at); // only 'done' events: a resolution trades nothing
    this.sweep(this.own[m]!);
    return true;
  }

  /** Run the engine's expiry sweep once virtual time reaches the earliest own expiry. */
  expireUntil(at: number): void {
    if (at < this.nextExpiry) return;
    this.engine.expire(at);
    this.drain('trade', -1, at); // only 'done' events: an expiry trades nothing
    let next = Infinity;
    for (const orders of this.own) {
      this.sweep(orders);
      for (const o of orders) if (o.planned.expiry) next = Math.min(next, o.planned.expiry * 1000);
    }
    this.nextExpiry = next;
  }

  /** onLevel's queue update alone: a level row at our price that crosses none of our orders */
  private queueAt(orders: SimOrder[], side: number, price: number, prev: number, size: number, inSnapshot: boolean): void {
    const q = this.opts.queue;
    for (let j = 0; j < orders.length; j++) {
      const o = orders[j]!;
      if (o.yesSide === side && o.yesPrice === price) {
        if (inSnapshot) o.q.ahead = Math.min(o.q.ahead, size);
        else q.onLevel(o.q, prev, size);
      }
    }
  }

  private onLevel(orders: SimOrder[], side: number, price: number, prev: number, size: number, inSnapshot: boolean, row: number, at: number): void {
    const q = this.opts.queue;
    let crossing: SimOrder[] | null = null;
    for (let j = 0; j < orders.length; j++) {
      const o = orders[j]!;
      if (o.yesSide === side) {
        if (o.yesPrice === price) {
          if (inSnapshot) o.q.ahead = Math.min(o.q.ahead, size);
          else q.onLevel(o.q, prev, size);
        }
      } else if (!inSnapshot && size > prev && (o.yesSide === 0 ? price <= o.yesPrice : price >= o.yesPrice)) {
        // the other side gained liquidity at or through our price: it trades with us
        (crossing ??= []).push(o);
      }
    }
    if (crossing) {
      let left = size - prev;
      for (const o of byPriority(crossing)) {
        if (left <= 0) break;
        if (o.state === 'open') left -= this.fillResting(o, Math.min(o.remaining, left), 'cross', row, at);
      }
      // only a fill can have ended one of them here (see `own`): most level rows have none to sweep
      this.sweep(orders);
    }
  }

  private onTrade(orders: SimOrder[], takerSide: number, price: number, size: number, row: number, at: number): void {
    // a taker sell (1) reaches our bids (0), a taker buy (0) our asks (1)
    const ourSide = takerSide === 1 ? 0 : 1;
    let left = size;
    for (const o of byPriority(orders.filter((x) => x.yesSide === ourSide))) {
      if (left <= 0) break;
      const through = ourSide === 0 ? price < o.yesPrice : price > o.yesPrice;
      let reach: number;
      if (through) reach = left;
      else if (price === o.yesPrice) reach = this.opts.queue.onTrade(o.q, left);
      else continue;
      if (o.state === 'open') left -= this.fillResting(o, Math.min(o.remaining, reach), 'trade', row, at);
    }
    this.sweep(orders);
  }

  /**
   * A recorded taker order (side 0 = buy, 1 = sell; YES-terms limit; shares) meets the others' book
   * and our resting orders: price-time priority, others strictly better than our price first, then at
   * our price the queue in front of each of our orders, that order, and the others behind.
   */
  private onTaker(m: number, orders: SimOrder[], takerSide: number, limit: number, size: number, row: number, at: number): void {
    const ourSide = takerSide === 0 ? 1 : 0; // a taker buy reaches our asks, a sell our bids
    const reach = (p: number): boolean => (ourSide === 1 ? p <= limit : p >= limit);
    const mine = byPriority(orders.filter((o) => o.yesSide === ourSide && reach(o.yesPrice)));
    if (mine.length === 0) return;
    const better = (a: number, b: number): boolean => (ourSide === 1 ? a < b : a > b);
    const levels = this.books[m]!.levels(ourSide === 1 ? 'ask' : 'bid');
    let li = 0;
    let left = size;
    let k = 0;
    while (k < mine.length && left > 0) {
      const p = mine[k]!.yesPrice;
      while (li < levels.length && better(levels[li]!.price, p) && left > 0) left -= Math.min(left, levels[li++]!.size);
      if (left <= 0) break;
      const atP = li < levels.length && levels[li]!.price === p ? levels[li]!.size : 0;
      let others = 0; // others at p this taker consumed
      const group: SimOrder[] = [];
      while (k < mine.length && mine[k]!.yesPrice === p) group.push(mine[k++]!);
      for (const o of group) {
        const inFront = Math.max(0, Math.min(o.q.ahead, atP) - others);
        const t = Math.min(left, inFront);
        left -= t;
        others += t;
        if (left <= 0) break;
        if (o.state === 'open') left -= this.fillResting(o, Math.min(o.remaining, left), 'taker', row, at);
      }
      if (left > 0) {
        const t = Math.min(left, Math.max(0, atP - others));
        left -= t;
        others += t;
      }
      // the others consumed at p leave the queue in front of us; the drop copy reports that decrease next
      for (const o of group) {
        o.q.ahead -= Math.min(o.q.ahead, others);
        o.q.credit += others;
      }
      if (atP > 0) li++;
    }
    this.sweep(orders);
  }

  /**
   * The tape trades `size` with our resting order `o` at its price (IOC). Returns the shares the bot
   * traded: the engine may void the order instead (its signed limits no longer allow the fill), and
   * at one price the engine's time priority picks which of our orders there trades first.
   */
  private fillResting(o: SimOrder, size: number, cause: FillCause, row: number, at: number): number {
    if (size <= 0) return 0;
    const side = o.yesSide === 0 ? 'ask' : 'bid';
    const cmd = tapeOrder({
      market: o.market,
      trader: this.tape,
      side,
      yesPrice: o.yesPrice,
      size,
      inventory: this.tapeInventory(o.market, side),
      timeInForce: 1,
      nowMs: at,
    });
    const r = this.engine.submit(cmd);
    if (!r.ok) {
      this.nEvents = 0;
      throw new InvariantError(`the backtest tape was refused a fill (${r.code} ${r.field}: ${r.message})`);
    }
    return this.drain(cause, row, at);
  }

  /** Tokens the tape could sell on `side`: YES for an ask, NO for a bid. */
  private tapeInventory(market: number, side: 'bid' | 'ask'): bigint {
    const p = this.engine.position(this.tape, market);
    return side === 'ask' ? p.yes - p.yesReserved : p.no - p.noReserved;
  }

  private onEngineEvent(e: EngineEvent): void {
    // buffered: the sink must not call back into the engine, and fills are handled with their cause
    if (e.type === 'fill' || e.type === 'done') this.events[this.nEvents++] = e;
  }

  /** Handle the engine's events of the last command. Returns the shares the bot traded. */
  private drain(cause: FillCause, row: number, at: number): number {
    let traded = 0;
    const ev = this.events;
    for (let k = 0; k < this.nEvents; k++) {
      const e = ev[k]!;
      if (e.type === 'fill') {
        if (e.maker.trader === this.bot) traded += this.ownFill(e, e.maker, true, cause, row, at);
        if (e.taker.trader === this.bot) {
          traded += this.ownFill(e, e.taker, false, 'take', -1, at);
          // the recorded liquidity we took is gone until the recording sets that level again
          const book = this.books[e.market]!;
          const other = e.takerSide === 'bid' ? 'ask' : 'bid';
          const had = book.sizeAt(other, e.price);
          // (a feed reading this book rewound shows the recorded size: src/backtest/book-rewind.ts)
          this.rewind?.take(e.market, other === 'bid' ? 0 : 1, e.price, had);
          book.applyLevel(other, e.price, Math.max(0, had - e.size));
        }
      } else if (e.type === 'done') this.ownDone(e);
    }
    this.nEvents = 0;
    if (this.ownDirty.length > 0) this.flushOwnLevels();
    return traded;
  }

  private ownFill(e: Extract<EngineEvent, { type: 'fill' }>, party: FillParty, maker: boolean, cause: FillCause, row: number, at: number): number {
    const o = this.byEngineId.get(party.id);
    if (!o) throw new InvariantError(`engine fill for unknown own order ${party.id}`);
    o.filled += e.size;
    o.remaining -= e.size;
    this.markOwn(o.market);
    o.fees += party.fee;
    const m = e.market;
    this.yes[m] = this.yes[m]! + party.yesDelta;
    this.no[m] = this.no[m]! + party.noDelta;
    this.collateral += BigInt(party.collateralDelta);
    const p = o.planned;
    this.opts.onFill(
      {
        at,
        market: m,
        marketId: p.marketId,
        nonce: p.nonce,
        outcomeIndex: p.outcomeIndex,
        side: p.side,
        price: p.outcomeIndex === 1 ? e.price : ONE - e.price,
        yesSide: o.yesSide === 0 ? 'bid' : 'ask',
        yesPrice: e.price,
        size: e.size,
        fee: party.fee,
        maker,
        cause,
        match: e.match,
        orderKind: p.side === 0 ? 0 : p.inventoryMode === 2 ? 2 : 1,
        row,
        seq: this.fillSeq++,
      },
      { yes: this.yes[m]!, no: this.no[m]!, collateral: this.collateral },
    );
    return e.size;
  }

  private ownDone(e: Extract<EngineEvent, { type: 'done' }>): void {
    const o = this.byEngineId.get(e.id);
    if (!o) return; // a tape order
    this.byEngineId.delete(e.id);
    this.markOwn(o.market);
    o.state = e.status;
    o.voidReason = e.voidReason;
    if (e.cause === 'expiry') this.expired++;
    else if (e.cause === 'self_trade') this.selfTradeCancels++;
    else if (e.status === 'voided' && e.cause !== 'ioc') this.voided++;
    this.opts.onOrderDone?.(o);
  }

  /** Our levels of market m may have changed (only drop-copy markets report them: the feed shows them there only). */
  private markOwn(m: number): void {
    if (this.exact[m] === 1 && this.opts.onOwnLevel !== undefined && !this.ownDirty.includes(m)) this.ownDirty.push(m);
  }

  /** Report our resting size at every level of the dirty markets that changed since the last report. */
  private flushOwnLevels(): void {
    const report = this.opts.onOwnLevel;
    if (report === undefined) return;
    for (const m of this.ownDirty) {
      const now = new Map<string, number>();
      for (const o of this.own[m]!) {
        if (o.state !== 'open' || o.remaining <= 0) continue;
        const key = `${o.yesSide === 0 ? 'b' : 'a'}${o.yesPrice}`;
        now.set(key, (now.get(key) ?? 0) + o.remaining);
      }
      const last = this.ownLevels[m]!;
      for (const [key, size] of now) if (last.get(key) !== size) report(m, key[0] === 'b' ? 'bid' : 'ask', Number(key.slice(1)), size);
      for (const key of last.keys()) if (!now.has(key)) report(m, key[0] === 'b' ? 'bid' : 'ask', Number(key.slice(1)), 0);
      this.ownLevels[m] = now;
    }
    this.ownDirty.length = 0;
  }

  private sweep(orders: SimOrder[]): void {
    if (orders.length === 0) return;
    const m = orders[0]!.market;
    for (let j = orders.length - 1; j >= 0; j--) if (orders[j]!.state !== 'open') orders.splice(j, 1);
    this.bound(m);
  }

  /** Market m's price bounds of our bids and asks, from its open orders (bidLo …). */
  private bound(m: number): void {
    let bl = Infinity;
    let bh = -Infinity;
    let al = Infinity;
    let ah = -Infinity;
    for (const o of this.own[m]!) {
      const p = o.yesPrice;
      if (o.yesSide === 0) {
        if (p < bl) bl = p;
        if (p > bh) bh = p;
      } else {
        if (p < al) al = p;
        if (p > ah) ah = p;
      }
    }
    this.bidLo[m] = bl;
    this.bidHi[m] = bh;
    this.askLo[m] = al;
    this.askHi[m] = ah;
  }

  /** An order reaches the venue. Unsigned by design: the sim venue never verifies signatures. */
  place(p: PlannedOrder, at: number): PlaceResult {
    this.expireUntil(at);
    const key = p.nonce;
    if (this.byKey.has(key)) return { ok: false, code: 'duplicate', message: 'duplicate nonce' };
    const market = this.marketOf(p.marketId);
    if (market < 0) return this.reject('market-not-found', `market ${p.marketId} is not in the recording`);
    // (before the tape rests anything: the engine refuses every order of a resolved market)
    if (this.resolved[market] === 1) return this.reject('MARKET_NOT_OPEN', 'market: market is resolved');
    if (p.side !== 0 && p.side !== 1) return this.reject('invalid-side', `side ${String(p.side)}`);
    if (p.outcomeIndex !== 0 && p.outcomeIndex !== 1) return this.reject('invalid-outcome', `outcomeIndex ${String(p.outcomeIndex)}`);
    if (!(Number.isSafeInteger(p.price) && p.price > 0 && p.price < ONE)) return this.reject('invalid-price', `price ${p.price}`);
    if (!(Number.isSafeInteger(p.size) && p.size > 0)) return this.reject('invalid-size', `size ${p.size}`);
    const tick = this.opts.ticks[market] ?? 1;
    if (p.price % tick !== 0) return this.reject('invalid-price', `price ${p.price} is off the ${tick} tick`);
    // buy YES / sell NO rest as bids; sell YES / buy NO as asks (docs/local-exchange.md)
    const yesSide: 0 | 1 = (p.outcomeIndex === 1) === (p.side === 0) ? 0 : 1;
    const yesPrice = p.outcomeIndex === 1 ? p.price : ONE - p.price;
    const o: SimOrder = {
      key,
      planned: p,
      market,
      yesSide,
      yesPrice,
      engineId: 0,
      remaining: p.size,
      filled: 0,
      fees: 0,
      q: { ahead: 0, credit: 0 },
      state: 'open',
      voidReason: null,
      placedAt: at,
      placedIso: null,
    };
    const rested = this.restTape(o, at);
    const r = this.engine.submit(toEngineOrder(p, market, this.bot, at));
    if (r.ok) {
      o.engineId = r.id;
      this.byEngineId.set(r.id, o);
      this.byKey.set(key, o);
      this.placed++;
    }
    if (rested) this.engine.cancelAll(this.tape, market, at);
    this.drain('take', -1, at);
    if (!r.ok) return this.reject(r.code, `${r.field}: ${r.message}`);
    if (o.state === 'open') {
      o.q = this.opts.queue.join(this.books[market]!.sizeAt(yesSide === 0 ? 'bid' : 'ask', yesPrice));
      this.own[market]!.push(o);
      this.markOwn(market);
      if (this.ownDirty.length > 0) this.flushOwnLevels();
      if (p.expiry) this.nextExpiry = Math.min(this.nextExpiry, p.expiry * 1000);
    }
    this.sweep(this.own[market]!); // a self-trade may have cancelled a resting one
    return { ok: true, order: o };
  }

  /**
   * Rest the recorded levels an arriving order crosses as tape orders (GTC) for it to take, up to its
   * size. Skips levels our own resting orders on the same side already cross, and levels off the
   * engine's grid. Returns how many were rested (the caller cancels what is left of them).
   */
  private restTape(o: SimOrder, at: number): number {
    const m = o.market;
    const bid = o.yesSide === 0;
    const book = this.books[m]!;
    const best = bid ? book.bestAsk() : book.bestBid();
    if (best < 0 || (bid ? best > o.yesPrice : best < o.yesPrice)) return 0; // most orders do not cross
    const ownBest = bid ? this.engine.bestBid(m) : this.engine.bestAsk(m);
    const tick = this.engineTicks[m]!;
    const side = bid ? 'ask' : 'bid';
    let need = o.remaining;
    let n = 0;
    for (const l of book.levels(side)) {
      if (need <= 0 || (bid ? l.price > o.yesPrice : l.price < o.yesPrice)) break;
      if ((ownBest > 0 && (bid ? l.price <= ownBest : l.price >= ownBest)) || l.price % tick !== 0) continue;
      const size = Math.min(l.size, need);
      const r = this.engine.submit(
        tapeOrder({ market: m, trader: this.tape, side, yesPrice: l.price, size, inventory: this.tapeInventory(m, side), timeInForce: 0, nowMs: at }),
      );
      if (!r.ok) throw new InvariantError(`the backtest tape could not rest a recorded level (${r.code} ${r.field}: ${r.message})`);
      need -= size;
      n++;
    }
    return n;
  }

  /** A cancel reaches the venue. */
  cancel(nonce: Bytes32, at: number): { ok: true; alreadyCancelled: boolean } | { ok: false; code: string; message: string } {
    this.expireUntil(at);
    const o = this.byKey.get(nonce);
    if (!o) return { ok: false, code: 'not-found', message: 'unknown order' };
    if (o.state !== 'open') return { ok: true, alreadyCancelled: true };
    this.engine.cancel(o.engineId, at);
    this.drain('trade', -1, at);
    this.cancelled++;
    this.sweep(this.own[o.market]!);
    return { ok: true, alreadyCancelled: false };
  }

  private reject(code: PlaceRejectCode, message: string): PlaceResult {
    this.rejected++;
    this.rejectedBy.set(code, (this.rejectedBy.get(code) ?? 0) + 1);
    return { ok: false, code, message };
  }

  /** The venue's view of an order (GET /orders shape, integer units; sizes in shares). */
  toVenueOrder(o: SimOrder, trader: `0x${string}`): VenueOrder {
    const p = o.planned;
    return {
      marketId: p.marketId,
      trader,
      nonce: p.nonce,
      side: p.side,
      outcomeIndex: p.outcomeIndex,
      price: p.price,
      size: p.size,
      filledSize: o.filled,
      remainingSize: o.state === 'open' ? o.remaining : 0,
      percentFilled: Math.floor((o.filled * 100) / p.size),
      type: p.clientOrderType === 'market' ? 'market' : 'limit',
      status: o.state,
      voidReason: o.voidReason,
      insertedAt: (o.placedIso ??= new Date(o.placedAt).toISOString()),
      expiry: p.expiry ?? 0,
      settlementVersion: 2,
      sv2OrderKind: p.side === 0 ? 0 : p.inventoryMode === 2 ? 2 : 1,
      sv2TimeInForce: p.timeInForce ?? 0,
      sv2MinSharesOut: null,
      sv2MaxCollateralIn: null,
      sv2MinCollateralOut: null,
    };
  }
}

/**
 * Whether a recorded level change (side 0 = bid, from `prev` to `size` at `price`) is one `onLevel`
 * acts on: one of our orders rests at that price on that side (its queue), or the other side gained
 * liquidity at or through one of our prices (a cross; onLevel also rules out a snapshot's rows).
 */
function reachesOwn(orders: readonly SimOrder[], side: number, price: number, prev: number, size: number): boolean {
  for (let j = 0; j < orders.length; j++) {
    const o = orders[j]!;
    if (o.yesSide === side ? o.yesPrice === price : size > prev && (o.yesSide === 0 ? price <= o.yesPrice : price >= o.yesPrice)) return true;
  }
  return false;
}

const REACH_NONE = 0;
const REACH_QUEUE = 1;
const REACH_CROSS = 2;

/**
 * What a level row does to our orders (reachesOwn, told apart): REACH_CROSS when it adds liquidity
 * (`grows`: its size is above the level's) at or through one of our prices on the other side
 * (onLevel may fill), else REACH_QUEUE when one of
 * our orders rests at its price on its side (a queue position moves), else REACH_NONE.
 */
function levelReach(orders: readonly SimOrder[], side: number, price: number, grows: boolean): number {
  let out = REACH_NONE;
  for (let j = 0; j < orders.length; j++) {
    const o = orders[j]!;
    if (o.yesSide === side) {
      if (o.yesPrice === price) out = REACH_QUEUE;
    } else if (grows && (o.yesSide === 0 ? price <= o.yesPrice : price >= o.yesPrice)) return REACH_CROSS;
  }
  return out;
}

/** True when a recorded trade (taker side 0 = buy, 1 = sell) is at or through one of our prices on its side (onTrade). */
function tradeReachesOwn(orders: readonly SimOrder[], takerSide: number, price: number): boolean {
  const ourSide = takerSide === 1 ? 0 : 1;
  for (let j = 0; j < orders.length; j++) {
    const o = orders[j]!;
    if (o.yesSide === ourSide && (ourSide === 0 ? price <= o.yesPrice : price >= o.yesPrice)) return true;
  }
  return false;
}

/** Own orders in the engine's priority: best YES price first, then first placed (the sort is stable). */
function byPriority(orders: SimOrder[]): SimOrder[] {
  return orders.length < 2 ? orders : [...orders].sort((a, b) => (a.yesSide === 0 ? b.yesPrice - a.yesPrice : a.yesPrice - b.yesPrice));
}

/**
 * 1 for each market with drop-copy rows (XLEVEL / XCLEAR / TAKER). A pass over every row, kept out of
 * the constructor: a loop there is compiled on stack replacement against the half-built object and
 * was thrown away (deoptimised) again on most runs of a sweep or benchmark.
 */
function dropCopyMarkets(c: Columns): Uint8Array {
  const out = new Uint8Array(c.markets.length);
  const kind = c.kind;
  const market = c.market;
  for (let i = 0; i < c.rows; i++) if (kind[i]! >= KIND_XLEVEL) out[market[i]!] = 1;
  return out;
}
