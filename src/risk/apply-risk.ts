/**
 * The risk gate (pure): strategy quotes in, allowed quotes out, one decision per quote and a
 * QuoteDenied event per denial. Stages, in order:
 *  1. kill switch (drawdown from peak PnL, venue error rate) — latched, action 'kill';
 *  2. market guards (halted, status, deadline, migration, stale book, silent stream) — action 'pull';
 *  3. per-quote price checks (grid and range, crossing, distance from fair, self-trade);
 *  4. size: maxOrderSize, then position / notional / total / reduce-only caps at WORST CASE — every
 *     working, in-flight and cancelling order filled, plus every new quote — trimming where the
 *     remainder is still at least the market minimum;
 *  5. the order-rate budget over the quotes that would cost a create, best value first; a denied
 *     move keeps the order it would have replaced.
 * A desired quote identical to a live own order (side, price, size) is that order: it costs no
 * token and adds no exposure (it is already counted).
 */
import type { DesiredQuote, MarketView, WorkingQuote } from '../strategy/types.ts';
import { exposureOf, markPrice, worstNotional, worstPosition } from './exposure.ts';
import { killSwitch } from './kill-switch.ts';
import { marketGuard, type GuardTrip } from './market-guard.ts';
import { priceCheck, priceContext } from './price-check.ts';
import { allocateBudget, refill, requoteValue } from './rate-budget.ts';
import { INITIAL_RISK_STATE, type QuoteDenied, type RiskDecision, type RiskLimits, type RiskReason, type RiskResult, type RiskState } from './types.ts';

interface Cap {
  readonly limit: number;
  readonly reason: RiskReason;
}

/** Largest worst-case long (side 'bid') or short (side 'ask') this market may reach, and why. */
export function sideCap(view: MarketView, limits: RiskLimits, side: 'bid' | 'ask'): Cap {
  const mark = markPrice(view);
  const unitValue = side === 'bid' ? mark : 1e6 - mark; // 1e-6 USDC per share at risk
  const current = exposureOf(view.position.net, view.quotes);
  const caps: Cap[] = [
    { limit: limits.maxPosition, reason: 'POSITION_LIMIT' },
    { limit: sharesFor(limits.maxNotional, unitValue), reason: 'NOTIONAL_LIMIT' },
  ];
  if (limits.maxTotalPosition > 0) {
    const others = view.account.worstCasePosition - worstPosition(current);
    caps.push({ limit: limits.maxTotalPosition - others, reason: 'TOTAL_POSITION_LIMIT' });
  }
  if (limits.maxTotalNotional > 0) {
    const others = view.account.worstCaseNotional - worstNotional(current, mark);
    caps.push({ limit: sharesFor(limits.maxTotalNotional - others, unitValue), reason: 'TOTAL_NOTIONAL_LIMIT' });
  }
  if (limits.reduceOnly) {
    const net = view.position.net;
    caps.push({ limit: Math.max(0, side === 'bid' ? net : -net), reason: 'REDUCE_ONLY' });
  }
  return caps.reduce((a, b) => (b.limit < a.limit ? b : a));
}

function sharesFor(notional: number, unitValue: number): number {
  if (unitValue <= 0) return Number.MAX_SAFE_INTEGER;
  return Math.floor((notional * 1e6) / unitValue);
}

/** Pair each desired quote with an identical live own order, each order used once. */
function matchExisting(view: MarketView, quotes: readonly DesiredQuote[]): (WorkingQuote | undefined)[] {
  const pool = view.quotes.filter((w) => w.state !== 'cancelling');
  const used = new Set<WorkingQuote>();
  return quotes.map((q) => {
    const m = pool.find((w) => !used.has(w) && w.side === q.side && w.price === q.price && w.size === q.size);
    if (m) used.add(m);
    return m;
  });
}

function denied(view: MarketView, reason: RiskReason, detail: string, quote: DesiredQuote | null): QuoteDenied {
  return { type: 'QuoteDenied', marketId: view.marketId, reason, detail, quote, ts: view.now };
}

export function applyRisk(view: MarketView, quotes: readonly DesiredQuote[] | null, limits: RiskLimits, state: RiskState = INITIAL_RISK_STATE): RiskResult {
  const kill = killSwitch(view, limits, state);
  const tokens = refill(state.tokens, state.refilledAt, view.now, limits.orderRate);
  const next: RiskState = { peakPnl: kill.peakPnl, tokens, refilledAt: view.now, killed: kill.killed };
  const wanted = quotes ?? [];
  const marketWide = (action: 'pull' | 'kill', trip: GuardTrip): RiskResult => ({
    action,
    quotes: [],
    decisions: [{ kind: 'deny', quote: null, reason: trip.reason, detail: trip.detail }],
    // one event per tick that had something to deny, not one per quote: the cause is market-wide
    denied: wanted.length > 0 || action === 'kill' ? [denied(view, trip.reason, trip.detail, null)] : [],
    state: next,
  });
  if (kill.killed) return marketWide('kill', { reason: kill.killed, detail: kill.detail });
  if (quotes === null) return { action: 'pull', quotes: [], decisions: [], denied: [], state: next };
  const guard = marketGuard(view, limits);
  if (guard) return marketWide('pull', guard);
  return gateQuotes(view, quotes, limits, next);
}

function gateQuotes(view: MarketView, quotes: readonly DesiredQuote[], limits: RiskLimits, state: RiskState): RiskResult {
  const decisions: (RiskDecision | undefined)[] = new Array(quotes.length);
  const sizes: number[] = quotes.map((q) => q.size);
  const trims: (RiskReason | undefined)[] = new Array(quotes.length);
  const matched = matchExisting(view, quotes);
  const ctx = priceContext(view, quotes);
  const deny = (i: number, reason: RiskReason, detail: string) => {
    decisions[i] = { kind: 'deny', quote: quotes[i]!, reason, detail };
  };

  // 3. price checks, and the venue's SELF_TRADE warning (no new orders while it stands)
  quotes.forEach((q, i) => {
    const trip = priceCheck(q, view, limits, ctx);
    if (trip) deny(i, trip.reason, trip.detail);
    else if (view.flags.selfTradeWarning && !matched[i]) deny(i, 'SELF_TRADE', 'venue simulate flagged SELF_TRADE');
  });

  // 4. sizes: closest levels get the room first
  const order = quotes.map((_, i) => i).sort((a, b) => (quotes[a]!.level ?? 0) - (quotes[b]!.level ?? 0) || a - b);
  const base = exposureOf(view.position.net, view.quotes);
  const reach = { bid: base.long, ask: base.short };
  const caps = { bid: sideCap(view, limits, 'bid'), ask: sideCap(view, limits, 'ask') };
  for (const i of order) {
    if (decisions[i] || matched[i]) continue;
    const q = quotes[i]!;
    if (sizes[i]! > limits.maxOrderSize) {
      sizes[i] = limits.maxOrderSize;
      trims[i] = 'ORDER_SIZE';
    }
    const cap = caps[q.side];
    const room = cap.limit - reach[q.side];
    if (room < sizes[i]!) {
      sizes[i] = Math.max(0, room);
      trims[i] = cap.reason;
    }
    if (sizes[i]! < Math.max(1, view.minSize)) {
      const reason = trims[i] ?? 'ORDER_SIZE';
      deny(i, reason, `${q.side} size ${q.size} leaves ${sizes[i]} under the limit (market minimum ${view.minSize})`);
      continue;
    }
    reach[q.side] += sizes[i]!;
  }

  // 5. rate budget over the creates that survived
  const costly = order.filter((i) => !decisions[i] && !matched[i]);
  const live = view.quotes.filter((w) => w.state !== 'cancelling');
  const olds = costly.map((i) => live.find((w) => w.side === quotes[i]!.side && w.level === quotes[i]!.level && !matched.includes(w)));
  const budget = allocateBudget(
    costly.map((i, k) => requoteValue({ ...quotes[i]!, size: sizes[i]! }, olds[k], view.tick)),
    state.tokens,
  );
  const kept: DesiredQuote[] = [];
  costly.forEach((i, k) => {
    if (budget.granted[k]) return;
    const old = olds[k];
    deny(i, 'RATE_LIMIT', old ? `order budget spent: kept the working ${old.side} at ${old.price}` : 'order budget spent');
    if (old && !priceCheck(old, view, limits, ctx)) kept.push(workingAsQuote(old));
  });

  const out: DesiredQuote[] = [];
  const all: RiskDecision[] = quotes.map((q, i) => {
    const d = decisions[i];
    if (d) return d;
    if (sizes[i] !== q.size) {
      const trimmed = { ...q, size: sizes[i]! };
      out.push(trimmed);
      return { kind: 'trim', quote: q, size: sizes[i]!, reason: trims[i]! };
    }
    out.push(q);
    return { kind: 'pass', quote: q };
  });
  out.push(...kept);
  const events = all.flatMap((d) => (d.kind === 'deny' ? [denied(view, d.reason, d.detail, d.quote)] : []));
  return { action: 'quote', quotes: out, decisions: all, denied: events, state: { ...state, tokens: budget.tokens } };
}

function workingAsQuote(w: WorkingQuote): DesiredQuote {
  const q: { side: 'bid' | 'ask'; price: number; size: number; level?: number; tag?: string } = { side: w.side, price: w.price, size: w.size };
  if (w.level !== undefined) q.level = w.level;
  if (w.tag !== undefined) q.tag = w.tag;
  return q;
}
