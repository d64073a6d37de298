/**
 * Order-book event streams of the local exchange (the wire format of src/model/stream.ts).
 *
 * One stream per (market, outcome view). The engine's YES-terms level changes and trades come in
 * once and are translated to both views (outcome 0 mirrors prices to 1−p and swaps sides). Each
 * stream numbers its events with `seq` (+1 per event) and keeps the last `bufferSize` frames in a
 * ring buffer, so a client reconnecting with `Last-Event-ID` gets exactly the events it missed,
 * or a fresh snapshot when they are gone.
 *
 * Sequence numbers start at the clock time (ms) when the hub was created, not at 0: after a
 * restart from a state file they keep growing, so an old Last-Event-ID can never be mistaken for
 * a recent one (it is older than the buffer → fresh snapshot).
 *
 * Snapshots sent on a stream carry the whole book (not `depth` levels): deltas can touch any
 * level, and a depth-limited snapshot would leave the client unable to apply them.
 */
import type { ServerResponse } from 'node:http';
import type { BookLevel } from '../model/book.ts';
import type { Bytes32 } from '../model/order.ts';
import { ONE } from '../model/units.ts';
import { outcomeView, toCents, toShares, wireBook, type YesBook } from './book-view.ts';
import type { FaultInjector } from './faults.ts';

export interface LevelChange {
  side: 'bid' | 'ask';
  /** price units, YES terms */
  price: number;
  /** new absolute size at the level, size units; 0 = removed */
  size: number;
}

/** Unsent bytes a stream may queue for a slow reader before the server closes it. */
const MAX_BUFFERED_BYTES = 4_000_000;

interface Frame {
  seq: number;
  text: string;
}

interface Subscriber {
  res: ServerResponse;
  stalled: boolean;
  held: string | null; // a frame held back by an out-of-order fault
}

/** The key of one outcome's stream of a market (ids are lower-case inside: ./wire-ids.ts). */
function streamKey(marketId: Bytes32, outcomeIndex: 0 | 1): string {
  return `${marketId}|${outcomeIndex}`;
}

class Stream {
  seq: number;
  readonly ring: (Frame | undefined)[];
  head = 0; // next write slot
  count = 0;
  readonly subs = new Set<Subscriber>();
  constructor(
    readonly marketId: Bytes32,
    readonly outcomeIndex: 0 | 1,
    startSeq: number,
    size: number,
  ) {
    this.seq = startSeq;
    this.ring = new Array<Frame | undefined>(size);
  }

  push(frame: Frame): void {
    this.ring[this.head] = frame;
    this.head = (this.head + 1) % this.ring.length;
    if (this.count < this.ring.length) this.count++;
  }

  /** Frames with seq > after, or null when some of them are no longer buffered. */
  since(after: number): Frame[] | null {
    if (after > this.seq) return null;
    if (after === this.seq) return [];
    const out: Frame[] = [];
    for (let i = this.count; i >= 1; i--) {
      const f = this.ring[(this.head - i + this.ring.length) % this.ring.length]!;
      if (f.seq > after) out.push(f);
    }
    if (out.length === 0 || out[0]!.seq !== after + 1) return null;
    return out;
  }
}

function frameText(event: string, seq: number, data: unknown): string {
  return `event: ${event}\nid: ${seq}\ndata: ${JSON.stringify(data)}\n\n`;
}

export interface BookStreamHubOptions {
  bufferSize: number;
  heartbeatMs: number;
  now: () => number;
  faults: FaultInjector;
}

export class BookStreamHub {
  private readonly streams = new Map<string, Stream>();
  /** last seq of the streams of resolved markets (a number per stream, not its buffer) */
  private readonly endedSeq = new Map<string, number>();
  private readonly baseSeq: number;
  private heartbeat: ReturnType<typeof setInterval> | null = null;

  constructor(private readonly opts: BookStreamHubOptions) {
    this.baseSeq = Math.max(0, Math.floor(opts.now()));
  }

  private stream(marketId: Bytes32, outcomeIndex: 0 | 1): Stream {
    const k = streamKey(marketId, outcomeIndex);
    let s = this.streams.get(k);
    if (!s) {
      s = new Stream(marketId, outcomeIndex, this.baseSeq, Math.max(1, this.opts.bufferSize));
      this.streams.set(k, s);
    }
    return s;
  }

  /** Has any stream ever been opened? Until then level changes and trades have nowhere to go. */
  hasStreams(): boolean {
    return this.streams.size > 0;
  }

  /** Subscribers across all streams (for tests and metrics). */
  subscriberCount(): number {
    let n = 0;
    for (const s of this.streams.values()) n += s.subs.size;
    return n;
  }

  /** Publish YES-terms level changes of one market to both outcome views. */
  publishChanges(marketId: Bytes32, changes: readonly LevelChange[], nowMs: number): void {
    // no stream was ever opened (the usual case for a server driven by orders alone): every order
    // command ends here, so skip the key building and the timestamp
    if (changes.length === 0 || this.streams.size === 0) return;
    const ts = new Date(nowMs).toISOString();
    for (const oi of [1, 0] as const) {
      const s = this.streams.get(streamKey(marketId, oi));
      if (!s) continue; // nobody ever subscribed: nothing to number or buffer
      const wire = changes.map((c) =>
        oi === 1
          ? { side: c.side, price: toCents(c.price), size: toShares(c.size) }
          : { side: c.side === 'bid' ? ('ask' as const) : ('bid' as const), price: toCents(ONE - c.price), size: toShares(c.size) },
      );
      s.seq++;
      this.emit(s, { seq: s.seq, text: frameText('delta', s.seq, { marketId: s.marketId, outcomeIndex: oi, seq: s.seq, timestamp: ts, changes: wire }) });
    }
  }

  /** Publish a trade at YES price `price`; `takerSide` is the YES taker's side. */
  publishTrade(marketId: Bytes32, price: number, size: number, takerSide: 'buy' | 'sell', nowMs: number): void {
    if (this.streams.size === 0) return;
    const ts = new Date(nowMs).toISOString();
    for (const oi of [1, 0] as const) {
      const s = this.streams.get(streamKey(marketId, oi));
      if (!s) continue;
      const p = oi === 1 ? price : ONE - price;
      const side = oi === 1 ? takerSide : takerSide === 'buy' ? 'sell' : 'buy';
      s.seq++;
      this.emit(s, {
        seq: s.seq,
        text: frameText('trade', s.seq, {
          marketId: s.marketId,
          outcomeIndex: oi,
          seq: s.seq,
          timestamp: ts,
          price: toCents(p),
          size: toShares(size),
          takerSide: side,
        }),
      });
    }
  }

  private emit(s: Stream, frame: Frame): void {
    s.push(frame);
    for (const sub of s.subs) this.deliver(s, sub, frame.text);
  }

  /** Write one frame to one subscriber, applying stream faults. */
  private deliver(s: Stream, sub: Subscriber, text: string): void {
    if (sub.stalled || sub.res.destroyed) return;
    switch (this.opts.faults.streamEvent()) {
      case 'drop':
        sub.res.write(text);
        this.detach(s, sub);
        sub.res.end();
        return;
      case 'stall':
        sub.stalled = true; // connection stays open; nothing more is written, not even heartbeats
        return;
      case 'duplicate':
        this.flushHeld(sub);
        sub.res.write(text + text);
        return;
      case 'reorder':
        if (sub.held === null) {
          sub.held = text; // sent after the next event
          return;
        }
        break;
      default:
        break;
    }
    sub.res.write(text);
    this.flushHeld(sub);
    // a client that stops reading must not grow the server's memory: cut it off (it will resync)
    if (sub.res.writableLength > MAX_BUFFERED_BYTES) {
      this.detach(s, sub);
      sub.res.destroy();
    }
  }

  private flushHeld(sub: Subscriber): void {
    if (sub.held !== null) {
      const h = sub.held;
      sub.held = null;
      sub.res.write(h);
    }
  }

  private detach(s: Stream, sub: Subscriber): void {
    s.subs.delete(sub);
  }

  /**
   * Attach an SSE response: headers, then either the missed events (Last-Event-ID still buffered)
   * or a full snapshot, then live events. `book` is read at attach time. `status` (a market that is
   * not active, e.g. closed) follows a fresh snapshot as `event: status` with the snapshot's seq, so a
   * client that connects after the change still hears it (a resumed one gets the buffered frame).
   */
  attach(res: ServerResponse, marketId: Bytes32, outcomeIndex: 0 | 1, book: YesBook, lastEventId: string | undefined, nowMs: number, status?: object): void {
    const s = this.stream(marketId, outcomeIndex);
    res.writeHead(200, {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-cache, no-transform',
      Connection: 'keep-alive',
      'X-Accel-Buffering': 'no',
    });
    const sub: Subscriber = { res, stalled: false, held: null };
    let replay: Frame[] | null = null;
    if (lastEventId !== undefined && /^\d{1,16}$/.test(lastEventId.trim())) replay = s.since(Number(lastEventId.trim()));
    if (replay) {
      for (const f of replay) res.write(f.text);
    } else {
      const view = outcomeView(book, outcomeIndex, Number.MAX_SAFE_INTEGER);
      const snap = { ...wireBook(s.marketId, outcomeIndex, view, nowMs), seq: s.seq };
      res.write(frameText('snapshot', s.seq, snap));
      if (status)
        res.write(frameText('status', s.seq, { marketId: s.marketId, outcomeIndex, seq: s.seq, timestamp: new Date(nowMs).toISOString(), ...status }));
    }
    s.subs.add(sub);
    const cleanup = (): void => {
      s.subs.delete(sub);
    };
    res.on('close', cleanup);
    res.on('error', cleanup);
    this.ensureHeartbeat();
  }

  /**
   * Heartbeats: `: heartbeat <ms>`, the clock read before any of them is written, so each is stamped no
   * later than it is sent and after every event written before it (a client orders its cancelled orders
   * against the stream by it: docs/venue.md#order-book-streaming). A frame held back by the reorder
   * fault goes out first: the fault swaps two events, never an event and a heartbeat.
   */
  private ensureHeartbeat(): void {
    if (this.heartbeat || this.opts.heartbeatMs <= 0) return;
    this.heartbeat = setInterval(() => {
      const line = `: heartbeat ${Math.floor(this.opts.now())}\n\n`;
      for (const s of this.streams.values())
        for (const sub of s.subs) {
          if (sub.stalled || sub.res.destroyed) continue;
          this.flushHeld(sub);
          sub.res.write(line);
        }
    }, this.opts.heartbeatMs);
    this.heartbeat.unref();
  }

  /**
   * A market's status changed and its streams go on (closed: resting orders stay and can be
   * cancelled, the book still moves as they go): each stream sends `event: status` with the next seq,
   * buffered like any event so a resuming client gets it.
   */
  publishStatus(marketId: Bytes32, status: object, nowMs: number): void {
    if (this.streams.size === 0) return;
    const ts = new Date(nowMs).toISOString();
    for (const oi of [1, 0] as const) {
      const s = this.streams.get(streamKey(marketId, oi));
      if (!s) continue;
      s.seq++;
      this.emit(s, { seq: s.seq, text: frameText('status', s.seq, { marketId: s.marketId, outcomeIndex: oi, seq: s.seq, timestamp: ts, ...status }) });
    }
  }

  /**
   * A market has resolved: each of its streams sends `event: status` (the market's final status, with
   * the next seq), then ends, and is dropped (its replay buffer released). A later request for the
   * stream gets the snapshot and the status, then the end (`attachEnded`).
   */
  endMarket(marketId: Bytes32, status: object, nowMs: number): void {
    const ts = new Date(nowMs).toISOString();
    for (const oi of [1, 0] as const) {
      const k = streamKey(marketId, oi);
      const s = this.streams.get(k);
      if (!s) continue;
      s.seq++;
      const text = frameText('status', s.seq, { marketId: s.marketId, outcomeIndex: oi, seq: s.seq, timestamp: ts, ...status });
      for (const sub of s.subs) {
        if (sub.res.destroyed) continue;
        this.flushHeld(sub);
        // a stalled subscriber gets nothing more (as with any event), but its connection is ended
        if (!sub.stalled) sub.res.write(text);
        sub.res.end();
      }
      s.subs.clear();
      this.endedSeq.set(k, s.seq);
      this.streams.delete(k);
    }
  }

  /** The stream of a resolved market: headers, a full snapshot, `event: status`, end. */
  attachEnded(res: ServerResponse, marketId: Bytes32, outcomeIndex: 0 | 1, book: YesBook, status: object, nowMs: number): void {
    const seq = this.endedSeq.get(streamKey(marketId, outcomeIndex)) ?? this.baseSeq;
    res.writeHead(200, {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-cache, no-transform',
      Connection: 'keep-alive',
      'X-Accel-Buffering': 'no',
    });
    const view = outcomeView(book, outcomeIndex, Number.MAX_SAFE_INTEGER);
    res.write(frameText('snapshot', seq, { ...wireBook(marketId, outcomeIndex, view, nowMs), seq }));
    res.end(frameText('status', seq, { marketId, outcomeIndex, seq, timestamp: new Date(nowMs).toISOString(), ...status }));
  }

  /** End every stream (server close or restart). */
  closeAll(): void {
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.heartbeat = null;
    for (const s of this.streams.values()) {
      for (const sub of s.subs) sub.res.end();
      s.subs.clear();
    }
  }
}

/** YES-terms level changes between two books (absolute sizes, 0 = removed), for publishing deltas. */
export function diffBooks(before: YesBook, after: YesBook): LevelChange[] {
  const out: LevelChange[] = [];
  diffSide('bid', before.bids, after.bids, out);
  diffSide('ask', before.asks, after.asks, out);
  return out;
}

function diffSide(side: 'bid' | 'ask', a: readonly BookLevel[], b: readonly BookLevel[], out: LevelChange[]): void {
  const m = new Map<number, number>();
  for (const l of a) m.set(l.price, l.size);
  for (const l of b) {
    if (m.get(l.price) !== l.size) out.push({ side, price: l.price, size: l.size });
    m.delete(l.price);
  }
  for (const p of m.keys()) out.push({ side, price: p, size: 0 });
}
