/**
 * Venue refusals, loud but never a line per order: the first refusal of a market and code
 * is logged at warn with the venue's status, code and message; further ones are counted and told as
 * one line per market and code per interval.
 *
 *   const rl = new RefusalLog(logger, intervalMs);
 *   rl.note(orderRejectedEvent, now)   // from the order manager's events
 *   rl.flush(now)                      // from a timer: summaries that are due
 *   rl.drain(now)                      // at stop: whatever is left
 */
import type { Logger } from '../core/logger.ts';
import { refusalLabel } from '../orders/refusal.ts';
import type { OrderRejected } from '../state/events.ts';
import { ThrottledLog, type ThrottledSummary } from '../core/throttled-log.ts';

export class RefusalLog {
  private readonly log: Logger;
  private readonly throttle: ThrottledLog;
  private readonly info = new Map<string, { marketId: string; code: string; status: number | null }>();
  total = 0;

  constructor(logger: Logger, intervalMs: number) {
    this.log = logger.child({ component: 'refusals' });
    this.throttle = new ThrottledLog(intervalMs);
  }

  note(e: OrderRejected, now: number): void {
    this.total++;
    const code = refusalLabel({ code: e.reason, message: e.message ?? '', status: e.status, venueCode: e.venueCode });
    const key = `${e.marketId} ${code}`;
    const message = e.message ?? e.reason;
    if (!this.info.has(key)) this.info.set(key, { marketId: e.marketId, code, status: e.status ?? null });
    if (this.throttle.hit(key, now, message) !== 'first') return;
    this.log.warn(
      { marketId: e.marketId, status: e.status ?? null, code, reason: e.reason, message, retryable: e.retryable },
      `venue refused an order: ${e.status ?? '-'} ${code}: ${message} (more like it are summarised)`,
    );
  }

  flush(now: number): void {
    this.throttle.due(now, (k, s) => this.summary(k, s));
  }

  drain(now: number): void {
    this.throttle.drain(now, (k, s) => this.summary(k, s));
  }

  private summary(key: string, s: ThrottledSummary): void {
    const i = this.info.get(key);
    if (!i) return;
    this.log.warn(
      { marketId: i.marketId, status: i.status, code: i.code, refused: s.count, seconds: Math.round(s.windowMs / 1000), message: s.last },
      `venue refused ${s.count} more order(s) in ${Math.round(s.windowMs / 1000)} s: ${i.status ?? '-'} ${i.code}: ${s.last}`,
    );
  }
}
