/**
 * A recording's rows as the others' book sees them, for the measures of the flow (flow-stats.ts,
 * calibrate-intensity.ts): a market with drop-copy rows is read from them (the book without our own
 * orders), any other market from its public book rows. `kindAt(r)` is the row's kind so read
 * (KIND_LEVEL, KIND_CLEAR, KIND_TRADE, another kind, or −1 for a row of the book not read), and
 * `apply(r, kind)` applies a level or clear row to its market's book (false when the book cannot hold
 * the level: skipped, as the replay does).
 */
import { L2Book } from '../core/l2-book.ts';
import { KIND_CLEAR, KIND_LEVEL, KIND_TRADE, KIND_XCLEAR, KIND_XLEVEL } from './recording/columns.ts';
import type { ReplaySource } from './replay-source.ts';

export interface OthersRows {
  books: L2Book[];
  kindAt(r: number): number;
  apply(r: number, kind: number): boolean;
}

export function othersRows(source: ReplaySource): OthersRows {
  const cols = source.cols;
  const exact = new Uint8Array(cols.markets.length);
  for (let i = 0; i < cols.rows; i++) if (cols.kind[i]! === KIND_XLEVEL || cols.kind[i]! === KIND_XCLEAR) exact[cols.market[i]!] = 1;
  const books = source.ticks.map((tick) => new L2Book({ tick: Math.min(tick, 1_000) }));
  return {
    books,
    kindAt(r) {
      const kind = cols.kind[r]!;
      if (exact[cols.market[r]!] === 1) return kind === KIND_XLEVEL ? KIND_LEVEL : kind === KIND_XCLEAR ? KIND_CLEAR : kind === KIND_TRADE ? KIND_TRADE : -1;
      return kind === KIND_XLEVEL || kind === KIND_XCLEAR ? -1 : kind;
    },
    apply(r, kind) {
      const b = books[cols.market[r]!]!;
      try {
        if (kind === KIND_CLEAR) b.clear();
        else if (kind === KIND_LEVEL) {
          if (cols.side[r] === 0) b.applyBid(cols.price[r]!, cols.size[r]!);
          else b.applyAsk(cols.price[r]!, cols.size[r]!);
        }
        return true;
      } catch {
        return false;
      }
    },
  };
}
