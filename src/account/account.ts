/**
 * The account's books: one entity, built from fills, that every PnL figure of the bot
 * reads (kill switch, /metrics, terminal summary, run report, `ledger summary|pnl`). See
 * docs/books-and-pnl.md for what each figure means.
 *
 *   const a = new Account();
 *   a.applyFill({ fillId, marketId, outcomeIndex, side, price, size, fee, feeSource, ts, origin })  // false: duplicate
 *   a.adoptBaseline([{ marketId, outcomeIndex, shares, mark }], markedAt)   // inherited holdings, cost = mark
 *   a.mark(marketId, mark2, at)            // twice the YES mid (the store's lastMid2)
 *   a.resolve(marketId, payoutYes, at) / a.claimed(marketId, at)
 *   a.reconcile(marketId, yes, no, at)     // a balance read: compared, never written into the books
 *   a.release(marketId)                    // the market left the store: folded once nothing is held
 *   a.figures() / a.market(id) / a.positions() / a.pnl()
 *
 * Exact: positions in 1e-6 shares, money kept scaled (price × size, 1e-12 USDC) as bigint inside
 * and shown in 1e-6 USDC, rounded toward −∞ per market (src/state/position.ts `toMicro`); the
 * account's figures are the sums of the markets' (so they add up to the unit).
 *
 * Order-independent: a market's fills are kept ordered by (venue time, fill id); a fill that lands
 * before one already applied re-computes that market from the start of its kept fills (rare: feeds
 * deliver in venue order almost always). Balance reads never touch a cost basis. Totals are kept
 * incrementally: a fill or a mark changes one market's contribution, so reading the account's PnL
 * costs O(1) whatever the number of markets.
 *
 * Memory is bounded per market: fills older than 15 minutes before the newest (by the fills' times,
 * beyond the newest 32), and beyond `window` fills the oldest half, are folded into a base state (a
 * fill older than the fold can no longer be re-ordered: it is applied at the end and counted in
 * `late`), and fill ids are remembered for 15 minutes (at least the newest 128, at most `idMemory`
 * per market) for de-duplication (the ledger's unique fill id is the durable guard).
 */
import type { Bytes32, OutcomeIndex } from '../model/order.ts';
import { IdMemory, KeptFills, type KeptFill } from './kept-fills.ts';
import { ONE, notionalCeil, notionalFloor } from '../model/units.ts';
import { FILL_ID_HORIZON_MS } from '../state/fill-ids.ts';
import {
  applyFill as applyToPosition,
  FLAT,
  realisedAtPayout,
  syncHoldings,
  toMicro,
  unrealisedScaled,
  type FillTerms,
  type PositionState,
} from '../state/position.ts';

export type FeeSource = 'venue' | 'model';
export type FillOrigin = 'own' | 'foreign';

/** A fill as the books take it: its terms (price, size and fee in 1e-6 units; FillTerms) and where it came from. */
export interface AccountFill extends FillTerms {
  /** the venue's identity of the fill (duplicates are ignored) */
  readonly fillId: string;
  readonly marketId: Bytes32;
  readonly feeSource: FeeSource;
  /** venue time, ms */
  readonly ts: number;
  /** placed by this bot, or by someone else trading the same wallet */
  readonly origin: FillOrigin;
}

export interface BaselineHolding {
  readonly marketId: Bytes32;
  readonly outcomeIndex: OutcomeIndex;
  /** 1e-6 shares held when the books began */
  readonly shares: number;
  /** the outcome's own price used as the cost, 1e-6 USDC */
  readonly mark: number;
}

/** Account figures, 1e-6 USDC (fills: a count; volume: traded notional, 1e-6 USDC). */
export interface AccountFigures {
  /** realised PnL net of fees, resolution PnL included */
  readonly realised: bigint;
  /** open positions at their marks */
  readonly unrealised: bigint;
  /** realised + unrealised */
  readonly total: bigint;
  readonly fees: bigint;
  /** net collateral from trading, fees and claimed payouts since the baseline */
  readonly cash: bigint;
  /** the latest mark that entered the figures, ms (null: never marked) */
  readonly markedAt: number | null;
  /** fills applied (duplicates excluded), released and folded markets included */
  readonly fills: number;
  /** traded notional, 1e-6 USDC: each market's figure rounded toward −∞ once, summed */
  readonly volume: bigint;
}

export interface MarketFigures extends AccountFigures {
  readonly marketId: Bytes32;
  /** tokens held, 1e-6 shares (0 once claimed) */
  readonly yes: number;
  readonly no: number;
  /** YES-terms net, 1e-6 shares */
  readonly net: number;
  readonly foreignFills: number;
  /** shares filled, 1e-6 */
  readonly shares: number;
  /**
   * which book of the market this is: a serial drawn when the books began it. A released market
   * folded away and begun again by a later fill has a new one (its figures start again from zero)
   */
  readonly book: number;
  readonly payoutYes: number | null;
  readonly claimed: boolean;
  /** twice the YES mark in force (null: none) */
  readonly mark2: number | null;
}

export interface Holding {
  readonly marketId: Bytes32;
  readonly outcomeIndex: OutcomeIndex;
  readonly shares: number;
}

/** A balance read that disagrees with the books. */
export interface Drift {
  readonly marketId: Bytes32;
  readonly outcomeIndex: OutcomeIndex;
  /** what the books hold, 1e-6 shares */
  readonly books: number;
  /** what the venue said */
  readonly venue: number;
  /** since when the books and the reads have disagreed, ms */
  readonly since: number;
}

/** A market's book out of its account (Account.detachBook), opaque: only attachBook and the snapshot read it. */
export type DetachedBook = { readonly __detachedBook: unique symbol };

export interface AccountOptions {
  /** fills kept per market for re-ordering (default ACCOUNT_WINDOW) */
  readonly window?: number;
  /** fill ids remembered per market for de-duplication (default ACCOUNT_ID_MEMORY) */
  readonly idMemory?: number;
}

/**
 * Fills a market's book keeps for re-ordering (between half of it and all of it: beyond, the older
 * half is folded), and fill ids it remembers for de-duplication: count caps, backstops now. Within
 * them a book keeps the fills and ids of the last FILL_ID_HORIZON_MS (15 min) by the fills' times
 * (src/state/fill-ids.ts), at least the newest KEPT_FILLS_FLOOR fills and FILL_IDS_KEPT ids (IdMemory
 * in ./kept-fills.ts): a duplicate comes within a re-read of a feed's recent window (600 s at most),
 * every path gives a market's fills in time order, and the ledger's unique fill id is the durable
 * guard (docs/performance.md, "Memory over a long run"). They were 4 096 and 16 384, then the counts
 * alone: the live heap's growth in soak-memory's second half, in the live books and again in the
 * ledger's books checkpoint copy (src/ledger/bot-ledger.ts checkpointResume), filling for hours.
 */
export const ACCOUNT_WINDOW = 256;
export const ACCOUNT_ID_MEMORY = 1024;
/** the newest fills a book keeps whatever their age (at most half its window) */
export const KEPT_FILLS_FLOOR = 32;

interface Base {
  readonly pos: PositionState;
  /** scaled */
  readonly cash: bigint;
  readonly foreign: number;
  /** shares filled, 1e-6 */
  readonly shares: number;
}

const NO_PNL = { realised: 0n, unrealised: 0n } as const;
/**
 * Released markets folded away whose book is kept, compact, for a fill that comes after the fold (the
 * newest this many): the fill continues the market's book, so its figures are the ones a replay of
 * every fill gives, to the unit (a book begun afresh would round its figures apart from the old one).
 */
const FOLDED_KEPT = 256;
const SCALE = 10n ** 6n;
/**
 * Dropped books whose remainders below 1e-6 USDC are kept (the newest this many, ~150 bytes each:
 * ~2.5 MB, and as much in the books checkpoint; at a market released every 30 s, the last 5-6 days).
 * Past it a late fill begins a new book from nothing: at most 1e-6 USDC per figure off a replay.
 */
const REMAINDERS_KEPT = 16_384;
/** fill ids a kept folded book remembers (a late duplicate of a recent fill is still recognised) */
const FOLDED_IDS = 32;
const ZERO_BASE: Base = { pos: FLAT, cash: 0n, foreign: 0, shares: 0 };
const SONE = BigInt(ONE);

/** The part of a scaled amount below 1e-6 USDC, as toMicro rounds it away (toward −∞): in [0, 1e6). */
function mod(scaled: bigint): bigint {
  const r = scaled % SCALE;
  return r < 0n ? r + SCALE : r;
}

/** Scaled collateral flow of one fill (+ received), before the fee: as the venue settles it. */
function cashOf(pos: PositionState, f: KeptFill): bigint {
  const n = f.notional;
  if (f.side === 0) return -BigInt(n ?? notionalCeil(f.price, f.size)) * SONE;
  // a sale without inventory (kind 2) mints every share it sells, whatever is held (as the venue settles it)
  const held = f.orderKind === 2 ? 0 : Math.max(0, f.outcomeIndex === 1 ? pos.yes : pos.no);
  const fromInventory = Math.min(held, f.size);
  if (n !== undefined) {
    // the stated collateral, shared pro rata; the minted shares pay the other side of their sets
    const fromInv = fromInventory === f.size ? n : Number((BigInt(n) * BigInt(fromInventory)) / BigInt(f.size));
    return BigInt(fromInv - (f.size - fromInventory - (n - fromInv))) * SONE;
  }
  let c = BigInt(notionalFloor(f.price, fromInventory));
  // the rest mints complete sets: it pays the other side of the set
  if (f.size > fromInventory) c -= BigInt(notionalCeil(ONE - f.price, f.size - fromInventory));
  return c * SONE;
}

function step(b: Base, f: KeptFill): Base {
  const cash = b.cash + cashOf(b.pos, f) - BigInt(f.fee) * SONE;
  return { pos: applyToPosition(b.pos, f), cash, foreign: b.foreign + (f.origin === 'foreign' ? 1 : 0), shares: b.shares + f.size };
}

/** A baseline holding enters as a buy at its mark, with no cash and no fee. */
function adopt(b: Base, h: BaselineHolding): Base {
  const pos = applyToPosition(b.pos, { outcomeIndex: h.outcomeIndex, side: 0, price: h.mark, size: h.shares, fee: 0 });
  return { pos: { ...pos, fills: b.pos.fills, volume: b.pos.volume }, cash: b.cash, foreign: b.foreign, shares: b.shares };
}

/**
 * A released market's book folded away (the newest FOLDED_KEPT an account): what a later fill needs to
 * continue the book, and what its figures read. Its base state (no kept fills, no baseline: folded into
 * it), its serial, marks, payout and claim, its contribution to the account's totals (the unrealised
 * part is 0: it folds only then, foldIfDone), and its last FOLDED_IDS fill ids with their times, packed
 * into one string (IdMemory.pack): ~0.6 KB with a few fills, ~2 KB with 32, where the MarketBook it was,
 * kept whole, held ~2.9 and ~4.4 KB (`npm run bench -- folded-books`). A plain record: the books
 * checkpoint carries it field by field (src/account/account-snapshot.ts). A later fill re-inflates it into
 * a MarketBook (Account.book: unfold) that goes on from its base state as the kept book did.
 */
interface FoldedBook {
  readonly serial: number;
  readonly state: Base;
  readonly mark2: number | null;
  readonly markedAt: number | null;
  readonly payoutYes: number | null;
  readonly claimed: boolean;
  readonly claimCash: bigint;
  readonly cRealised: bigint;
  readonly cFees: bigint;
  readonly cCash: bigint;
  readonly cFills: number;
  readonly cVolume: bigint;
  /** IdMemory.pack of its last FOLDED_IDS fill ids */
  readonly ids: string;
}

/** Realised PnL (resolution PnL included), scaled: at the payout once it is known. */
function realisedScaled(p: PositionState, payoutYes: number | null): bigint {
  return payoutYes !== null ? realisedAtPayout(p, payoutYes) : p.realised;
}

/** What a book's figures read (a MarketBook, or a folded one's record). */
interface BookFigureFields {
  readonly serial: number;
  readonly state: Base;
  readonly claimed: boolean;
  readonly cRealised: bigint;
  readonly cUnrealised?: bigint;
  readonly cCash: bigint;
  readonly cVolume: bigint;
  readonly markedAt: number | null;
  readonly payoutYes: number | null;
  readonly mark2: number | null;
}

class MarketBook {
  readonly marketId: Bytes32;
  /** MarketFigures.book */
  readonly serial: number;
  /** inherited holdings, applied before every fill */
  baseline: BaselineHolding[] = [];
  /** folded fills (beyond the window), applied after the baseline */
  folded: Base | null = null;
  /** kept fills, in (ts, fillId) order */
  readonly fills: KeptFills;
  ids: IdMemory;
  /**
   * a book that waits for its claim (compactIfTerminal): its last FOLDED_IDS fill ids packed into one
   * string (IdMemory.pack), `ids` empty meanwhile; a later fill unpacks them (Account.unpackIds). Null: none packed
   */
  packedIds: string | null = null;
  state: Base = ZERO_BASE;
  /**
   * what an earlier book of the market, dropped past FOLDED_KEPT, left below 1e-6 USDC of its realised
   * PnL and volume (scaled): this book goes on from it, so the two books' figures add up to the
   * ones a replay of every fill gives (each market's figure rounded once), to the unit
   */
  carry: Base = ZERO_BASE;
  mark2: number | null = null;
  markedAt: number | null = null;
  payoutYes: number | null = null;
  claimed = false;
  /** scaled collateral a claim paid */
  claimCash = 0n;
  released = false;
  /** the position with the holdings a claim redeemed taken out (built when asked) */
  claimedPos: PositionState | null = null;
  lastRead: { yes: number; no: number; at: number } | null = null;
  driftSince: number | null = null;
  /** the venue's holdings at the books' average cost, for the limits, while a drift has outlasted the grace */
  venueHeld: PositionState | null = null;
  /** this market's contribution to the account totals (1e-6 USDC), as last added */
  cRealised = 0n;
  cUnrealised = 0n;
  cFees = 0n;
  cCash = 0n;
  cFills = 0;
  cVolume = 0n;
  /** (cRealised, cUnrealised) as one object, built when asked */
  micro: { readonly realised: bigint; readonly unrealised: bigint } | null = null;

  /** `ids`: the fill ids it remembers already (a folded book's, unfolded), else none (`idMemory` at most) */
  constructor(marketId: Bytes32, serial: number, window: number, idMemory: number, ids?: IdMemory) {
    this.marketId = marketId;
    this.serial = serial;
    this.fills = new KeptFills(window + 1);
    this.ids = ids ?? new IdMemory(idMemory);
    // a kept fill's id is the memory's (kept once)
    this.fills.attach(this.ids);
  }

  start(): Base {
    if (this.folded) return this.folded;
    let b = this.carry;
    for (const h of this.baseline) b = adopt(b, h);
    return b;
  }

  recompute(): void {
    let b = this.start();
    const fills = this.fills;
    for (let i = 0; i < fills.length; i++) b = step(b, fills.at(i));
    this.state = b;
  }

  /** realised (resolution PnL included), unrealised, scaled */
  pnlScaled(): { realised: bigint; unrealised: bigint } {
    const p = this.state.pos;
    if (this.payoutYes !== null) return { realised: realisedScaled(p, this.payoutYes), unrealised: 0n };
    return { realised: p.realised, unrealised: this.mark2 === null ? 0n : unrealisedScaled(p, this.mark2) };
  }

  holdings(): { yes: number; no: number } {
    return this.claimed ? { yes: 0, no: 0 } : { yes: this.state.pos.yes, no: this.state.pos.no };
  }

  /** nothing held, nothing to claim */
  settled(): boolean {
    const h = this.holdings();
    return h.yes === 0 && h.no === 0;
  }
}

/**
 * The fields a book's figures carry from one record of it to another (unfold: from a folded book's record;
 * replaceBook: from the book it replaces): its serial, marks, payout and claim, and its contribution to the
 * account's totals (c*: the unrealised part aside, 0 in a folded record). One copy for both.
 */
function copyFigureFields(into: MarketBook, from: FoldedBook | MarketBook): void {
  (into as { serial: number }).serial = from.serial;
  into.mark2 = from.mark2;
  into.markedAt = from.markedAt;
  into.payoutYes = from.payoutYes;
  into.claimed = from.claimed;
  into.claimCash = from.claimCash;
  into.cRealised = from.cRealised;
  into.cFees = from.cFees;
  into.cCash = from.cCash;
  into.cFills = from.cFills;
  into.cVolume = from.cVolume;
}

export class Account {
  private readonly books = new Map<Bytes32, MarketBook>();
  /**
   * FOLDED_KEPT: released, settled markets out of `books`, oldest first, each as a compact record (a
   * field of its own name: a books checkpoint that held whole folded MarketBooks has another shape and
   * is not read, src/account/account-snapshot.ts)
   */
  private readonly foldedKept = new Map<Bytes32, FoldedBook>();
  /**
   * Markets dropped past FOLDED_KEPT whose realised PnL or volume left a part below 1e-6 USDC (what
   * their figures were rounded down by): `realised | volume << 20`, scaled, each below 1e6 (< 2^20).
   * A later fill begins a new book from it. Only non-zero remainders are kept, the newest
   * REMAINDERS_KEPT.
   */
  private readonly remainders = new Map<Bytes32, bigint>();
  private readonly window: number;
  private readonly idMemory: number;
  /**
   * Totals over every market, folded ones included, 1e-6 USDC: the sum of the markets' own figures,
   * so the per-market figures add up to the account's to the unit.
   */
  private realisedM = 0n;
  private unrealisedM = 0n;
  private feesM = 0n;
  private cashM = 0n;
  private fillsM = 0;
  private volumeM = 0n;
  /** books begun (MarketFigures.book) */
  private serials = 0;
  private markedAtMax: number | null = null;
  private cached: AccountFigures | null = null;
  /** realisedM + unrealisedM as pnl() last summed it (null: to sum again) */
  private total: bigint | null = null;
  private baselineAt: number | null = null;
  /** fills older than a market's folded history: applied at the end, not in venue order */
  late = 0;
  /** fills applied in total (duplicates excluded) */
  fillCount = 0;
  /** bumped whenever a position changes (a fill, a baseline, a claim, the limits' holdings): callers cache on it */
  version = 0;
  /**
   * How long a balance read may differ from the books before the limits use the venue's holdings
   * (limitHoldingsOf), ms; null: never (the books' own). The bot sets the health grace
   * (`health.notQuotingGraceSeconds`): the same moment the account state becomes books-drift.
   */
  driftGraceMs: number | null = null;

  constructor(o: AccountOptions = {}) {
    this.window = Math.max(16, o.window ?? ACCOUNT_WINDOW);
    this.idMemory = Math.max(this.window, o.idMemory ?? ACCOUNT_ID_MEMORY);
  }

  private book(marketId: Bytes32): MarketBook {
    let b = this.books.get(marketId);
    if (b === undefined) {
      // a market folded away comes back with its book (its contribution to the totals is still in them)
      const f = this.foldedKept.get(marketId);
      if (f !== undefined) {
        this.foldedKept.delete(marketId);
        b = this.unfold(marketId, f);
      } else {
        b = new MarketBook(marketId, ++this.serials, this.window, this.idMemory);
        const r = this.remainders.get(marketId);
        if (r !== undefined) {
          // its earlier book's parts below 1e-6 USDC: the new book's figures round as one with the old
          this.remainders.delete(marketId);
          b.carry = b.state = { pos: { ...FLAT, realised: r & 0xfffffn, volume: r >> 20n }, cash: 0n, foreign: 0, shares: 0 };
        }
      }
      this.books.set(marketId, b);
    }
    return b;
  }

  /**
   * A folded book's record as the MarketBook it was when it folded (foldIfDone): its base state, its
   * marks, payout, claim and contribution to the totals, released, remembering its packed fill ids and
   * the whole id memory again from now on.
   */
  private unfold(marketId: Bytes32, f: FoldedBook): MarketBook {
    const b = new MarketBook(marketId, f.serial, this.window, this.idMemory, IdMemory.unpack(this.idMemory, f.ids));
    b.folded = f.state;
    b.state = f.state;
    copyFigureFields(b, f);
    b.released = true;
    return b;
  }

  /** Bring the totals up to date with one market's state. */
  private refresh(b: MarketBook): void {
    const ps = b.pnlScaled();
    const realised = toMicro(ps.realised);
    const unrealised = toMicro(ps.unrealised);
    const fees = b.state.pos.fees;
    const cash = toMicro(b.state.cash + b.claimCash);
    const fills = b.state.pos.fills;
    const volume = toMicro(b.state.pos.volume);
    this.fillsM += fills - b.cFills;
    this.volumeM += volume - b.cVolume;
    b.cFills = fills;
    b.cVolume = volume;
    this.realisedM += realised - b.cRealised;
    this.unrealisedM += unrealised - b.cUnrealised;
    this.feesM += fees - b.cFees;
    this.cashM += cash - b.cCash;
    b.cRealised = realised;
    b.cUnrealised = unrealised;
    b.cFees = fees;
    b.cCash = cash;
    b.micro = null;
    this.cached = null;
    this.total = null;
  }

  /** Apply one fill; false when its fill id was seen already (nothing changes). */
  applyFill(f: AccountFill): boolean {
    let b = this.books.get(f.marketId);
    if (b === undefined) {
      // a duplicate of a folded book's recent fill: recognised on its record, which stays folded
      const r = this.foldedKept.get(f.marketId);
      if (r !== undefined && IdMemory.packedHas(r.ids, f.fillId)) return false;
      b = this.book(f.marketId);
    }
    if (b.packedIds !== null) {
      // a book waiting for its claim: a duplicate leaves it as it is
      if (IdMemory.packedHas(b.packedIds, f.fillId)) return false;
      this.unpackIds(b);
    }
    if (b.ids.has(f.fillId)) return false;
    // a book folded while it stayed in the map (foldKept, compactIfTerminal) trades again: the whole id memory again
    if (b.fills.length === 0 && b.folded !== null && b.ids.limit < this.idMemory) b.ids.resize(this.idMemory);
    // kept fills older than the horizon go into the base state first, so the ids the memory forgets now are no kept fill's
    this.foldOlder(b, f.ts - FILL_ID_HORIZON_MS);
    const slot = b.ids.add(f.fillId, f.ts);
    const fills = b.fills;
    if (fills.length === 0 || !fills.before(f, fills.length - 1)) {
      fills.push(f, slot);
      b.state = step(b.state, f);
    } else if (b.folded !== null && fills.before(f, 0)) {
      // older than the kept history: cannot be re-ordered any more
      this.late++;
      fills.push(f, slot);
      b.state = step(b.state, f);
    } else {
      let i = fills.length - 1;
      while (i > 0 && fills.before(f, i - 1)) i--;
      fills.insert(i, f, slot);
      b.recompute();
    }
    if (fills.length > this.window) this.fold(b);
    this.fillCount++;
    this.version++;
    this.refresh(b);
    this.recheck(b);
    return true;
  }

  /**
   * The kept fills older than `cut` (ms) go into the base state, the newest KEPT_FILLS_FLOOR (at most
   * half the window) excepted: a fill that old can only come late by a clock's step (every path gives
   * a market's fills in time order: docs/performance.md, "Memory over a long run").
   */
  private foldOlder(b: MarketBook, cut: number): void {
    const fills = b.fills;
    const most = fills.length - Math.min(KEPT_FILLS_FLOOR, this.window >> 1);
    let n = 0;
    while (n < most && fills.at(n).ts < cut) n++;
    if (n === 0) return;
    let base = b.start();
    for (let i = 0; i < n; i++) base = step(base, fills.at(i));
    b.folded = base;
    fills.drop(n);
  }

  /** The oldest half of the kept fills go into the base state. */
  private fold(b: MarketBook): void {
    const n = b.fills.length - (this.window >> 1);
    let base = b.start();
    for (let i = 0; i < n; i++) base = step(base, b.fills.at(i));
    b.folded = base;
    b.fills.drop(n);
  }

  /**
   * Holdings the account had when its books began (a wallet that already held tokens), each at the
   * mark used as its cost: its PnL starts at 0. Applied before every fill of its market.
   */
  adoptBaseline(holdings: readonly BaselineHolding[], markedAt: number): void {
    for (const h of holdings) {
      if (h.shares <= 0) continue;
      const b = this.book(h.marketId);
      b.baseline.push(h);
      if (b.folded !== null) b.folded = adopt(b.folded, h);
      b.recompute();
      if (b.mark2 === null) {
        b.mark2 = h.outcomeIndex === 1 ? h.mark * 2 : (ONE - h.mark) * 2;
        b.markedAt = markedAt;
      }
      this.refresh(b);
    }
    this.version++;
    this.baselineAt = markedAt;
    this.noteMark(markedAt);
  }

  get baselineMarkedAt(): number | null {
    return this.baselineAt;
  }

  private noteMark(at: number): void {
    if (this.markedAtMax === null || at > this.markedAtMax) {
      this.markedAtMax = at;
      this.cached = null;
    }
  }

  /** Mark a market at twice its YES mid (null leaves the mark as it is). O(1) when unchanged. */
  mark(marketId: Bytes32, mark2: number | null, at: number): void {
    if (mark2 === null) return;
    const b = this.books.get(marketId);
    // a market the books never traded has nothing to mark
    if (b === undefined) return;
    if (b.mark2 === mark2) return;
    b.mark2 = mark2;
    b.markedAt = at;
    this.noteMark(at);
    if (b.state.pos.net !== 0 || b.cUnrealised !== 0n) this.refreshMark(b);
  }

  /**
   * refresh() after a new mark: of the figures it brings up to date only the unrealised PnL reads
   * the mark, and every change of the others (a fill, a baseline, a resolution, a claim) refreshed
   * them when it happened, so they would come out as they are. The same unrealised figure as
   * refresh's (pnlScaled's), without its bigint work for the rest: this runs on every tick whose
   * mid moved while the market holds a position.
   */
  private refreshMark(b: MarketBook): void {
    const unrealised = b.payoutYes !== null || b.mark2 === null ? 0n : toMicro(unrealisedScaled(b.state.pos, b.mark2));
    if (unrealised === b.cUnrealised) return;
    this.unrealisedM += unrealised - b.cUnrealised;
    b.cUnrealised = unrealised;
    b.micro = null;
    this.cached = null;
    this.total = null;
  }

  /** The market resolved: one YES share pays `payoutYes` (1e-6 USDC); its PnL is realised at that payout. */
  resolve(marketId: Bytes32, payoutYes: number, at: number): void {
    const b = this.books.get(marketId);
    if (b === undefined || b.payoutYes === payoutYes) return;
    b.payoutYes = payoutYes;
    b.mark2 = payoutYes * 2;
    b.markedAt = at;
    this.noteMark(at);
    this.refresh(b);
    this.compactIfTerminal(b);
  }

  /** A resolved market's tokens were redeemed: they leave the positions and their payout enters the cash. */
  claimed(marketId: Bytes32): void {
    const b = this.books.get(marketId);
    if (b === undefined || b.payoutYes === null || b.claimed) return;
    const { yes, no } = b.state.pos;
    b.claimCash = BigInt(notionalFloor(b.payoutYes, Math.max(0, yes)) + notionalFloor(ONE - b.payoutYes, Math.max(0, no))) * SONE;
    b.claimed = true;
    this.version++;
    this.refresh(b);
    this.foldIfDone(b);
  }

  /** The market left the bot's store (rotation, resolution): its books stay until nothing is held. */
  release(marketId: Bytes32): void {
    const b = this.books.get(marketId);
    if (b === undefined) return;
    b.released = true;
    this.foldIfDone(b);
    this.compactIfTerminal(b);
  }

  /**
   * A released market whose payout is known and whose tokens nobody has claimed yet: it can no longer
   * trade (its orders were confirmed gone before the release), so its book keeps what a folded one keeps
   * (no kept fills, the last FOLDED_IDS fill ids) while it waits for the claim, which the bot does not make
   * (the venue's auto-claim or an operator does). Without it, each such market kept its full book, ~3.5 KB
   * with a few fills and up to ~35 KB busy: weeks of rotation with no claim held one for every market that
   * ended with a position (test/account/account-rotation-month.test.ts).
   */
  private compactIfTerminal(b: MarketBook): void {
    if (!b.released || b.payoutYes === null || this.books.get(b.marketId) !== b) return;
    if (b.fills.length > 0) {
      b.folded = b.state;
      b.fills.clear();
      b.baseline = [];
    }
    // its newest FOLDED_IDS ids packed, as a folded book's (FoldedBook): ~50 bytes an id, where the memory of
    // them held ~2 KB with its typed arrays (test/account/folded-books.test.ts); a no-op once done
    if (b.packedIds === null) {
      b.packedIds = b.ids.pack(FOLDED_IDS);
      b.ids = new IdMemory(FOLDED_IDS);
      b.fills.attach(b.ids);
    }
  }

  /** A book's packed fill ids (compactIfTerminal) back in its memory, which remembers `idMemory` again. */
  private unpackIds(b: MarketBook): void {
    if (b.packedIds === null) return;
    b.ids = IdMemory.unpack(this.idMemory, b.packedIds);
    b.fills.attach(b.ids);
    b.packedIds = null;
  }

  /**
   * The newest venue time among a market's kept fills (null: it keeps none: no fill yet, or folded).
   * The ledger's books checkpoint folds a market whose newest is long past (src/ledger/books-checkpoint.ts).
   */
  newestKeptTs(marketId: Bytes32): number | null {
    const fills = this.books.get(marketId)?.fills;
    if (fills === undefined || fills.length === 0) return null;
    let t = -Infinity;
    for (let i = 0; i < fills.length; i++) t = Math.max(t, fills.at(i).ts);
    return t;
  }

  /**
   * A market's book folded as compactIfTerminal folds one, whatever its state: its kept fills into its
   * base state, the last `ids` fill ids (at least 1). Its figures do not change. A later fill goes on from the
   * base state (the whole id memory again), so one that sorts before a fill folded here is applied
   * after it, not re-ordered: the ledger's books checkpoint (src/ledger/books-checkpoint.ts) folds
   * only markets idle for an hour of venue time, and replaces a folded book by a replay of its fills
   * (replaceBook) before its next fill. False: nothing to fold.
   */
  foldKept(marketId: Bytes32, ids = FOLDED_IDS): boolean {
    const b = this.books.get(marketId);
    if (b === undefined || b.fills.length === 0) return false;
    b.folded = b.state;
    b.fills.clear();
    b.baseline = [];
    // packed, as compactIfTerminal packs them (a later fill unpacks them): the books checkpoint's copy keeps
    // such a book for every market idle for an hour, for as long as the ledger lives
    b.packedIds = b.ids.pack(Math.max(1, Math.min(ids, this.idMemory)));
    b.ids = new IdMemory(FOLDED_IDS);
    b.fills.attach(b.ids);
    return true;
  }

  /**
   * A market's book replaced by `from`'s book of it (a replay of the market's baseline and its fills so
   * far: what a replay of every fill holds for it), keeping this account's serial of it and the fields a
   * fill does not set (marks, payout, claim, release, balance reads); the totals then count the new
   * book's figures instead of the old one's (the same figures when both books hold the same fills).
   * The counters (fills applied, late, version) stay this account's: it counted those fills already.
   */
  replaceBook(marketId: Bytes32, from: Account): void {
    const old = this.books.get(marketId);
    const b = from.books.get(marketId);
    if (old === undefined || b === undefined) return;
    // its serial, marks, payout and claim; the totals hold the old book's contribution: refresh moves them by the
    // new book's difference from it
    copyFigureFields(b, old);
    b.cUnrealised = old.cUnrealised;
    b.released = old.released;
    b.lastRead = old.lastRead;
    b.driftSince = old.driftSince;
    b.venueHeld = old.venueHeld;
    b.claimedPos = null;
    // set on the key it has: the map keeps its order (the markets' order as a replay of every fill gives it)
    this.books.set(marketId, b);
    from.books.delete(marketId);
    this.refresh(b);
  }

  /**
   * A market's book taken out of the account as it is (undefined: none), its contribution left in the
   * totals; attachBook puts it back. The books checkpoint's copy (src/ledger/books-checkpoint.ts) writes
   * an idle market's book out to disk this way, so the copy holds only the markets still trading.
   */
  detachBook(marketId: Bytes32): DetachedBook | undefined {
    const b = this.books.get(marketId);
    if (b === undefined) return undefined;
    this.books.delete(marketId);
    return b as unknown as DetachedBook;
  }

  /** A book detachBook took out (or one restored from its snapshot) back in: the same figures as before. */
  attachBook(marketId: Bytes32, book: DetachedBook): void {
    const b = book as unknown as MarketBook;
    if (!(b instanceof MarketBook) || b.marketId !== marketId) throw new Error(`not a book of market ${marketId}`);
    if (this.books.has(marketId)) throw new Error(`market ${marketId} has a book already`);
    this.books.set(marketId, b);
  }

  /** A market's book as detachBook would give it, left in place (its snapshot), or undefined. */
  peekBook(marketId: Bytes32): DetachedBook | undefined {
    return this.books.get(marketId) as unknown as DetachedBook | undefined;
  }

  /**
   * A released market with nothing held leaves the map; its contribution stays in the totals (its
   * realised PnL, fees, cash, fills and volume are part of the account's for good). Its book is kept,
   * compact (no kept fills, the last FOLDED_IDS fill ids), among the newest FOLDED_KEPT: a late fill
   * continues it; past that bound a late fill begins a new book.
   */
  private foldIfDone(b: MarketBook): void {
    if (!b.released || !b.settled() || b.cUnrealised !== 0n) return;
    this.books.delete(b.marketId);
    this.foldedKept.set(b.marketId, {
      serial: b.serial,
      state: b.state,
      mark2: b.mark2,
      markedAt: b.markedAt,
      payoutYes: b.payoutYes,
      claimed: b.claimed,
      claimCash: b.claimCash,
      cRealised: b.cRealised,
      cFees: b.cFees,
      cCash: b.cCash,
      cFills: b.cFills,
      cVolume: b.cVolume,
      // the newest FOLDED_IDS ids with their times (the memory itself goes with the book)
      ids: b.packedIds ?? b.ids.pack(FOLDED_IDS),
    });
    if (this.foldedKept.size > FOLDED_KEPT) {
      const [id, old] = this.foldedKept.entries().next().value!;
      this.foldedKept.delete(id);
      // what its figures were rounded down by stays, for a book a later fill begins (a few bytes)
      // (its cash is whole 1e-6 units: every flow is settled rounded, as the venue settles it)
      const r = mod(realisedScaled(old.state.pos, old.payoutYes)) | (mod(old.state.pos.volume) << 20n);
      if (r !== 0n) {
        this.remainders.set(id, r);
        if (this.remainders.size > REMAINDERS_KEPT) this.remainders.delete(this.remainders.keys().next().value!);
      }
    }
  }

  /**
   * A balance read of one market: compared with the books, never written into them. Returns the
   * differences (empty when they agree); `since` is when the disagreement began.
   */
  reconcile(marketId: Bytes32, yes: number, no: number, at: number): Drift[] {
    // a market the books never traded, read flat: nothing to compare (and no entry to keep)
    if (yes === 0 && no === 0 && !this.books.has(marketId)) return [];
    const b = this.book(marketId);
    b.lastRead = { yes, no, at };
    const d = this.recheck(b, at);
    // past the grace the limits hold what the venue holds: a fill the books never got must not keep
    // them on a phantom position (the books stay as they are for PnL; the drift stays raised)
    if (d.length > 0 && this.driftGraceMs !== null && b.driftSince !== null && at - b.driftSince >= this.driftGraceMs && !b.claimed) {
      const v = b.venueHeld;
      if (v === null || v.yes !== yes || v.no !== no || v.fills !== b.state.pos.fills) {
        b.venueHeld = syncHoldings(b.state.pos, yes, no);
        this.version++;
      }
    }
    return d;
  }

  /** The differences between the last read and the books now (a fill can settle them). */
  private recheck(b: MarketBook, at?: number): Drift[] {
    const r = b.lastRead;
    if (r === null) return [];
    const h = b.holdings();
    if (h.yes === r.yes && h.no === r.no) {
      b.driftSince = null;
      if (b.venueHeld !== null) {
        // the books agree again: the limits are back on them
        b.venueHeld = null;
        this.version++;
      }
      return [];
    }
    if (b.driftSince === null) b.driftSince = at ?? r.at;
    const out: Drift[] = [];
    if (h.yes !== r.yes) out.push({ marketId: b.marketId, outcomeIndex: 1, books: h.yes, venue: r.yes, since: b.driftSince });
    if (h.no !== r.no) out.push({ marketId: b.marketId, outcomeIndex: 0, books: h.no, venue: r.no, since: b.driftSince });
    return out;
  }

  /** The market's last balance read equals what the books hold (true for a market never read or never traded). */
  agrees(marketId: Bytes32): boolean {
    const b = this.books.get(marketId);
    return b === undefined || b.driftSince === null;
  }

  /** Every market whose last read still disagrees with the books. */
  drifts(): Drift[] {
    const out: Drift[] = [];
    for (const b of this.books.values()) if (b.driftSince !== null) out.push(...this.recheck(b));
    return out;
  }

  /** The account's total PnL, 1e-6 USDC (the kill switch's figure): O(1). */
  pnl(): bigint {
    // the kill switch reads it on every tick: the sum alone, not a figures() object per new mark
    if (this.cached !== null) return this.cached.total;
    return (this.total ??= this.realisedM + this.unrealisedM);
  }

  figures(): AccountFigures {
    if (this.cached !== null) return this.cached;
    const realised = this.realisedM;
    const unrealised = this.unrealisedM;
    this.cached = {
      realised,
      unrealised,
      total: realised + unrealised,
      fees: this.feesM,
      cash: this.cashM,
      markedAt: this.markedAtMax,
      fills: this.fillsM,
      volume: this.volumeM,
    };
    return this.cached;
  }

  /** One market's realised and unrealised PnL, 1e-6 USDC (the strategies' view; 0 for a market the books never traded). */
  marketPnl(marketId: Bytes32): { readonly realised: bigint; readonly unrealised: bigint } {
    const b = this.books.get(marketId);
    if (b === undefined) return NO_PNL;
    if (b.micro === null) b.micro = { realised: b.cRealised, unrealised: b.cUnrealised };
    return b.micro;
  }

  /** What a market's book holds in memory: fills kept for re-ordering, fill ids remembered (tests, memory). */
  kept(marketId: Bytes32): { readonly fills: number; readonly ids: number } {
    const b = this.books.get(marketId);
    if (b === undefined) return { fills: 0, ids: 0 };
    return { fills: b.fills.length, ids: b.packedIds !== null ? IdMemory.packedCount(b.packedIds) : b.ids.size };
  }

  /** One market's figures (null: the books hold nothing of it, or it was folded away). */
  market(marketId: Bytes32): MarketFigures | null {
    const b = this.books.get(marketId);
    return b === undefined ? null : this.figuresOf(b, marketId);
  }

  /**
   * One market's figures, a released market folded away included while its book is kept (the newest
   * FOLDED_KEPT): a later fill continues that book, so a reading of it before and after compare
   * (src/account/run-figures.ts). Null: no book of it.
   */
  keptMarket(marketId: Bytes32): MarketFigures | null {
    const b = this.books.get(marketId);
    if (b !== undefined) return this.figuresOf(b, marketId);
    const f = this.foldedKept.get(marketId);
    return f === undefined ? null : this.figuresOf(f, marketId);
  }

  /** A book's figures: a MarketBook's, or a folded one's record's (the same function for both). */
  private figuresOf(b: BookFigureFields, marketId: Bytes32): MarketFigures {
    const realised = b.cRealised;
    // (a folded book's is 0: it folds only then)
    const unrealised = b.cUnrealised ?? 0n;
    const p = b.state.pos;
    // as MarketBook.holdings()
    const h = b.claimed ? { yes: 0, no: 0 } : { yes: p.yes, no: p.no };
    return {
      marketId,
      realised,
      unrealised,
      total: realised + unrealised,
      fees: p.fees,
      cash: b.cCash,
      markedAt: b.markedAt,
      yes: h.yes,
      no: h.no,
      net: b.claimed ? 0 : p.net,
      fills: p.fills,
      foreignFills: b.state.foreign,
      volume: b.cVolume,
      shares: b.state.shares,
      book: b.serial,
      payoutYes: b.payoutYes,
      claimed: b.claimed,
      mark2: b.mark2,
    };
  }

  /** Every market the books hold (folded ones excepted). */
  marketIds(): Bytes32[] {
    return [...this.books.keys()];
  }

  /**
   * Markets whose payout the books know and whose tokens they still hold, unclaimed: what a claim
   * made while the bot was down would have redeemed (src/runtime/claims: checked at start-up).
   */
  unclaimedResolved(): Bytes32[] {
    const out: Bytes32[] = [];
    for (const b of this.books.values()) {
      if (b.payoutYes === null || b.claimed) continue;
      const h = b.holdings();
      if (h.yes > 0 || h.no > 0) out.push(b.marketId);
    }
    return out;
  }

  /** Every non-zero holding, resolved-unclaimed included. */
  positions(): Holding[] {
    const out: Holding[] = [];
    for (const b of this.books.values()) {
      const h = b.holdings();
      if (h.yes !== 0) out.push({ marketId: b.marketId, outcomeIndex: 1, shares: h.yes });
      if (h.no !== 0) out.push({ marketId: b.marketId, outcomeIndex: 0, shares: h.no });
    }
    // one order whatever order the markets arrived in
    return out.sort((x, y) => (x.marketId < y.marketId ? -1 : x.marketId > y.marketId ? 1 : y.outcomeIndex - x.outcomeIndex));
  }

  /**
   * The position the limits check (src/state/market-view.ts): the books' (holdingsOf), except while a
   * balance read has differed from them for longer than `driftGraceMs`: then the venue's holdings at
   * the books' average cost, until the reads agree again (docs/books-and-pnl.md, "Position limits").
   */
  limitHoldingsOf(marketId: Bytes32): PositionState {
    const b = this.books.get(marketId);
    return b !== undefined && b.venueHeld !== null ? b.venueHeld : this.holdingsOf(marketId);
  }

  /** The position state of a market as the books hold it (strategies' average entry, tests). */
  positionOf(marketId: Bytes32): PositionState | null {
    return this.books.get(marketId)?.state.pos ?? null;
  }

  /**
   * The position the risk layer and the strategies use (src/state/market-view.ts): the books' own,
   * FLAT for a market they never traded, the holdings out once a claim redeemed them. The same
   * object until a fill, a baseline or a claim changes it (callers cache on identity).
   */
  holdingsOf(marketId: Bytes32): PositionState {
    const b = this.books.get(marketId);
    if (b === undefined) return FLAT;
    if (!b.claimed) return b.state.pos;
    const p = b.state.pos;
    if (b.claimedPos === null || b.claimedPos.realised !== p.realised || b.claimedPos.fills !== p.fills)
      b.claimedPos = { ...p, yes: 0, no: 0, net: 0, basis: 0n };
    return b.claimedPos;
  }
}
