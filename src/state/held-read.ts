/**
 * The store's position of one market between balance reads and fills, exact through the race where
 * a read lands before the fill it already holds (docs/books-and-pnl.md, "The store's position").
 *
 * Entry points: `positionAfterRead(pos, held, yes, no)`, `positionAfterFill(pos, held, fill)`. Pure.
 *
 * A fill that trades between a poll's orders read and its balance read reaches the balance read
 * first: the read shows the fill's shares, the fill itself arrives with the next poll. A read that
 * holds more than the fills explain keeps the fills' own position beside it (`ahead`); a fill that
 * moves that position towards the read (not past it) is one the read already holds: the holdings stay
 * the read's, the cost and realised PnL are the fills', and once the fills reach the read the position
 * is the fills' own, to the unit (what the account's books hold). A fill outside that gap is one the
 * read did not see: it applies on top, as any fill. A read behind the fills (one that does not have a
 * fill yet) works the same way: the next read that has it gives the fills' own position back.
 *
 * The first read of a market is its starting holdings (inherited from earlier runs), never a read
 * ahead: the bot quotes a market only once a read of it is in (src/runtime/startup-waits.ts), so no
 * fill of its own can precede that read.
 */
import { applyFill, syncHoldings, type FillTerms, type PositionState } from './position.ts';

/** A balance read of the market has landed; while it holds more than the fills explain, that read and the fills' position. */
export interface HeldRead {
  /** shares held per the read that is ahead, 1e-6 (meaningless while `ahead` is null) */
  readonly yes: number;
  readonly no: number;
  /** the position the fills make (from the holdings before the read), while the read is ahead of it; else null */
  readonly ahead: PositionState | null;
}

export interface HeldPosition {
  readonly position: PositionState;
  readonly held: HeldRead | null;
}

const same = (p: PositionState, yes: number, no: number): boolean => p.yes === yes && p.no === no;

/** `x` lies from `from` towards `to`, not past it (both ends included). */
const between = (from: number, x: number, to: number): boolean => (from <= to ? from <= x && x <= to : to <= x && x <= from);

/**
 * A balance read: the holdings become the read's; a read ahead of the fills keeps their position
 * beside it. Null: nothing changes (the common case, every market on every poll: no allocation).
 */
export function positionAfterRead(pos: PositionState, held: HeldRead | null, yes: number, no: number): HeldPosition | null {
  // a read that reaches the fills' position (a read behind a fill, then one that has it): theirs, exactly
  if (held !== null && held.ahead !== null && held.ahead !== pos && same(held.ahead, yes, no)) return { position: held.ahead, held: { yes, no, ahead: null } };
  if (same(pos, yes, no)) {
    // the same objects when nothing is pending (every market is read on every poll); the same read
    // again while it is ahead of its fill stays ahead (the fill can come a poll late)
    if (held !== null && (held.ahead === null || (held.yes === yes && held.no === no))) return null;
    return { position: pos, held: { yes, no, ahead: null } };
  }
  return { position: syncHoldings(pos, yes, no), held: { yes, no, ahead: held === null ? null : pos } };
}

/** A fill (not a duplicate): applied to the fills' position when the last read is ahead of it, else on top. */
export function positionAfterFill(pos: PositionState, held: HeldRead | null, f: FillTerms): HeldPosition {
  const a = held?.ahead ?? null;
  if (held === null || a === null) return { position: applyFill(pos, f), held };
  const next = applyFill(a, f);
  // the fills reach the read: the position is theirs, exactly
  if (same(next, held.yes, held.no)) return { position: next, held: { yes: held.yes, no: held.no, ahead: null } };
  // a fill the read already holds: the read's holdings at the fills' cost
  if (between(a.yes, next.yes, held.yes) && between(a.no, next.no, held.no))
    return { position: syncHoldings(next, held.yes, held.no), held: { yes: held.yes, no: held.no, ahead: next } };
  // a fill the read did not see
  return { position: applyFill(pos, f), held: { yes: held.yes, no: held.no, ahead: null } };
}
