/**
 * Join the others' touch, never improve on it (`touch`): a bid above the others' best bid (an ask below
 * their best ask) is moved back to it, `behindTicks` further out when set (`aheadTicks`: that many
 * ticks ahead of it, where the others' spread leaves room), and with `minDepth` a side
 * is quoted only while the others rest at least that many shares at their touch.
 *
 * Why: a quote alone ahead of the others' touch is the first thing a taker who knows better reaches.
 * When the deep makers step their quotes back (they have learned the fair value moved toward that
 * side), a quote a strategy keeps because it is still inside its band, or places from a fair price
 * between the touches, is left alone at the old price until the strategy's next tick, and informed
 * takers fill it there (docs/edge.md, "Where they lose"). Standing with the others' size at their
 * touch, the quote is reached only when their level is. `minDepth`: a thin touch (a few shares) is
 * no shelter, and on a recorded book it says the level may go at the next print.
 *
 * Pure: a function of the view's book (the others', src/strategy/others-book.ts) and the parameters.
 */
import { readBoolean, readNumber, readOptionalObject, sharesToUnits } from '../core/fields.ts';
import { othersBook } from './others-book.ts';
import type { DesiredQuote, MarketView } from './types.ts';

export interface TouchJoinConfig {
  /** false: off (the default): quotes go where the strategy put them */
  readonly on: boolean;
  /** how many ticks behind the others' touch the quotes may go at the closest */
  readonly behindTicks: number;
  /**
   * how many ticks ahead of the others' touch the quotes may go at the closest (0: join, never
   * improve), a bid always below the others' mid and an ask above it (in a 2-tick book: none): at
   * the front of a new price level rather than behind the size resting at the others' (exclusive of
   * behindTicks)
   */
  readonly aheadTicks: number;
  /** the others' shares a side's touch must hold for that side to be quoted, 1e-6 shares (0: any) */
  readonly minDepth: number;
  /**
   * quote only while the others' mid m has m·(1 − m) at most this (0.25: anywhere; 0.16: below 0.2 or
   * above 0.8). Where a model's moves are in log-odds, a probability moves less near the bounds while
   * the book's spread stays a whole number of ticks, so a joined touch meets noise at the same spread
   * and informed moves of a fraction of the size.
   */
  readonly maxPQ: number;
  /**
   * and at least this (0: any; 0.06: above 0.065 and below 0.935): a market near a bound is near its
   * resolution, where a position held pays 0 or 1 and its spread is the PnL's
   */
  readonly minPQ: number;
  /**
   * where `maxPQ` or `minPQ` leaves a market out, still quote the side that reduces the net position, at most
   * the position's size (placed like any other quote): a position taken near a bound is not left
   * held, unquoted, until the market resolves (false, the default: nothing is quoted there)
   */
  readonly unwind: boolean;
  /**
   * where the others' mid m has m·(1 − m) below this (0: off, the default), the whole net position is
   * offered at the others' opposite touch, crossing it (a taker order of the position's size, flagged
   * `reduce`; the risk gate lets such an order cross only while it reduces the position), and nothing
   * else is quoted: a market this near a bound may settle within minutes, and a position held into the
   * settlement pays 0 or 1. Chosen from the book the bot sees, never the venue's hidden probability.
   */
  readonly flattenPQ: number;
  /**
   * where the others' mid m has m·(1 − m) below this (0: off, the default), a position is opened only on
   * the side away from the nearer bound: below ½ the ask alone adds (a YES sold), the bid is quoted only
   * up to a short position's size; above ½ the mirror. Near a bound a quote toward it is picked off by the
   * jumps that carry the market to its resolution, so what it buys is held into the settlement; a
   * position opened away from the bound is taken off by those same jumps.
   */
  readonly awayPQ: number;
}

export const TOUCH_JOIN_OFF: TouchJoinConfig = Object.freeze({
  on: false,
  behindTicks: 0,
  aheadTicks: 0,
  minDepth: 0,
  maxPQ: 0.25,
  minPQ: 0,
  unwind: false,
  flattenPQ: 0,
  awayPQ: 0,
});

/** `touch: { behindTicks, aheadTicks, minDepth, maxPQ, minPQ, unwind, flattenPQ, awayPQ }` (absent: off; `touch: {}` joins at the touch, any depth). */
export function parseTouchJoin(raw: unknown, path: string): TouchJoinConfig {
  if (raw === undefined || raw === null || raw === false) return TOUCH_JOIN_OFF;
  const o = readOptionalObject(raw === true ? {} : raw, path, ['behindTicks', 'aheadTicks', 'minDepth', 'maxPQ', 'minPQ', 'unwind', 'flattenPQ', 'awayPQ']);
  const behindTicks = readNumber(o, 'behindTicks', path, { min: 0, max: 100, integer: true }, 0);
  const aheadTicks = readNumber(o, 'aheadTicks', path, { min: 0, max: 100, integer: true }, 0);
  if (behindTicks > 0 && aheadTicks > 0) throw new Error(`${path}: behindTicks and aheadTicks exclude each other (got ${behindTicks} and ${aheadTicks})`);
  return {
    on: true,
    behindTicks,
    aheadTicks,
    minDepth: sharesToUnits(readNumber(o, 'minDepth', path, { min: 0, max: 1e9 }, 0)),
    maxPQ: readNumber(o, 'maxPQ', path, { min: 0, max: 0.25 }, 0.25),
    minPQ: readNumber(o, 'minPQ', path, { min: 0, max: 0.25 }, 0),
    unwind: readBoolean(o, 'unwind', path, false),
    flattenPQ: readNumber(o, 'flattenPQ', path, { min: 0, max: 0.25 }, 0),
    awayPQ: readNumber(o, 'awayPQ', path, { min: 0, max: 0.25 }, 0),
  };
}

/**
 * `quotes` with every bid at or below the others' best bid less `behindTicks` ticks (plus `aheadTicks`,
 * below the others' mid) and every ask at or above their best ask plus as many
 * (less `aheadTicks`, above their mid), moved there, size kept; a side whose
 * others' touch is missing or holds fewer than `minDepth` is left out. Where `maxPQ` or `minPQ` leaves
 * the market out: nothing, or with `unwind` the side that reduces the net position, at most its size.
 * Where `flattenPQ` says the market is near a bound: the position offered at the others' opposite touch alone.
 * Where `awayPQ` does, the side toward the bound only up to the position it reduces.
 */
export function applyTouchJoin(given: DesiredQuote[], view: MarketView, cfg: TouchJoinConfig): DesiredQuote[] {
  let quotes = given;
  if (!cfg.on) return quotes;
  const book = othersBook(view);
  const bid = book?.bids[0];
  const ask = book?.asks[0];
  if (cfg.flattenPQ > 0 && book && book.mid !== null) {
    const m = book.mid / 1e6;
    if (m * (1 - m) < cfg.flattenPQ) return flattening(view, bid?.price, ask?.price);
  }
  if (quotes.length === 0) return quotes;
  if (cfg.maxPQ < 0.25 || cfg.minPQ > 0) {
    const mid = book?.mid;
    if (mid === null || mid === undefined) return [];
    const m = mid / 1e6;
    if (m * (1 - m) > cfg.maxPQ || m * (1 - m) < cfg.minPQ) {
      if (!cfg.unwind) return [];
      quotes = unwinding(quotes, view);
    }
  }
  if (cfg.awayPQ > 0 && book && book.mid !== null) {
    const m = book.mid / 1e6;
    if (m * (1 - m) < cfg.awayPQ) quotes = awayFromBound(quotes, view, m < 0.5 ? 'bid' : 'ask');
  }
  const back = (cfg.behindTicks - cfg.aheadTicks) * view.tick;
  const out: DesiredQuote[] = [];
  for (const q of quotes) {
    const level = q.side === 'bid' ? bid : ask;
    if (level === undefined || level.size < cfg.minDepth) continue;
    if (q.side === 'bid') {
      // ahead of the touch: the highest tick below the others' mid at most
      const cap =
        ask && back < 0 ? Math.min(level.price - back, Math.ceil((level.price + ask.price) / (2 * view.tick)) * view.tick - view.tick) : level.price - back;
      if (cap <= 0) continue;
      out.push(q.price > cap ? { ...q, price: cap } : q);
    } else {
      const floor =
        bid && back < 0 ? Math.max(level.price + back, Math.floor((bid.price + level.price) / (2 * view.tick)) * view.tick + view.tick) : level.price + back;
      if (floor >= 1_000_000) continue;
      out.push(q.price < floor ? { ...q, price: floor } : q);
    }
  }
  return out;
}

/** The quotes on the side that reduces the net position (none when flat), each at most the position's size (below the minimum size: left out). */
function unwinding(quotes: DesiredQuote[], view: MarketView): DesiredQuote[] {
  const net = view.position.net;
  if (net === 0) return [];
  const side = net > 0 ? 'ask' : 'bid';
  const out: DesiredQuote[] = [];
  for (const q of quotes) {
    if (q.side !== side) continue;
    const size = Math.min(q.size, Math.abs(net));
    if (size >= view.minSize && size > 0) out.push(size === q.size ? q : { ...q, size });
  }
  return out;
}

/** `quotes` with the side `toward` the nearer bound kept only where it reduces the net position, at most the position's size. */
function awayFromBound(quotes: DesiredQuote[], view: MarketView, toward: 'bid' | 'ask'): DesiredQuote[] {
  const net = view.position.net;
  // the room the side toward the bound has: a short position's size for the bid, a long one's for the ask
  const room = toward === 'bid' ? Math.max(0, -net) : Math.max(0, net);
  const out: DesiredQuote[] = [];
  for (const q of quotes) {
    if (q.side !== toward) out.push(q);
    else {
      const size = Math.min(q.size, room);
      if (size >= view.minSize && size > 0) out.push(size === q.size ? q : { ...q, size });
    }
  }
  return out;
}

/**
 * The net position offered at the others' opposite touch (a bid at their best ask, an ask at their best
 * bid), flagged `reduce`; none when flat or below the minimum size.
 */
function flattening(view: MarketView, othersBid: number | undefined, othersAsk: number | undefined): DesiredQuote[] {
  const net = view.position.net;
  const size = Math.abs(net);
  if (net === 0 || size < view.minSize) return [];
  const price = net > 0 ? othersBid : othersAsk;
  if (price === undefined) return [];
  return [{ side: net > 0 ? 'ask' : 'bid', price, size, tag: 'flatten', reduce: true }];
}
