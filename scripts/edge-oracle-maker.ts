/**
 * The oracle maker of scripts/edge-oracle.ts: a strategy module (loaded by path, as a user's module)
 * that knows the synthetic run's hidden fair value F, which no strategy the bot could ship sees. It
 * is the best case for a passive maker, not a strategy: it quotes `size` shares at least `d` from F
 * (a bid at F − d rounded down to the tick, an ask at F + d rounded up), never crossing the book
 * (a bid that would is held one tick under the best ask), on both sides or (`sides: away`) opening a
 * position only on the side away from the nearer bound (an ask below ½, a bid above; the other side
 * only takes the position down). With `flattenPQ` > 0, once min(F, 1 − F) is below it (a market
 * resolves at 5 % from a bound: docs/edge.md, "Markets that resolve and are replaced") it opens
 * nothing and takes any position off by crossing at the touch (a taker order, its fee paid). With
 * `maxPQ` < ½ it opens a position only where min(F, 1 − F) ≤ maxPQ (lopsided markets, where a step
 * moves the probability least), elsewhere it only takes a position down.
 *
 * The fair value comes from the script: `setOracleFair(reader)` before each run (the reader of
 * src/backtest/synthetic-source.ts's diagnostics accessor). Without one it quotes nothing.
 */
import { ConfigError } from '../src/model/errors.ts';
import { quotesAround } from '../src/strategy/quote-around.ts';
import type { DesiredQuote, MarketView, StrategyModule } from '../src/strategy/types.ts';

export interface OracleMakerConfig {
  /** distance from the fair value, USDC per share (≥ 0) */
  readonly d: number;
  /** shares a quote */
  readonly size: number;
  readonly sides: 'both' | 'away';
  /** min(F, 1 − F) below which it flattens and opens nothing (0: never) */
  readonly flattenPQ: number;
  /** min(F, 1 − F) above which it opens nothing, only takes a position down (0.5: opens everywhere) */
  readonly maxPQ: number;
}

const KEY = Symbol.for('bookmaker.scripts.edge-oracle.fair');
type Reader = (marketId: string) => number | undefined;

/** The hidden fair value's reader the next run's quotes use (undefined: quote nothing). */
export function setOracleFair(reader: Reader | undefined): void {
  (globalThis as Record<symbol, unknown>)[KEY] = reader;
}

/** A reader of `o`'s number settings: the value of `k` (or `d`), refused unless finite and `ok`. */
export function numberSetting(o: Record<string, unknown>, path: string): (k: string, d: number, ok: (x: number) => boolean) => number {
  return (k, d, ok) => {
    const v = o[k] ?? d;
    if (typeof v !== 'number' || !Number.isFinite(v) || !ok(v)) throw new ConfigError(`${path}.${k}: a number in range, got ${String(v)}`);
    return v;
  };
}

export function parseOracleMakerConfig(raw: unknown, path: string): OracleMakerConfig {
  const o = (raw ?? {}) as Record<string, unknown>;
  const num = numberSetting(o, path);
  const sides = o.sides ?? 'both';
  if (sides !== 'both' && sides !== 'away') throw new ConfigError(`${path}.sides: both or away, got ${String(sides)}`);
  for (const k of Object.keys(o)) if (!['d', 'size', 'sides', 'flattenPQ', 'maxPQ'].includes(k)) throw new ConfigError(`${path}.${k}: unknown setting`);
  return {
    d: num('d', 0.01, (x) => x >= 0 && x < 0.5),
    size: num('size', 25, (x) => x > 0),
    sides,
    flattenPQ: num('flattenPQ', 0, (x) => x >= 0 && x < 0.5),
    maxPQ: num('maxPQ', 0.5, (x) => x > 0 && x <= 0.5),
  };
}

export function quoteOracleMaker(view: MarketView, c: OracleMakerConfig): DesiredQuote[] | null {
  const reader = (globalThis as Record<symbol, unknown>)[KEY] as Reader | undefined;
  const fair = reader?.(view.marketId);
  if (fair === undefined || view.status !== 'active' || !view.book) return null;
  const net = view.position.net;
  const { bestBid, bestAsk } = view.book;
  if (Math.min(fair, 1 - fair) < c.flattenPQ) {
    if (net > 0 && bestBid !== null) return [{ side: 'ask', price: bestBid, size: net, reduce: true }];
    if (net < 0 && bestAsk !== null) return [{ side: 'bid', price: bestAsk, size: -net, reduce: true }];
    return [];
  }
  return quoteAround(view, fair, c);
}

/**
 * `size` shares `d` from `fair` (probability) on each side, on the tick, never crossing the book (`view.book`
 * given); beyond `maxPQ` of a bound, and with `sides: away` on the side toward the nearer bound, a side only
 * takes the position down. The oracle maker's quote, and the estimator maker's around its estimate.
 */
export function quoteAround(view: MarketView, fair: number, c: Pick<OracleMakerConfig, 'd' | 'size' | 'sides' | 'maxPQ'>): DesiredQuote[] {
  const net = view.position.net;
  const size = Math.round(c.size * 1e6);
  // away from the nearer bound: an ask below ½, a bid above; the other side only takes the position down
  // beyond maxPQ neither side opens
  const closeOnly = Math.min(fair, 1 - fair) > c.maxPQ;
  const bidSize = closeOnly || (c.sides === 'away' && fair < 0.5) ? Math.min(size, Math.max(0, -net)) : size;
  const askSize = closeOnly || (c.sides === 'away' && fair >= 0.5) ? Math.min(size, Math.max(0, net)) : size;
  return quotesAround(view, (fair - c.d) * 1e6, (fair + c.d) * 1e6, bidSize, askSize);
}

const oracleMaker: StrategyModule<OracleMakerConfig> = { name: 'oracle-maker', parseConfig: parseOracleMakerConfig, quote: quoteOracleMaker };
export default oracleMaker;
