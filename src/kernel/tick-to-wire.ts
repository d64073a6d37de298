/**
 * Tick-to-wire, measured honestly: from the book event that caused a send to the signed request
 * being written, with the requote throttle's wait reported apart.
 *
 *   const meter = new TickToWireMeter({ tickToWire: (s) => h1.observe(s), throttle: (s) => h2.observe(s) });
 *   meter.bookEvent(marketId)            // the feed sink, for every book snapshot/delta, before the kernel sees it
 *   meter.tickStart(marketId, cause)     // QuotingKernel onTickStart
 *   meter.tickEnd(marketId, sync)        // QuotingKernel onTick, with kernel.lastSync(marketId)
 *   meter.write(marketId, cancelOnly)    // the live venue's onWrite, when a signed request is written
 *
 * Rules (each a fix of what the old gauge did):
 * - the first unhandled book event of a market is the cause; later events before the tick coalesce into it;
 * - a tick that runs at once (`event`) arms the meter from the event's arrival; a throttled trailing
 *   tick arms it from the tick's start and reports (tick start − event arrival) as the throttle wait;
 * - a housekeeping or manual tick arms nothing and discards any cause, and EVERY tick start disarms
 *   what the previous tick armed: a book event whose tick sent nothing is never charged to a later
 *   timer- or fill-driven order;
 * - a write consumes the arm (one observation per caused send): into `tickToWire` when the request
 *   carries a create, into `tickToCancel` when it carries only cancels (a requote that only pulls
 *   quotes; its cancel bodies are mostly signed ahead, so it would flatter the create figure); when the tick's sync has settled
 *   without writing (its desired set matched what rests), the arm is dropped, so a later write
 *   outside any tick (a retry, a reconcile's re-place) is not charged to that event either.
 * The wall clock here is performance.now(): the runtime layer, not a pure one.
 */
import type { Bytes32 } from '../model/order.ts';
import type { TickCause } from './quoting-kernel.ts';

export interface TickToWireSink {
  /** seconds from the causing event (or the throttled tick's start) to the request written */
  tickToWire(seconds: number): void;
  /**
   * the same, when the first request the event caused carries only cancels. Absent: such a write still
   * consumes the event (it is never charged to a later send) but is not observed.
   */
  tickToCancel?(seconds: number): void;
  /** seconds the requote throttle held the causing event (0 when the tick ran at once) */
  throttle(seconds: number): void;
}

/** One market's meter state, mutated in place (nothing is allocated per event or per tick). */
interface Slot {
  /** arrival of the first unhandled book event (NaN: none) */
  pending: number;
  /** the armed tick's start of measurement (NaN: not armed) and its generation */
  from: number;
  gen: number;
}

/** The sync of the tick armed as `gen` settled: nothing it did not write is owed to its event any more. */
function disarm(s: Slot, gen: number): void {
  if (s.gen === gen) s.from = Number.NaN;
}

export class TickToWireMeter {
  private readonly slots = new Map<Bytes32, Slot>();
  private gen = 0;
  private readonly sink: TickToWireSink;
  private readonly now: () => number;

  constructor(sink: TickToWireSink, now: () => number = () => performance.now()) {
    this.sink = sink;
    this.now = now;
  }

  private slot(marketId: Bytes32): Slot {
    let s = this.slots.get(marketId);
    if (s === undefined) {
      s = { pending: Number.NaN, from: Number.NaN, gen: 0 };
      this.slots.set(marketId, s);
    }
    return s;
  }

  bookEvent(marketId: Bytes32): void {
    const s = this.slot(marketId);
    if (s.pending !== s.pending) s.pending = this.now(); // NaN: no event waiting yet
  }

  tickStart(marketId: Bytes32, cause: TickCause): void {
    const s = this.slot(marketId);
    const at = s.pending;
    s.pending = Number.NaN;
    s.from = Number.NaN;
    if (at !== at || cause === 'housekeeping' || cause === 'manual') return;
    if (cause === 'throttled') {
      const t = this.now();
      this.sink.throttle(Math.max(0, t - at) / 1000);
      s.from = t;
    } else {
      this.sink.throttle(0);
      s.from = at;
    }
    s.gen = ++this.gen;
  }

  /** The tick's sync: once it settles, whatever it did not write is no longer owed to the event. */
  tickEnd(marketId: Bytes32, sync: Promise<unknown> | null): void {
    const s = this.slot(marketId);
    if (s.from !== s.from) return; // not armed (or already written)
    if (sync === null) {
      s.from = Number.NaN;
      return;
    }
    const gen = s.gen;
    void sync.then(
      () => disarm(s, gen),
      () => disarm(s, gen),
    );
  }

  /** A retired market: drop what is kept for it. */
  forget(marketId: Bytes32): void {
    this.slots.delete(marketId);
  }

  /** Per-market entries held now (tests). */
  get size(): number {
    return this.slots.size;
  }

  write(marketId: Bytes32 | null, cancelOnly = false): void {
    if (marketId === null) return;
    const s = this.slot(marketId);
    const from = s.from;
    if (from !== from) return;
    s.from = Number.NaN;
    const seconds = Math.max(0, this.now() - from) / 1000;
    if (!cancelOnly) this.sink.tickToWire(seconds);
    else this.sink.tickToCancel?.(seconds);
  }
}
