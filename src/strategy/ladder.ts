/**
 * A symmetric ladder of quotes around a centre, in probability space: level i sits at
 * centre ∓ (half + i·spacing). Prices are snapped passively (bids down, asks up) and clamped into
 * [tick, 1e6 − tick]; a level whose bid would meet or cross its ask after clamping is dropped,
 * since at the edges of [0, 1] only one side is meaningful.
 */
import { snapPrice } from './snap-price.ts';
import type { DesiredQuote } from './types.ts';

export interface LadderSpec {
  /** probability (may lie outside [0, 1]; the edges are handled by clamping) */
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
  const out: DesiredQuote[] = [];
  for (let i = 0; i < spec.levels; i++) {
    const off = spec.half + i * spec.spacing;
    const bid = snapPrice(Math.round((spec.center - off) * 1e6), 'bid', spec.tick);
    const ask = snapPrice(Math.round((spec.center + off) * 1e6), 'ask', spec.tick);
    const tag = spec.tag;
    // clamping can pin both sides to one bound: keep only the side that is not pinned there
    const bidPinned = spec.center - off < spec.tick / 1e6;
    const askPinned = spec.center + off > 1 - spec.tick / 1e6;
    const keepBid = bid < ask || (askPinned && !bidPinned);
    const keepAsk = bid < ask || (bidPinned && !askPinned);
    if (keepBid) out.push(q('bid', bid, spec.size, i, tag));
    if (keepAsk) out.push(q('ask', ask, spec.size, i, tag));
  }
  return out;
}

function q(side: 'bid' | 'ask', price: number, size: number, level: number, tag?: string): DesiredQuote {
  return tag === undefined ? { side, price, size, level } : { side, price, size, level, tag };
}
