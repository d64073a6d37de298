/**
 * The matching engine (issue 3 §1): one YES-terms price-time book per binary market over a
 * struct-of-arrays order pool, with an exact integer ledger. Pure and deterministic: time only comes
 * in as `nowMs` arguments, events go to an optional synchronous sink.
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
import { Ledger } from './ledger.ts';
import type { MarketState } from './market-state.ts';
import { OrderPool } from './order-pool.ts';
import { PriceLadder } from './price-ladder.ts';
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
const validateOrder = vo.validateOrder;
type LimitState = fm.LimitState;

const NIL = -1;
const MAX = Number.MAX_SAFE_INTEGER;
const RESTING = 2;

type DoneCause = Extract<EngineEvent, { type: 'done' }>['cause'];
type FinalStatus = Exclude<OrderStatus, 'open'>;


function scratch(): LimitState {
  return { kind: 0, filled: 0, paid: 0, received: 0, fees: 0, maxFee: 0, maxCollateralIn: 0, minCollateralOut: 0, maxShares: 0 };
}

export interface MatchingEngineOptions {
  sink?: EventSink;
  /** initial order-pool capacity (it grows by doubling) */
  capacity?: number;
}

export class MatchingEngine implements Engine {
  private readonly pool: OrderPool;
  private readonly ledger = new Ledger();
  private readonly markets: MarketState[] = [];
  private sink: EventSink | null;
  private readonly dirtyList: number[] = [];
  private readonly ts = scratch();
  private readonly ms = scratch();

  constructor(opts: MatchingEngineOptions = {}) {
    this.pool = new OrderPool(opts.capacity ?? 1024);
    this.sink = opts.sink ?? null;
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
      backing: 0,
      supplyYes: 0,
      supplyNo: 0,
      payoutYes: null,
      lastPrice: null,
      volume: 0,
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
    const mk = this.marketAt(o.market);
    if (!mk) return reject('UNKNOWN_MARKET', 'market', `no market ${String(o.market)}`);
    if (mk.status !== 'open') return reject('MARKET_NOT_OPEN', 'market', `market is ${mk.status}`);
    if (!Number.isInteger(o.trader) || o.trader < 0 || o.trader >= this.ledger.traders) {
      return reject('UNKNOWN_TRADER', 'trader', `no trader ${String(o.trader)}`);
    }
    const cfg = mk.config;
    const bad = validateOrder(o, cfg);
    if (bad) return bad;

    const L = mk.ladder;
    const kind = o.kind;
    const side = (o.outcome === 1) === (kind === KIND_BUY) ? 0 : 1;
    const level = (o.outcome === 1 ? o.price : ONE - o.price) / cfg.tick;
    const ledger = this.ledger;
    let pos = -1;
    if (kind === KIND_SELL_INVENTORY) {
      pos = ledger.findPosition(o.trader, o.market);
      if (pos < 0 || ledger.availableTokens(pos, o.outcome) < o.maxShares) {
        return reject('UNDER_COLLATERALIZED', 'maxShares', 'not enough outcome tokens to reserve maxShares');
      }
    } else if (ledger.available(o.trader) < o.maxCollateralIn) {
      return reject('UNDER_COLLATERALIZED', 'maxCollateralIn', 'not enough collateral to reserve maxCollateralIn');
    }
    const role = o.makerRole ?? 0;
    if (role === 1 && (side === 0 ? level >= L.bestAsk : level <= L.bestBid)) {
      return reject('WOULD_CROSS', 'makerRole', 'a maker-only order would take liquidity');
    }

    const p = this.pool;
    const t = p.alloc();
    p.market[t] = o.market;
    p.trader[t] = o.trader;
    p.outcome[t] = o.outcome;
    p.kind[t] = kind;
    p.side[t] = side;
    p.tif[t] = o.timeInForce ?? 0;
    p.makerRole[t] = role;
    p.marketOrder[t] = o.marketOrder ? 1 : 0;
    p.price[t] = o.price;
    p.level[t] = level;
    const qty = kind === KIND_BUY ? o.minSharesOut : o.maxShares;
    p.qty[t] = qty;
    p.filled[t] = 0;
    p.paid[t] = 0;
    p.received[t] = 0;
    p.fees[t] = 0;
    p.maxFee[t] = o.maxFee;
    p.maxShares[t] = o.maxShares;
    p.minSharesOut[t] = o.minSharesOut;
    p.maxCollateralIn[t] = o.maxCollateralIn;
    p.minCollateralOut[t] = o.minCollateralOut;
    p.expiry[t] = o.expiry ?? 0;
    p.createdMs[t] = o.nowMs;
    p.updatedMs[t] = o.nowMs;
    if (kind === KIND_SELL_INVENTORY) {
      ledger.reserveTokens(pos, o.outcome, o.maxShares);
      p.reserved[t] = o.maxShares;
    } else {
      ledger.reserved[o.trader] = ledger.reserved[o.trader]! + o.maxCollateralIn;
      p.reserved[t] = o.maxCollateralIn;
    }
    const id = p.idOf(t);
    if (this.sink) this.sink({ type: 'accepted', id, market: o.market, trader: o.trader, side: side === 0 ? 'bid' : 'ask', bookPrice: level * cfg.tick, atMs: o.nowMs });

    const tif = p.tif[t]!;
    // most adds do not cross: skip the matching loop for them
    const crosses = side === 0 ? level >= L.bestAsk : level <= L.bestBid;
    let status: OrderStatus;
    if (tif === 2 && !(crosses && this.match(t, o.nowMs, true))) {
      status = this.finish(t, 'voided', 'IOC_CLOSED', 'ioc', o.nowMs);
    } else {
      const blocked = crosses && this.match(t, o.nowMs, false) === false;
      status = this.settleTaker(t, blocked, o.nowMs);
    }
    const filledShares = status === 'open' ? p.filled[t]! : this.lastFilled;
    if (this.sink) this.flushLevels();
    return { ok: true, id, status, filledShares };
  }

  /** filled shares of the last order `finish` released (its slot is free by then) */
  private lastFilled = 0;

  /** After matching: rest the taker, or finish it as filled or voided. */
  private settleTaker(t: number, blocked: boolean, nowMs: number): OrderStatus {
    const p = this.pool;
    const mk = this.markets[p.market[t]!]!;
    const rem = p.qty[t]! - p.filled[t]!;
    if (rem === 0) return this.finish(t, 'filled', null, 'filled', nowMs);
    if (rem < mk.config.minFillSize) return this.finish(t, 'voided', 'BELOW_MIN_FILL_SIZE', 'min_fill', nowMs);
    if (p.tif[t] !== 0 || p.makerRole[t] === 2) {
      return this.finish(t, 'voided', p.marketOrder[t] ? 'UNFILLED_MARKET_ORDER' : 'IOC_CLOSED', 'ioc', nowMs);
    }
    if (blocked || !this.canFillAtOwnPrice(t, mk, this.ts)) return this.finish(t, 'voided', 'BELOW_MIN_FILL_SIZE', 'min_fill', nowMs);
    const L = mk.ladder;
    const side = p.side[t]!;
    const lvl = p.level[t]!;
    L.push(p, t, side, lvl, rem);
    p.alive[t] = RESTING;
    this.markDirty(mk, side, lvl);
    return 'open';
  }

  /** Can the order still make a minimum fill at its own limit price under its signed limits? */
  private canFillAtOwnPrice(slot: number, mk: MarketState, scratchState: LimitState): boolean {
    const p = this.pool;
    const q = p.price[slot]!;
    const rem = p.qty[slot]! - p.filled[slot]!;
    const bps = mk.config.makerFeeBps;
    // fast path for the usual fresh payer whose budget covers the whole quantity (no scratch copy)
    if (p.filled[slot] === 0 && p.kind[slot] !== KIND_SELL_INVENTORY) {
      const a = legAmount(p.kind[slot]!, q, rem);
      if (a + feeFor(a, bps, p.maxFee[slot]!) <= p.maxCollateralIn[slot]!) return true;
    }
    return fillCapacity(this.load(scratchState, slot), q, rem, bps) >= mk.config.minFillSize;
  }

  private load(s: LimitState, slot: number): LimitState {
    const p = this.pool;
    s.kind = p.kind[slot]!;
    s.filled = p.filled[slot]!;
    s.paid = p.paid[slot]!;
    s.received = p.received[slot]!;
    s.fees = p.fees[slot]!;
    s.maxFee = p.maxFee[slot]!;
    s.maxCollateralIn = p.maxCollateralIn[slot]!;
    s.minCollateralOut = p.minCollateralOut[slot]!;
    s.maxShares = p.maxShares[slot]!;
    return s;
  }

  /**
   * The matching loop of taker `t` against the opposite side, best level first, FIFO within a level.
   * `dry` walks the same path without changing anything (for FOK) and answers "fills entirely?".
   * A real run answers false when the taker's own limits stopped it while the book still crossed.
   */
  private match(t: number, nowMs: number, dry: boolean): boolean {
    const p = this.pool;
    const mk = this.markets[p.market[t]!]!;
    const L = mk.ladder;
    const cfg = mk.config;
    const tick = cfg.tick;
    const minFill = cfg.minFillSize;
    const side = p.side[t]!;
    const opp = 1 - side;
    const limit = p.level[t]!;
    const trader = p.trader[t]!;
    const qty = p.qty[t]!;
    const tOut = p.outcome[t]!;
    const ts = this.load(this.ts, t);
    const counts = L.count[opp];
    const heads = L.head[opp];
    let lvl = side === 0 ? L.bestAsk : L.bestBid;
    let blocked = false;
    outer: while (side === 0 ? lvl < L.top && lvl <= limit : lvl > 0 && lvl >= limit) {
      const x = lvl * tick;
      let m = heads[lvl]!;
      while (m !== NIL) {
        const next = p.next[m]!;
        if (p.expiry[m]! > 0 && p.expiry[m]! * 1000 <= nowMs) {
          if (!dry) this.finish(m, 'expired', null, 'expiry', nowMs);
          m = next;
          continue;
        }
        if (p.trader[m] === trader) {
          if (!dry) this.finish(m, 'cancelled', null, 'self_trade', nowMs);
          m = next;
          continue;
        }
        const n0 = Math.min(qty - ts.filled, p.qty[m]! - p.filled[m]!);
        const qT = ownPrice(tOut, x);
        const nT = fillCapacity(ts, qT, n0, cfg.takerFeeBps);
        if (nT < minFill) {
          blocked = true;
          break outer;
        }
        const ms = this.load(this.ms, m);
        const n = fillCapacity(ms, ownPrice(p.outcome[m]!, x), nT, cfg.makerFeeBps);
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
    const cfg = mk.config;
    const x = lvl * cfg.tick;
    const kM = p.kind[m]!;
    const kT = p.kind[t]!;
    const aM = legAmount(kM, ownPrice(p.outcome[m]!, x), n);
    const fM = feeFor(aM, cfg.makerFeeBps, p.maxFee[m]! - p.fees[m]!);
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

    const makerSide = p.side[m]!;
    mk.ladder.reduce(makerSide, lvl, n);
    this.markDirty(mk, makerSide, lvl);

    if (this.sink) {
      this.sink({
        type: 'fill',
        market: p.market[m]!,
        price: x,
        size: n,
        match,
        takerSide: p.side[t] === 0 ? 'bid' : 'ask',
        maker: this.party(m, n, cdM, fM),
        taker: this.party(t, n, cdT, fT),
        dust,
        atMs: nowMs,
      });
    }
    const mRem = p.qty[m]! - p.filled[m]!;
    if (mRem === 0) this.finish(m, 'filled', null, 'filled', nowMs);
    // a maker left unable to make a minimum fill at its own price would sit in the book forever
    else if (mRem < cfg.minFillSize || !this.canFillAtOwnPrice(m, mk, this.ms)) {
      this.finish(m, 'voided', 'BELOW_MIN_FILL_SIZE', 'min_fill', nowMs);
    }
  }

  /** Apply one party's side of a fill to its order and balances; returns its collateral change. */
  private settleParty(slot: number, n: number, a: number, fee: number, nowMs: number): number {
    const p = this.pool;
    const l = this.ledger;
    const trader = p.trader[slot]!;
    const kind = p.kind[slot]!;
    const out = p.outcome[slot]!;
    const pos = l.positionIndex(trader, p.market[slot]!);
    p.filled[slot] = p.filled[slot]! + n;
    p.fees[slot] = p.fees[slot]! + fee;
    p.updatedMs[slot] = nowMs;
    if (kind === KIND_SELL_INVENTORY) {
      p.received[slot] = p.received[slot]! + a;
      p.reserved[slot] = p.reserved[slot]! - n;
      l.addTokens(pos, out, -n);
      l.reserveTokens(pos, out, -n);
      l.collateral[trader] = l.collateral[trader]! + a - fee;
      return a - fee;
    }
    const cost = a + fee;
    p.paid[slot] = p.paid[slot]! + a;
    p.reserved[slot] = p.reserved[slot]! - cost;
    l.reserved[trader] = l.reserved[trader]! - cost;
    l.collateral[trader] = l.collateral[trader]! - cost;
    l.addTokens(pos, kind === KIND_BUY ? out : 1 - out, n);
    return -cost;
  }

  private party(slot: number, n: number, cd: number, fee: number) {
    const p = this.pool;
    const kind = p.kind[slot]!;
    const out = p.outcome[slot]!;
    // tokens gained (BUY: its outcome; SELL_NO_INVENTORY: the other) or given (SELL_INVENTORY)
    const tokOut = kind === KIND_BUY ? out : kind === KIND_SELL_INVENTORY ? out : 1 - out;
    const d = kind === KIND_SELL_INVENTORY ? -n : n;
    return {
      id: p.idOf(slot),
      trader: p.trader[slot]!,
      outcome: out as OutcomeIndex,
      kind: kind as 0 | 1 | 2,
      collateralDelta: cd,
      fee,
      yesDelta: tokOut === 1 ? d : 0,
      noDelta: tokOut === 0 ? d : 0,
    };
  }

  /** End an order: unlink it, release what it still reserves, tell the sink, free the slot. */
  private finish(slot: number, status: FinalStatus, reason: VoidReason | null, cause: DoneCause, nowMs: number): FinalStatus {
    const p = this.pool;
    const l = this.ledger;
    const mk = this.markets[p.market[slot]!]!;
    if (p.alive[slot] === RESTING) {
      const side = p.side[slot]!;
      const lvl = p.level[slot]!;
      mk.ladder.remove(p, slot, side, lvl, p.qty[slot]! - p.filled[slot]!);
      this.markDirty(mk, side, lvl);
    }
    const r = p.reserved[slot]!;
    if (p.kind[slot] === KIND_SELL_INVENTORY) {
      l.reserveTokens(l.positionIndex(p.trader[slot]!, p.market[slot]!), p.outcome[slot]!, -r);
    } else {
      l.reserved[p.trader[slot]!] = l.reserved[p.trader[slot]!]! - r;
    }
    p.reserved[slot] = 0;
    p.updatedMs[slot] = nowMs;
    this.lastFilled = p.filled[slot]!;
    if (this.sink) {
      this.sink({ type: 'done', id: p.idOf(slot), status, voidReason: reason, cause, order: this.state(slot, status, reason), atMs: nowMs });
    }
    p.free(slot);
    return status;
  }

  cancel(id: number, nowMs: number): boolean {
    const slot = this.pool.slotOf(id);
    if (slot === NIL) return false;
    this.finish(slot, 'cancelled', null, 'cancel', nowMs);
    if (this.sink) this.flushLevels();
    return true;
  }

  cancelAll(trader: number, market: number | undefined, nowMs: number): number {
    const p = this.pool;
    let n = 0;
    for (let s = 0; s < p.used; s++) {
      if (p.alive[s] === 0 || p.trader[s] !== trader) continue;
      if (market !== undefined && p.market[s] !== market) continue;
      this.finish(s, 'cancelled', null, 'cancel', nowMs);
      n++;
    }
    if (this.sink) this.flushLevels();
    return n;
  }

  voidOrder(id: number, reason: VoidReason, nowMs: number): boolean {
    const slot = this.pool.slotOf(id);
    if (slot === NIL) return false;
    this.finish(slot, 'voided', reason, 'void', nowMs);
    if (this.sink) this.flushLevels();
    return true;
  }

  expire(nowMs: number): number {
    if (!validNow(nowMs)) return 0; // NaN would compare as "past every expiry"
    const p = this.pool;
    let n = 0;
    for (let s = 0; s < p.used; s++) {
      if (p.alive[s] === 0 || p.expiry[s] === 0 || p.expiry[s]! * 1000 > nowMs) continue;
      this.finish(s, 'expired', null, 'expiry', nowMs);
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
    const pos = l.positionIndex(trader, market);
    l.collateral[trader] = l.collateral[trader]! - n;
    l.addTokens(pos, 1, n);
    l.addTokens(pos, 0, n);
    const mk = this.markets[market]!;
    mk.backing += n;
    mk.supplyYes += n;
    mk.supplyNo += n;
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
    l.addTokens(pos, 1, -n);
    l.addTokens(pos, 0, -n);
    l.collateral[trader] = l.collateral[trader]! + n;
    const mk = this.markets[market]!;
    mk.backing -= n;
    mk.supplyYes -= n;
    mk.supplyNo -= n;
    return { ok: true };
  }

  transferTokens(from: number, to: number, market: number, outcome: OutcomeIndex, amount: bigint): CommandResult {
    const bad =
      this.checkTrader(from, 'from') ?? this.checkTrader(to, 'to') ?? this.checkMarket(market) ?? checkAmount(amount, 'amount');
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
      if (p.alive[s] !== 0 && p.market[s] === market) this.finish(s, 'voided', 'MARKET_RESOLVED', 'resolution', nowMs);
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
      if (p.alive[s] !== RESTING) continue;
      if (filter.trader !== undefined && p.trader[s] !== filter.trader) continue;
      if (filter.market !== undefined && p.market[s] !== filter.market) continue;
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
    const mk = this.markets[p.market[slot]!]!;
    const qty = p.qty[slot]!;
    const filled = p.filled[slot]!;
    return {
      id: p.idOf(slot),
      market: p.market[slot]!,
      trader: p.trader[slot]!,
      outcome: p.outcome[slot] as OutcomeIndex,
      kind: p.kind[slot] as 0 | 1 | 2,
      price: p.price[slot]!,
      side: p.side[slot] === 0 ? 'bid' : 'ask',
      bookPrice: p.level[slot]! * mk.config.tick,
      timeInForce: p.tif[slot] as 0 | 1 | 2,
      makerRole: p.makerRole[slot] as 0 | 1 | 2,
      marketOrder: p.marketOrder[slot] === 1,
      quantity: qty,
      filledShares: filled,
      remainingShares: status === 'open' ? qty - filled : 0,
      collateralPaid: p.paid[slot]!,
      collateralReceived: p.received[slot]!,
      fees: p.fees[slot]!,
      maxShares: p.maxShares[slot]!,
      minSharesOut: p.minSharesOut[slot]!,
      maxCollateralIn: p.maxCollateralIn[slot]!,
      minCollateralOut: p.minCollateralOut[slot]!,
      maxFee: p.maxFee[slot]!,
      expiry: p.expiry[slot]!,
      status,
      voidReason: reason,
      createdAtMs: p.createdMs[slot]!,
      updatedAtMs: p.updatedMs[slot]!,
    };
  }

  // ---------------------------------------------------------------- level events

  private markDirty(mk: MarketState, side: number, lvl: number): void {
    if (!this.sink) return;
    const i = side * (mk.ladder.top + 1) + lvl;
    if (mk.dirty[i]) return;
    mk.dirty[i] = 1;
    this.dirtyList.push(mk.index, i);
  }

  private flushLevels(): void {
    const d = this.dirtyList;
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

function validNow(nowMs: unknown): boolean {
  return typeof nowMs === 'number' && Number.isFinite(nowMs) && nowMs >= 0;
}

function checkAmount(amount: bigint, field: string): Rejection | null {
  if (typeof amount !== 'bigint' || amount <= 0n) return reject('BAD_INPUT', field, `${field} must be a positive bigint`);
  if (amount > BigInt(MAX)) return reject('LIMIT_OVERFLOW', field, `${field} must be below 2^53`);
  return null;
}
