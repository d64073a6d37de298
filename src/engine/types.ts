/**
 * Public API of the matching engine. The engine is pure: no clock (time comes in as
 * `nowMs` arguments, order expiry is unix seconds), no I/O, deterministic for a given command stream.
 *
 * Identity: markets and traders are small engine-assigned integers (`addMarket`, `addTrader`); the
 * caller maps bytes32 market ids, addresses and (trader, nonce) / order hashes to them. Order ids are
 * engine-assigned opaque positive safe integers, unique for the engine's lifetime (never reused).
 *
 * Units (src/model/units.ts): prices in 1e-6 USDC per share, sizes in 1e-6 shares, per-order
 * amounts as safe-integer `number`s, balances as `bigint` at this API (plain numbers inside).
 *
 * Book: ONE book per market in YES terms. An order's `side` in that book:
 *   bid at p   = BUY YES @ p, SELL NO (kind 1 or 2) @ 1−p
 *   ask at p   = SELL YES (kind 1 or 2) @ p, BUY NO @ 1−p
 * Match price = the resting (maker) order's price. Per fill, each party's collateral is computed at
 * its own outcome's price q (YES: p, NO: 1−p): BUY pays ⌈q·n⌉, SELL_INVENTORY receives ⌊q·n⌋,
 * SELL_NO_INVENTORY pays ⌈(1−q)·n⌉ and receives n of the other outcome. Payers round up, receivers
 * down; the dust and all fees go to the venue fee account, so collateral is conserved exactly.
 */
import type { MakerRoleValue, OrderKindValue, OrderStatus, OutcomeIndex, TimeInForceValue, VoidReason } from '../model/order.ts';

export type MarketIndex = number;
export type TraderIndex = number;
export type OrderId = number;

/** A side of the YES-terms book. */
export type BookSide = 'bid' | 'ask';

/** How a fill changed the supply of outcome tokens. */
export type MatchKind = 'mint' | 'merge' | 'transfer';

export type MarketStatus = 'open' | 'halted' | 'resolved';

/** Per-market rules. Prices on the tick; sizes in 1e-6 shares; fees in basis points of collateral. */
export interface MarketConfig {
  /** price tick in 1e-6 units; must divide 1e6 and be ≥ 100 (default 10 000 = 1¢) */
  tick: number;
  /** smallest share quantity an order may carry (default 10 000 = 0.01 share) */
  minOrderSize: number;
  /**
   * smallest fill, in shares (default 10 000). Rule: an order never rests, or stays resting, with a
   * fillable remainder below this; such a remainder is voided BELOW_MIN_FILL_SIZE (the fills it
   * already had stand). Must be ≤ minOrderSize.
   */
  minFillSize: number;
  /** maker fee, bps of the maker's fill collateral (default 0) */
  makerFeeBps: number;
  /** taker fee, bps of the taker's fill collateral (default 50) */
  takerFeeBps: number;
}

export const DEFAULT_MARKET_CONFIG: Readonly<MarketConfig> = Object.freeze({
  tick: 10_000,
  minOrderSize: 10_000,
  minFillSize: 10_000,
  makerFeeBps: 0,
  takerFeeBps: 50,
});

/**
 * An order as the engine takes it: the signed Settlement V2 limits plus the body's limit price.
 * Share quantity: BUY → minSharesOut; SELL_INVENTORY and SELL_NO_INVENTORY → maxShares.
 * Limits enforced on every fill (fills are reduced, or the order voided, rather than break one):
 *   BUY:               filled ≤ minSharesOut; Σ collateral paid + Σ fees ≤ maxCollateralIn
 *   SELL_INVENTORY:    filled ≤ maxShares; Σ received − Σ fees ≥ ⌊minCollateralOut·filled/maxShares⌋
 *   SELL_NO_INVENTORY: filled ≤ maxShares; Σ collateral paid + Σ fees ≤ maxCollateralIn
 *   all:               Σ fees ≤ maxFee (the fee is capped, the fill is not reduced for it)
 * Reservation at entry (else rejected UNDER_COLLATERALIZED): BUY and SELL_NO_INVENTORY reserve
 * maxCollateralIn collateral; SELL_INVENTORY reserves maxShares tokens of `outcome`.
 */
export interface SubmitOrder {
  market: MarketIndex;
  trader: TraderIndex;
  outcome: OutcomeIndex;
  kind: OrderKindValue;
  /** limit price of `outcome` in 1e-6 units, on the market tick, within [tick, 1e6 − tick] */
  price: number;
  maxShares: number;
  minSharesOut: number;
  maxCollateralIn: number;
  minCollateralOut: number;
  maxFee: number;
  /** default GTC */
  timeInForce?: TimeInForceValue;
  /** default ANY. TAKER_ONLY behaves as IOC; MAKER_ONLY is rejected WOULD_CROSS when it crosses */
  makerRole?: MakerRoleValue;
  /** unix seconds; 0 or absent = never. Expired when expiry·1000 ≤ nowMs */
  expiry?: number;
  /** the body's clientOrderType "market": an unfilled remainder is voided UNFILLED_MARKET_ORDER */
  marketOrder?: boolean;
  nowMs: number;
}

/** Why a command was refused. Nothing changed in the engine when a command is refused. */
export type RejectCode =
  | 'BAD_INPUT' // a field is missing, not a safe integer, or out of its range (see `field`)
  | 'UNKNOWN_MARKET'
  | 'UNKNOWN_TRADER'
  | 'UNKNOWN_ORDER'
  | 'MARKET_NOT_OPEN' // halted or resolved
  | 'MARKET_NOT_RESOLVED' // claim before resolution
  | 'OFF_TICK'
  | 'PRICE_OUT_OF_RANGE'
  | 'BELOW_MIN_ORDER_SIZE'
  | 'UNDER_COLLATERALIZED' // reservation (collateral or tokens) not available
  | 'INSUFFICIENT_BALANCE' // withdraw / mint / merge / transfer beyond available
  | 'EXPIRED' // expiry already passed at entry
  | 'WOULD_CROSS' // MAKER_ONLY order that would take
  | 'LIMIT_OVERFLOW'; // an amount would leave the safe-integer range of the ledger

export interface Rejection {
  ok: false;
  code: RejectCode;
  /** the command field at fault (e.g. "price", "maxCollateralIn", "market") */
  field: string;
  message: string;
}

export type SubmitResult =
  | {
      ok: true;
      id: OrderId;
      /** status right after matching: 'open' if resting, otherwise final */
      status: OrderStatus;
      filledShares: number;
    }
  | Rejection;

export type CommandResult = { ok: true } | Rejection;

/** Per-order state (live orders via `order(id)`; final state in the `done` event). */
export interface OrderState {
  id: OrderId;
  market: MarketIndex;
  trader: TraderIndex;
  outcome: OutcomeIndex;
  kind: OrderKindValue;
  /** limit price of `outcome` */
  price: number;
  /** side and price in the YES-terms book */
  side: BookSide;
  bookPrice: number;
  timeInForce: TimeInForceValue;
  makerRole: MakerRoleValue;
  marketOrder: boolean;
  /** share quantity (minSharesOut for BUY, maxShares for sells) */
  quantity: number;
  filledShares: number;
  remainingShares: number;
  /** gross collateral paid (BUY, SELL_NO_INVENTORY), fees excluded */
  collateralPaid: number;
  /** gross collateral received (SELL_INVENTORY), fees not deducted */
  collateralReceived: number;
  fees: number;
  maxShares: number;
  minSharesOut: number;
  maxCollateralIn: number;
  minCollateralOut: number;
  maxFee: number;
  /** unix seconds, 0 = never */
  expiry: number;
  status: OrderStatus;
  voidReason: VoidReason | null;
  createdAtMs: number;
  updatedAtMs: number;
}

/** One party of a fill. Deltas are the exact changes to the trader's balances. */
export interface FillParty {
  id: OrderId;
  trader: TraderIndex;
  outcome: OutcomeIndex;
  kind: OrderKindValue;
  /** signed change of the trader's collateral, fee included */
  collateralDelta: number;
  fee: number;
  yesDelta: number;
  noDelta: number;
}

export type EngineEvent =
  | {
      type: 'accepted';
      id: OrderId;
      market: MarketIndex;
      trader: TraderIndex;
      side: BookSide;
      bookPrice: number;
      atMs: number;
    }
  | {
      type: 'fill';
      market: MarketIndex;
      /** YES-terms price (the maker's) */
      price: number;
      /** shares */
      size: number;
      match: MatchKind;
      /** the taker's side of the YES book: 'bid' = the taker bought YES exposure */
      takerSide: BookSide;
      maker: FillParty;
      taker: FillParty;
      /** collateral dust of this fill's rounding, credited to the fee account */
      dust: number;
      atMs: number;
    }
  | {
      type: 'done';
      id: OrderId;
      status: Exclude<OrderStatus, 'open'>;
      voidReason: VoidReason | null;
      /** why it was cancelled: by its owner, or because it would have traded with the owner */
      cause: 'filled' | 'cancel' | 'self_trade' | 'expiry' | 'void' | 'min_fill' | 'ioc' | 'resolution';
      /** the order's final state; null when the engine was made with `doneOrders: false` */
      order: OrderState | null;
      atMs: number;
    }
  | {
      /** new aggregate resting shares at a YES-terms level; 0 = removed. Coalesced per command. */
      type: 'level';
      market: MarketIndex;
      side: BookSide;
      price: number;
      size: number;
    }
  | { type: 'resolved'; market: MarketIndex; payoutYes: number; payoutNo: number; atMs: number };

export type EventSink = (e: EngineEvent) => void;

/** Commands as data, so generators (src/sim/agents) can return them and the server apply them. */
export type EngineCommand =
  | { type: 'submit'; order: SubmitOrder }
  | { type: 'cancel'; id: OrderId; nowMs: number }
  | { type: 'cancelAll'; trader: TraderIndex; market?: MarketIndex; nowMs: number }
  | { type: 'void'; id: OrderId; reason: VoidReason; nowMs: number }
  | { type: 'expire'; nowMs: number }
  | { type: 'deposit'; trader: TraderIndex; amount: bigint }
  | { type: 'withdraw'; trader: TraderIndex; amount: bigint }
  | { type: 'mintSets'; trader: TraderIndex; market: MarketIndex; amount: bigint }
  | { type: 'mergeSets'; trader: TraderIndex; market: MarketIndex; amount: bigint }
  | {
      type: 'transferTokens';
      from: TraderIndex;
      to: TraderIndex;
      market: MarketIndex;
      outcome: OutcomeIndex;
      amount: bigint;
    }
  | { type: 'resolve'; market: MarketIndex; payoutYes: number; nowMs: number }
  | { type: 'claim'; trader: TraderIndex; market: MarketIndex };

export interface BookLevelView {
  price: number;
  size: number;
  orders: number;
}

/** YES-terms book of one market, best level first. */
export interface BookView {
  market: MarketIndex;
  bids: BookLevelView[];
  asks: BookLevelView[];
}

export interface Balance {
  /** total collateral, reserved included */
  collateral: bigint;
  /** reserved by open BUY / SELL_NO_INVENTORY orders */
  reserved: bigint;
  available: bigint;
}

export interface Position {
  market: MarketIndex;
  yes: bigint;
  no: bigint;
  /** reserved by open SELL_INVENTORY orders */
  yesReserved: bigint;
  noReserved: bigint;
  /** after resolution: what `claim` would pay now */
  claimable: bigint;
}

export interface MarketInfo {
  market: MarketIndex;
  config: MarketConfig;
  status: MarketStatus;
  /** complete sets outstanding (= YES supply = NO supply before resolution) */
  setsOutstanding: bigint;
  /** after resolution: payout per share of YES and NO in 1e-6, summing to 1e6 */
  payoutYes: number | null;
  payoutNo: number | null;
  lastPrice: number | null;
  /** cumulative filled shares */
  volume: bigint;
}

/** The engine's query and command surface (implemented by `MatchingEngine` in ./matching-engine.ts). */
export interface Engine {
  addMarket(config?: Partial<MarketConfig>): MarketIndex;
  addTrader(): TraderIndex;
  market(market: MarketIndex): MarketInfo | undefined;
  setMarketStatus(market: MarketIndex, status: 'open' | 'halted'): CommandResult;

  submit(order: SubmitOrder): SubmitResult;
  cancel(id: OrderId, nowMs: number): boolean;
  cancelAll(trader: TraderIndex, market: MarketIndex | undefined, nowMs: number): number;
  voidOrder(id: OrderId, reason: VoidReason, nowMs: number): boolean;
  /** expire every order with expiry·1000 ≤ nowMs; returns how many */
  expire(nowMs: number): number;

  deposit(trader: TraderIndex, amount: bigint): CommandResult;
  withdraw(trader: TraderIndex, amount: bigint): CommandResult;
  mintSets(trader: TraderIndex, market: MarketIndex, amount: bigint): CommandResult;
  mergeSets(trader: TraderIndex, market: MarketIndex, amount: bigint): CommandResult;
  transferTokens(from: TraderIndex, to: TraderIndex, market: MarketIndex, outcome: OutcomeIndex, amount: bigint): CommandResult;
  resolve(market: MarketIndex, payoutYes: number, nowMs: number): CommandResult;
  /** pays ⌊yes·payoutYes/1e6⌋ + ⌊no·payoutNo/1e6⌋ and burns the tokens */
  claim(trader: TraderIndex, market: MarketIndex): { ok: true; paid: bigint } | Rejection;
  /** would submit(o) be refused, with `adjust` added to what is available? (changes nothing) */
  precheck(o: SubmitOrder, adjust?: { collateral: number; tokens: number }): Rejection | null;
  /** what cancelling an open order would free (changes nothing) */
  releaseOf(id: OrderId): { trader: number; collateral: number; market: number; outcome: number; tokens: number } | undefined;
  /** one entry point for commands as data */
  apply(cmd: EngineCommand): SubmitResult | CommandResult | { ok: true; count: number } | { ok: true; paid: bigint };

  order(id: OrderId): OrderState | undefined;
  openOrders(filter?: { trader?: TraderIndex; market?: MarketIndex }): OrderState[];
  book(market: MarketIndex, depth?: number): BookView;
  /** best YES bid / ask price, 0 when that side is empty */
  bestBid(market: MarketIndex): number;
  bestAsk(market: MarketIndex): number;
  balance(trader: TraderIndex): Balance;
  position(trader: TraderIndex, market: MarketIndex): Position;
  positions(trader: TraderIndex): Position[];
  feeBalance(): bigint;
  /** every broken invariant as a message; [] when all hold (for tests and the server's self-check) */
  checkInvariants(): string[];
}
