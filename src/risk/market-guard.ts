/**
 * Market-wide guards: when one trips, every quote of the market is pulled. Order matters only for
 * which reason is reported; the first that applies wins.
 */
import type { MarketView } from '../strategy/types.ts';
import type { RiskLimits, RiskReason } from './types.ts';

export interface GuardTrip {
  readonly reason: RiskReason;
  readonly detail: string;
}

/**
 * Whether a market is inside the deadline guard at `now` (ms): quoting pauses `pauseBeforeDeadlineMs`
 * before its deadline. The one rule the gate and `bookmaker doctor` share; no deadline = never.
 */
export function insideDeadlineGuard(deadline: number | null, now: number, pauseBeforeDeadlineMs: number): boolean {
  return deadline !== null && now >= deadline - pauseBeforeDeadlineMs;
}

export function marketGuard(view: MarketView, limits: RiskLimits): GuardTrip | null {
  if (limits.halted) return { reason: 'HALTED', detail: 'trading halted by configuration' };
  if (view.status !== 'active') return { reason: 'MARKET_NOT_ACTIVE', detail: `market status is ${view.status}` };
  if (insideDeadlineGuard(view.deadline, view.now, limits.pauseBeforeDeadlineMs)) {
    return { reason: 'DEADLINE', detail: `within ${limits.pauseBeforeDeadlineMs} ms of the deadline` };
  }
  if (view.flags.migrationActive) return { reason: 'MIGRATION', detail: 'venue migration in progress' };
  if (!view.book) return { reason: 'STALE_BOOK', detail: 'no book yet' };
  const confirmedAt = bookConfirmedAt(view.book.updatedAt, view.streamLastEventAt);
  const age = view.now - confirmedAt;
  if (age > limits.maxBookAgeMs) return { reason: 'STALE_BOOK', detail: `book is ${age} ms old (limit ${limits.maxBookAgeMs})` };
  // null = the book is polled, not streamed: the book-age check above is the guard then
  if (view.streamLastEventAt !== null) {
    const silent = view.now - view.streamLastEventAt;
    if (silent > limits.maxStreamSilenceMs) return { reason: 'STREAM_SILENT', detail: `stream silent for ${silent} ms (limit ${limits.maxStreamSilenceMs})` };
  }
  return null;
}

/**
 * When the book was last vouched for. A quiet market on a live source is current: the keep-alives
 * vouch for an unchanged book, so it is not pulled just because nobody traded (the age counts from
 * the later of the two).
 */
function bookConfirmedAt(bookUpdatedAt: number, streamLastEventAt: number | null): number {
  return streamLastEventAt === null ? bookUpdatedAt : Math.max(bookUpdatedAt, streamLastEventAt);
}

/**
 * Whether the guards that time alone trips (the deadline, a stale book, a silent stream) would
 * trip at `now` for a market with this book time, stream time and deadline: the same rules as
 * marketGuard. The kernel's housekeeping asks it to skip a still market until one of them is due
 * (src/kernel/quoting-kernel.ts).
 */
export function timeGuardTrips(
  bookUpdatedAt: number | null,
  streamLastEventAt: number | null,
  deadline: number | null,
  now: number,
  limits: Pick<RiskLimits, 'pauseBeforeDeadlineMs' | 'maxBookAgeMs' | 'maxStreamSilenceMs'>,
): boolean {
  if (insideDeadlineGuard(deadline, now, limits.pauseBeforeDeadlineMs)) return true;
  if (bookUpdatedAt === null) return true;
  if (now - bookConfirmedAt(bookUpdatedAt, streamLastEventAt) > limits.maxBookAgeMs) return true;
  return streamLastEventAt !== null && now - streamLastEventAt > limits.maxStreamSilenceMs;
}
