/**
 * A small scriptable order-book server for stream tests: node:http on 127.0.0.1:0.
 * - SSE requests (Accept: text/event-stream) become `SseConn`s handed to `onStream` (default: keep open);
 *   unless `streaming` is false, in which case they get the JSON answer like any other request.
 * - JSON requests get `book` with an ETag, and 304 when If-None-Match matches.
 * Every request is recorded (path, headers) so tests can assert on Last-Event-ID, If-None-Match, auth.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  url: string;
  headers: http.IncomingHttpHeaders;
  sse: boolean;
  status?: number;
}

export class SseConn {
  closed = false;
  readonly whenClosed: Promise<void>;
  constructor(
    readonly req: http.IncomingMessage,
    private readonly res: http.ServerResponse,
  ) {
    this.whenClosed = new Promise((resolve) =>
      res.on('close', () => {
        this.closed = true;
        resolve();
      }),
    );
  }
  get lastEventId(): string | undefined {
    const v = this.req.headers['last-event-id'];
    return typeof v === 'string' ? v : undefined;
  }
  /** one SSE event; `id` defaults to data.seq when present */
  send(event: string | undefined, data: unknown, id?: number | string): void {
    if (this.closed) return;
    const body = typeof data === 'string' ? data : JSON.stringify(data);
    const seq = id ?? (data && typeof data === 'object' && 'seq' in data ? (data as { seq: number }).seq : undefined);
    let out = '';
    if (event) out += `event: ${event}\n`;
    if (seq !== undefined) out += `id: ${seq}\n`;
    out += `data: ${body}\n\n`;
    this.res.write(out);
  }
  /** `: heartbeat <ms>`, stamped `ts` (default now) */
  heartbeat(ts: number = Date.now()): void {
    if (!this.closed) this.res.write(`: heartbeat ${ts}\n\n`);
  }
  /** several events in one write (one read at the client, as a backlog after a stall is) */
  sendAll(events: readonly (readonly [event: string, data: { seq: number }])[], comment?: string): void {
    if (this.closed) return;
    let out = '';
    for (const [event, data] of events) out += `event: ${event}\nid: ${data.seq}\ndata: ${JSON.stringify(data)}\n\n`;
    if (comment !== undefined) out += `:${comment}\n\n`;
    this.res.write(out);
  }
  /** any comment line */
  comment(text: string): void {
    if (!this.closed) this.res.write(`:${text}\n\n`);
  }
  /** clean end of the stream */
  end(): void {
    if (!this.closed) this.res.end();
  }
  /** abrupt drop */
  destroy(): void {
    this.res.socket?.destroy();
  }
}

export interface FixtureBook {
  marketId: string;
  bids: { price: number; size: number }[];
  asks: { price: number; size: number }[];
  timestamp: string;
  seq?: number;
}

export class SseFixtureServer {
  readonly requests: RecordedRequest[] = [];
  readonly conns: SseConn[] = [];
  /** false = answer SSE requests with JSON (a venue that does not stream) */
  streaming = true;
  /** HTTP status for the next SSE requests (shifted per request); 200 when empty */
  streamStatuses: number[] = [];
  book: FixtureBook;
  etag = '"v1"';
  onStream: (c: SseConn) => void = () => undefined;
  private readonly server: http.Server;
  private waiters: { n: number; resolve: (c: SseConn) => void }[] = [];
  baseUrl = '';

  constructor(book: FixtureBook) {
    this.book = book;
    this.server = http.createServer((req, res) => this.handle(req, res));
  }

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    const { port } = this.server.address() as AddressInfo;
    this.baseUrl = `http://127.0.0.1:${port}/v2`;
    return this.baseUrl;
  }

  async close(): Promise<void> {
    for (const c of this.conns) c.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** Resolve with the n-th (1-based) SSE connection once it exists. */
  waitForConn(n: number, timeoutMs = 10_000): Promise<SseConn> {
    if (this.conns.length >= n) return Promise.resolve(this.conns[n - 1]!);
    return withTimeout(new Promise<SseConn>((resolve) => this.waiters.push({ n, resolve })), timeoutMs, `SSE connection #${n}`);
  }

  setBook(book: FixtureBook, etag: string): void {
    this.book = book;
    this.etag = etag;
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    const sse = (req.headers.accept ?? '').includes('text/event-stream');
    const rec: RecordedRequest = { url: req.url ?? '', headers: req.headers, sse };
    this.requests.push(rec);
    if (sse && this.streaming) {
      const status = this.streamStatuses.shift() ?? 200;
      rec.status = status;
      if (status !== 200) {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ message: 'unavailable', code: 'UNAVAILABLE' }));
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
      res.flushHeaders();
      const conn = new SseConn(req, res);
      this.conns.push(conn);
      this.onStream(conn);
      const n = this.conns.length;
      this.waiters = this.waiters.filter((w) => {
        if (w.n <= n) w.resolve(this.conns[w.n - 1]!);
        return w.n > n;
      });
      return;
    }
    if (req.headers['if-none-match'] === this.etag) {
      rec.status = 304;
      res.writeHead(304, { etag: this.etag });
      res.end();
      return;
    }
    rec.status = 200;
    res.writeHead(200, { 'content-type': 'application/json', etag: this.etag });
    res.end(JSON.stringify(this.book));
  }
}

export function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let t: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    t = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(t));
}
