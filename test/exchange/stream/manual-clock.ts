/**
 * A clock whose time moves only when the test says so: timers fire inside `advance()`, in due order.
 * Lets idle-timeout and back-off tests be exact instead of racing the wall clock.
 */
import { asyncScheduler } from 'rxjs';
import type { Clock } from '../../../src/core/clock.ts';

export class ManualClock implements Clock {
  readonly scheduler = asyncScheduler;
  private t: number;
  private timers: { at: number; fn: () => void; id: number }[] = [];
  private nextId = 0;
  constructor(start = 1_000_000) {
    this.t = start;
  }
  now(): number {
    return this.t;
  }
  setTimeout(fn: () => void, ms: number): () => void {
    const id = this.nextId++;
    this.timers.push({ at: this.t + Math.max(0, ms), fn, id });
    return () => {
      this.timers = this.timers.filter((x) => x.id !== id);
    };
  }
  /** Move time forward, firing due timers (including ones they schedule) in time order. */
  advance(ms: number): void {
    const end = this.t + ms;
    for (;;) {
      this.timers.sort((a, b) => a.at - b.at || a.id - b.id);
      const next = this.timers[0];
      if (!next || next.at > end) break;
      this.timers.shift();
      this.t = next.at;
      next.fn();
    }
    this.t = end;
  }
  pending(): number {
    return this.timers.length;
  }
}
