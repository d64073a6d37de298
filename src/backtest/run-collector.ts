/**
 * What a backtest run observes, in exchange time: every fill (with the row that explains it), the
 * position and PnL it implies (src/state/position.ts arithmetic, exact integers), every change of
 * each market's recorded mid (for markouts), and samples at a fixed interval (mid, own best quotes,
 * inventory, PnL) for the report's charts and statistics.
 *
 * A market that resolves (`onResolved`, at its exchange time) settles: its position pays out at the
 * payout (src/state/position.ts settleAt: nothing held, the payout realised), the attribution books
 * the jump from the last mid to the payout as `resolution`, and the payout becomes the market's mid
 * from then on (the mark, the charts and the markouts of earlier fills read it); later book rows of
 * that market move nothing. docs/edge.md, "Markets that resolve and are replaced".
 */
import { lastAtOrBefore } from '../core/last-at-or-before.ts';
import { applyFill, FLAT, settleAt, toMicro, unrealisedScaled, type PositionState } from '../state/position.ts';
import { addFill, attributionMicro, NO_ATTRIBUTION, resolveAt, type AttributionComponents, type AttributionState } from '../state/pnl-attribution.ts';
import type { Regime } from '../strategy/types.ts';
import type { SimExchange, SimFill } from './sim-exchange.ts';

export interface MarketSeries {
  readonly marketId: string;
  /** recorded mid (price units, float), NaN when a side is empty */
  readonly mid: number[];
  /** recorded best bid / ask, NaN when that side is empty */
  readonly bestBid: number[];
  readonly bestAsk: number[];
  /** own best bid / ask resting at the exchange, NaN when none */
  readonly bid: number[];
  readonly ask: number[];
  /** YES-terms net position, 1e-6 shares */
  readonly net: number[];
  /** realised + unrealised PnL, 1e-6 USDC */
  readonly pnl: number[];
}

const REGIME_INDEX: Record<Regime, number> = { quiet: 0, trending: 1, event: 2, 'reduce-only': 3, halted: 4 };

export class RunCollector {
  readonly fills: SimFill[] = [];
  readonly positions: PositionState[];
  /** per market: times and values of every recorded mid change */
  readonly midT: number[][];
  readonly midV: number[][];
  readonly sampleT: number[] = [];
  readonly totalPnl: number[] = [];
  readonly series: MarketSeries[];
  /** last finite mid per market (the mark) */
  readonly lastMid: Float64Array;
  private readonly quotedBoth: Uint32Array;
  private readonly quotedAny: Uint32Array;
  /** per fill (same order as `fills`): twice the recorded mid just before it, NaN when none */
  readonly fillMid2: number[] = [];
  /** per market: the exact attribution of its fills (src/state/pnl-attribution.ts) */
  readonly attribution: AttributionState[];
  /** per market: the bot's regime at each sample (index into REGIMES), when a regime source is set */
  readonly regimeSeries: number[][];
  /** per market: what one YES share paid at its resolution (1e-6 USDC), -1 while unresolved */
  readonly payout: Int32Array;
  /** samples taken (the arrays are longer while `reserve`'s room is not trimmed) */
  private count = 0;
  private reserved = false;
  /** reads the bot's regime of market m at time t (set by the replay loop) */
  regimeSource: ((m: number, t: number) => Regime | null) | null = null;

  constructor(
    readonly markets: readonly string[],
    private readonly exchange: () => SimExchange,
  ) {
    const n = markets.length;
    this.positions = markets.map(() => FLAT);
    this.pnlMemo = markets.map(() => ({ position: null, mid: Number.NaN, v: 0 }));
    this.midT = markets.map(() => []);
    this.midV = markets.map(() => []);
    this.series = markets.map((marketId) => ({ marketId, mid: [], bestBid: [], bestAsk: [], bid: [], ask: [], net: [], pnl: [] }));
    this.lastMid = new Float64Array(n).fill(NaN);
    this.quotedBoth = new Uint32Array(n);
    this.quotedAny = new Uint32Array(n);
    this.attribution = markets.map(() => NO_ATTRIBUTION);
    this.regimeSeries = markets.map(() => []);
    this.payout = new Int32Array(n).fill(-1);
  }

  onFill(f: SimFill): void {
    this.fills.push(f);
    this.positions[f.market] = applyFill(this.positions[f.market]!, f);
    // the mid in force before the row that filled us (onMid for that row runs after the fills)
    const mid = this.lastMid[f.market]!;
    const mid2 = Number.isFinite(mid) ? Math.round(mid * 2) : null;
    this.fillMid2.push(mid2 ?? NaN);
    this.attribution[f.market] = addFill(this.attribution[f.market]!, { qty: f.yesSide === 'bid' ? f.size : -f.size, price: f.yesPrice, fee: f.fee }, mid2);
  }

  /**
   * Attribution of market m in 1e-6 USDC, summing exactly to its PnL as `pnlOf` reports it
   * (realised + unrealised at the last recorded mid).
   */
  attributionOf(m: number): AttributionComponents<bigint> & { total: bigint } {
    const pnl = this.pnlOf(m);
    const mid = this.lastMid[m]!;
    const p = this.positions[m]!;
    const mark2 = Number.isFinite(mid) && p.net !== 0 ? Math.round(mid * 2) : null;
    return attributionMicro(this.attribution[m]!, mark2, pnl.realised + pnl.unrealised, p.basis);
  }

  /**
   * Market m resolved at time t, one YES share paying `payoutYes` (1e-6 USDC): its position pays out
   * and the jump from the last mid to the payout is its attribution's resolution. Once only.
   */
  onResolved(m: number, t: number, payoutYes: number): void {
    if (this.payout[m]! >= 0) return;
    const mid = this.lastMid[m]!;
    this.attribution[m] = resolveAt(this.attribution[m]!, Number.isFinite(mid) ? Math.round(mid * 2) : null, payoutYes);
    this.positions[m] = settleAt(this.positions[m]!, payoutYes);
    this.payout[m] = payoutYes;
    // the payout is the market's price from now on (onMid skips a resolved market)
    this.midV[m]!.push(payoutYes);
    this.midT[m]!.push(t);
    this.lastMid[m] = payoutYes;
  }

  /** After a row changed market m's book at time t. */
  onMid(m: number, t: number, mid: number): void {
    if (!(mid > 0) || this.payout[m]! >= 0) return;
    const v = this.midV[m]!;
    if (v.length > 0 && v[v.length - 1] === mid) return;
    v.push(mid);
    this.midT[m]!.push(t);
    this.lastMid[m] = mid;
  }

  /** PnL of market m in 1e-6 USDC, marked at its last mid. */
  pnlOf(m: number): { realised: bigint; unrealised: bigint } {
    const p = this.positions[m]!;
    const mid = this.lastMid[m]!;
    const unrealised = Number.isFinite(mid) && p.net !== 0 ? toMicro(unrealisedScaled(p, Math.round(mid * 2))) : 0n;
    return { realised: toMicro(p.realised), unrealised };
  }

  /** the position and mark the last PnL sample of each market was computed from, and its value */
  private readonly pnlMemo: { position: PositionState | null; mid: number; v: number }[];

  /** PnL of market m as a number, recomputed (bigint maths) only when its position or mark moved. */
  private samplePnl(m: number): number {
    const memo = this.pnlMemo[m]!;
    const position = this.positions[m]!;
    const mid = this.lastMid[m]!;
    if (memo.position !== position || !Object.is(memo.mid, mid)) {
      const pnl = this.pnlOf(m);
      memo.position = position;
      memo.mid = mid;
      memo.v = Number(pnl.realised + pnl.unrealised);
    }
    return memo.v;
  }

  /**
   * Room for `n` samples in every series array, so `sample` writes them in place: grown by push, each
   * of a run's ~50 arrays was reallocated about ten times on its way (~1 MB of a run of the capture).
   * Before the first sample only; `trim()` must follow the last one (the arrays are `n` long until
   * then). More samples than `n` are appended as before.
   */
  reserve(n: number): void {
    if (this.count !== 0 || !(n > 0)) return;
    this.reserved = true;
    this.setLengths(n);
    if (this.regimeSource !== null) for (const r of this.regimeSeries) r.length = n;
  }

  /** Cut the arrays `reserve` lengthened back to the samples taken. */
  trim(): void {
    if (!this.reserved) return;
    this.reserved = false;
    const n = this.count;
    this.setLengths(n);
    for (const r of this.regimeSeries) if (r.length > n) r.length = n;
  }

  /** Every numeric series array (the times, the total PnL, each market's seven) `n` long. */
  private setLengths(n: number): void {
    this.sampleT.length = n;
    this.totalPnl.length = n;
    for (let m = 0; m < this.markets.length; m++) {
      const s = this.series[m]!;
      s.mid.length = n;
      s.bestBid.length = n;
      s.bestAsk.length = n;
      s.bid.length = n;
      s.ask.length = n;
      s.net.length = n;
      s.pnl.length = n;
    }
  }

  sample(t: number): void {
    const x = this.exchange();
    let total = 0;
    const k = this.count++;
    this.sampleT[k] = t;
    for (let m = 0; m < this.markets.length; m++) {
      const s = this.series[m]!;
      const bid = x.ownBid(m);
      const ask = x.ownAsk(m);
      const v = this.samplePnl(m);
      total += v;
      s.mid[k] = this.lastMid[m]!;
      const book = x.books[m];
      const bb = book ? book.bestBid() : -1;
      const ba = book ? book.bestAsk() : -1;
      s.bestBid[k] = bb < 0 ? NaN : bb;
      s.bestAsk[k] = ba < 0 ? NaN : ba;
      s.bid[k] = bid < 0 ? NaN : bid;
      s.ask[k] = ask < 0 ? NaN : ask;
      s.net[k] = this.positions[m]!.net;
      s.pnl[k] = v;
      if (this.regimeSource !== null) {
        const r = this.regimeSeries[m]!;
        const v = REGIME_INDEX[this.regimeSource(m, t) ?? 'quiet'];
        // (in place where reserve made room; pushed where the source was set after it, or no room was made)
        if (this.reserved && r.length > k) r[k] = v;
        else r.push(v);
      }
      if (bid >= 0 && ask >= 0) this.quotedBoth[m]!++;
      if (bid >= 0 || ask >= 0) this.quotedAny[m]!++;
    }
    this.totalPnl[k] = total;
  }

  /**
   * The last sample's mids and PnL restated at the marks now. The end-of-data cancel comes after the
   * last sample, and a drop-copy market's mid counts the bot's own quotes (SimExchange.mid): pulling
   * them moves the mark the summary reads, so without this the chart would end a position × that move
   * away from the summary. Quotes and uptime stay as sampled.
   */
  restateLast(): void {
    const n = this.count;
    if (n === 0) return;
    let total = 0;
    for (let m = 0; m < this.markets.length; m++) {
      const s = this.series[m]!;
      const v = this.samplePnl(m);
      total += v;
      s.mid[n - 1] = this.lastMid[m]!;
      s.net[n - 1] = this.positions[m]!.net;
      s.pnl[n - 1] = v;
    }
    this.totalPnl[n - 1] = total;
  }

  /** Fraction of samples with a bid and an ask resting (two-sided uptime), per market. */
  uptime(m: number): { twoSided: number; anySide: number } {
    const n = this.count;
    return n === 0 ? { twoSided: 0, anySide: 0 } : { twoSided: this.quotedBoth[m]! / n, anySide: this.quotedAny[m]! / n };
  }

  /** The recorded mid of market m at time t (last change at or before t), NaN before the first. */
  midAt(m: number, t: number): number {
    const ans = lastAtOrBefore(this.midT[m]!, t);
    return ans < 0 ? NaN : this.midV[m]![ans]!;
  }
}
