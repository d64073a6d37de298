/**
 * The matching engine: one YES-terms price-time book per binary market over an
 * order pool of fixed-size typed-array records (./order-pool.ts), with an exact integer ledger.
 * Pure and deterministic: time only comes in as `nowMs` arguments, events go to an optional
 * synchronous sink, built only when one is attached.
 *
 * Where the time goes (1e6-order bench, 480 k resting): a cancel is one cache miss, on the order's
 * record (its id names the slot, no map), which perf shows as the largest single stall; a crossing
 * order waits on the makers it meets. So everything a cancel or a taker reads per order sits in one
 * 64-byte hot record (./order-pool.ts; the rest in a cold record), records never move, BigInt, Maps
 * and float `%` stay off the per-order path, and cancels are lazy (./price-ladder.ts: no queue
 * neighbours touched). The rest is per-order compute (validation, fill and fee arithmetic, ledger):
 * the usual order's field checks are inline compares in `submit` (the full validation only for the
 * rest), and a resting add skips the fill and fee maths when its budget covers leg + fee cap.
 *
 * Rules the code follows (see ./types.ts for the per-fill arithmetic):
 * - Match price is the maker's. Self-trade policy "cancel resting": a resting order of the taker's
 *   own trader met during matching is cancelled (done event, cause 'self_trade') and matching goes on.
 * - Expired makers met during matching are expired on the spot; `expire(nowMs)` sweeps the rest.
 * - Minimum fill: every fill is at least minFillSize. A remainder below it is voided
 *   BELOW_MIN_FILL_SIZE, as is a maker whose own signed limits no longer allow a minimum fill at its
 *   price, and a GTC taker whose limits stop it while it still crosses (it must not rest crossed).
 * - FOK runs the same matching loop dry first and is voided IOC_CLOSED unless it fills entirely.
 * - IOC and TAKER_ONLY remainders are voided IOC_CLOSED (UNFILLED_MARKET_ORDER for market orders).
 */
import { BadInputError } from '../model/errors.ts';
import type { OrderStatus, OutcomeIndex, VoidReason } from '../model/order.ts';
import * as units from '../model/units.ts';
import * as fm from './fill-math.ts';
import { checkEngineInvariants } from './engine-invariants.ts';
import { Ledger, type LedgerData } from './ledger.ts';
import type { MarketState } from './market-state.ts';
import * as op from './order-pool.ts';
import { PriceLadder, type PriceLadderData } from './price-ladder.ts';
import {
  DEFAULT_MARKET_CONFIG,
  type Balance,
  type BookLevelView,
  type BookView,
  type CommandResult,
  type Engine,
  type EngineCommand,
  type EngineEvent,
  type EventSink,
  type MarketConfig,
  type MarketInfo,
  type MatchKind,
  type OrderState,
  type Position,
  type Rejection,
  type SubmitOrder,
  type SubmitResult,
} from './types.ts';
import * as vo from './validate-order.ts';

// Module-local copies of imported bindings: under the tsx loader each use of an imported name can
// be a getter call, which is measurable on the matching hot path.
const ONE = units.ONE;
const KIND_BUY = fm.KIND_BUY;
const KIND_SELL_INVENTORY = fm.KIND_SELL_INVENTORY;
const feeFor = fm.feeFor;
const fillCapacity = fm.fillCapacity;
const fillFits = fm.fillFits;
const legAmount = fm.legAmount;
const ownPrice = fm.ownPrice;
const claimPayout = fm.claimPayout;
const reject = vo.reject;
const validateMarketConfig = vo.validateMarketConfig;
const validateOrderFields = vo.validateOrderFields;
const validateOrder = vo.validateOrder;
type LimitState = fm.LimitState;
const OrderPool = op.OrderPool;
type OrderPool = op.OrderPool;
// record field offsets (see ./order-pool.ts)
const F_QTY = op.F_QTY;
const F_FILLED = op.F_FILLED;
const F_FEES = op.F_FEES;
const F_MAX_FEE = op.F_MAX_FEE;
const F_RESV = op.F_RESV;
const C_LIMIT = op.C_LIMIT;
const C_EXPIRY = op.C_EXPIRY;
const C_CREATED = op.C_CREATED;
const C_UPDATED = op.C_UPDATED;
const C_STRIDE = op.C_STRIDE;
const I_MARKET = op.I_MARKET;
const I_TRADER = op.I_TRADER;
const I_NEXT = op.I_NEXT;
const I_FLAGS = op.I_FLAGS;
const FL_ALIVE_MASK = op.FL_ALIVE_MASK;
const ALIVE_TOMB = op.ALIVE_TOMB;
const FL_OUTCOME = op.FL_OUTCOME;
const FL_SIDE = op.FL_SIDE;
const FL_KIND = op.FL_KIND;
const FL_TIF = op.FL_TIF;
const FL_ROLE = op.FL_ROLE;
const FL_MARKET_ORDER = op.FL_MARKET_ORDER;
const FL_EXPIRY = op.FL_EXPIRY;
const FL_LEVEL = op.FL_LEVEL;
const F_STRIDE = op.F_STRIDE;
const I_STRIDE = op.I_STRIDE;
const CHUNK_BITS = op.CHUNK_BITS;
const CHUNK_MASK = op.CHUNK_MASK;

const NIL = -1;
const MAX = Number.MAX_SAFE_INTEGER;
const RESTING = 2;

type DoneCause = Extract<EngineEvent, { type: 'done' }>['cause'];
type FinalStatus = Exclude<OrderStatus, 'open'>;

function scratch(): LimitState {
  // -0 (a double) for the fields `load` fills from the pool's Float64Arrays, which hold doubles
  // there from the first fill on: the object starts with the map it ends with, so a new engine's
  // scratch objects share the map the compiled code expects (see SHAPE_ANCHOR below)
  return { kind: 0, filled: -0, paid: 0, received: 0, fees: -0, maxFee: -0, maxCollateralIn: -0, minCollateralOut: 0, maxShares: -0 };
}

export const ENGINE_STATE_VERSION = 1;

/** The engine's state as plain data (see MatchingEngine.exportState). */
export interface EngineStateData {
  version: number;
  pool: op.OrderPoolData;
  ledger: LedgerData;
  /** each market's fields but its index and scratch flags, the ladder as data */
  markets: (Omit<MarketState, 'index' | 'ladder' | 'dirty'> & { ladder: PriceLadderData })[];
}

export interface MatchingEngineOptions {
  sink?: EventSink;
  /** order slots to allocate up front (the pool then grows by 4096-slot chunks) */
  capacity?: number;
  /**
   * false: done events carry `order: null` instead of the order's final state (a sink that reads
   * only the id, status and cause saves building it: src/backtest/sim-exchange.ts). Default true.
   */
  doneOrders?: boolean;
  /**
   * false: the sink gets no 'level' events (a sink that does not read them: the backtest's exchange,
   * src/backtest/sim-exchange.ts, which keeps the recorded book itself; the engine then keeps no dirty
   * list). Every other event is the same, in the same order. Default true.
   */
  levelEvents?: boolean;
}

export class MatchingEngine implements Engine {
  private readonly pool: OrderPool;
  private readonly ledger = new Ledger();
  private readonly markets: MarketState[] = [];
  private sink: EventSink | null;
  private readonly doneOrders: boolean;
  private readonly levelEvents: boolean;
  private readonly dirtyList: number[] = [];
  private readonly ts = scratch();
  private readonly ms = scratch();

  constructor(opts: MatchingEngineOptions = {}) {
    this.pool = new OrderPool(opts.capacity ?? 1024);
    this.sink = opts.sink ?? null;
    this.doneOrders = opts.doneOrders !== false;
    this.levelEvents = opts.levelEvents !== false;
  }

  /**
   * The engine's whole state as plain data (typed arrays, Maps, numbers): what a snapshot stores
   * instead of the command history. It shares the live arrays, so serialise it (e.g. v8.serialize)
   * before the next command.
   */
  exportState(): EngineStateData {
    return {
      version: ENGINE_STATE_VERSION,
      pool: this.pool.exportData(),
      ledger: this.ledger.exportData(),
      markets: this.markets.map((m) => ({
        config: m.config,
        ladder: m.ladder.exportData(),
        status: m.status,
        backing: m.backing,
        supplyYes: m.supplyYes,
        supplyNo: m.supplyNo,
        payoutYes: m.payoutYes,
        lastPrice: m.lastPrice,
        volume: m.volume,
      })),
    };
  }

  /** An engine rebuilt from `exportState()` data: the same books, balances, positions and order ids. */
  static fromState(d: EngineStateData, opts: MatchingEngineOptions = {}): MatchingEngine {
    if (!d || d.version !== ENGINE_STATE_VERSION) throw new Error(`engine state: unsupported version ${String(d?.version)}`);
    const e = new MatchingEngine({ ...opts, capacity: 0 });
    e.pool.restoreData(d.pool);
    e.ledger.restoreData(d.ledger);
    for (const m of d.markets) {
      const idx = e.addMarket(m.config);
      const mk = e.markets[idx]!;
      mk.ladder.restoreData(m.ladder);
      mk.status = m.status;
      // doubles from the start, as in addMarket
      mk.backing = m.backing === 0 ? -0 : m.backing;
      mk.supplyYes = m.supplyYes === 0 ? -0 : m.supplyYes;
      mk.supplyNo = m.supplyNo === 0 ? -0 : m.supplyNo;
      mk.payoutYes = m.payoutYes;
      mk.lastPrice = m.lastPrice;
      mk.volume = m.volume === 0 ? -0 : m.volume;
    }
    return e;
  }

  /** Replace the event sink (null = no events, the fastest mode). */
  setSink(sink: EventSink | null): void {
    this.sink = sink;
  }

  // ---------------------------------------------------------------- markets and traders

  addMarket(config: Partial<MarketConfig> = {}): number {
    const cfg: MarketConfig = { ...DEFAULT_MARKET_CONFIG, ...config };
    const bad = validateMarketConfig(cfg);
    if (bad) throw new BadInputError(`market.${bad.field}`, bad.message, (cfg as unknown as Record<string, unknown>)[bad.field]);
    const ladder = new PriceLadder(cfg.tick);
    this.markets.push({
      index: this.markets.length,
      config: cfg,
      ladder,
      status: 'open',
      // -0: double fields from the start, as Ledger.fee (these sums pass 2^31 within seconds)
      backing: -0,
      supplyYes: -0,
      supplyNo: -0,
      payoutYes: null,
      lastPrice: null,
      volume: -0,
      dirty: new Uint8Array(2 * (ladder.top + 1)),
    });
    return this.markets.length - 1;
  }

  addTrader(): number {
    return this.ledger.addTrader();
  }

  market(m: number): MarketInfo | undefined {
    const mk = this.marketAt(m);
    if (!mk) return undefined;
    return {
      market: m,
      config: { ...mk.config },
      status: mk.status,
      setsOutstanding: BigInt(mk.supplyYes < mk.supplyNo ? mk.supplyYes : mk.supplyNo),
      payoutYes: mk.payoutYes,
      payoutNo: mk.payoutYes === null ? null : ONE - mk.payoutYes,
      lastPrice: mk.lastPrice,
      volume: BigInt(mk.volume),
    };
  }

  setMarketStatus(m: number, status: 'open' | 'halted'): CommandResult {
    const mk = this.marketAt(m);
    if (!mk) return reject('UNKNOWN_MARKET', 'market', `no market ${m}`);
    if (mk.status === 'resolved') return reject('MARKET_NOT_OPEN', 'market', 'market is resolved');
    if (status !== 'open' && status !== 'halted') return reject('BAD_INPUT', 'status', 'status must be open or halted');
    mk.status = status;
    return { ok: true };
  }

  // ---------------------------------------------------------------- orders

  submit(o: SubmitOrder): SubmitResult {
    if (typeof o !== 'object' || o === null) return reject('BAD_INPUT', 'order', 'order must be an object');
    // every field read once: callers pass orders of several object shapes (server, agents,
    // backtest), and each property load of such an object is a polymorphic lookup
    const market = o.market;
    const trader = o.trader;
    const outcome = o.outcome;
    const kind = o.kind;
    const price = o.price;
    const maxShares = o.maxShares;
    const minSharesOut = o.minSharesOut;
    const maxCollateralIn = o.maxCollateralIn;
    const minCollateralOut = o.minCollateralOut;
    const maxFee = o.maxFee;
    const timeInForce = o.timeInForce;
    const makerRole = o.makerRole;
    const expiry = o.expiry;
    const marketOrder = o.marketOrder;
    const nowMs = o.nowMs;
    const mk = this.marketAt(market);
    if (!mk) return reject('UNKNOWN_MARKET', 'market', `no market ${String(market)}`);
    if (mk.status !== 'open') return reject('MARKET_NOT_OPEN', 'market', `market is ${mk.status}`);
    if (!Number.isInteger(trader) || trader < 0 || trader >= this.ledger.traders) {
      return reject('UNKNOWN_TRADER', 'trader', `no trader ${String(trader)}`);
    }
    const cfg = mk.config;
    const L = mk.ladder;
    const tif = timeInForce ?? 0;
    const role = makerRole ?? 0;
    const tick = cfg.tick;
    // A sufficient condition for validateOrderFields to pass, as compares written out here: the
    // usual order (int32 amounts, no expiry or expiry 0) skips the call, whose 13 arguments (a double among
    // them boxed for it) were ~15 % of a resting add. Written inline rather than as a function
    // because TurboFan's inlining budget (~920 bytes of bytecode per function) is spent on the pool
    // and ladder calls of this path. `(v | 0) === v` holds for int32 numbers only (no strings,
    // fractions, NaN); anything failing here, valid or not, takes the full validation, which
    // accepts larger amounts and expiries and names the bad field. Each typeof comes before the
    // first arithmetic on its value: `|` on a bigint or symbol throws, and on an object it would
    // call the caller's valueOf.
    if (
      (outcome !== 0 && outcome !== 1) ||
      (kind !== 0 && kind !== 1 && kind !== 2) ||
      typeof price !== 'number' ||
      (price | 0) !== price ||
      price < tick ||
      price > ONE - tick ||
      // on the tick iff a whole number of ticks gives it back (price ≤ 1e6: exact products)
      Math.round(price * L.invTick) * tick !== price ||
      typeof maxShares !== 'number' ||
      (maxShares | 0) !== maxShares ||
      typeof minSharesOut !== 'number' ||
      (minSharesOut | 0) !== minSharesOut ||
      typeof maxCollateralIn !== 'number' ||
      (maxCollateralIn | 0) !== maxCollateralIn ||
      typeof minCollateralOut !== 'number' ||
      (minCollateralOut | 0) !== minCollateralOut ||
      typeof maxFee !== 'number' ||
      (maxFee | 0) !== maxFee ||
      maxShares < 0 ||
      minSharesOut < 0 ||
      maxCollateralIn < 0 ||
      minCollateralOut < 0 ||
      maxFee < 0 ||
      (tif !== 0 && tif !== 1 && tif !== 2) ||
      (role !== 0 && role !== 1 && role !== 2) ||
      (expiry !== undefined && expiry !== 0) ||
      typeof nowMs !== 'number' ||
      !(nowMs >= 0 && nowMs < Infinity) ||
      // an int32 quantity is below MAX_ORDER_SHARES (1e15) already
      (kind === KIND_BUY ? minSharesOut : maxShares) < cfg.minOrderSize ||
      (kind !== KIND_SELL_INVENTORY && maxCollateralIn === 0)
    ) {
      const bad = validateOrderFields(
        outcome,
        kind,
        price,
        maxShares,
        minSharesOut,
        maxCollateralIn,
        minCollateralOut,
        maxFee,
        timeInForce,
        makerRole,
        expiry,
        nowMs,
        cfg,
      );
      if (bad) return bad;
    }

    const side = (outcome === 1) === (kind === KIND_BUY) ? 0 : 1;
    // validated on the tick, so the quotient is a whole number: a multiply by the ladder's 1/tick and
    // a round give it without the integer division `/ cfg.tick` compiled to (an idiv per order)
    const level = Math.round((outcome === 1 ? price : ONE - price) * L.invTick);
    const ledger = this.ledger;
    let pos = -1;
    if (kind === KIND_SELL_INVENTORY) {
      pos = ledger.findPosition(trader, market);
      if (pos < 0 || ledger.availableTokens(pos, outcome) < maxShares) {
        return reject('UNDER_COLLATERALIZED', 'maxShares', 'not enough outcome tokens to reserve maxShares');
      }
    } else if (ledger.available(trader) < maxCollateralIn) {
      return reject('UNDER_COLLATERALIZED', 'maxCollateralIn', 'not enough collateral to reserve maxCollateralIn');
    }
    if (role === 1 && (side === 0 ? level >= L.bestAsk : level <= L.bestBid)) {
      return reject('WOULD_CROSS', 'makerRole', 'a maker-only order would take liquidity');
    }

    const p = this.pool;
    const t = p.alloc();
    const f = p.fc[t >>> CHUNK_BITS]!;
    const iv = p.ic[t >>> CHUNK_BITS]!;
    const fb = (t & CHUNK_MASK) * F_STRIDE;
    const ib = (t & CHUNK_MASK) * I_STRIDE;
    iv[ib + I_MARKET] = market;
    iv[ib + I_TRADER] = trader;
    iv[ib + I_FLAGS] =
      1 |
      (outcome << FL_OUTCOME) |
      (side << FL_SIDE) |
      (kind << FL_KIND) |
      (tif << FL_TIF) |
      (role << FL_ROLE) |
      (marketOrder ? 1 << FL_MARKET_ORDER : 0) |
      (expiry ? 1 << FL_EXPIRY : 0) |
      (level << FL_LEVEL);
    const qty = kind === KIND_BUY ? minSharesOut : maxShares;
    f[fb + F_QTY] = qty;
    f[fb + F_FILLED] = 0;
    f[fb + F_FEES] = 0;
    f[fb + F_MAX_FEE] = maxFee;
    p.setLimitValues(t, kind, maxShares, minSharesOut, maxCollateralIn, minCollateralOut);
    const c = p.cc[t >>> CHUNK_BITS]!;
    const cb = (t & CHUNK_MASK) * C_STRIDE;
    c[cb + C_EXPIRY] = expiry ?? 0;
    c[cb + C_CREATED] = nowMs;
    c[cb + C_UPDATED] = nowMs;
    // the reservation itself is implicit in the record (see ./order-pool.ts); the ledger's is not
    if (kind === KIND_SELL_INVENTORY) ledger.reserveTokens(pos, outcome, maxShares);
    else ledger.reserved[trader] = ledger.reserved[trader]! + maxCollateralIn;
    const id = p.idOf(t);
    if (this.sink) this.sink({ type: 'accepted', id, market, trader, side: side === 0 ? 'bid' : 'ask', bookPrice: level * cfg.tick, atMs: nowMs });

    // most adds do not cross: skip the matching loop for them
    const crosses = side === 0 ? level >= L.bestAsk : level <= L.bestBid;
    // The common add, a fresh GTC payer that does not cross, rests at once when its budget covers
    // its whole quantity at its own price. It is what settleTaker decides for it (its quantity is at
    // least minOrderSize ≥ minFillSize), without the call and the record reloads.
    if (!crosses && tif === 0 && role !== 2 && kind !== KIND_SELL_INVENTORY) {
      const a = legAmount(kind, price, qty);
      // the fee is at most maxFee (feeFor caps it by the room left), so a budget that covers the
      // leg plus the whole fee cap, as the SDK signs it, needs no fee arithmetic
      if (a + maxFee <= maxCollateralIn || a + feeFor(a, cfg.makerFeeBps, maxFee) <= maxCollateralIn) {
        L.push(p, t, side, level, qty);
        iv[ib + I_FLAGS] = (iv[ib + I_FLAGS]! & ~FL_ALIVE_MASK) | RESTING;
        if (this.sink) {
          this.markDirty(mk, side, level);
          this.flushLevels();
        }
        return { ok: true, id, status: 'open', filledShares: 0 };
      }
    }
    let status: OrderStatus;
    if (tif === 2 && !(crosses && this.match(t, nowMs, true))) {
      status = this.finish(t, 'voided', 'IOC_CLOSED', 'ioc', nowMs);
    } else {
      const blocked = crosses && this.match(t, nowMs, false) === false;
      status = this.settleTaker(t, blocked, nowMs);
    }
    const filledShares = status === 'open' ? f[fb + F_FILLED]! : this.lastFilled;
    if (this.sink) this.flushLevels();
    return { ok: true, id, status, filledShares };
  }

  /** filled shares of the last order `finish` released (its slot is free by then) */
  private lastFilled = 0;

  /** After matching: rest the taker, or finish it as filled or voided. */
  private settleTaker(t: number, blocked: boolean, nowMs: number): OrderStatus {
    const p = this.pool;
    const f = p.fc[t >>> CHUNK_BITS]!;
    const iv = p.ic[t >>> CHUNK_BITS]!;
    const fb = (t & CHUNK_MASK) * F_STRIDE;
    const ib = (t & CHUNK_MASK) * I_STRIDE;
    const mk = this.markets[iv[ib + I_MARKET]!]!;
    const fl = iv[ib + I_FLAGS]!;
    const rem = f[fb + F_QTY]! - f[fb + F_FILLED]!;
    if (rem === 0) return this.finish(t, 'filled', null, 'filled', nowMs);
    if (rem < mk.config.minFillSize) return this.finish(t, 'voided', 'BELOW_MIN_FILL_SIZE', 'min_fill', nowMs);
    if (((fl >> FL_TIF) & 3) !== 0 || ((fl >> FL_ROLE) & 3) === 2) {
      return this.finish(t, 'voided', (fl >> FL_MARKET_ORDER) & 1 ? 'UNFILLED_MARKET_ORDER' : 'IOC_CLOSED', 'ioc', nowMs);
    }
    if (blocked || !this.canFillAtOwnPrice(t, mk, this.ts)) return this.finish(t, 'voided', 'BELOW_MIN_FILL_SIZE', 'min_fill', nowMs);
    const side = (fl >> FL_SIDE) & 1;
    const lvl = fl >>> FL_LEVEL;
    mk.ladder.push(p, t, side, lvl, rem);
    iv[ib + I_FLAGS] = (fl & ~FL_ALIVE_MASK) | RESTING;
    this.markDirty(mk, side, lvl);
    return 'open';
  }

  /** Can the order still make a minimum fill at its own limit price under its signed limits? */
  private canFillAtOwnPrice(slot: number, mk: MarketState, scratchState: LimitState): boolean {
    const p = this.pool;
    const f = p.fc[slot >>> CHUNK_BITS]!;
    const fb = (slot & CHUNK_MASK) * F_STRIDE;
    const fl = p.flags(slot);
    const kind = (fl >> FL_KIND) & 3;
    const q = ownPrice((fl >> FL_OUTCOME) & 1, (fl >>> FL_LEVEL) * mk.config.tick);
    const filled = f[fb + F_FILLED]!;
    const rem = f[fb + F_QTY]! - filled;
    const bps = mk.config.makerFeeBps;
    // fast path for the usual payer whose budget left covers the whole remainder (no scratch
    // copy): `fillFits` for n = rem, which `fillCapacity` would try first (rem ≥ minFillSize here)
    if (kind !== KIND_SELL_INVENTORY) {
      const a = legAmount(kind, q, rem);
      if (a + feeFor(a, bps, f[fb + F_MAX_FEE]! - f[fb + F_FEES]!) <= f[fb + F_RESV]!) return true;
    }
    return fillCapacity(this.load(scratchState, slot), q, rem, bps) >= mk.config.minFillSize;
  }

  private load(s: LimitState, slot: number): LimitState {
    const p = this.pool;
    const f = p.fc[slot >>> CHUNK_BITS]!;
    const fb = (slot & CHUNK_MASK) * F_STRIDE;
    const kind = (p.flags(slot) >> FL_KIND) & 3;
    const fees = f[fb + F_FEES]!;
    const resv = f[fb + F_RESV]!;
    s.kind = kind;
    s.filled = f[fb + F_FILLED]!;
    s.fees = fees;
    s.maxFee = f[fb + F_MAX_FEE]!;
    s.maxShares = f[fb + F_QTY]!;
    // only the limits that bind the kind are read by the fill maths (fillFits)
    if (kind === KIND_SELL_INVENTORY) {
      s.paid = 0;
      s.received = resv;
      s.maxCollateralIn = 0;
      s.minCollateralOut = p.cc[slot >>> CHUNK_BITS]![(slot & CHUNK_MASK) * C_STRIDE + C_LIMIT]!;
    } else {
      // a payer's budget test `paid + fees + a + fee ≤ maxCollateralIn` from the hot record alone:
      // with the paid part counted from 0, the limit is what is still reserved plus the fees so
      // far (maxCollateralIn − paid − fees + fees): the same integers on both sides, the same answer
      s.paid = 0;
      s.received = 0;
      s.maxCollateralIn = resv + fees;
      s.minCollateralOut = 0;
    }
    return s;
  }

  /**
   * The matching loop of taker `t` against the opposite side, best level first, FIFO within a level.
   * `dry` walks the same path without changing anything (for FOK) and answers "fills entirely?".
   * A real run answers false when the taker's own limits stopped it while the book still crossed.
   * Nothing here allocates order slots, so the pool's views stay valid through the loop (the sink
   * must not call back into the engine).
   */
  private match(t: number, nowMs: number, dry: boolean): boolean {
    const p = this.pool;
    const fc = p.fc;
    const ic = p.ic;
    const tiv = ic[t >>> CHUNK_BITS]!;
    const tb = (t & CHUNK_MASK) * I_STRIDE;
    const fl = p.flags(t);
    const mk = this.markets[tiv[tb + I_MARKET]!]!;
    const L = mk.ladder;
    const cfg = mk.config;
    const tick = cfg.tick;
    const minFill = cfg.minFillSize;
    const side = (fl >> FL_SIDE) & 1;
    const opp = 1 - side;
    const limit = fl >>> FL_LEVEL;
    const trader = tiv[tb + I_TRADER]!;
    const qty = fc[t >>> CHUNK_BITS]![(t & CHUNK_MASK) * F_STRIDE + F_QTY]!;
    const tOut = (fl >> FL_OUTCOME) & 1;
    const ts = this.load(this.ts, t);
    const counts = L.count[opp];
    const heads = L.head[opp];
    let lvl = side === 0 ? L.bestAsk : L.bestBid;
    let blocked = false;
    outer: while (side === 0 ? lvl < L.top && lvl <= limit : lvl > 0 && lvl >= limit) {
      const x = lvl * tick;
      let m = heads[lvl]!;
      let mFl = m === NIL ? 0 : ic[m >>> CHUNK_BITS]![(m & CHUNK_MASK) * I_STRIDE + I_FLAGS]!;
      while (m !== NIL) {
        const f = fc[m >>> CHUNK_BITS]!;
        const iv = ic[m >>> CHUNK_BITS]!;
        const mb = (m & CHUNK_MASK) * I_STRIDE;
        const mfb = (m & CHUNK_MASK) * F_STRIDE;
        const next = iv[mb + I_NEXT]!;
        // Read ahead: at a large book the next maker's hot record is likely a cache miss; its slot
        // comes from this maker's links, so asking for it now overlaps that wait with this maker's
        // fill instead of starting it after. A resting order's flags do not change while it rests,
        // so the value read is the one used.
        const mfl = mFl;
        mFl = next === NIL ? 0 : ic[next >>> CHUNK_BITS]![(next & CHUNK_MASK) * I_STRIDE + I_FLAGS]!;
        // a lazily cancelled order (see ./price-ladder.ts): nothing to trade, its slot freed here
        if ((mfl & FL_ALIVE_MASK) === ALIVE_TOMB) {
          if (!dry) L.dropTomb(p, m, opp, lvl);
          m = next;
          continue;
        }
        // the expiry is in the cold record, read only for orders that have one
        if ((mfl >> FL_EXPIRY) & 1 && p.cc[m >>> CHUNK_BITS]![(m & CHUNK_MASK) * C_STRIDE + C_EXPIRY]! * 1000 <= nowMs) {
          if (!dry) this.finish(m, 'expired', null, 'expiry', nowMs);
          m = next;
          continue;
        }
        if (iv[mb + I_TRADER] === trader) {
          if (!dry) this.finish(m, 'cancelled', null, 'self_trade', nowMs);
          m = next;
          continue;
        }
        const n0 = Math.min(qty - ts.filled, f[mfb + F_QTY]! - f[mfb + F_FILLED]!);
        const qT = ownPrice(tOut, x);
        const nT = fillCapacity(ts, qT, n0, cfg.takerFeeBps);
        if (nT < minFill) {
          blocked = true;
          break outer;
        }
        const ms = this.load(this.ms, m);
        const n = fillCapacity(ms, ownPrice((mfl >> FL_OUTCOME) & 1, x), nT, cfg.makerFeeBps);
        // n < nT: the maker's own limits cut the fill, leaving it all but spent. A smaller fill can
        // break an inventory seller's pro-rata floor (rounding and the fee cap amortise worse), so
        // such a remainder the taker cannot take is voided rather than left crossing the book.
        if (n < minFill || (n < nT && !fillFits(ts, qT, n, cfg.takerFeeBps))) {
          if (!dry) this.finish(m, 'voided', 'BELOW_MIN_FILL_SIZE', 'min_fill', nowMs);
          m = next;
          continue;
        }
        const aT = legAmount(ts.kind, qT, n);
        const fT = feeFor(aT, cfg.takerFeeBps, ts.maxFee - ts.fees);
        ts.filled += n;
        if (ts.kind === KIND_SELL_INVENTORY) ts.received += aT;
        else ts.paid += aT;
        ts.fees += fT;
        if (!dry) this.execute(mk, m, t, lvl, n, aT, fT, nowMs);
        const rem = qty - ts.filled;
        if (rem === 0 || rem < minFill) break outer;
        m = next;
      }
      // next non-empty level (counts are live in a real run; a dry run skips what it visited)
      if (side === 0) {
        lvl++;
        while (lvl < L.top && counts[lvl] === 0) lvl++;
      } else {
        lvl--;
        while (lvl > 0 && counts[lvl] === 0) lvl--;
      }
    }
    if (dry) return ts.filled === qty;
    return !blocked;
  }

  /** Book one fill of `n` shares at level `lvl` between maker `m` and taker `t`. */
  private execute(mk: MarketState, m: number, t: number, lvl: number, n: number, aT: number, fT: number, nowMs: number): void {
    const p = this.pool;
    const f = p.fc[m >>> CHUNK_BITS]!;
    const iv = p.ic[m >>> CHUNK_BITS]!;
    const mfb = (m & CHUNK_MASK) * F_STRIDE;
    const mb = (m & CHUNK_MASK) * I_STRIDE;
    const cfg = mk.config;
    const x = lvl * cfg.tick;
    const flM = p.flags(m);
    const flT = p.flags(t);
    const kM = (flM >> FL_KIND) & 3;
    const kT = (flT >> FL_KIND) & 3;
    const aM = legAmount(kM, ownPrice((flM >> FL_OUTCOME) & 1, x), n);
    const fM = feeFor(aM, cfg.makerFeeBps, f[mfb + F_MAX_FEE]! - f[mfb + F_FEES]!);
    const cdM = this.settleParty(m, n, aM, fM, nowMs);
    const cdT = this.settleParty(t, n, aT, fT, nowMs);

    // token supply: both gain tokens → a complete set is minted; both give tokens → one is merged
    const gainM = kM !== KIND_SELL_INVENTORY;
    const gainT = kT !== KIND_SELL_INVENTORY;
    let match: MatchKind = 'transfer';
    let locked = 0;
    if (gainM && gainT) {
      match = 'mint';
      locked = n;
    } else if (!gainM && !gainT) {
      match = 'merge';
      locked = -n;
    }
    mk.backing += locked;
    mk.supplyYes += locked;
    mk.supplyNo += locked;
    // what payers put in minus what receivers took out, beyond the sets locked: rounding dust
    const dust = -(cdM + fM) - (cdT + fT) - locked;
    this.ledger.fee += dust + fM + fT;
    mk.lastPrice = x;
    mk.volume += n;

    const makerSide = (flM >> FL_SIDE) & 1;
    mk.ladder.reduce(makerSide, lvl, n);
    this.markDirty(mk, makerSide, lvl);

    if (this.sink) {
      this.sink({
        type: 'fill',
        market: iv[mb + I_MARKET]!,
        price: x,
        size: n,
        match,
        takerSide: ((flT >> FL_SIDE) & 1) === 0 ? 'bid' : 'ask',
        maker: this.party(m, n, cdM, fM),
        taker: this.party(t, n, cdT, fT),
        dust,
        atMs: nowMs,
      });
    }
    const mRem = f[mfb + F_QTY]! - f[mfb + F_FILLED]!;
    if (mRem === 0) this.finish(m, 'filled', null, 'filled', nowMs);
    // a maker left unable to make a minimum fill at its own price would sit in the book forever
    else if (mRem < cfg.minFillSize || !this.canFillAtOwnPrice(m, mk, this.ms)) {
      this.finish(m, 'voided', 'BELOW_MIN_FILL_SIZE', 'min_fill', nowMs);
    }
  }

  /** Apply one party's side of a fill to its order and balances; returns its collateral change. */
  private settleParty(slot: number, n: number, a: number, fee: number, nowMs: number): number {
    const p = this.pool;
    const f = p.fc[slot >>> CHUNK_BITS]!;
    const iv = p.ic[slot >>> CHUNK_BITS]!;
    const l = this.ledger;
    const fb = (slot & CHUNK_MASK) * F_STRIDE;
    const ib = (slot & CHUNK_MASK) * I_STRIDE;
    const trader = iv[ib + I_TRADER]!;
    const fl = p.flags(slot);
    const kind = (fl >> FL_KIND) & 3;
    const out = (fl >> FL_OUTCOME) & 1;
    const pos = l.positionIndex(trader, iv[ib + I_MARKET]!);
    f[fb + F_FILLED] = f[fb + F_FILLED]! + n;
    f[fb + F_FEES] = f[fb + F_FEES]! + fee;
    // a store into the cold record: it does not hold up the fill as a load would
    p.cc[slot >>> CHUNK_BITS]![(slot & CHUNK_MASK) * C_STRIDE + C_UPDATED] = nowMs;
    // the order's own reservation (F_RESV, or filled shares for a seller) and the ledger's shrink
    if (kind === KIND_SELL_INVENTORY) {
      f[fb + F_RESV] = f[fb + F_RESV]! + a;
      l.addTokens(pos, out, -n);
      l.reserveTokens(pos, out, -n);
      l.collateral[trader] = l.collateral[trader]! + a - fee;
      return a - fee;
    }
    const cost = a + fee;
    f[fb + F_RESV] = f[fb + F_RESV]! - cost;
    l.reserved[trader] = l.reserved[trader]! - cost;
    l.collateral[trader] = l.collateral[trader]! - cost;
    l.addTokens(pos, kind === KIND_BUY ? out : 1 - out, n);
    return -cost;
  }

  private party(slot: number, n: number, cd: number, fee: number) {
    const p = this.pool;
    const iv = p.ic[slot >>> CHUNK_BITS]!;
    const ib = (slot & CHUNK_MASK) * I_STRIDE;
    const fl = p.flags(slot);
    const kind = (fl >> FL_KIND) & 3;
    const out = (fl >> FL_OUTCOME) & 1;
    // tokens gained (BUY: its outcome; SELL_NO_INVENTORY: the other) or given (SELL_INVENTORY)
    const tokOut = kind === KIND_BUY ? out : kind === KIND_SELL_INVENTORY ? out : 1 - out;
    const d = kind === KIND_SELL_INVENTORY ? -n : n;
    return {
      id: p.idOf(slot),
      trader: iv[ib + I_TRADER]!,
      outcome: out as OutcomeIndex,
      kind: kind as 0 | 1 | 2,
      collateralDelta: cd,
      fee,
      yesDelta: tokOut === 1 ? d : 0,
      noDelta: tokOut === 0 ? d : 0,
    };
  }

  /**
   * End an order: release what it still reserves, tell the sink, unlink it and free the slot. With
   * `lazy` (outside any queue walk only), a resting order is left linked as a tombstone instead,
   * to be freed by the next walker of its queue (see ./price-ladder.ts).
   */
  private finish(slot: number, status: FinalStatus, reason: VoidReason | null, cause: DoneCause, nowMs: number, lazy = false): FinalStatus {
    const p = this.pool;
    const f = p.fc[slot >>> CHUNK_BITS]!;
    const iv = p.ic[slot >>> CHUNK_BITS]!;
    const l = this.ledger;
    const fb = (slot & CHUNK_MASK) * F_STRIDE;
    const ib = (slot & CHUNK_MASK) * I_STRIDE;
    // flags come from the slot's link entry; everything else a cancel needs is in the record
    const fl = p.flags(slot);
    const trader = iv[ib + I_TRADER]!;
    const filled = f[fb + F_FILLED]!;
    if (((fl >> FL_KIND) & 3) === KIND_SELL_INVENTORY) {
      const r = f[fb + F_QTY]! - filled;
      l.reserveTokens(l.positionIndex(trader, iv[ib + I_MARKET]!), (fl >> FL_OUTCOME) & 1, -r);
    } else {
      l.reserved[trader] = l.reserved[trader]! - f[fb + F_RESV]!;
    }
    this.lastFilled = filled;
    if (this.sink) {
      // only the done event reads it: the slot is free afterwards
      p.cc[slot >>> CHUNK_BITS]![(slot & CHUNK_MASK) * C_STRIDE + C_UPDATED] = nowMs;
      this.sink({
        type: 'done',
        id: p.idOf(slot),
        status,
        voidReason: reason,
        cause,
        order: this.doneOrders ? this.state(slot, status, reason) : null,
        atMs: nowMs,
      });
    }
    // the queue last: burying may free this slot (and its level's other tombstones) at once
    if ((fl & FL_ALIVE_MASK) === RESTING) {
      const mk = this.markets[iv[ib + I_MARKET]!]!;
      const side = (fl >> FL_SIDE) & 1;
      const lvl = fl >>> FL_LEVEL;
      this.markDirty(mk, side, lvl);
      if (lazy) {
        mk.ladder.bury(p, slot, side, lvl, f[fb + F_QTY]! - filled);
        return status;
      }
      mk.ladder.remove(p, slot, side, lvl, f[fb + F_QTY]! - filled);
    }
    p.free(slot);
    return status;
  }

  /**
   * What cancelling open order `id` would free: its trader's reserved collateral, or its reserved
   * outcome tokens (market, outcome). Undefined when no such open order. Changes nothing.
   */
  releaseOf(id: number): { trader: number; collateral: number; market: number; outcome: number; tokens: number } | undefined {
    const rs = this.pool.slotOf(id);
    if (rs === NIL) return undefined;
    const p = this.pool;
    const f = p.fc[rs >>> CHUNK_BITS]!;
    const iv = p.ic[rs >>> CHUNK_BITS]!;
    const fb = (rs & CHUNK_MASK) * F_STRIDE;
    const ib = (rs & CHUNK_MASK) * I_STRIDE;
    const fl = p.flags(rs);
    const sellInv = ((fl >> FL_KIND) & 3) === KIND_SELL_INVENTORY;
    return {
      trader: iv[ib + I_TRADER]!,
      market: iv[ib + I_MARKET]!,
      outcome: (fl >> FL_OUTCOME) & 1,
      collateral: sellInv ? 0 : f[fb + F_RESV]!,
      tokens: sellInv ? f[fb + F_QTY]! - f[fb + F_FILLED]! : 0,
    };
  }

  /**
   * Would `submit(o)` be refused? Changes nothing. Runs every refusal check of submit: market and
   * trader, the order's fields, the reservation — with `adjust` added to what is available (what
   * cancels before it free, minus what earlier orders of the same call claim) — and the maker-only
   * cross check against the book as it is. An order that passes is accepted by a submit once those
   * cancels and orders are applied (it may still end voided by its time in force, as any accepted
   * order). For cancel-replace and bulk calls, which apply whole or not at all.
   */
  precheck(o: SubmitOrder, adjust: { collateral: number; tokens: number } = { collateral: 0, tokens: 0 }): Rejection | null {
    if (typeof o !== 'object' || o === null) return reject('BAD_INPUT', 'order', 'order must be an object');
    const mk = this.marketAt(o.market);
    if (!mk) return reject('UNKNOWN_MARKET', 'market', `no market ${String(o.market)}`);
    if (mk.status !== 'open') return reject('MARKET_NOT_OPEN', 'market', `market is ${mk.status}`);
    const trader = o.trader;
    if (!Number.isInteger(trader) || trader < 0 || trader >= this.ledger.traders) return reject('UNKNOWN_TRADER', 'trader', `no trader ${String(trader)}`);
    const bad = validateOrder(o, mk.config);
    if (bad) return bad;
    const ledger = this.ledger;
    if (o.kind === KIND_SELL_INVENTORY) {
      const pos = ledger.findPosition(trader, o.market);
      if ((pos < 0 ? 0 : ledger.availableTokens(pos, o.outcome)) + adjust.tokens < o.maxShares)
        return reject('UNDER_COLLATERALIZED', 'maxShares', 'not enough outcome tokens to reserve maxShares');
    } else if (ledger.available(trader) + adjust.collateral < o.maxCollateralIn) {
      return reject('UNDER_COLLATERALIZED', 'maxCollateralIn', 'not enough collateral to reserve maxCollateralIn');
    }
    const L = mk.ladder;
    const side = (o.outcome === 1) === (o.kind === KIND_BUY) ? 0 : 1;
    const level = Math.round((o.outcome === 1 ? o.price : ONE - o.price) * L.invTick);
    if ((o.makerRole ?? 0) === 1 && (side === 0 ? level >= L.bestAsk : level <= L.bestBid))
      return reject('WOULD_CROSS', 'makerRole', 'a maker-only order would take liquidity');
    return null;
  }

  cancel(id: number, nowMs: number): boolean {
    const slot = this.pool.slotOf(id);
    if (slot === NIL) return false;
    this.finish(slot, 'cancelled', null, 'cancel', nowMs, true);
    if (this.sink) this.flushLevels();
    return true;
  }

  cancelAll(trader: number, market: number | undefined, nowMs: number): number {
    const p = this.pool;
    let n = 0;
    for (let s = 0; s < p.used; s++) {
      const iv = p.ic[s >>> CHUNK_BITS]!;
      const ib = (s & CHUNK_MASK) * I_STRIDE;
      if (!isOpen(p.alive(s)) || iv[ib + I_TRADER] !== trader) continue;
      if (market !== undefined && iv[ib + I_MARKET] !== market) continue;
      this.finish(s, 'cancelled', null, 'cancel', nowMs, true);
      n++;
    }
    if (this.sink) this.flushLevels();
    return n;
  }

  voidOrder(id: number, reason: VoidReason, nowMs: number): boolean {
    const slot = this.pool.slotOf(id);
    if (slot === NIL) return false;
    this.finish(slot, 'voided', reason, 'void', nowMs, true);
    if (this.sink) this.flushLevels();
    return true;
  }

  expire(nowMs: number): number {
    if (!validNow(nowMs)) return 0; // NaN would compare as "past every expiry"
    const p = this.pool;
    let n = 0;
    for (let s = 0; s < p.used; s++) {
      const fl = p.flags(s);
      if (!isOpen(fl & FL_ALIVE_MASK) || ((fl >> FL_EXPIRY) & 1) === 0 || p.expiryOf(s) * 1000 > nowMs) continue;
      this.finish(s, 'expired', null, 'expiry', nowMs, true);
      n++;
    }
    if (this.sink) this.flushLevels();
    return n;
  }

  // ---------------------------------------------------------------- balances

  deposit(trader: number, amount: bigint): CommandResult {
    const bad = this.checkTrader(trader, 'trader') ?? checkAmount(amount, 'amount');
    if (bad) return bad;
    const a = Number(amount);
    if (this.ledger.total + a > MAX) return reject('LIMIT_OVERFLOW', 'amount', 'total collateral would exceed 2^53 units');
    this.ledger.collateral[trader] = this.ledger.collateral[trader]! + a;
    this.ledger.total += a;
    return { ok: true };
  }

  withdraw(trader: number, amount: bigint): CommandResult {
    const bad = this.checkTrader(trader, 'trader') ?? checkAmount(amount, 'amount');
    if (bad) return bad;
    const a = Number(amount);
    if (this.ledger.available(trader) < a) return reject('INSUFFICIENT_BALANCE', 'amount', 'withdrawal above available collateral');
    this.ledger.collateral[trader] = this.ledger.collateral[trader]! - a;
    this.ledger.total -= a;
    return { ok: true };
  }

  mintSets(trader: number, market: number, amount: bigint): CommandResult {
    const bad = this.checkTrader(trader, 'trader') ?? this.checkUnresolved(market) ?? checkAmount(amount, 'amount');
    if (bad) return bad;
    const n = Number(amount);
    const l = this.ledger;
    if (l.available(trader) < n) return reject('INSUFFICIENT_BALANCE', 'amount', 'not enough available collateral to mint');
    this.moveSets(trader, market, l.positionIndex(trader, market), n);
    return { ok: true };
  }

  mergeSets(trader: number, market: number, amount: bigint): CommandResult {
    const bad = this.checkTrader(trader, 'trader') ?? this.checkUnresolved(market) ?? checkAmount(amount, 'amount');
    if (bad) return bad;
    const n = Number(amount);
    const l = this.ledger;
    const pos = l.findPosition(trader, market);
    if (pos < 0 || l.availableTokens(pos, 1) < n || l.availableTokens(pos, 0) < n) {
      return reject('INSUFFICIENT_BALANCE', 'amount', 'not enough available YES and NO tokens to merge');
    }
    this.moveSets(trader, market, pos, -n);
    return { ok: true };
  }

  /** Mint (d > 0) or merge (d < 0) |d| complete sets at a position: d collateral into one YES and one NO token each. */
  private moveSets(trader: number, market: number, pos: number, d: number): void {
    const l = this.ledger;
    l.collateral[trader] = l.collateral[trader]! - d;
    l.addTokens(pos, 1, d);
    l.addTokens(pos, 0, d);
    const mk = this.markets[market]!;
    mk.backing += d;
    mk.supplyYes += d;
    mk.supplyNo += d;
  }

  transferTokens(from: number, to: number, market: number, outcome: OutcomeIndex, amount: bigint): CommandResult {
    const bad = this.checkTrader(from, 'from') ?? this.checkTrader(to, 'to') ?? this.checkMarket(market) ?? checkAmount(amount, 'amount');
    if (bad) return bad;
    if (outcome !== 0 && outcome !== 1) return reject('BAD_INPUT', 'outcome', 'outcome must be 0 or 1');
    const n = Number(amount);
    const l = this.ledger;
    const src = l.findPosition(from, market);
    if (src < 0 || l.availableTokens(src, outcome) < n) return reject('INSUFFICIENT_BALANCE', 'amount', 'not enough available tokens');
    l.addTokens(src, outcome, -n);
    l.addTokens(l.positionIndex(to, market), outcome, n);
    return { ok: true };
  }

  resolve(market: number, payoutYes: number, nowMs: number): CommandResult {
    const bad = this.checkUnresolved(market);
    if (bad) return bad;
    if (!Number.isSafeInteger(payoutYes) || payoutYes < 0 || payoutYes > ONE) {
      return reject('BAD_INPUT', 'payoutYes', 'payoutYes must be an integer within [0, 1e6]');
    }
    const p = this.pool;
    for (let s = 0; s < p.used; s++) {
      if (isOpen(p.alive(s)) && p.ic[s >>> CHUNK_BITS]![(s & CHUNK_MASK) * I_STRIDE + I_MARKET] === market) {
        this.finish(s, 'voided', 'MARKET_RESOLVED', 'resolution', nowMs, true);
      }
    }
    const mk = this.markets[market]!;
    mk.status = 'resolved';
    mk.payoutYes = payoutYes;
    if (this.sink) {
      this.flushLevels();
      this.sink({ type: 'resolved', market, payoutYes, payoutNo: ONE - payoutYes, atMs: nowMs });
    }
    return { ok: true };
  }

  claim(trader: number, market: number): { ok: true; paid: bigint } | Rejection {
    const bad = this.checkTrader(trader, 'trader') ?? this.checkMarket(market);
    if (bad) return bad;
    const mk = this.markets[market]!;
    if (mk.status !== 'resolved' || mk.payoutYes === null) return reject('MARKET_NOT_RESOLVED', 'market', 'market is not resolved');
    const l = this.ledger;
    const pos = l.findPosition(trader, market);
    if (pos < 0) return { ok: true, paid: 0n };
    const yes = l.yes[pos]!;
    const no = l.no[pos]!;
    const paid = claimPayout(yes, no, mk.payoutYes);
    l.yes[pos] = 0;
    l.no[pos] = 0;
    l.collateral[trader] = l.collateral[trader]! + paid;
    mk.backing -= paid;
    mk.supplyYes -= yes;
    mk.supplyNo -= no;
    return { ok: true, paid: BigInt(paid) };
  }

  apply(cmd: EngineCommand): SubmitResult | CommandResult | { ok: true; count: number } | { ok: true; paid: bigint } {
    if (typeof cmd !== 'object' || cmd === null) return reject('BAD_INPUT', 'command', 'command must be an object');
    if ('nowMs' in cmd && !validNow(cmd.nowMs)) return reject('BAD_INPUT', 'nowMs', 'nowMs must be a finite non-negative number');
    switch (cmd.type) {
      case 'submit':
        return this.submit(cmd.order);
      case 'cancel':
        return this.cancel(cmd.id, cmd.nowMs) ? { ok: true } : reject('UNKNOWN_ORDER', 'id', 'no open order with that id');
      case 'cancelAll':
        return { ok: true, count: this.cancelAll(cmd.trader, cmd.market, cmd.nowMs) };
      case 'void':
        return this.voidOrder(cmd.id, cmd.reason, cmd.nowMs) ? { ok: true } : reject('UNKNOWN_ORDER', 'id', 'no open order with that id');
      case 'expire':
        return { ok: true, count: this.expire(cmd.nowMs) };
      case 'deposit':
        return this.deposit(cmd.trader, cmd.amount);
      case 'withdraw':
        return this.withdraw(cmd.trader, cmd.amount);
      case 'mintSets':
        return this.mintSets(cmd.trader, cmd.market, cmd.amount);
      case 'mergeSets':
        return this.mergeSets(cmd.trader, cmd.market, cmd.amount);
      case 'transferTokens':
        return this.transferTokens(cmd.from, cmd.to, cmd.market, cmd.outcome, cmd.amount);
      case 'resolve':
        return this.resolve(cmd.market, cmd.payoutYes, cmd.nowMs);
      case 'claim':
        return this.claim(cmd.trader, cmd.market);
      default:
        return reject('BAD_INPUT', 'type', 'unknown command type');
    }
  }

  // ---------------------------------------------------------------- queries

  order(id: number): OrderState | undefined {
    const slot = this.pool.slotOf(id);
    return slot === NIL ? undefined : this.state(slot, 'open', null);
  }

  openOrders(filter: { trader?: number; market?: number } = {}): OrderState[] {
    const p = this.pool;
    const out: OrderState[] = [];
    for (let s = 0; s < p.used; s++) {
      if (p.alive(s) !== RESTING) continue;
      const iv = p.ic[s >>> CHUNK_BITS]!;
      const ib = (s & CHUNK_MASK) * I_STRIDE;
      if (filter.trader !== undefined && iv[ib + I_TRADER] !== filter.trader) continue;
      if (filter.market !== undefined && iv[ib + I_MARKET] !== filter.market) continue;
      out.push(this.state(s, 'open', null));
    }
    return out;
  }

  book(market: number, depth = Infinity): BookView {
    const mk = this.marketAt(market);
    if (!mk) return { market, bids: [], asks: [] };
    const L = mk.ladder;
    const bids: BookLevelView[] = [];
    const asks: BookLevelView[] = [];
    for (let l = L.bestBid; l > 0 && bids.length < depth; l--) {
      if (L.count[0][l]! > 0) bids.push({ price: l * L.tick, size: L.size[0][l]!, orders: L.count[0][l]! });
    }
    for (let l = L.bestAsk; l < L.top && asks.length < depth; l++) {
      if (L.count[1][l]! > 0) asks.push({ price: l * L.tick, size: L.size[1][l]!, orders: L.count[1][l]! });
    }
    return { market, bids, asks };
  }

  bestBid(market: number): number {
    const L = this.marketAt(market)?.ladder;
    return L ? L.bestBid * L.tick : 0;
  }

  bestAsk(market: number): number {
    const L = this.marketAt(market)?.ladder;
    return L && L.bestAsk < L.top ? L.bestAsk * L.tick : 0;
  }

  balance(trader: number): Balance {
    const l = this.ledger;
    if (!Number.isInteger(trader) || trader < 0 || trader >= l.traders) return { collateral: 0n, reserved: 0n, available: 0n };
    const c = l.collateral[trader]!;
    const r = l.reserved[trader]!;
    return { collateral: BigInt(c), reserved: BigInt(r), available: BigInt(c - r) };
  }

  position(trader: number, market: number): Position {
    const pos = this.ledger.findPosition(trader, market);
    if (pos < 0) return { market, yes: 0n, no: 0n, yesReserved: 0n, noReserved: 0n, claimable: 0n };
    return this.positionAt(pos);
  }

  positions(trader: number): Position[] {
    if (!Number.isInteger(trader) || trader < 0 || trader >= this.ledger.traders) return [];
    const list = this.ledger.byTrader[trader]!;
    return list.map((pos) => this.positionAt(pos));
  }

  /**
   * Order slots in use: open orders and tombstones (lazily cancelled orders not yet freed). Slots
   * per open order is the memory overhead of lazy cancels.
   */
  slotStats(): { slots: number; open: number; tombstones: number } {
    const slots = this.pool.live;
    let open = 0;
    for (const mk of this.markets) {
      const L = mk.ladder;
      for (let side = 0; side < 2; side++) for (let l = 0; l <= L.top; l++) open += L.count[side]![l]!;
    }
    return { slots, open, tombstones: slots - open };
  }

  feeBalance(): bigint {
    return BigInt(this.ledger.fee);
  }

  private positionAt(pos: number): Position {
    const l = this.ledger;
    const market = l.posMarket[pos]!;
    const mk = this.markets[market]!;
    const yes = l.yes[pos]!;
    const no = l.no[pos]!;
    return {
      market,
      yes: BigInt(yes),
      no: BigInt(no),
      yesReserved: BigInt(l.yesReserved[pos]!),
      noReserved: BigInt(l.noReserved[pos]!),
      claimable: mk.payoutYes === null ? 0n : BigInt(claimPayout(yes, no, mk.payoutYes)),
    };
  }

  private state(slot: number, status: OrderStatus, reason: VoidReason | null): OrderState {
    const p = this.pool;
    const f = p.fc[slot >>> CHUNK_BITS]!;
    const iv = p.ic[slot >>> CHUNK_BITS]!;
    const fb = (slot & CHUNK_MASK) * F_STRIDE;
    const ib = (slot & CHUNK_MASK) * I_STRIDE;
    const fl = p.flags(slot);
    const market = iv[ib + I_MARKET]!;
    const mk = this.markets[market]!;
    const kind = (fl >> FL_KIND) & 3;
    const qty = f[fb + F_QTY]!;
    const filled = f[fb + F_FILLED]!;
    const coll = p.collateralOf(slot);
    const lim = p.limitsOf(slot);
    const c = p.cc[slot >>> CHUNK_BITS]!;
    const cb = (slot & CHUNK_MASK) * C_STRIDE;
    return {
      id: p.idOf(slot),
      market,
      trader: iv[ib + I_TRADER]!,
      outcome: ((fl >> FL_OUTCOME) & 1) as OutcomeIndex,
      kind: kind as 0 | 1 | 2,
      price: ownPrice((fl >> FL_OUTCOME) & 1, (fl >>> FL_LEVEL) * mk.config.tick),
      side: ((fl >> FL_SIDE) & 1) === 0 ? 'bid' : 'ask',
      bookPrice: (fl >>> FL_LEVEL) * mk.config.tick,
      timeInForce: ((fl >> FL_TIF) & 3) as 0 | 1 | 2,
      makerRole: ((fl >> FL_ROLE) & 3) as 0 | 1 | 2,
      marketOrder: ((fl >> FL_MARKET_ORDER) & 1) === 1,
      quantity: qty,
      filledShares: filled,
      remainingShares: status === 'open' ? qty - filled : 0,
      collateralPaid: kind === KIND_SELL_INVENTORY ? 0 : coll,
      collateralReceived: kind === KIND_SELL_INVENTORY ? coll : 0,
      fees: f[fb + F_FEES]!,
      maxShares: lim.maxShares,
      minSharesOut: lim.minSharesOut,
      maxCollateralIn: lim.maxCollateralIn,
      minCollateralOut: lim.minCollateralOut,
      maxFee: f[fb + F_MAX_FEE]!,
      expiry: c[cb + C_EXPIRY]!,
      status,
      voidReason: reason,
      createdAtMs: c[cb + C_CREATED]!,
      updatedAtMs: c[cb + C_UPDATED]!,
    };
  }

  // ---------------------------------------------------------------- level events

  private markDirty(mk: MarketState, side: number, lvl: number): void {
    if (!this.sink || !this.levelEvents) return;
    const i = side * (mk.ladder.top + 1) + lvl;
    if (mk.dirty[i]) return;
    mk.dirty[i] = 1;
    this.dirtyList.push(mk.index, i);
  }

  private flushLevels(): void {
    const d = this.dirtyList;
    // (nothing to flush: `length = 0` on an empty list is still a call into the runtime)
    if (d.length === 0) return;
    const sink = this.sink;
    for (let k = 0; k < d.length; k += 2) {
      const market = d[k]!;
      const mk = this.markets[market]!;
      const i = d[k + 1]!;
      mk.dirty[i] = 0;
      const L = mk.ladder;
      const side = i > L.top ? 1 : 0;
      const lvl = side === 1 ? i - L.top - 1 : i;
      sink?.({ type: 'level', market, side: side === 0 ? 'bid' : 'ask', price: lvl * L.tick, size: L.size[side]![lvl]! });
    }
    d.length = 0;
  }

  // ---------------------------------------------------------------- checks

  private checkTrader(trader: number, field: string): Rejection | null {
    return Number.isInteger(trader) && trader >= 0 && trader < this.ledger.traders ? null : reject('UNKNOWN_TRADER', field, `no trader ${String(trader)}`);
  }

  /** The market at an index, or undefined for anything that is not a valid index. */
  private marketAt(m: number): MarketState | undefined {
    return Number.isInteger(m) && m >= 0 && m < this.markets.length ? this.markets[m] : undefined;
  }

  private checkMarket(market: number): Rejection | null {
    return this.marketAt(market) ? null : reject('UNKNOWN_MARKET', 'market', `no market ${String(market)}`);
  }

  private checkUnresolved(market: number): Rejection | null {
    const bad = this.checkMarket(market);
    if (bad) return bad;
    return this.markets[market]!.status === 'resolved' ? reject('MARKET_NOT_OPEN', 'market', 'market is resolved') : null;
  }

  checkInvariants(): string[] {
    return checkEngineInvariants(this.pool, this.ledger, this.markets);
  }
}

/** An order slot's alive state is an order (live or resting), not free and not a tombstone. */
function isOpen(alive: number): boolean {
  return alive !== 0 && alive !== ALIVE_TOMB;
}

function validNow(nowMs: unknown): boolean {
  return typeof nowMs === 'number' && Number.isFinite(nowMs) && nowMs >= 0;
}

function checkAmount(amount: bigint, field: string): Rejection | null {
  if (typeof amount !== 'bigint' || amount <= 0n) return reject('BAD_INPUT', field, `${field} must be a positive bigint`);
  if (amount > BigInt(MAX)) return reject('LIMIT_OVERFLOW', field, `${field} must be below 2^53`);
  return null;
}

/**
 * One small engine with a market, alive for the life of the module, so that the hidden classes
 * (maps) of an engine's objects never all die. V8 compiles the hot paths against the map each field
 * holds (the "field type", e.g. MarketState.config, MatchingEngine.ts) and embeds maps weakly in
 * optimised code; when the last engine is dropped and collected, those maps go too, and the next
 * engine's first stores generalise the fields ("code dependencies") or the GC clears the code
 * ("weak objects"), deoptimising submit, match, finish and the rest mid-run, to be compiled again
 * under load. Costs one 4096-slot chunk (384 KiB).
 */
const SHAPE_ANCHOR = new MatchingEngine({ capacity: 1 });
SHAPE_ANCHOR.addMarket();
