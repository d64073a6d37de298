/**
 * The risk gate (pure): strategy quotes in, allowed quotes out, one decision per quote and a
 * QuoteDenied event per denial. Stages, in order:
 *  (the kill switch acts on the account, not here: src/account/account-risk.ts, checked by the kernel)
 *  2. market guards (halted, status, deadline, migration, stale book, silent stream) — action 'pull';
 *  3. per-quote price checks (grid and range, crossing, distance from fair, self-trade);
 *  4. size: maxOrderSize, then position / notional / total / reduce-only caps at WORST CASE — every
 *     working, in-flight and cancelling order filled, plus every new quote — trimming where the
 *     remainder is still at least the market minimum;
 *  4b. live orders a moved position left past a cap: pulled, farthest first, until what stays fits;
 *  5. the order-rate budget over the quotes that would cost a create, best value first; a denied
 *     move keeps the order it would have replaced.
 * A desired quote identical to a live own order (side, price, size, level) is that order: it costs no
 * token and adds no exposure (it is already counted). Such quotes are pulled only when the orders
 * staying on a side are past its cap by themselves (the position moved under them: 4b).
 */
import type { Bytes32 } from '../model/order.ts';
import type { DesiredQuote, MarketView, WorkingQuote } from '../strategy/types.ts';
import { levelOrder } from '../strategy/level-order.ts';
import { exposureOf, markPrice, worstNotional, worstPosition, type Exposure } from './exposure.ts';
import { marketGuard } from './market-guard.ts';
import { crossesBook, priceCheck, priceContext } from './price-check.ts';
import { allocateBudget, moveValue, refill } from './rate-budget.ts';
import { INITIAL_RISK_STATE, type QuoteDenied, type RiskDecision, type RiskLimits, type RiskReason, type RiskResult, type RiskState } from './types.ts';

interface Cap {
  readonly limit: number;
  readonly reason: RiskReason;
}

/** Largest worst-case long (side 'bid') or short (side 'ask') this market may reach, and why. */
export function sideCap(view: MarketView, limits: RiskLimits, side: 'bid' | 'ask'): Cap {
  return sideCapOf(view, limits, side, exposureOf(view.position.net, view.quotes), markPrice(view));
}

/**
 * sideCap with this market's exposure and mark computed once per tick by the caller. The tightest
 * cap wins; on equal limits the earlier one in this order (as a reduce over the list did).
 */
function sideCapOf(view: MarketView, limits: RiskLimits, side: 'bid' | 'ask', current: Exposure, mark: number): Cap {
  const unitValue = side === 'bid' ? mark : 1e6 - mark; // 1e-6 USDC per share at risk
  let limit = limits.maxPosition;
  let reason: RiskReason = 'POSITION_LIMIT';
  const notional = sharesFor(limits.maxNotional, unitValue);
  if (notional < limit) {
    limit = notional;
    reason = 'NOTIONAL_LIMIT';
  }
  if (limits.maxTotalPosition > 0) {
    const others = view.account.worstCasePosition - worstPosition(current);
    const cap = limits.maxTotalPosition - others;
    if (cap < limit) {
      limit = cap;
      reason = 'TOTAL_POSITION_LIMIT';
    }
  }
  if (limits.maxTotalNotional > 0) {
    const others = view.account.worstCaseNotional - worstNotional(current, mark);
    const cap = sharesFor(limits.maxTotalNotional - others, unitValue);
    if (cap < limit) {
      limit = cap;
      reason = 'TOTAL_NOTIONAL_LIMIT';
    }
  }
  if (limits.reduceOnly) {
    const net = view.position.net;
    const cap = Math.max(0, side === 'bid' ? net : -net);
    if (cap < limit) {
      limit = cap;
      reason = 'REDUCE_ONLY';
    }
  }
  return { limit, reason };
}

function sharesFor(notional: number, unitValue: number): number {
  if (unitValue <= 0) return Number.MAX_SAFE_INTEGER;
  return Math.floor((notional * 1e6) / unitValue);
}

/**
 * Pair each desired quote with an identical live own order in the same slot (side and level), each
 * order used once. Only there does the order manager keep the order for the quote: an identical
 * order in another slot is replaced there, and were it to fill while that replace is on the way,
 * the new order plus the fill would be exposure this gate never counted.
 */
function matchExisting(view: MarketView, quotes: readonly DesiredQuote[]): (WorkingQuote | undefined)[] {
  const own = view.quotes;
  const out = new Array<WorkingQuote | undefined>(quotes.length);
  // which own orders are taken, by index into view.quotes: bits of a number for the first 30 (a
  // handful is the rule: no array per tick), an array beyond
  let usedBits = 0;
  let used: boolean[] | null = null;
  for (let i = 0; i < quotes.length; i++) {
    const q = quotes[i]!;
    let m: WorkingQuote | undefined;
    for (let j = 0; j < own.length; j++) {
      const w = own[j]!;
      if (w.state === 'cancelling' || w.side !== q.side || w.price !== q.price || w.size !== q.size || w.level !== q.level) continue;
      if (j < USED_BITS ? (usedBits & (1 << j)) !== 0 : used !== null && used[j] === true) continue;
      m = w;
      if (j < USED_BITS) usedBits |= 1 << j;
      else (used ??= new Array<boolean>(own.length).fill(false))[j] = true;
      break;
    }
    out[i] = m;
  }
  return out;
}

/** own orders matchExisting marks as taken in the bits of one number */
const USED_BITS = 30;

/** The result's lists when there is nothing in them (most ticks deny nothing): shared, and frozen so no caller can fill them. */
const NO_DENIALS = Object.freeze([]) as unknown as QuoteDenied[];
const NO_KEPT: readonly WorkingQuote[] = Object.freeze([]);

function denied(view: MarketView, reason: RiskReason, detail: string, quote: DesiredQuote | null): QuoteDenied {
  return { type: 'QuoteDenied', marketId: view.marketId, reason, detail, quote, ts: view.now };
}

/** Every quote of the market pulled (or everything killed) for one market-wide reason. */
function marketWide(view: MarketView, action: 'pull', reason: RiskReason, detail: string, wanted: number, state: RiskState): RiskResult {
  return {
    action,
    quotes: [],
    keeps: [],
    decisions: [{ kind: 'deny', quote: null, reason, detail }],
    // one event per tick that had something to deny, not one per quote: the cause is market-wide
    denied: wanted > 0 ? [denied(view, reason, detail, null)] : [],
    state,
  };
}

export function applyRisk(view: MarketView, quotes: readonly DesiredQuote[] | null, limits: RiskLimits, state: RiskState = INITIAL_RISK_STATE): RiskResult {
  const tokens = refill(state.tokens, state.refilledAt, view.now, limits.orderRate);
  const next: RiskState = { tokens, refilledAt: view.now };
  const wanted = quotes === null ? 0 : quotes.length;
  // a strategy that quotes nothing still learns which guard stands (one decision, no event: nothing was wanted)
  const guard = marketGuard(view, limits);
  if (guard) return marketWide(view, 'pull', guard.reason, guard.detail, wanted, next);
  if (quotes === null) return { action: 'pull', quotes: [], keeps: [], decisions: [], denied: [], state: next };
  return gateQuotes(view, quotes, limits, next);
}

/**
 * Stages 3–5 for one tick. Written as index loops over per-quote arrays (no closures, no spreads):
 * it runs for every market on every tick.
 */
function gateQuotes(view: MarketView, quotes: readonly DesiredQuote[], limits: RiskLimits, state: RiskState): RiskResult {
  const n = quotes.length;
  const decisions: (RiskDecision | undefined)[] = new Array(n);
  // each quote's size after stage 4, made (every quote's size) on the first trim, and the reasons of
  // the trims: most ticks trim nothing, and a quote untrimmed has its own size (no per-tick copy)
  let sizes: number[] | null = null;
  let trims: (RiskReason | undefined)[] | null = null;
  const matched = matchExisting(view, quotes);
  const ctx = priceContext(view, quotes);

  // 3. price checks, and the venue's SELF_TRADE warning (no new orders while it stands)
  // reduceLeft: what crossing `reduce` quotes may still take off the position this tick (each alone
  // is at most the position: together too, so two of them never flip it)
  let reduceLeft = Math.abs(view.position.net);
  for (let i = 0; i < n; i++) {
    const q = quotes[i]!;
    const trip = priceCheck(q, view, limits, ctx);
    if (trip) decisions[i] = { kind: 'deny', quote: q, reason: trip.reason, detail: trip.detail };
    else if (view.flags.selfTradeWarning && !matched[i])
      decisions[i] = { kind: 'deny', quote: q, reason: 'SELF_TRADE', detail: 'venue simulate flagged SELF_TRADE' };
    else if (q.reduce === true && !limits.allowCrossing && crossesBook(q, view)) {
      if (q.size > reduceLeft) {
        const detail = `reduce ${q.side} ${q.size} crosses: more than the ${reduceLeft} left to reduce`;
        decisions[i] = { kind: 'deny', quote: q, reason: 'CROSSES_BOOK', detail };
      } else reduceLeft -= q.size;
    }
  }

  // 4. sizes: closest levels get the room first
  const order = levelOrder(quotes);
  const base = exposureOf(view.position.net, view.quotes);
  const mark = markPrice(view);
  let reachBid = base.long;
  let reachAsk = base.short;
  let capBid: Cap | null = null;
  let capAsk: Cap | null = null;
  let costly = 0;
  for (let k = 0; k < n; k++) {
    const i = order[k]!;
    if (decisions[i] || matched[i]) continue;
    const q = quotes[i]!;
    let size = q.size;
    if (size > limits.maxOrderSize) {
      size = limits.maxOrderSize;
      (trims ??= new Array(n))[i] = 'ORDER_SIZE';
    }
    // caps are computed on first need only (a tick whose quotes all stand costs none)
    const bid = q.side === 'bid';
    const cap = bid ? (capBid ??= sideCapOf(view, limits, 'bid', base, mark)) : (capAsk ??= sideCapOf(view, limits, 'ask', base, mark));
    const room = cap.limit - (bid ? reachBid : reachAsk);
    if (room < size) {
      size = Math.max(0, room);
      (trims ??= new Array(n))[i] = cap.reason;
    }
    if (size !== q.size) (sizes ??= quoteSizes(quotes))[i] = size;
    if (size < Math.max(1, view.minSize)) {
      const reason = trims?.[i] ?? 'ORDER_SIZE';
      decisions[i] = { kind: 'deny', quote: q, reason, detail: `${q.side} size ${q.size} leaves ${size} under the limit (market minimum ${view.minSize})` };
      continue;
    }
    if (bid) reachBid += size;
    else reachAsk += size;
    costly++;
  }

  // 4b. orders already working past a cap (a position sync, a mark that moved the notional cap);
  // both sides' staying sizes in one pass (shedding bids denies only bids: the asks' sum is the same)
  let stayBid = 0;
  let stayAsk = 0;
  for (let i = 0; i < n; i++) {
    if (!matched[i] || decisions[i]) continue;
    const q = quotes[i]!;
    if (q.side === 'bid') stayBid += q.size;
    else if (q.side === 'ask') stayAsk += q.size;
  }
  if (stayBid > 0) shedPastCap(quotes, order, matched, decisions, view.position.net, stayBid, 'bid', (capBid ??= sideCapOf(view, limits, 'bid', base, mark)));
  if (stayAsk > 0) shedPastCap(quotes, order, matched, decisions, -view.position.net, stayAsk, 'ask', (capAsk ??= sideCapOf(view, limits, 'ask', base, mark)));

  // 5. rate budget over the creates that survived
  let tokensLeft = state.tokens;
  let kept: WorkingQuote[] | null = null;
  if (costly > 0 && state.tokens >= costly) {
    // a bucket that pays for every create grants them all (allocateBudget's first case): no ranking,
    // so no values to rank by; one token at a time, as there, for the same float result
    for (let k = 0; k < costly; k++) tokensLeft -= 1;
  } else if (costly > 0) {
    // 4b denies only matched quotes: the creates are still the `costly` counted in 4
    const costlyIdx = new Array<number>(costly);
    for (let k = 0, c = 0; k < n; k++) {
      const i = order[k]!;
      if (!decisions[i] && !matched[i]) costlyIdx[c++] = i;
    }
    const olds = new Array<WorkingQuote | undefined>(costlyIdx.length);
    const values = new Array<number>(costlyIdx.length);
    for (let k = 0; k < costlyIdx.length; k++) {
      const q = quotes[costlyIdx[k]!]!;
      const old = replacedOrder(view.quotes, q, matched);
      olds[k] = old;
      values[k] = moveValue(q.price, sizes === null ? q.size : sizes[costlyIdx[k]!]!, q.level, old, view.tick);
    }
    const budget = allocateBudget(values, state.tokens);
    tokensLeft = budget.tokens;
    for (let k = 0; k < costlyIdx.length; k++) {
      if (budget.granted[k]) continue;
      const i = costlyIdx[k]!;
      const old = olds[k];
      decisions[i] = {
        kind: 'deny',
        quote: quotes[i]!,
        reason: 'RATE_LIMIT',
        detail: old ? `order budget spent: kept the working ${old.side} at ${old.price}` : 'order budget spent',
      };
      if (old && !priceCheck(old, view, limits, ctx)) (kept ??= []).push(old);
    }
  }

  // the outputs, at their final length: a pushed-to [] takes a 16-slot store at its first push, and
  // this runs for every market on every tick (usually every quote passes: `out` is then `quotes` itself)
  const keptOrders = kept ?? NO_KEPT;
  let passed = keptOrders.length;
  let all = true;
  for (let i = 0; i < n; i++) {
    if (!decisions[i]) passed++;
    if (decisions[i] || (sizes !== null && sizes[i] !== quotes[i]!.size)) all = false;
  }
  const out: DesiredQuote[] = all && keptOrders.length === 0 ? (quotes as DesiredQuote[]) : new Array<DesiredQuote>(passed);
  const keeps = new Array<Bytes32 | null>(passed);
  let events: QuoteDenied[] | null = null;
  let o = 0;
  // every undecided quote gets its pass or trim here: `decisions` is then the result's full list
  for (let i = 0; i < n; i++) {
    const q = quotes[i]!;
    const d = decisions[i];
    if (d) {
      if (d.kind === 'deny') (events ??= []).push(denied(view, d.reason, d.detail, d.quote));
    } else if (sizes !== null && sizes[i] !== q.size) {
      out[o] = { ...q, size: sizes[i]! };
      keeps[o++] = null;
      decisions[i] = { kind: 'trim', quote: q, size: sizes[i]!, reason: trims![i]! };
    } else {
      out[o] = q;
      keeps[o++] = matched[i]?.nonce ?? null;
      decisions[i] = { kind: 'pass', quote: q };
    }
  }
  for (let k = 0; k < keptOrders.length; k++) {
    out[o] = workingAsQuote(keptOrders[k]!);
    keeps[o++] = keptOrders[k]!.nonce ?? null;
  }
  // nothing spent: the refilled state as it came in
  const after = tokensLeft === state.tokens ? state : { tokens: tokensLeft, refilledAt: state.refilledAt };
  return { action: 'quote', quotes: out, keeps, decisions: decisions as RiskDecision[], denied: events ?? NO_DENIALS, state: after };
}

/** Every quote's own size, in order: gateQuotes' sizes at their first trim. */
function quoteSizes(quotes: readonly DesiredQuote[]): number[] {
  const sizes = new Array<number>(quotes.length);
  for (let i = 0; i < quotes.length; i++) sizes[i] = quotes[i]!.size;
  return sizes;
}

/**
 * Quotes identical to live orders pass stages 3–4 without a size check: they add nothing to what
 * the gate already counts. But the position can move under them (a positions read reporting fills
 * the feed has not, a cap that follows the mark), leaving the orders that stay on one side past
 * its cap. Those that stay are the matched ones (every other order on the side is replaced or
 * cancelled), so matched quotes are denied, farthest level first, until the side's net plus what
 * stays fits; their orders are then cancelled by the diff.
 */
function shedPastCap(
  quotes: readonly DesiredQuote[],
  order: readonly number[],
  matched: readonly (WorkingQuote | undefined)[],
  decisions: (RiskDecision | undefined)[],
  netOnSide: number,
  staying: number,
  side: 'bid' | 'ask',
  cap: Cap,
): void {
  if (netOnSide + staying <= cap.limit) return;
  for (let k = order.length - 1; k >= 0 && netOnSide + staying > cap.limit; k--) {
    const i = order[k]!;
    const q = quotes[i]!;
    if (!matched[i] || decisions[i] || q.side !== side) continue;
    decisions[i] = {
      kind: 'deny',
      quote: q,
      reason: cap.reason,
      detail: `working ${side} ${q.size} at ${q.price} pulled: the side's position ${netOnSide} plus working ${staying} is past the limit ${cap.limit}`,
    };
    staying -= q.size;
  }
}

/** The live own order a create would replace: same side and level, not matched to another quote. */
function replacedOrder(own: readonly WorkingQuote[], q: DesiredQuote, matched: readonly (WorkingQuote | undefined)[]): WorkingQuote | undefined {
  for (let j = 0; j < own.length; j++) {
    const w = own[j]!;
    if (w.state !== 'cancelling' && w.side === q.side && w.level === q.level && !matched.includes(w)) return w;
  }
  return undefined;
}

function workingAsQuote(w: WorkingQuote): DesiredQuote {
  const q: { side: 'bid' | 'ask'; price: number; size: number; level?: number; tag?: string } = { side: w.side, price: w.price, size: w.size };
  if (w.level !== undefined) q.level = w.level;
  if (w.tag !== undefined) q.tag = w.tag;
  return q;
}
