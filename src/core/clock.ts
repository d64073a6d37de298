/**
 * Injected time. Live code uses the system clock; backtests use virtual time. Strategies never
 * read time themselves: it is passed in their view.
 */
import { asyncScheduler, type SchedulerLike } from 'rxjs';
import { setTimeoutAfterReads } from './late-timer.ts';

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
  // a timer due during a stall of the event loop runs after that turn's reads (./late-timer.ts): the
  // housekeeping round judges books on what arrived during the stall, not on what was read before it
  setTimeout: (fn, ms) => setTimeoutAfterReads(fn, ms),
};

/** Unix seconds of a clock. */
export function nowSeconds(clock: Clock): number {
  return Math.floor(clock.now() / 1000);
}
