/**
 * Why a backtest did what it did: counts of what the quoting kernel decided on every tick of every
 * quoted market (the strategy returned nothing, and what its view lacked then; market-wide pulls and
 * per-quote denials by risk reason; prices outside the quotable range), and the warnings a run that
 * placed no order or filled nothing ends with. Counting only: no clock, no I/O; the same run gives the
 * same counts and the same words.
 */
import type { KernelTick } from '../kernel/quoting-kernel.ts';
import { othersBook } from '../strategy/others-book.ts';
import type { MarketView } from '../strategy/types.ts';
import type { QuoteDenied } from '../risk/types.ts';

const NO_DENIALS: readonly QuoteDenied[] = [];

/**
 * What a market's view held on a tick where its strategy returned nothing (null): facts about the view,
 * not a guess at the strategy's reasoning (a strategy that ignores the oracle can still meet "no oracle").
 */
export type NothingBecause =
  | 'market not active'
  | 'no book yet'
  | 'one-sided book'
  | 'two-sided only with own quotes'
  | 'two-sided book, no oracle price'
  | 'two-sided book and an oracle price';

/** Risk reasons that mean the strategy's prices fell outside what may be quoted. */
const RANGE_REASONS = new Set(['PRICE_OUT_OF_RANGE', 'FAR_FROM_FAIR', 'CROSSES_BOOK']);

export interface DiagnosticsCounts {
  /** kernel ticks over all quoted markets */
  ticks: number;
  /** ticks before the market had a view (no metadata or book in the store yet) */
  noView: number;
  /** ticks where the strategy returned null, and what its view held then */
  returnedNothing: number;
  returnedNothingBecause: Record<string, number>;
  /** ticks where the strategy returned an empty list */
  returnedEmpty: number;
  /** ticks where the strategy threw or returned a non-list; the first message */
  strategyErrors: number;
  firstStrategyError: string | null;
  /** ticks pulled by a market-wide guard (stale book, halted, deadline…), by reason */
  pulls: Record<string, number>;
  /** per-quote denials by the risk gate, by reason (market-wide pulls not included) */
  denials: Record<string, number>;
  /** quotes denied because their price lay outside what may be quoted (out of [tick, 1 − tick], off grid, far from fair, crossing) */
  outOfRange: number;
  /** ticks that sent at least one quote to the order manager */
  quotingTicks: number;
}

/** A market whose strategy threw (or returned a non-list) or returned quotes the gate refused as malformed. */
export interface StrategyFault {
  readonly marketId: string;
  /** the market's slug when the view has one */
  readonly market: string;
  /** ticks where the strategy threw or returned a non-list, and the first message */
  errors: number;
  firstError: string | null;
  /** quotes denied as not well-formed (NaN or fractional price, size not a positive integer) */
  badQuotes: number;
}

export class RunDiagnostics {
  /**
   * Per market, the strategy's failures and malformed quotes, first failing market first (kept out of
   * `counts`: the summary names them in its warnings, and a run without any keeps its JSON).
   */
  readonly faults = new Map<string, StrategyFault>();

  readonly counts: DiagnosticsCounts = {
    ticks: 0,
    noView: 0,
    returnedNothing: 0,
    returnedNothingBecause: {},
    returnedEmpty: 0,
    strategyErrors: 0,
    firstStrategyError: null,
    pulls: {},
    denials: {},
    outOfRange: 0,
    quotingTicks: 0,
  };

  onTick(t: KernelTick, view: MarketView | null): void {
    const c = this.counts;
    c.ticks++;
    if (t.action === 'no-view') {
      c.noView++;
      return;
    }
    if (t.strategyError) {
      c.strategyErrors++;
      c.firstStrategyError ??= t.strategyError.message;
      const f = this.faultOf(view);
      f.errors++;
      f.firstError ??= t.strategyError.message;
    } else if (t.returned === null) {
      c.returnedNothing++;
      const why = view ? nothingBecause(view) : 'no book yet';
      c.returnedNothingBecause[why] = (c.returnedNothingBecause[why] ?? 0) + 1;
    } else if (t.returned === 0) c.returnedEmpty++;
    if (t.reason !== undefined) c.pulls[t.reason] = (c.pulls[t.reason] ?? 0) + 1;
    // an index loop over the shared empty list most ticks hold (not `?? []`: a new array a tick)
    const deniedBy = t.deniedBy ?? NO_DENIALS;
    for (let i = 0; i < deniedBy.length; i++) {
      const d = deniedBy[i]!;
      if (d.quote === null) {
        if (t.reason === undefined) c.pulls[d.reason] = (c.pulls[d.reason] ?? 0) + 1;
        continue;
      }
      c.denials[d.reason] = (c.denials[d.reason] ?? 0) + 1;
      if (RANGE_REASONS.has(d.reason)) c.outOfRange++;
      else if (d.reason === 'BAD_QUOTE') this.faultOf(view).badQuotes++;
    }
    if (t.desired.length > 0) c.quotingTicks++;
  }

  private faultOf(view: MarketView | null): StrategyFault {
    const id = view?.marketId ?? '(unknown market)';
    let f = this.faults.get(id);
    if (f === undefined) {
      f = { marketId: id, market: view?.slug ?? id, errors: 0, firstError: null, badQuotes: 0 };
      this.faults.set(id, f);
    }
    return f;
  }
}

function nothingBecause(v: MarketView): NothingBecause {
  if (v.status !== 'active') return 'market not active';
  if (v.book === null) return 'no book yet';
  if (v.book.mid === null) return 'one-sided book';
  // fair values come from the others' book by default (src/strategy/others-book.ts)
  if (v.quotes.length > 0 && othersBook(v)?.mid === null) return 'two-sided only with own quotes';
  if (v.oracle === null) return 'two-sided book, no oracle price';
  return 'two-sided book and an oracle price';
}

/** What the warnings are built from (a summary's numbers plus the recording's shape). */
export interface ExplainInput {
  readonly counts: DiagnosticsCounts;
  readonly strategies: readonly string[];
  readonly marketsInRecording: number;
  readonly marketsQuoted: number;
  /** book rows (snapshots and deltas) and trade rows of the quoted markets in the window */
  readonly bookRows: number;
  readonly tradeRows: number;
  readonly ordersPlaced: number;
  readonly fills: number;
  readonly twoSidedUptime: number;
  readonly queueModel: string;
  readonly killed: string | null;
  /** markets whose strategy failed or returned malformed quotes, each with its strategy's name */
  readonly faults?: readonly (StrategyFault & { readonly strategy: string })[];
}

/** At most this many markets are named one by one in the warnings. */
const FAULT_LINES = 10;

/**
 * The warnings of a run whose strategy threw or returned malformed quotes: a headline, then each
 * market with its strategy (every such quote was denied by the risk gate: none reached the venue).
 */
export function faultWarnings(faults: readonly (StrategyFault & { readonly strategy: string })[], marketsQuoted: number): string[] {
  if (faults.length === 0) return [];
  const head = `the strategy failed or returned malformed quotes in ${n(faults.length)} of ${n(marketsQuoted)} quoted markets`;
  const out = [`${head} (their quotes were pulled or denied, none was sent)`];
  for (const f of faults.slice(0, FAULT_LINES)) {
    const what = [
      f.errors > 0 ? `threw on ${n(f.errors)} ticks (first: ${f.firstError ?? ''})` : '',
      f.badQuotes > 0 ? `${n(f.badQuotes)} malformed quotes denied (BAD_QUOTE: NaN or fractional price, size not a positive integer)` : '',
    ].filter(Boolean);
    out.push(`market ${f.market} (strategy ${f.strategy}): ${what.join('; ')}`);
  }
  if (faults.length > FAULT_LINES) out.push(`and ${n(faults.length - FAULT_LINES)} more markets`);
  return out;
}

const n = (x: number): string => x.toLocaleString('en-US');
const pct = (a: number, b: number): string => `${b > 0 ? ((100 * a) / b).toFixed(1) : '0.0'}%`;
const byCount = (r: Record<string, number>): string =>
  Object.entries(r)
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .map(([k, v]) => `${k} ${n(v)}`)
    .join(', ');

/**
 * The warnings of a run that placed no order or filled nothing, each a line of plain text: the headline
 * first, then every reason the counts support. For a run that placed orders and was filled: only the
 * markets whose strategy failed or returned malformed quotes (`faultWarnings`), usually none.
 */
export function explainRun(x: ExplainInput): string[] {
  const noOrders = x.ordersPlaced === 0;
  const faults = faultWarnings(x.faults ?? [], x.marketsQuoted);
  if (!noOrders && x.fills > 0) return faults;
  const c = x.counts;
  const out: string[] = [noOrders ? 'the backtest placed no order' : `the backtest placed ${n(x.ordersPlaced)} orders and none was filled`];
  if (x.marketsQuoted === 0) {
    out.push(
      `the config quotes none of the recording's ${n(x.marketsInRecording)} markets: check its markets: section against the recording's market ids and slugs`,
    );
    return out;
  }
  out.push(`quoted ${n(x.marketsQuoted)} of ${n(x.marketsInRecording)} markets with ${x.strategies.join(', ')}: ${n(c.ticks)} strategy ticks`);
  if (x.bookRows === 0) {
    out.push(
      `the recording has no order-book rows for the quoted markets (${n(x.tradeRows)} trades only): the strategies quote around a book, so there is nothing to quote on; use a recording with books (bookmaker record, or the polymarket import)`,
    );
  }
  if (x.killed) out.push(`the kill switch fired: ${x.killed}`);
  if (c.noView > 0) out.push(`no market view on ${n(c.noView)} ticks (${pct(c.noView, c.ticks)}): no metadata or book for the market yet`);
  if (c.returnedNothing > 0) {
    out.push(
      `the strategy returned nothing on ${n(c.returnedNothing)} of ${n(c.ticks)} ticks (${pct(c.returnedNothing, c.ticks)}); its view then: ${byCount(c.returnedNothingBecause)}`,
    );
  }
  if (c.returnedEmpty > 0) out.push(`the strategy returned an empty list on ${n(c.returnedEmpty)} ticks (${pct(c.returnedEmpty, c.ticks)})`);
  if (c.strategyErrors > 0) out.push(`the strategy failed on ${n(c.strategyErrors)} ticks: ${c.firstStrategyError ?? ''}`);
  out.push(...faults.slice(1));
  if (Object.keys(c.pulls).length > 0) out.push(`quotes pulled by a market-wide risk guard: ${byCount(c.pulls)}`);
  if (Object.keys(c.denials).length > 0) out.push(`quotes denied by the risk gate, by reason: ${byCount(c.denials)}`);
  if (c.outOfRange > 0)
    out.push(
      `${n(c.outOfRange)} quotes had prices outside the quotable range (outside [tick, 1 − tick], off the tick grid, too far from fair, or crossing the book)`,
    );
  if (noOrders && c.quotingTicks > 0)
    out.push(`${n(c.quotingTicks)} ticks wanted quotes, but the order manager sent none (the venue refused, or the collateral did not cover them)`);
  if (!noOrders) {
    out.push(
      `the quoted markets recorded ${n(x.tradeRows)} trades; quotes rested on both sides ${(x.twoSidedUptime * 100).toFixed(1)}% of the time; queue model ${x.queueModel}`,
    );
    if (x.tradeRows === 0) out.push('fills come from recorded trades and book crossings: with no trades in the window only a crossing book can fill an order');
    else if (x.queueModel !== 'none')
      out.push(
        `the ${x.queueModel} queue model puts an order behind the recorded size at its price: try --fast (front of the queue) to see whether the prices were ever reached`,
      );
  }
  return out;
}
