/**
 * Exact integer balances of the engine, in plain numbers (every amount stays a safe integer because
 * the total collateral ever deposited is capped below 2^53). Per trader: collateral and the part
 * reserved by open orders. Per (trader, market): YES and NO tokens and the part of each reserved by
 * open inventory sells. Plus the venue fee account and per-market backing (collateral locked in
 * complete sets). Conservation: Σ collateral + fee account + Σ backing = deposits − withdrawals.
 */

/** A ledger as plain data (see Ledger.exportData). */
export interface LedgerData {
  collateral: Float64Array;
  reserved: Float64Array;
  traders: number;
  fee: number;
  total: number;
  yes: Float64Array;
  no: Float64Array;
  yesReserved: Float64Array;
  noReserved: Float64Array;
  posMarket: Int32Array;
  posTrader: Int32Array;
  positionsUsed: number;
  posIndex: Map<number, number>[];
  lastMarket: Int32Array;
  lastPos: Int32Array;
  byTrader: number[][];
}

export class Ledger {
  collateral = new Float64Array(64);
  reserved = new Float64Array(64);
  traders = 0;
  // -0, not 0: a double from the start (-0 is never a small integer), so the field keeps one
  // representation when the sum passes 2^31; a 0 would make it a small-integer field that V8
  // generalises then, deoptimising every optimised function that touches the ledger mid-run
  fee = -0;
  /** net collateral deposited (deposits − withdrawals), kept below 2^53 */
  total = -0; // a double from the start, as `fee`

  /** position arrays, indexed by a position number from `positionIndex` */
  yes = new Float64Array(256);
  no = new Float64Array(256);
  yesReserved = new Float64Array(256);
  noReserved = new Float64Array(256);
  posMarket = new Int32Array(256);
  posTrader = new Int32Array(256);
  positionsUsed = 0;
  /** per trader: market → position number (small-integer keys keep the maps fast) */
  private readonly posIndex: Map<number, number>[] = [];
  /**
   * per trader: the last (market, position) looked up. A trader's consecutive fills are nearly
   * always in one market, and a typed-array hit is much cheaper than a Map lookup on every fill.
   */
  private lastMarket = new Int32Array(64).fill(-1);
  private lastPos = new Int32Array(64);
  /** position numbers of each trader, for listing */
  readonly byTrader: number[][] = [];

  /** The ledger as plain data (its live arrays, not copies): serialise it before the next command. */
  exportData(): LedgerData {
    return {
      collateral: this.collateral,
      reserved: this.reserved,
      traders: this.traders,
      fee: this.fee,
      total: this.total,
      yes: this.yes,
      no: this.no,
      yesReserved: this.yesReserved,
      noReserved: this.noReserved,
      posMarket: this.posMarket,
      posTrader: this.posTrader,
      positionsUsed: this.positionsUsed,
      posIndex: this.posIndex,
      lastMarket: this.lastMarket,
      lastPos: this.lastPos,
      byTrader: this.byTrader,
    };
  }

  /** Replace this ledger's contents with `d` (copied). */
  restoreData(d: LedgerData): void {
    const n = d.traders;
    if (d.posIndex.length !== n || d.byTrader.length !== n || d.collateral.length < n || d.lastMarket.length < n)
      throw new Error('ledger data: per-trader lists do not match the trader count');
    if (d.yes.length < d.positionsUsed) throw new Error('ledger data: position arrays shorter than the positions used');
    this.collateral = new Float64Array(d.collateral);
    this.reserved = new Float64Array(d.reserved);
    this.traders = n;
    this.fee = d.fee === 0 ? -0 : d.fee;
    this.total = d.total === 0 ? -0 : d.total;
    this.yes = new Float64Array(d.yes);
    this.no = new Float64Array(d.no);
    this.yesReserved = new Float64Array(d.yesReserved);
    this.noReserved = new Float64Array(d.noReserved);
    this.posMarket = new Int32Array(d.posMarket);
    this.posTrader = new Int32Array(d.posTrader);
    this.positionsUsed = d.positionsUsed;
    this.posIndex.length = 0;
    for (const m of d.posIndex) this.posIndex.push(new Map(m));
    this.lastMarket = new Int32Array(d.lastMarket);
    this.lastPos = new Int32Array(d.lastPos);
    this.byTrader.length = 0;
    for (const l of d.byTrader) this.byTrader.push([...l]);
  }

  addTrader(): number {
    const t = this.traders++;
    if (t >= this.collateral.length) {
      this.collateral = grow(this.collateral, this.collateral.length * 2);
      this.reserved = grow(this.reserved, this.reserved.length * 2);
    }
    if (t >= this.lastMarket.length) {
      const n = this.lastMarket.length * 2;
      const lm = new Int32Array(n).fill(-1);
      lm.set(this.lastMarket);
      this.lastMarket = lm;
      this.lastPos = grow(this.lastPos, n);
    }
    this.byTrader.push([]);
    this.posIndex.push(new Map());
    return t;
  }

  available(trader: number): number {
    return this.collateral[trader]! - this.reserved[trader]!;
  }

  /** The position number of (trader, market), or -1 when it has never existed. */
  findPosition(trader: number, market: number): number {
    if (!Number.isInteger(trader) || trader < 0 || trader >= this.traders) return -1;
    // -1 marks "no last market": a query for market -1 must not hit it
    if (market >= 0 && this.lastMarket[trader] === market) return this.lastPos[trader]!;
    return this.posIndex[trader]!.get(market) ?? -1;
  }

  /** The position number of (trader, market), created empty on first use. */
  positionIndex(trader: number, market: number): number {
    if (this.lastMarket[trader] === market) return this.lastPos[trader]!;
    const index = this.posIndex[trader]!;
    const found = index.get(market);
    if (found !== undefined) {
      this.lastMarket[trader] = market;
      this.lastPos[trader] = found;
      return found;
    }
    const p = this.positionsUsed++;
    if (p >= this.yes.length) {
      const n = this.yes.length * 2;
      this.yes = grow(this.yes, n);
      this.no = grow(this.no, n);
      this.yesReserved = grow(this.yesReserved, n);
      this.noReserved = grow(this.noReserved, n);
      this.posMarket = grow(this.posMarket, n);
      this.posTrader = grow(this.posTrader, n);
    }
    this.posMarket[p] = market;
    this.posTrader[p] = trader;
    index.set(market, p);
    this.byTrader[trader]!.push(p);
    this.lastMarket[trader] = market;
    this.lastPos[trader] = p;
    return p;
  }

  tokens(p: number, outcome: number): number {
    return outcome === 1 ? this.yes[p]! : this.no[p]!;
  }

  availableTokens(p: number, outcome: number): number {
    return outcome === 1 ? this.yes[p]! - this.yesReserved[p]! : this.no[p]! - this.noReserved[p]!;
  }

  addTokens(p: number, outcome: number, n: number): void {
    if (outcome === 1) this.yes[p] = this.yes[p]! + n;
    else this.no[p] = this.no[p]! + n;
  }

  reserveTokens(p: number, outcome: number, n: number): void {
    if (outcome === 1) this.yesReserved[p] = this.yesReserved[p]! + n;
    else this.noReserved[p] = this.noReserved[p]! + n;
  }
}

function grow<T extends Float64Array | Int32Array>(a: T, n: number): T {
  const b = new (a.constructor as new (n: number) => T)(n);
  b.set(a);
  return b;
}
