/**
 * Order-book stream for one market and outcome, as an RxJS `Observable<BookEvent>` (docs/venue.md#order-book-streaming).
 *
 *   const bs = createBookStream({ baseUrl, marketId, outcomeIndex, fetchSnapshot, clock, logger });
 *   const sub = bs.events$.subscribe((e) => ...);   // each subscription owns one connection
 *   bs.stats                                          // counters for metrics (reconnects, drops, ...)
 *   sub.unsubscribe();                                // closes the socket and every timer
 *
 * Behaviour, per subscription:
 * - Connects with a plain `node:http(s)` GET (Accept, Authorization, and `Last-Event-ID: <last seq
 *   applied>` so a reconnect resumes where the book is; up to 5 redirects followed) and reads the body
 *   through a lean SSE parser (./sse-parser.ts): one request, one parser and a few closures per
 *   connection, no WHATWG streams (docs/performance.md). Every chunk of bytes, heartbeat comments
 *   included, keeps the idle timer alive. Nothing reconnects on its own: on any error the request is
 *   destroyed and this module decides (back-off, polling).
 * - Sequencing: the first snapshot of a connection sets the baseline; a later event with seq ≤ last is a
 *   duplicate or stale reordering and is dropped; seq = last + 1 is applied; a gap (or a delta before any
 *   snapshot) triggers a resync from the JSON snapshot while later stream events are buffered, then the
 *   buffer is replayed in seq order on top of it. Deltas carry absolute sizes, so replaying every event from
 *   the gap onward over a newer snapshot converges to the right book even when the JSON snapshot has no seq.
 *   The JSON book is depth-limited (`depth`), so after a resync levels deeper than that reappear only as
 *   deltas touch them; ask the fetcher for depth 100 when the deep book matters.
 * - Idle timeout: no byte (event or heartbeat) for `idleTimeoutMs` → status 'stale', close, reconnect with
 *   exponential back-off and jitter. A check that runs a second or more late (the process's event loop
 *   stalled: docs/operating.md) is made again one turn later, once the bytes that arrived during the stall
 *   are read, so a long stall does not make every market's stream reconnect at once.
 * - Fallback: a server that answers 200 with a non-event-stream body, or `maxStreamFailures` consecutive
 *   failed connections, switches to conditional polling of the JSON snapshot (`If-None-Match`; 304 emits
 *   nothing) every `pollIntervalMs`, and retries the stream every `streamRetryMs`; the first valid stream
 *   event ends polling.
 * - Heartbeats: a comment `: heartbeat <ms>` carries the venue's clock when it was sent
 *   (docs/venue.md#order-book-streaming). Its time goes to `onHeartbeat`, in stream order with the events
 *   around it, only while the connection is live and in sequence (not while polling, before the
 *   connection's first event, nor during a resync, whose buffered events are not out yet): a stream whose
 *   heartbeat is stamped after a time has delivered every event the venue sent before that time. Other
 *   comments only keep the connection alive.
 * - Coalescing (`coalesceDeltas`, the live bot's book feed): the deltas of one read of the socket that
 *   follow each other with nothing else between (a backlog read at once after a stall of the event loop)
 *   are emitted as one delta: the union of their level changes (the later size of a level wins), the
 *   last one's seq and times, `merged` = how many it stands for. The consumer applies the backlog once
 *   and quotes once on the caught-up book, instead of once per delta and first on the oldest. A trade,
 *   a status or a heartbeat between them is emitted in its place, after the deltas before it.
 * - Malformed events are logged (rate-limited) and counted, never thrown into the pipeline.
 * - `event: status` (the market's venue status: closed, resolved, ...) is sequenced like any event and
 *   emitted as a 'market-status' event when the status changes; one with an unknown status is malformed.
 * - Status events: connecting, live, reconnecting, stale, polling; 'closed' when the server ends a stream.
 *   Emitted on change, plus keep-alive repeats of 'live' / 'polling' (`keepaliveStatusMs`) while the source
 *   is alive but quiet (heartbeats, 304s), so staleness can be judged from the Observable alone.
 *   `stats.lastActivityTs` is the same signal for pull-style consumers.
 */
import { Observable, type Subscriber } from 'rxjs';
import { request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { BookLevel, BookPriceUnits, BookSizeUnits } from '../../model/book.ts';
import { BadInputError, type BadResponseError } from '../../model/errors.ts';
import { bytes32Of } from '../../model/ids.ts';
import type { Bytes32, OutcomeIndex } from '../../model/order.ts';
import type { BookEvent } from '../../model/stream.ts';
import { systemClock, type Clock } from '../../core/clock.ts';
import { silentLogger, type Logger } from '../../core/logger.ts';
import { backoffDelay, DEFAULT_BACKOFF, type BackoffPolicy } from './backoff.ts';
import { BookEventParser } from './parse-book-event.ts';
import { orderbookUrl, type SnapshotFetcher } from './snapshot-fetcher.ts';
import { SseParser } from './sse-parser.ts';

export type StreamState = Extract<BookEvent, { type: 'status' }>['state'];

export interface BookStreamOptions {
  /** venue API base, e.g. https://api.context.markets/v2 or http://127.0.0.1:8787/v2 */
  baseUrl: string;
  /** the market's 32-byte id (a slug is resolved to its id first: the stream checks every event against it) */
  marketId: string;
  outcomeIndex: OutcomeIndex;
  /** levels per side, 1..100 (default 20) */
  depth?: number;
  apiKey?: string;
  /** the JSON snapshot, for resync and the polling fallback */
  fetchSnapshot: SnapshotFetcher;
  clock?: Clock;
  logger?: Logger;
  /** no byte for this long = stalled stream (default 15 000; heartbeats come every few seconds) */
  idleTimeoutMs?: number;
  backoff?: Partial<BackoffPolicy>;
  /** consecutive failed connections before polling (default 3) */
  maxStreamFailures?: number;
  /** polling interval in fallback mode (default 2 000) */
  pollIntervalMs?: number;
  /** how often to retry the stream while polling (default 30 000) */
  streamRetryMs?: number;
  priceUnits?: BookPriceUnits;
  sizeUnits?: BookSizeUnits;
  /** jitter source (default Math.random) */
  random?: () => number;
  /** stream events buffered during a resync before giving up and reconnecting fresh (default 10 000) */
  maxResyncBuffer?: number;
  /**
   * Keep-alive statuses: when the source is alive but quiet (heartbeats only, or polls answered 304), the
   * current status ('live' / 'polling') is emitted again at most this often, so a consumer that judges
   * staleness from the Observable alone sees a quiet market as alive (default 5 000; 0 = off).
   */
  keepaliveStatusMs?: number;
  /** called for every event dropped as malformed (after it is counted in stats.malformed), e.g. for a metric */
  onMalformed?: (error: BadResponseError) => void;
  /**
   * A heartbeat's venue time (ms), called synchronously in stream order with the events emitted before
   * and after it, only while the stream is live and in sequence (see above).
   */
  onHeartbeat?: (venueTs: number) => void;
  /** emit the consecutive deltas of one read of the socket as one (see above; default false) */
  coalesceDeltas?: boolean;
}

export interface BookStreamStats {
  connects: number;
  reconnects: number;
  /** valid snapshot/delta/trade events received from the stream */
  received: number;
  emitted: number;
  duplicates: number;
  gaps: number;
  resyncs: number;
  resyncErrors: number;
  /** events dropped as malformed (bad JSON, fields, units, unknown market status), logged (sampled) */
  malformed: number;
  /** market statuses told (event: status that changed the market's status) */
  marketStatuses: number;
  /** heartbeats whose venue time was passed on (onHeartbeat) */
  heartbeats: number;
  idleTimeouts: number;
  polls: number;
  notModified: number;
  pollErrors: number;
  /** clock time of the last byte received from the stream or of the last poll answer */
  lastActivityTs: number;
  state: StreamState | 'idle';
}

export interface BookStream {
  readonly events$: Observable<BookEvent>;
  readonly stats: BookStreamStats;
}

type DataEvent = Exclude<BookEvent, { type: 'status' }>;
type DeltaEvent = Extract<BookEvent, { type: 'delta' }>;

/** the stream's event types read (docs/venue.md#order-book-streaming); others are skipped unparsed */
const EVENT_TYPES: ReadonlySet<string> = new Set(['snapshot', 'delta', 'trade', 'status', 'message']);
const REDIRECTS: ReadonlySet<number> = new Set([301, 302, 303, 307, 308]);
const MAX_REDIRECTS = 5;
/** an idle check this late ran after a stall of the event loop: judged again after the next read */
export const LATE_IDLE_CHECK_MS = 1_000;
/** a line longer than this (characters) ends the connection: a stream that never ends a line would grow without bound */
const MAX_SSE_LINE = 16 * 2 ** 20;
/** The keep-alive statuses' default period, ms (`keepaliveStatusMs`). */
export const KEEPALIVE_STATUS_MS = 5_000;

/** `heartbeat <ms>`: the venue's clock in a heartbeat comment (docs/venue.md#order-book-streaming) */
const HEARTBEAT = /^heartbeat (\d{1,16})\s*$/;
/** the events that carry a sequence position after the baseline */
type SeqEvent = Exclude<DataEvent, { type: 'snapshot' }>;

export function createBookStream(opts: BookStreamOptions): BookStream {
  validateOptions(opts);
  const stats = newStats();
  const events$ = new Observable<BookEvent>((subscriber) => {
    const session = new StreamSession(opts, stats, subscriber);
    session.start();
    return () => session.close();
  });
  return { events$, stats };
}

/** Changes of a later delta onto an earlier one's (one side): the later size of a level wins. */
function mergeLevels(into: BookLevel[], later: readonly BookLevel[]): void {
  for (const l of later) {
    let i = 0;
    while (i < into.length && into[i]!.price !== l.price) i++;
    if (i < into.length) into[i] = l;
    else into.push(l);
  }
}

function validateOptions(o: BookStreamOptions): void {
  if (typeof o.baseUrl !== 'string' || !/^https?:\/\//.test(o.baseUrl)) throw new BadInputError('baseUrl', 'an http(s) URL', o.baseUrl);
  if (bytes32Of(o.marketId) === null) throw new BadInputError('marketId', 'a market id (0x followed by 64 hex digits)', o.marketId);
  if (o.outcomeIndex !== 0 && o.outcomeIndex !== 1) throw new BadInputError('outcomeIndex', '0 or 1', o.outcomeIndex);
  const d = o.depth ?? 20;
  if (!Number.isInteger(d) || d < 1 || d > 100) throw new BadInputError('depth', 'an integer from 1 to 100', o.depth);
  if (o.keepaliveStatusMs !== undefined && !(Number.isFinite(o.keepaliveStatusMs) && o.keepaliveStatusMs >= 0)) {
    throw new BadInputError('keepaliveStatusMs', 'a non-negative number', o.keepaliveStatusMs);
  }
  for (const k of ['idleTimeoutMs', 'pollIntervalMs', 'streamRetryMs', 'maxStreamFailures', 'maxResyncBuffer'] as const) {
    const v = o[k];
    if (v !== undefined && !(Number.isFinite(v) && v > 0)) throw new BadInputError(k, 'a positive number', v);
  }
  if (typeof o.fetchSnapshot !== 'function') throw new BadInputError('fetchSnapshot', 'a function', o.fetchSnapshot);
}

function newStats(): BookStreamStats {
  return {
    connects: 0,
    reconnects: 0,
    received: 0,
    emitted: 0,
    duplicates: 0,
    gaps: 0,
    resyncs: 0,
    resyncErrors: 0,
    malformed: 0,
    marketStatuses: 0,
    heartbeats: 0,
    idleTimeouts: 0,
    polls: 0,
    notModified: 0,
    pollErrors: 0,
    lastActivityTs: 0,
    state: 'idle',
  };
}

/** What the custom fetch saw for one connection, so an error event can be told apart. */
interface ConnInfo {
  id: number;
  status?: number;
  contentType?: string;
  ended?: boolean;
}

/** One subscription's connection, timers and sequencing state. */
class StreamSession {
  private readonly clock: Clock;
  private readonly log: Logger;
  private readonly parser: BookEventParser;
  private readonly url: string;
  private readonly backoff: BackoffPolicy;
  private readonly idleMs: number;
  private readonly pollMs: number;
  private readonly retryMs: number;
  private readonly maxFailures: number;
  private readonly maxBuffer: number;
  private readonly keepaliveMs: number;
  /** clock time of the last event handed to the subscriber */
  private lastEmitTs = 0;
  private readonly random: () => number;
  private readonly marketId: Bytes32;

  private closed = false;
  private mode: 'stream' | 'polling' = 'stream';
  private req: ClientRequest | undefined;
  private conn: ConnInfo = { id: 0 };
  /** the current connection has delivered a valid event (it is live) */
  private connLive = false;
  /** the current connection has delivered its baseline snapshot (or resumed a known seq) */
  private connBaseline = false;
  private lastSeq: number | undefined;
  private failures = 0;
  private lastState: StreamState | undefined;
  /** the market's venue status last told (event: status), across this subscription's connections */
  private marketStatus: string | undefined;

  private resyncToken = 0;
  private resyncing = false;
  private buffer: SeqEvent[] = [];

  private pollToken = 0;
  private etag: string | undefined;

  /** inside a read of the socket, coalescing: deltas wait in `pending` until the read ends */
  private inRead = false;
  private pending: DeltaEvent | null = null;

  private cancelIdle: (() => void) | undefined;
  private cancelReconnect: (() => void) | undefined;
  private cancelPoll: (() => void) | undefined;
  private cancelRetry: (() => void) | undefined;
  private readonly aborts = new Set<AbortController>();
  private malformedLogged = 0;

  constructor(
    private readonly opts: BookStreamOptions,
    private readonly stats: BookStreamStats,
    private readonly out: Subscriber<BookEvent>,
  ) {
    this.clock = opts.clock ?? systemClock;
    this.log = (opts.logger ?? silentLogger).child({ component: 'book-stream', marketId: opts.marketId, outcomeIndex: opts.outcomeIndex });
    this.parser = new BookEventParser({ marketId: opts.marketId, outcomeIndex: opts.outcomeIndex, priceUnits: opts.priceUnits, sizeUnits: opts.sizeUnits });
    this.url = orderbookUrl(opts.baseUrl, opts.marketId, opts.outcomeIndex, opts.depth ?? 20);
    this.backoff = { ...DEFAULT_BACKOFF, ...opts.backoff };
    this.idleMs = opts.idleTimeoutMs ?? 15_000;
    this.pollMs = opts.pollIntervalMs ?? 2_000;
    this.retryMs = opts.streamRetryMs ?? 30_000;
    this.maxFailures = opts.maxStreamFailures ?? 3;
    this.maxBuffer = opts.maxResyncBuffer ?? 10_000;
    this.keepaliveMs = opts.keepaliveStatusMs ?? KEEPALIVE_STATUS_MS;
    this.random = opts.random ?? Math.random;
    const id = bytes32Of(opts.marketId);
    if (id === null) throw new BadInputError('marketId', 'a market id (0x followed by 64 hex digits)', opts.marketId);
    this.marketId = id;
  }

  start(): void {
    this.status('connecting');
    this.connect();
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.closeConnection();
    this.cancelReconnect?.();
    this.cancelPoll?.();
    this.cancelRetry?.();
    for (const a of this.aborts) a.abort();
    this.aborts.clear();
    this.resyncToken++;
    this.pollToken++;
    this.buffer = [];
    this.stats.state = 'closed';
  }

  // ---- output -------------------------------------------------------------------------------------

  private emit(e: BookEvent): void {
    if (this.pending !== null) this.flushDeltas();
    if (this.closed) return;
    if (e.type !== 'status') this.stats.emitted++;
    this.lastEmitTs = this.clock.now();
    this.out.next(e);
  }

  /** A delta in sequence: emitted now, or (coalescing, inside a read) merged into the one pending. */
  private emitDelta(e: DeltaEvent): void {
    if (!this.inRead) {
      this.emit(e);
      return;
    }
    const p = this.pending;
    if (p === null) {
      this.pending = e;
      return;
    }
    // the first merge copies the pending delta's lists; later sizes of a level replace earlier ones
    const bids = p.merged === undefined ? p.bids.slice() : p.bids;
    const asks = p.merged === undefined ? p.asks.slice() : p.asks;
    mergeLevels(bids, e.bids);
    mergeLevels(asks, e.asks);
    this.pending = {
      type: 'delta',
      marketId: e.marketId,
      outcomeIndex: e.outcomeIndex,
      seq: e.seq,
      bids,
      asks,
      venueTs: Math.max(p.venueTs, e.venueTs),
      localTs: e.localTs,
      merged: (p.merged ?? 1) + (e.merged ?? 1),
    };
  }

  /** The pending coalesced delta goes out (the read ended, or another event follows it). */
  private flushDeltas(): void {
    const p = this.pending;
    this.pending = null;
    if (p !== null) this.emit(p);
  }

  /** Emit a status event when the state changes (repeats are noise for the consumer). */
  private status(state: StreamState, reason?: string, again = false): void {
    if (this.closed || (state === this.lastState && !again)) return;
    this.lastState = state;
    this.stats.state = state;
    const e: BookEvent = { type: 'status', marketId: this.marketId, outcomeIndex: this.opts.outcomeIndex, state, localTs: this.clock.now() };
    if (reason !== undefined) e.reason = reason;
    if (!again) this.log.info({ state, reason }, 'book stream status');
    this.emit(e);
  }

  // ---- connection ---------------------------------------------------------------------------------

  private connect(): void {
    if (this.closed) return;
    this.cancelReconnect = undefined;
    const id = this.conn.id + 1;
    this.conn = { id };
    this.connLive = false;
    this.connBaseline = false;
    this.stats.connects++;
    this.request(id, this.url, 0);
    this.touch();
    this.armIdle(id);
  }

  /** One HTTP request of connection `id` (a redirect makes another); the body goes through the SSE parser. */
  private request(id: number, url: string, redirects: number): void {
    const headers: Record<string, string> = { accept: 'text/event-stream', 'cache-control': 'no-cache' };
    if (this.opts.apiKey) headers.authorization = `Bearer ${this.opts.apiKey}`;
    // Resume only from a seq the consumer's book actually reflects.
    if (this.lastSeq !== undefined) headers['last-event-id'] = String(this.lastSeq);
    let req: ClientRequest;
    try {
      const u = new URL(url);
      req = (u.protocol === 'https:' ? httpsRequest : httpRequest)(u, { method: 'GET', headers }, (res) => this.onResponse(id, url, redirects, res));
    } catch (err) {
      // a redirect to a URL node cannot request (another scheme): a failed connection like any other
      this.clock.setTimeout(() => this.onStreamError(id, err instanceof Error ? err.message : String(err)), 0);
      return;
    }
    this.req = req;
    req.on('error', (err) => this.onStreamError(id, err.message));
    req.end();
  }

  private onResponse(id: number, url: string, redirects: number, res: IncomingMessage): void {
    if (this.closed || id !== this.conn.id) {
      res.destroy();
      return;
    }
    const status = res.statusCode ?? 0;
    const location = res.headers.location;
    if (REDIRECTS.has(status) && typeof location === 'string' && redirects < MAX_REDIRECTS) {
      res.destroy();
      this.request(id, new URL(location, url).href, redirects + 1);
      return;
    }
    const contentType = res.headers['content-type'] ?? '';
    this.conn.status = status;
    this.conn.contentType = contentType;
    if (status !== 200 || !contentType.startsWith('text/event-stream')) {
      // nothing to read: release the socket now
      res.destroy();
      this.onStreamError(id, status === 200 ? 'not an event stream' : `HTTP ${status}`);
      return;
    }
    const parser = new SseParser(
      (type, data, lastEventId) => this.onMessage(id, type, data, lastEventId),
      MAX_SSE_LINE,
      this.opts.onHeartbeat ? (text) => this.onComment(id, text) : undefined,
    );
    const coalesce = this.opts.coalesceDeltas === true;
    res.on('data', (chunk: Buffer) => {
      if (id !== this.conn.id) return;
      this.onBytes(id);
      this.inRead = coalesce;
      try {
        parser.push(chunk);
      } catch (err) {
        // a line past MAX_SSE_LINE: the stream is broken, not one event
        this.onStreamError(id, err instanceof Error ? err.message : String(err));
      } finally {
        this.inRead = false;
        // sequenced deltas go out whatever happened after them in the read
        if (this.pending !== null) this.flushDeltas();
      }
    });
    res.on('end', () => {
      if (id === this.conn.id) this.conn.ended = true;
      this.onStreamError(id, 'server closed the stream');
    });
    res.on('error', (err) => this.onStreamError(id, err.message));
    // a socket that died mid-body without an error event: the connection is gone all the same
    res.on('close', () => this.onStreamError(id, 'connection closed'));
  }

  private closeConnection(): void {
    this.cancelIdle?.();
    this.cancelIdle = undefined;
    const req = this.req;
    if (req) {
      this.req = undefined;
      req.destroy(); // the socket and the response with it; their late callbacks see a retired id
    }
  }

  private touch(): void {
    this.stats.lastActivityTs = this.clock.now();
  }

  /**
   * Bytes arrived on a connection. A resumed connection (Last-Event-ID sent) on a quiet market may carry
   * nothing but heartbeats, because nothing was missed: the first bytes prove it live. A fresh connection
   * waits for its snapshot instead (see onMessage).
   */
  private onBytes(id: number): void {
    this.touch();
    if (this.closed || id !== this.conn.id) return;
    if (!this.connLive) {
      // connBaseline stays false: a restarted server's fresh snapshot (lower seq) must still be accepted
      if (this.lastSeq !== undefined) this.goLive();
    } else if (this.mode === 'stream') this.keepalive('live', 'heartbeat');
  }

  /** Re-emit the current status when the source is alive but nothing was emitted for a while. */
  private keepalive(state: 'live' | 'polling', reason: string): void {
    if (this.keepaliveMs > 0 && this.lastState === state && this.clock.now() - this.lastEmitTs >= this.keepaliveMs) {
      this.status(state, reason, true);
    }
  }

  /**
   * One timer per connection that checks the last activity when it fires and re-arms for the remainder,
   * rather than a timer reset per chunk (cheap on a busy stream).
   */
  private armIdle(id: number, ms = this.idleMs, again = false): void {
    this.cancelIdle?.();
    const due = this.clock.now() + ms;
    this.cancelIdle = this.clock.setTimeout(() => {
      if (this.closed || id !== this.conn.id) return;
      const now = this.clock.now();
      const quiet = now - this.stats.lastActivityTs;
      if (quiet < this.idleMs) this.armIdle(id, this.idleMs - quiet);
      // late: timers run before the reads of the same turn, so what came during the stall is still
      // unread; one more turn reads it (once: a stream silent after that is idle)
      else if (!again && now - due >= LATE_IDLE_CHECK_MS) this.armIdle(id, 0, true);
      else this.onIdle(id);
    }, ms);
  }

  private onIdle(id: number): void {
    this.stats.idleTimeouts++;
    const reason = `no data for ${this.idleMs} ms`;
    this.log.warn({ idleMs: this.idleMs }, 'book stream stalled');
    if (this.mode === 'stream') this.status('stale', reason);
    this.connectionFailed(id, reason);
  }

  private onStreamError(id: number, message: string | undefined): void {
    if (this.closed || id !== this.conn.id) return;
    const c = this.conn;
    if (c.status === 200 && c.contentType !== undefined && !c.contentType.startsWith('text/event-stream')) {
      this.closeConnection();
      this.conn = { id: id + 1 }; // retire this connection id so late callbacks are ignored
      this.enterPolling(`server does not stream (content-type ${c.contentType || 'none'})`);
      return;
    }
    let reason = message ?? 'stream error';
    if (c.ended) {
      reason = 'server closed the stream';
      this.status('closed', reason);
    } else if (c.status !== undefined && c.status !== 200) reason = `HTTP ${c.status}`;
    this.log.warn({ reason }, 'book stream connection failed');
    this.connectionFailed(id, reason);
  }

  /** A connection died (error, end or stall): back off and reconnect, or poll. */
  private connectionFailed(id: number, reason: string): void {
    if (this.closed || id !== this.conn.id) return;
    this.closeConnection();
    this.conn = { id: id + 1 };
    this.failures++;
    if (this.mode === 'polling') {
      this.scheduleStreamRetry();
      return;
    }
    if (this.failures >= this.maxFailures) {
      this.enterPolling(`${this.failures} failed stream connections (last: ${reason})`);
      return;
    }
    this.stats.reconnects++;
    const delay = backoffDelay(this.failures, this.backoff, this.random);
    this.status('reconnecting', `${reason}; retry in ${delay} ms`);
    this.cancelReconnect = this.clock.setTimeout(() => this.connect(), delay);
  }

  // ---- stream events ------------------------------------------------------------------------------

  /** A comment line: a heartbeat with the venue's time is passed on while the stream is live and in sequence. */
  private onComment(id: number, text: string): void {
    if (this.closed || id !== this.conn.id || this.mode !== 'stream' || !this.connLive || this.resyncing) return;
    const m = HEARTBEAT.exec(text);
    if (m === null) return;
    const ts = Number(m[1]);
    if (!(ts > 0) || !Number.isSafeInteger(ts)) return;
    if (this.pending !== null) this.flushDeltas(); // the deltas before it first
    this.stats.heartbeats++;
    this.opts.onHeartbeat?.(ts);
  }

  private onMessage(id: number, type: string, data: string, lastEventId: string): void {
    if (this.closed || id !== this.conn.id || !EVENT_TYPES.has(type)) return;
    const r = this.parser.parse(type, data, lastEventId, this.clock.now());
    if (!r.ok) {
      this.stats.malformed++;
      this.opts.onMalformed?.(r.error);
      // Log the first few and then a sample, so a flood of bad events cannot flood the logs.
      if (this.malformedLogged < 10 || this.stats.malformed % 1000 === 0) {
        this.malformedLogged++;
        this.log.warn({ err: r.error.message, dropped: this.stats.malformed }, 'malformed book event dropped');
      }
      return;
    }
    this.stats.received++;
    if (!this.connLive) this.goLive();
    const e = r.event;
    if (e.type === 'snapshot') this.onSnapshot(e);
    else if (this.resyncing) this.bufferEvent(e);
    else this.sequence(e);
  }

  /** First valid event of a connection: the stream works (again). */
  private goLive(): void {
    this.connLive = true;
    this.failures = 0;
    if (this.mode === 'polling') {
      this.mode = 'stream';
      this.pollToken++;
      this.cancelPoll?.();
      this.cancelRetry?.();
      this.cancelPoll = this.cancelRetry = undefined;
      this.log.info('book stream back from polling');
    }
    this.status('live');
  }

  private onSnapshot(e: DataEvent & { type: 'snapshot' }): void {
    // The first snapshot of a connection is a new baseline even if its seq went down (server restart);
    // a later one on the same connection with seq ≤ last is a duplicated or reordered old event.
    if (this.connBaseline && this.lastSeq !== undefined && e.seq <= this.lastSeq) {
      this.stats.duplicates++;
      return;
    }
    this.connBaseline = true;
    this.lastSeq = e.seq;
    this.emit(e);
    if (this.resyncing) {
      // A stream snapshot supersedes the JSON resync in flight.
      this.resyncToken++;
      this.resyncing = false;
      this.replayBuffer();
    }
  }

  private sequence(e: SeqEvent): void {
    const last = this.lastSeq;
    if (last === undefined) {
      this.startResync('event before any snapshot');
      this.bufferEvent(e);
      return;
    }
    if (e.seq <= last) {
      // A market status at or below the baseline is news when it differs from the last one told: a
      // fresh connection to a closed or resolved market gets it with the snapshot's own seq.
      if (e.type === 'market-status' && e.status !== this.marketStatus) this.emitMarketStatus(e);
      else this.stats.duplicates++;
      return;
    }
    if (e.seq !== last + 1) {
      this.stats.gaps++;
      this.startResync(`seq gap: expected ${last + 1}, got ${e.seq}`);
      this.bufferEvent(e);
      return;
    }
    this.lastSeq = e.seq;
    this.connBaseline = true; // a resumed connection (Last-Event-ID) continues the known sequence
    if (e.type === 'market-status') {
      // in sequence (it takes its seq), but told only when it changes: every reconnect to an ended
      // market repeats it
      if (e.status !== this.marketStatus) this.emitMarketStatus(e);
      return;
    }
    if (e.type === 'delta') this.emitDelta(e);
    else this.emit(e);
  }

  private emitMarketStatus(e: SeqEvent & { type: 'market-status' }): void {
    this.marketStatus = e.status;
    this.stats.marketStatuses++;
    this.log.info({ status: e.status, payoutYes: e.payoutYes, seq: e.seq }, 'market status from the book stream');
    this.emit(e);
  }

  private bufferEvent(e: SeqEvent): void {
    this.buffer.push(e);
    if (this.buffer.length > this.maxBuffer) {
      this.log.warn({ buffered: this.buffer.length }, 'resync buffer overflow: reconnecting for a fresh snapshot');
      this.abandonResync('resync buffer overflow');
    }
  }

  // ---- resync -------------------------------------------------------------------------------------

  private startResync(reason: string): void {
    if (this.resyncing) return;
    this.resyncing = true;
    this.stats.resyncs++;
    this.log.info({ reason }, 'book resync from the JSON snapshot');
    const token = ++this.resyncToken;
    void this.runResync(token);
  }

  private async runResync(token: number): Promise<void> {
    const abort = new AbortController();
    this.aborts.add(abort);
    try {
      const r = await this.opts.fetchSnapshot(undefined, abort.signal);
      if (this.closed || token !== this.resyncToken) return;
      if (r.status !== 200) throw new Error(`unexpected ${r.status} to an unconditional snapshot request`);
      this.finishResync(r.book);
    } catch (err) {
      if (this.closed || token !== this.resyncToken) return;
      this.stats.resyncErrors++;
      this.log.warn({ err: err instanceof Error ? err.message : String(err) }, 'resync snapshot failed');
      this.abandonResync('resync failed');
    } finally {
      this.aborts.delete(abort);
    }
  }

  private finishResync(book: Extract<DataEvent, { type: 'snapshot' }>['book']): void {
    this.resyncing = false;
    this.buffer.sort((a, b) => a.seq - b.seq);
    // With a seq the snapshot places itself in the sequence; without one it is at least as new as the
    // event that revealed the gap, so the buffered events (which start there) are replayed on top of it.
    const seq = book.seq ?? (this.buffer.length > 0 ? this.buffer[0]!.seq - 1 : (this.lastSeq ?? 0));
    this.lastSeq = seq;
    this.connBaseline = true;
    this.emit({ type: 'snapshot', book: { ...book, seq }, seq, localTs: this.clock.now(), source: 'resync' });
    this.replayBuffer();
  }

  private replayBuffer(): void {
    const pending = this.buffer.sort((a, b) => a.seq - b.seq);
    this.buffer = [];
    for (let i = 0; i < pending.length; i++) {
      if (this.resyncing) {
        // another gap inside the buffer: keep the rest for the next resync
        for (let j = i; j < pending.length; j++) this.buffer.push(pending[j]!);
        return;
      }
      this.sequence(pending[i]!);
    }
  }

  /** Give up on the JSON resync: drop what we have and reconnect without Last-Event-ID for a fresh snapshot. */
  private abandonResync(reason: string): void {
    this.resyncToken++;
    this.resyncing = false;
    this.buffer = [];
    this.lastSeq = undefined;
    if (this.mode === 'stream' && this.req) {
      const id = this.conn.id;
      this.failures = Math.max(0, this.failures - 1); // not the connection's fault: do not count it
      this.connectionFailed(id, reason);
    }
  }

  // ---- polling fallback ---------------------------------------------------------------------------

  private enterPolling(reason: string): void {
    if (this.closed) return;
    if (this.mode === 'polling') {
      // a stream retry met the same JSON answer: keep the poll loop (and its ETag) running
      this.scheduleStreamRetry();
      return;
    }
    this.log.warn({ reason }, 'book stream falling back to polling');
    this.mode = 'polling';
    this.resyncToken++;
    this.resyncing = false;
    this.buffer = [];
    this.status('polling', reason);
    this.etag = undefined;
    const token = ++this.pollToken;
    void this.poll(token);
    this.scheduleStreamRetry();
  }

  private async poll(token: number): Promise<void> {
    if (this.closed || token !== this.pollToken) return;
    this.stats.polls++;
    const abort = new AbortController();
    this.aborts.add(abort);
    try {
      const r = await this.opts.fetchSnapshot(this.etag, abort.signal);
      if (this.closed || token !== this.pollToken) return;
      this.touch();
      if (r.status === 304) {
        this.stats.notModified++;
        this.keepalive('polling', 'unchanged');
      } else {
        this.etag = r.etag;
        // A polled book has a stream seq only if the server provides one; otherwise the next stream
        // connection must not resume (its Last-Event-ID would not match this book).
        this.lastSeq = r.book.seq;
        this.emit({ type: 'snapshot', book: r.book, seq: r.book.seq ?? 0, localTs: this.clock.now(), source: 'poll' });
      }
    } catch (err) {
      if (this.closed || token !== this.pollToken) return;
      this.stats.pollErrors++;
      this.log.warn({ err: err instanceof Error ? err.message : String(err) }, 'book poll failed');
    } finally {
      this.aborts.delete(abort);
    }
    if (this.closed || token !== this.pollToken) return;
    this.cancelPoll = this.clock.setTimeout(() => void this.poll(token), this.pollMs);
  }

  private scheduleStreamRetry(): void {
    if (this.closed) return;
    this.cancelRetry?.();
    this.cancelRetry = this.clock.setTimeout(() => {
      this.cancelRetry = undefined;
      if (this.closed || this.mode !== 'polling') return;
      this.log.info('retrying the book stream');
      this.connect();
    }, this.retryMs);
  }
}
