/**
 * Injected time. Live code uses the system clock; backtests use virtual time. Strategies never
 * read time themselves: it is passed in their view.
 */
import { asyncScheduler, type SchedulerLike } from 'rxjs';

export interface Clock {
  /** milliseconds since the unix epoch (virtual in backtests) */
  now(): number;
  /** the RxJS scheduler time operators must use */
  readonly scheduler: SchedulerLike;
  /** a timer that respects the clock (virtual in backtests); returns a cancel function */
  setTimeout(fn: () => void, ms: number): () => void;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  scheduler: asyncScheduler,
  setTimeout(fn, ms) {
    const t = setTimeout(fn, ms);
    return () => clearTimeout(t);
  },
};

/** Unix seconds of a clock. */
export function nowSeconds(clock: Clock): number {
  return Math.floor(clock.now() / 1000);
}
