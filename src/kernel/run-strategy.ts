/**
 * One quoting tick for one market: strategy → risk gate. A strategy is user code, so anything it
 * does wrong (throws, returns a non-list) pulls the market's quotes and is reported, never crashes
 * the bot. Entries that are not well-formed quotes reach the gate, which denies them as BAD_QUOTE.
 */
import { levelsAsGiven, slotLevels } from '../orders/slots.ts';
import { applyRisk } from '../risk/apply-risk.ts';
import type { RiskLimits, RiskResult, RiskState } from '../risk/types.ts';
import type { DesiredQuote, MarketView, StrategyModule } from '../strategy/types.ts';

export interface StrategyTick extends RiskResult {
  /** what the strategy returned (null = pull, or after an error) */
  readonly wanted: readonly DesiredQuote[] | null;
  /** the strategy threw or returned something that is not a list or null */
  readonly strategyError: Error | null;
}

export function runStrategy(view: MarketView, strategy: StrategyModule<unknown>, params: unknown, limits: RiskLimits, state: RiskState): StrategyTick {
  let wanted: DesiredQuote[] | null = null;
  let strategyError: Error | null = null;
  try {
    const out: unknown = strategy.quote(view, params);
    if (out === null || Array.isArray(out)) wanted = out as DesiredQuote[] | null;
    else strategyError = new Error(`strategy ${strategy.name} returned ${typeof out}, expected a list of quotes or null`);
  } catch (e) {
    strategyError = e instanceof Error ? e : new Error(String(e));
  }
  const gated = applyRisk(view, wanted === null ? null : withSlotLevels(sanitized(wanted)), limits, state);
  // an explicit literal: a spread of the gate's result cost a slow-path copy on every tick
  return {
    action: gated.action,
    quotes: gated.quotes,
    keeps: gated.keeps,
    decisions: gated.decisions,
    denied: gated.denied,
    state: gated.state,
    wanted,
    strategyError,
  };
}

/**
 * Every quote with the level of the slot it will take (src/orders/slots.ts): the gate takes a quote
 * identical to a live order as that order only within one slot, so it must see the same levels the
 * order manager will. The list is returned as is when every quote already has its level.
 */
function withSlotLevels(quotes: DesiredQuote[]): DesiredQuote[] {
  // every quote in its own level already (the usual case): nothing to build
  if (levelsAsGiven(quotes)) return quotes;
  const levels = slotLevels(quotes);
  let out: DesiredQuote[] | null = null;
  for (let i = 0; i < quotes.length; i++) {
    const q = quotes[i]!;
    if (q.level === levels[i]) continue;
    out ??= quotes.slice();
    out[i] = { ...q, level: levels[i]! };
  }
  return out ?? quotes;
}

/**
 * Non-objects become an obviously bad quote so the gate reports them instead of crashing on them.
 * The list is copied only when it holds one (the gate never keeps the list itself).
 */
function sanitized(quotes: readonly unknown[]): DesiredQuote[] {
  for (let i = 0; i < quotes.length; i++) {
    const q = quotes[i];
    if (typeof q !== 'object' || q === null) return quotes.map(sanitize);
  }
  return quotes as DesiredQuote[];
}

function sanitize(q: unknown): DesiredQuote {
  if (typeof q === 'object' && q !== null) return q as DesiredQuote;
  return { side: 'bid', price: Number.NaN, size: 0 };
}
