/**
 * Collects a stream's events and lets a test await the next one matching a predicate, with a generous
 * upper bound (the bound only turns a hang into a failure; passing never depends on speed).
 */
import type { Observable, Subscription } from 'rxjs';
import type { BookEvent } from '../../../src/model/stream.ts';
import { withTimeout } from './sse-fixture-server.ts';

export class EventCollector {
  readonly events: BookEvent[] = [];
  readonly sub: Subscription;
  private waiters: { from: number; pred: (e: BookEvent) => boolean; resolve: (e: BookEvent) => void }[] = [];
  constructor(source: Observable<BookEvent>) {
    this.sub = source.subscribe((e) => {
      this.events.push(e);
      const i = this.events.length - 1;
      this.waiters = this.waiters.filter((w) => {
        if (i >= w.from && w.pred(e)) {
          w.resolve(e);
          return false;
        }
        return true;
      });
    });
  }
  /** The first event at index ≥ `from` (default: any so far) matching `pred`. */
  waitFor(pred: (e: BookEvent) => boolean, what: string, from = 0, timeoutMs = 10_000): Promise<BookEvent> {
    for (let i = from; i < this.events.length; i++) if (pred(this.events[i]!)) return Promise.resolve(this.events[i]!);
    return withTimeout(new Promise<BookEvent>((resolve) => this.waiters.push({ from, pred, resolve })), timeoutMs, what);
  }
  data(): BookEvent[] {
    return this.events.filter((e) => e.type !== 'status');
  }
  states(): string[] {
    return this.events.flatMap((e) => (e.type === 'status' ? [e.state] : []));
  }
  stop(): void {
    this.sub.unsubscribe();
  }
}

/** Resolve once `cond()` holds, checking after each macrotask (bounded like waitFor). */
export async function until(cond: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const start = Date.now();
  while (!cond()) {
    if (Date.now() - start > timeoutMs) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 2));
  }
}
