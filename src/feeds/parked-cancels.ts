/**
 * Orders the bot cancelled that the own-orders poll (./own-orders-feed.ts) may release without a
 * read (docs/performance.md#streams-polling-and-the-venues-request-budget). The cancel's answer
 * states no fills, and a fill that raced the cancel may print on the market's stream after that
 * answer has arrived; so an order is released unread only once the stream has shown an event the
 * venue sent after the cancel, and no trade since the order's last read reached its price
 * (./book-touches.ts).
 *
 * What orders a stream event after the cancel: the venue's clock. An event's `timestamp` is read no
 * later than the event is sent (docs/venue.md#order-book-streaming), and an order's `insertedAt`
 * after its create request arrived. A create the bot sends after the cancel's answer came back is
 * therefore inserted at a venue time W later than every event the venue had sent by then, the
 * trades that matched before the cancel included; a stream event stamped after W was sent after
 * them, and the stream delivers in `seq` order (a gap is a resync, whose snapshot makes the poll
 * read the market). So: the first create sent after the park (any market: one venue clock) is the
 * witness, its create answer's `insertedAt` is W, and the market's stream passing W is the barrier.
 * A quiet market sends no event after W (its own cancel's delta is stamped before it): its stream's
 * heartbeats carry the venue's clock when they were sent, and pass W as well as an event does
 * (`heard`, in stream order; src/exchange/stream/book-stream.ts passes one on only while the stream
 * is live and in sequence). Once the venue's heartbeats are seen to carry its clock, a cancel whose
 * witness is known waits up to HEARTBEAT_WAIT_POLLS polls for its market's stream to pass W, a
 * heartbeat interval and more, instead of CANCEL_WAIT_POLLS.
 *
 *   const c = new ParkedCancels();
 *   c.parked(nonce, marketId);            // OrderParked with `cancelled`
 *   c.submitted(nonce, retry); c.accepted(nonce, insertedAt); c.rejected(nonce);   // every create
 *   c.ended(nonce);                       // OrderCancelled / OrderGone: released by any path
 *   c.see(bookEvent);                     // every book event of the streams
 *   c.heard(marketId, venueTs);           // every clocked heartbeat of the streams, in stream order
 *   const { release, read } = c.decide(marks, orderOf, unknownWaits);   // each poll, with its marks
 *   c.done(release);                      // after the poll's events went out
 */
import type { Bytes32 } from '../model/order.ts';
import type { BookEvent } from '../model/stream.ts';
import { reaches, type RestingAt, type Touch } from './book-touches.ts';

/** polls a cancelled order waits for its market's stream to pass the witness before it is read as before */
export const CANCEL_WAIT_POLLS = 3;

/**
 * The same, with the witness known and the venue's heartbeats carrying its clock: a live stream passes
 * W by its next heartbeat (the local exchange sends one every 5 s by default, the load bench every 2 s;
 * one poll a second), and a stream that stops sending them goes stale and is read as before.
 */
export const HEARTBEAT_WAIT_POLLS = 8;

/** markets whose stream is down remembered at most */
const MAX_DOWN = 100_000;

/** creates awaiting their answer (or cancels awaiting a create) held at most: past it the oldest are given up (read as before) */
const MAX_WITNESSES = 10_000;

/** One cancelled order waiting. */
export interface ParkedCancel {
  readonly nonce: Bytes32;
  readonly marketId: Bytes32;
  /** the venue time (ms) its market's stream must pass: the witness's insertion; null while unknown */
  after: number | null;
  /** polls it has waited */
  polls: number;
}

/** What the poll knows of an order: where it rests (its last read) and whether a lookup of it is owed. */
export interface PolledOrder {
  readonly at?: RestingAt;
  readonly owed: boolean;
}

/**
 * The time a witness's stated insertion stands for. A stamp of whole seconds may have been cut
 * from a finer one, so the insertion was up to a second later: the end of that second.
 */
export function witnessTime(insertedAt: number): number {
  return insertedAt % 1000 === 0 ? insertedAt + 999 : insertedAt;
}

export class ParkedCancels {
  private readonly pending = new Map<string, ParkedCancel>();
  /** cancels parked since the last create was sent: the next create sent is their witness */
  private unwitnessed: ParkedCancel[] = [];
  /** creates sent after parked cancels and not answered yet, by nonce: the cancels they witness */
  private readonly witnesses = new Map<string, ParkedCancel[]>();
  /** per market with a cancel waiting: the latest venue time its stream showed, and the cancels */
  private readonly streams = new Map<string, { ts: number; n: number }>();
  /** markets whose stream is not live now (connecting, reconnecting, stale, polling, closed) */
  private readonly down = new Set<string>();
  /** a stream's heartbeat has carried the venue's clock: the venue's heartbeats pass a witness */
  private clockedBeats = false;

  /** Our cancel of this order was answered (the order manager parked it). */
  parked(nonce: Bytes32, marketId: Bytes32): void {
    if (this.pending.has(nonce)) return;
    const p: ParkedCancel = { nonce, marketId, after: null, polls: 0 };
    this.pending.set(nonce, p);
    // no create sent for a long while: keep only the cancels still waiting
    if (this.unwitnessed.length >= MAX_WITNESSES) this.unwitnessed = this.unwitnessed.filter((q) => this.pending.get(q.nonce) === q);
    this.unwitnessed.push(p);
    const s = this.streams.get(marketId);
    if (s) s.n++;
    else this.streams.set(marketId, { ts: 0, n: 1 });
  }

  /** A create was sent (`retry`: the same signed order again, which an earlier send may have placed). */
  submitted(nonce: Bytes32, retry: boolean): void {
    if (retry || this.unwitnessed.length === 0) return;
    if (this.witnesses.size >= MAX_WITNESSES) this.witnesses.clear();
    this.witnesses.set(nonce, this.unwitnessed);
    this.unwitnessed = [];
  }

  /** A create's answer: its insertion (venue ms) when the answer stated it for this send. */
  accepted(nonce: Bytes32, insertedAt: number | undefined): void {
    const group = this.witnesses.get(nonce);
    if (!group) return;
    this.witnesses.delete(nonce);
    if (insertedAt === undefined || !(insertedAt > 0)) {
      this.unwitness(group);
      return;
    }
    const w = witnessTime(insertedAt);
    for (const p of group) if (this.pending.get(p.nonce) === p) p.after = w;
  }

  /** A create refused or unanswered: its cancels wait for the next create. */
  rejected(nonce: Bytes32): void {
    const group = this.witnesses.get(nonce);
    if (!group) return;
    this.witnesses.delete(nonce);
    this.unwitness(group);
  }

  /** The order stopped counting (released by a read, the settle time, or here). */
  ended(nonce: Bytes32): void {
    const p = this.pending.get(nonce);
    if (p) this.drop(p);
  }

  /** A book event of a market's stream: how far the stream has come, and whether it is live. */
  see(ev: BookEvent): void {
    switch (ev.type) {
      case 'delta':
      case 'trade':
      case 'market-status': {
        const s = this.streams.get(ev.marketId);
        if (s !== undefined && ev.venueTs > s.ts) s.ts = ev.venueTs;
        return;
      }
      case 'status':
        if (ev.state === 'live') this.down.delete(ev.marketId);
        else {
          // markets released while down stay here: bounded (a cleared one waits CANCEL_WAIT_POLLS instead)
          if (this.down.size >= MAX_DOWN) this.down.clear();
          this.down.add(ev.marketId);
        }
        return;
      default:
        return;
    }
  }

  /**
   * A heartbeat of a market's stream, stamped with the venue's clock when it was sent: the stream has
   * delivered every event sent before then (called in stream order, while the stream is live).
   */
  heard(marketId: Bytes32, venueTs: number): void {
    this.clockedBeats = true;
    const s = this.streams.get(marketId);
    if (s !== undefined && venueTs > s.ts) s.ts = venueTs;
  }

  /**
   * At a poll, with its marks (taken at the same moment): the cancelled orders to release without a
   * read, those that wait on (the poll owes them no lookup: checked against these marks, they are
   * released or read later), and the markets to read for the others (their trades reached the order,
   * the stream is down or did not pass the witness within CANCEL_WAIT_POLLS polls, the poll never
   * read the order open). `orderOf`: the poll's knowledge of the order, undefined if it never read
   * it open; `unknownWaits`: such an order waits one poll (the recent-orders read of that poll shows
   * its end). A released order stays pending until `done`, so a poll that fails releases nothing.
   */
  decide(
    marks: ReadonlyMap<string, Touch>,
    orderOf: (nonce: Bytes32) => PolledOrder | undefined,
    unknownWaits: boolean,
  ): { release: ParkedCancel[]; read: Bytes32[]; wait: ParkedCancel[] } {
    const release: ParkedCancel[] = [];
    const read: Bytes32[] = [];
    const wait: ParkedCancel[] = [];
    if (this.pending.size === 0) return { release, read, wait };
    for (const p of [...this.pending.values()]) {
      p.polls++;
      const o = orderOf(p.nonce);
      const t = marks.get(p.marketId);
      if (o === undefined) {
        if (!unknownWaits || p.polls > 1) this.readAs(p, read);
        continue; // (not `wait`: the poll knows nothing of it to owe)
      }
      if (o.owed) {
        this.drop(p); // a lookup of it is owed: its fills and end come from that read
        continue;
      }
      if (!o.at || (t !== undefined && reaches(t, o.at))) {
        this.readAs(p, read); // may have filled since its last read (or where it rests is unknown)
        continue;
      }
      if (p.after !== null && this.streams.get(p.marketId)!.ts > p.after) release.push(p);
      else if (this.down.has(p.marketId) || p.polls >= (p.after !== null && this.clockedBeats ? HEARTBEAT_WAIT_POLLS : CANCEL_WAIT_POLLS)) this.readAs(p, read);
      else wait.push(p);
    }
    return { release, read, wait };
  }

  /** Orders a poll released (its events went out): they are no longer waited for. */
  done(released: readonly ParkedCancel[]): void {
    for (const p of released) if (this.pending.get(p.nonce) === p) this.drop(p);
  }

  /** cancelled orders waiting */
  get size(): number {
    return this.pending.size;
  }

  private readAs(p: ParkedCancel, read: Bytes32[]): void {
    this.drop(p);
    read.push(p.marketId);
  }

  private unwitness(group: readonly ParkedCancel[]): void {
    for (const p of group) if (this.pending.get(p.nonce) === p && p.after === null) this.unwitnessed.push(p);
  }

  private drop(p: ParkedCancel): void {
    this.pending.delete(p.nonce);
    const s = this.streams.get(p.marketId);
    if (s && --s.n === 0) this.streams.delete(p.marketId);
    // it may still sit in `unwitnessed` or a witness group: those check `pending` before use
  }
}
