/**
 * Tick-to-wire, measured honestly: from the book event that caused a send to the signed request
 * being written, with the requote throttle's wait reported apart.
 *
 *   const meter = new TickToWireMeter({ tickToWire: (s) => h1.observe(s), throttle: (s) => h2.observe(s) });
 *   meter.bookEvent(marketId)            // the feed sink, for every book snapshot/delta, before the kernel sees it
 *   meter.tickStart(marketId, cause)     // QuotingKernel onTickStart
 *   meter.tickEnd(marketId, sync)        // QuotingKernel onTick, with kernel.lastSync(marketId)
 *   meter.write(marketId)                // the live venue's onWrite, when a signed request is written
 *
 * Rules (each a fix of what the old gauge did):
 * - the first unhandled book event of a market is the cause; later events before the tick coalesce into it;
 * - a tick that runs at once (`event`) arms the meter from the event's arrival; a throttled trailing
 *   tick arms it from the tick's start and reports (tick start − event arrival) as the throttle wait;
 * - a housekeeping or manual tick arms nothing and discards any cause, and EVERY tick start disarms
 *   what the previous tick armed: a book event whose tick sent nothing is never charged to a later
 *   timer- or fill-driven order;
 * - a write consumes the arm (one observation per caused send); when the tick's sync has settled
 *   without writing (its desired set matched what rests), the arm is dropped, so a later write
 *   outside any tick (a retry, a reconcile's re-place) is not charged to that event either.
 * The wall clock here is performance.now(): the runtime layer, not a pure one.
 */
import type { TickCause } from './quoting-kernel.ts';

export interface TickToWireSink {
  /** seconds from the causing event (or the throttled tick's start) to the request written */
  tickToWire(seconds: number): void;
  /** seconds the requote throttle held the causing event (0 when the tick ran at once) */
  throttle(seconds: number): void;
}

const lower = (s: string): string => s.toLowerCase();

export class TickToWireMeter {
  private readonly pending = new Map<string, number>();
  private readonly armed = new Map<string, { from: number; gen: number }>();
  private gen = 0;
  private readonly sink: TickToWireSink;
  private readonly now: () => number;

  constructor(sink: TickToWireSink, now: () => number = () => performance.now()) {
    this.sink = sink;
    this.now = now;
  }

  bookEvent(marketId: string): void {
    const k = lower(marketId);
    if (!this.pending.has(k)) this.pending.set(k, this.now());
  }

  tickStart(marketId: string, cause: TickCause): void {
    const k = lower(marketId);
    const at = this.pending.get(k);
    this.pending.delete(k);
    this.armed.delete(k);
    if (at === undefined || cause === 'housekeeping' || cause === 'manual') return;
    if (cause === 'throttled') {
      const t = this.now();
      this.sink.throttle(Math.max(0, t - at) / 1000);
      this.armed.set(k, { from: t, gen: ++this.gen });
    } else {
      this.sink.throttle(0);
      this.armed.set(k, { from: at, gen: ++this.gen });
    }
  }

  /** The tick's sync: once it settles, whatever it did not write is no longer owed to the event. */
  tickEnd(marketId: string, sync: Promise<unknown> | null): void {
    const k = lower(marketId);
    const a = this.armed.get(k);
    if (!a) return;
    const drop = (): void => {
      if (this.armed.get(k)?.gen === a.gen) this.armed.delete(k);
    };
    if (sync === null) drop();
    else void sync.then(drop, drop);
  }

  /** A retired market: drop what is kept for it. */
  forget(marketId: string): void {
    const k = lower(marketId);
    this.pending.delete(k);
    this.armed.delete(k);
  }

  /** Per-market entries held now (tests). */
  get size(): number {
    return this.pending.size + this.armed.size;
  }

  write(marketId: string | null): void {
    if (marketId === null) return;
    const k = lower(marketId);
    const a = this.armed.get(k);
    if (a === undefined) return;
    this.armed.delete(k);
    this.sink.tickToWire(Math.max(0, this.now() - a.from) / 1000);
  }
}
