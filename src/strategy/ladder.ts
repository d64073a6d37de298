/**
 * A symmetric ladder of quotes around a centre, in probability space: level i sits at
 * centre ∓ (half + i·spacing). Prices are snapped passively (bids down, asks up).
 * Near the edges of [0, 1] (a centre pushed out by inventory skew, say):
 *  - a quote whose model price lies beyond its own outer bound (a bid below one tick, an ask above
 *    1 − tick) is dropped: there is no price at which it means what the model asks;
 *  - a quote pulled inward by the clamp (a bid above 1 − tick, an ask below one tick) is kept at the
 *    bound, once: further levels at the same clamped price would only duplicate it.
 * Hence bids stay strictly below asks.
 */
import { maxPrice, snapPrice } from './snap-price.ts';
import type { DesiredQuote } from './types.ts';

export interface LadderSpec {
  /** probability (may lie outside [0, 1]; the edges are handled as above) */
  readonly center: number;
  /** half spread of level 0, probability */
  readonly half: number;
  readonly spacing: number;
  readonly levels: number;
  /** 1e-6 shares per level */
  readonly size: number;
  readonly tick: number;
  readonly tag?: string;
}

export function ladder(spec: LadderSpec): DesiredQuote[] {
  const hi = maxPrice(spec.tick);
  if (spec.levels === 1) return oneLevel(spec, hi);
  const out: DesiredQuote[] = [];
  for (let i = 0; i < spec.levels; i++) {
    const off = spec.half + i * spec.spacing;
    const rawBid = Math.round((spec.center - off) * 1e6);
    const rawAsk = Math.round((spec.center + off) * 1e6);
    if (!(rawBid < spec.tick)) rung(out, 'bid', snapPrice(rawBid, 'bid', spec.tick), i, spec);
    if (!(rawAsk > hi)) rung(out, 'ask', snapPrice(rawAsk, 'ask', spec.tick), i, spec);
  }
  return out;
}

/**
 * The ladder of one level (the usual config): its bid and its ask, each unless past its bound, in a
 * list of their number. As the loop below makes it (a bid and an ask never repeat each other's
 * price: they are of different sides), without its pushes: a pushed-to [] takes a 16-slot store.
 */
function oneLevel(spec: LadderSpec, hi: number): DesiredQuote[] {
  const off = spec.half + 0 * spec.spacing; // level 0's offset, as the loop computes it
  const rawBid = Math.round((spec.center - off) * 1e6);
  const rawAsk = Math.round((spec.center + off) * 1e6);
  const bid = rawBid < spec.tick ? null : quote('bid', snapPrice(rawBid, 'bid', spec.tick), 0, spec);
  const ask = rawAsk > hi ? null : quote('ask', snapPrice(rawAsk, 'ask', spec.tick), 0, spec);
  if (bid === null) return ask === null ? [] : [ask];
  return ask === null ? [bid] : [bid, ask];
}

function quote(side: 'bid' | 'ask', price: number, level: number, spec: LadderSpec): DesiredQuote {
  return spec.tag === undefined ? { side, price, size: spec.size, level } : { side, price, size: spec.size, level, tag: spec.tag };
}

/**
 * One quote of the ladder, unless its side already has that price. The quotes made so far are the
 * record of used prices (a ladder is a few levels long), so no Set per call.
 */
function rung(out: DesiredQuote[], side: 'bid' | 'ask', price: number, level: number, spec: LadderSpec): void {
  for (let j = 0; j < out.length; j++) {
    const q = out[j]!;
    // SameValueZero, as Set.has: a NaN price repeats too
    if (q.side === side && (q.price === price || (q.price !== q.price && price !== price))) return;
  }
  out.push(quote(side, price, level, spec));
}
