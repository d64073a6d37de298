/**
 * The node:http plumbing of the local exchange: base path, body reading with a size limit, JSON
 * parsing, auth (401/403), per-key rate limits (429 + X-RateLimit-*), fault injection, dispatch to
 * the route table and error replies. Nothing a client sends escapes as an exception: every failure
 * becomes a `{message, code}` reply, and a bug becomes a 500 without internals.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ExchangeState, RequestContext } from './context.ts';
import { HttpError, internalError, rateLimited, unauthorized, forbidden } from './http-errors.ts';
import type { FaultInjector } from './faults.ts';
import { RateLimiter, rateHeaders, type RateDecision } from './rate-limiter.ts';
import type { Handler, JsonReply, Reply, Router } from './router.ts';
import type { ApiKeyRecord } from './records.ts';
import type { ExchangeJournal } from './durability/exchange-journal.ts';

export const BASE_PATH = '/v2';

export interface HttpServerDeps {
  state: ExchangeState;
  router: Router;
  faults: FaultInjector;
  limiter: RateLimiter;
  /** called with unexpected handler errors (never with client errors) */
  onError?: (err: unknown, method: string, path: string) => void;
  /** with a state file: mutating requests are journalled and durable before their answer */
  journal?: ExchangeJournal;
  /** called after each journalled request (checkpoint policy) */
  afterMutation?: () => void;
  /** bytes of bodies held at once (built by listen() from the settings when absent) */
  bodyBudget?: BodyBudget;
  /** for tests only: see RequestHold (LocalExchange.holdRequests) */
  hold?: RequestHold | null;
}

/** A request as a RequestHold sees it, at one of its two stages. */
export interface HeldRequest {
  readonly method: string;
  /** the path under the API base (`/orders/bulk/create`) */
  readonly path: string;
  /** the wallet of the request's API key */
  readonly trader: string;
  /** 'before': its body read, nothing run yet; 'after': run (the exchange changed), its answer not sent */
  readonly stage: 'before' | 'after';
  /** settles when the client's connection closes (a client killed while its request is held) */
  readonly gone: Promise<void>;
}

/**
 * For tests only (a crash while a request is in flight, made deterministic): called at each stage of
 * every authenticated request; a promise returned holds the request there until it settles. A request
 * held 'before' whose client went away meanwhile is not run: the exchange never received it, as a
 * request lost on the way. One held 'after' has changed the exchange whatever the client does.
 */
export type RequestHold = (r: HeldRequest) => Promise<void> | undefined;

/** each connection's close, one listener a connection (a keep-alive connection carries many requests) */
const closes = new WeakMap<object, Promise<void>>();

function closeOf(socket: IncomingMessage['socket']): Promise<void> {
  let p = closes.get(socket);
  if (p === undefined) {
    p = socket.destroyed ? Promise.resolve() : new Promise<void>((r) => socket.once('close', () => r()));
    closes.set(socket, p);
  }
  return p;
}

/** Run the hold (when one is set) for a request at `stage`; true when its client has gone. */
async function held(deps: HttpServerDeps, req: IncomingMessage, key: ApiKeyRecord, method: string, path: string, stage: 'before' | 'after'): Promise<boolean> {
  const hold = deps.hold;
  if (!hold) return false;
  const socket = req.socket;
  const wait = hold({
    method,
    path,
    stage,
    trader: key.wallet,
    get gone() {
      return closeOf(socket);
    },
  });
  if (wait) await wait;
  return socket.destroyed;
}

/** Bearer token of a request, or undefined. */
function bearer(req: IncomingMessage): string | undefined {
  const h = req.headers.authorization;
  if (typeof h !== 'string') return undefined;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(h);
  return m ? m[1] : undefined;
}

class BodyTooLarge extends Error {}
class BodyTimeout extends Error {}
class BodyBudgetFull extends Error {}

/**
 * Bytes of request bodies held at once, across connections (bounded memory under many slow
 * uploads). Requests without a key may hold at most half of it, so anonymous stalls never keep a
 * keyed client's body out.
 */
export class BodyBudget {
  inFlight = 0;
  anonInFlight = 0;
  constructor(readonly limit: number) {}

  /** Take `n` bytes (false when they do not fit). */
  take(n: number, anonymous: boolean): boolean {
    if (this.inFlight + n > this.limit) return false;
    if (anonymous && this.anonInFlight + n > this.limit / 2) return false;
    this.inFlight += n;
    if (anonymous) this.anonInFlight += n;
    return true;
  }

  give(n: number, anonymous: boolean): void {
    this.inFlight -= n;
    if (anonymous) this.anonInFlight -= n;
  }
}

/**
 * Read the body up to `limit` bytes within `timeoutMs`; stops reading (and rejects) past either.
 * The bytes count against the shared `budget` while the request is read and handled (a declared
 * Content-Length is reserved up front); `release()` gives them back.
 */
function readBody(
  req: IncomingMessage,
  limit: number,
  budget: BodyBudget,
  timeoutMs: number,
  anonymous: boolean,
): { body: Promise<Buffer>; release: () => void } {
  let held = 0;
  const release = (): void => {
    budget.give(held, anonymous);
    held = 0;
  };
  const body = new Promise<Buffer>((resolve, reject) => {
    const declared = Number(req.headers['content-length'] ?? 0);
    if (declared > limit) {
      reject(new BodyTooLarge());
      return;
    }
    if (declared > 0) {
      if (!budget.take(declared, anonymous)) {
        reject(new BodyBudgetFull());
        return;
      }
      held = declared;
    }
    const chunks: Buffer[] = [];
    let n = 0;
    const timer = setTimeout(() => {
      cleanup();
      reject(new BodyTimeout());
    }, timeoutMs);
    const cleanup = (): void => {
      clearTimeout(timer);
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
    };
    const onData = (c: Buffer): void => {
      n += c.length;
      if (n > limit) {
        cleanup();
        req.pause();
        reject(new BodyTooLarge());
        return;
      }
      if (n > held) {
        // a chunked body (or one longer than declared): count what arrives
        const more = n - held;
        if (!budget.take(more, anonymous)) {
          cleanup();
          req.pause();
          reject(new BodyBudgetFull());
          return;
        }
        held += more;
      }
      chunks.push(c);
    };
    const onEnd = (): void => {
      cleanup();
      resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks));
    };
    const onError = (e: Error): void => {
      cleanup();
      reject(e);
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
  });
  return { body, release };
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** JSON.stringify that writes bigints as decimal strings (the wire form of big numbers). */
export function toJson(v: unknown): string {
  // A replacer makes JSON.stringify call back into JS for every key (~3× slower for an order);
  // most replies hold no bigint, and finding that out is a cheap walk.
  return hasBigInt(v, 0) ? JSON.stringify(v, bigintReplacer) : JSON.stringify(v);
}

function bigintReplacer(_k: string, x: unknown): unknown {
  return typeof x === 'bigint' ? x.toString() : x;
}

/** Does a JSON-bound value hold a bigint anywhere (or is it too deep to tell cheaply)? */
function hasBigInt(v: unknown, depth: number): boolean {
  if (typeof v === 'bigint') return true;
  if (typeof v !== 'object' || v === null) return false;
  // beyond this depth, let the replacer decide (it is always correct, only slower)
  if (depth > 32) return true;
  // an object with its own toJSON (e.g. Date) serialises as whatever that returns
  if (typeof (v as { toJSON?: unknown }).toJSON === 'function') return true;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) if (hasBigInt(v[i], depth + 1)) return true;
    return false;
  }
  for (const k in v) if (hasBigInt((v as Record<string, unknown>)[k], depth + 1)) return true;
  return false;
}

/** Paths made of these characters need no URL parsing: no escapes, no dot segments, no query. */
const PLAIN_PATH = /^\/[A-Za-z0-9_\-/]*$/;

/** Path and query of a request target; `new URL` (≈2 µs) only when the target needs it. */
function splitTarget(target: string): { pathname: string; searchParams: URLSearchParams } {
  if (PLAIN_PATH.test(target) && !target.includes('//')) return { pathname: target, searchParams: new URLSearchParams() };
  const url = new URL(target, 'http://local');
  return { pathname: url.pathname, searchParams: url.searchParams };
}

/**
 * Write a JSON reply. Synchronous (undefined) unless a slow-body fault paces the body, then a
 * promise: a reply per request is the hot path, and an async function costs a promise and a
 * microtask turn each time.
 */
function writeReply(res: ServerResponse, reply: JsonReply, faults: FaultInjector, extraHeaders: Record<string, string>): Promise<void> | undefined {
  if (res.headersSent || res.destroyed) return undefined;
  const headers: Record<string, string> = {};
  for (const k in extraHeaders) headers[k] = extraHeaders[k]!;
  if (reply.headers) for (const k in reply.headers) headers[k] = reply.headers[k]!;
  if (reply.body === undefined || reply.status === 304) {
    res.writeHead(reply.status, headers);
    res.end();
    return undefined;
  }
  const text = toJson(reply.body);
  const length = Buffer.byteLength(text, 'utf8');
  headers['Content-Type'] = 'application/json; charset=utf-8';
  headers['Content-Length'] = String(length);
  res.writeHead(reply.status, headers);
  if (length > faults.settings.slowBodyChunkBytes && faults.slowBody()) return writeSlowly(res, Buffer.from(text, 'utf8'), faults);
  // a string body goes out with the head in one socket write (a Buffer would be a second chunk)
  res.end(text, 'utf8');
  return undefined;
}

/** The slow-body fault: the body in small chunks with pauses. */
async function writeSlowly(res: ServerResponse, buf: Buffer, faults: FaultInjector): Promise<void> {
  const step = Math.max(1, faults.settings.slowBodyChunkBytes);
  for (let i = 0; i < buf.length && !res.destroyed; i += step) {
    res.write(buf.subarray(i, i + step));
    await sleep(faults.settings.slowBodyPauseMs);
  }
  res.end();
}

function errorReply(e: HttpError): JsonReply {
  return { status: e.status, body: e.toBody(), ...(e.headers ? { headers: e.headers } : {}) };
}

/** Handle one request end to end. Exported for in-process tests that bypass sockets. */
export async function handleRequest(deps: HttpServerDeps, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const { state, router, faults, limiter } = deps;
  const method = req.method ?? 'GET';
  let rateHdrs: Record<string, string> = {};
  let path = '';
  let releaseBody: (() => void) | undefined;
  let closeAfter = false;
  try {
    const url = splitTarget(req.url ?? '/');
    if (url.pathname !== BASE_PATH && !url.pathname.startsWith(BASE_PATH + '/'))
      throw new HttpError(404, 'NOT_FOUND', `no such path (the API lives under ${BASE_PATH})`);
    path = url.pathname.slice(BASE_PATH.length) || '/';

    const delay = faults.latency();
    if (delay > 0) await sleep(delay);

    const found = router.lookup(method, path);
    if (!found.ok) {
      if (found.status === 405)
        throw new HttpError(405, 'METHOD_NOT_ALLOWED', `method ${method} not allowed here`, { headers: { Allow: found.allowed.join(', ') } });
      throw new HttpError(404, 'NOT_FOUND', `no such path: ${path}`);
    }
    const { route, params } = found.match;

    const token = bearer(req);
    let key: ApiKeyRecord | undefined;
    if (token !== undefined) {
      key = state.keys.get(token);
      if (!key && (route.auth || route.optionalAuth)) throw unauthorized();
    } else if (req.headers.authorization !== undefined && route.auth) {
      throw unauthorized();
    }
    if (route.auth && !key) throw unauthorized();
    if (route.permission && key && !key.perms.includes(route.permission) && !key.perms.includes('admin')) {
      throw forbidden(`this API key lacks the '${route.permission}' permission`);
    }

    const now = state.clock.now();
    // unauthenticated callers: one bucket per connection, so one flooding local client (every local
    // client shares 127.0.0.1) does not starve the others; keyed callers: one bucket per key
    const limitId = key ? `k:${key.key}` : `c:${req.socket.remoteAddress ?? '?'}:${req.socket.remotePort ?? '?'}`;
    let decision: RateDecision | undefined;
    decision = limiter.take(limitId, now, route.cost ?? 1);
    rateHdrs = rateHeaders(decision);
    if (faults.burst429(limitId)) {
      rateHdrs = { ...rateHdrs, 'X-RateLimit-Remaining': '0' };
      throw rateLimited(1);
    }
    if (!decision.allowed) throw rateLimited(decision.retryAfter);

    const injected = faults.serverError();
    if (injected) throw new HttpError(injected, injected === 503 ? 'SERVICE_UNAVAILABLE' : 'INTERNAL_ERROR', 'injected fault');

    const journal = deps.journal;
    const journalled = journal !== undefined && journal.writing && method !== 'GET' && method !== 'HEAD' && route.readOnly !== true;
    if (journalled && journal.failed)
      throw new HttpError(503, 'SERVICE_UNAVAILABLE', 'the exchange cannot write its journal; changes are refused until it is restarted');

    let body: unknown;
    let rawText = '';
    if (method !== 'GET' && method !== 'HEAD') {
      const budget = (deps.bodyBudget ??= new BodyBudget(state.settings.bodyBytesInFlight));
      const reading = readBody(req, state.settings.bodyLimitBytes, budget, state.settings.bodyTimeoutMs, key === undefined);
      releaseBody = reading.release;
      let raw: Buffer;
      try {
        raw = await reading.body;
      } catch (e) {
        if (e instanceof BodyTooLarge) {
          res.setHeader('Connection', 'close'); // the rest of the body is not read
          throw new HttpError(413, 'PAYLOAD_TOO_LARGE', `body larger than ${state.settings.bodyLimitBytes} bytes`);
        }
        if (e instanceof BodyTimeout) {
          res.setHeader('Connection', 'close');
          closeAfter = true;
          throw new HttpError(408, 'REQUEST_TIMEOUT', `the request body did not arrive within ${state.settings.bodyTimeoutMs} ms`);
        }
        if (e instanceof BodyBudgetFull) {
          res.setHeader('Connection', 'close');
          closeAfter = true;
          throw new HttpError(503, 'SERVICE_UNAVAILABLE', 'too many request bodies in flight; retry shortly', { headers: { 'Retry-After': '1' } });
        }
        throw e;
      }
      if (raw.length > 0) {
        const ct = String(req.headers['content-type'] ?? 'application/json');
        if (!/json/i.test(ct)) throw new HttpError(415, 'UNSUPPORTED_MEDIA', 'the body must be application/json');
        rawText = raw.toString('utf8');
        try {
          body = JSON.parse(rawText);
        } catch {
          throw new HttpError(400, 'INVALID_JSON', 'body: not valid JSON', { field: 'body' });
        }
      }
    }

    // a test's hold: a client that went away while held before the run sent nothing the exchange received
    if (deps.hold && key && (await held(deps, req, key, method, path, 'before'))) return;
    const ctx: RequestContext = { method, path, params, query: url.searchParams, body, headers: req.headers, key, state, now, req, res };
    let reply: Reply;
    if (journalled) {
      reply = await journalledCall(deps, journal, route.handler, ctx, rawText, url.searchParams);
    } else {
      // handlers are mostly synchronous: await only a promise (an await costs a microtask turn)
      const answer = route.handler(ctx);
      reply = typeof (answer as Promise<Reply>).then === 'function' ? await answer : (answer as Reply);
    }
    if (reply.kind === 'handled') return;
    if (deps.hold && key) await held(deps, req, key, method, path, 'after');
    const pending = writeReply(res, reply, faults, rateHdrs);
    if (pending) await pending;
  } catch (e) {
    // an answer given before the body was read (401, 404, 429, ...): do not keep reading a body nobody wants
    if (!req.complete && method !== 'GET' && method !== 'HEAD') closeAfter = true;
    if (closeAfter && !res.headersSent) res.setHeader('Connection', 'close');
    if (e instanceof HttpError) {
      await writeReply(res, errorReply(e), faults, rateHdrs)?.catch(() => undefined);
      return;
    }
    deps.onError?.(e, method, path);
    await writeReply(res, errorReply(internalError()), faults, rateHdrs)?.catch(() => undefined);
  } finally {
    releaseBody?.();
    // a stalled or refused body is not read further: drop the connection once the answer is out
    if (closeAfter) {
      if (res.writableFinished) req.socket.destroy();
      else res.once('finish', () => req.socket.destroy());
    }
  }
}

/**
 * Run a mutating handler as one journal record: the clock pinned, nested changes covered, and the
 * record on disk before the answer (an answer, success or refusal, is never sent for a change that
 * could still be lost). A request that changed nothing and was refused is not written.
 */
async function journalledCall(
  deps: HttpServerDeps,
  journal: ExchangeJournal,
  handler: Handler,
  ctx: RequestContext,
  rawText: string,
  query: URLSearchParams,
): Promise<Reply> {
  const engine = deps.state.engine;
  const mark = engine.changes;
  let reply: Reply | undefined;
  let thrown: unknown;
  journal.enter(ctx.now);
  try {
    const answer = handler(ctx);
    if (answer && typeof (answer as Promise<Reply>).then === 'function')
      throw new Error(`handler of ${ctx.method} ${ctx.path} is asynchronous; journalled routes must be synchronous`);
    reply = answer as Reply;
  } catch (e) {
    thrown = e;
  } finally {
    journal.exit();
  }
  const ok = thrown === undefined && reply !== undefined && (reply.kind === 'handled' || reply.status < 400);
  if (ok || engine.changes !== mark) {
    const host = ctx.headers.host;
    const seq = journal.request(ctx.method, ctx.path, query.toString(), rawText, ctx.key, ctx.now, typeof host === 'string' ? host : undefined);
    try {
      await journal.durable(seq);
    } catch (e) {
      deps.onError?.(e, ctx.method, ctx.path);
      throw new HttpError(503, 'SERVICE_UNAVAILABLE', 'the change could not be made durable; changes are refused until the exchange is restarted');
    }
    deps.afterMutation?.();
  }
  if (thrown !== undefined) throw thrown;
  return reply!;
}

export interface RunningServer {
  server: Server;
  port: number;
  baseUrl: string;
  close(): Promise<void>;
}

/** Listen on 127.0.0.1:port (0 = any free port). */
export function listen(deps: HttpServerDeps, port = 0, host = '127.0.0.1'): Promise<RunningServer> {
  const server = createServer({ keepAlive: true, connectionsCheckingInterval: 1_000 }, (req, res) => {
    handleRequest(deps, req, res).catch(() => {
      if (!res.headersSent) {
        res.writeHead(500);
        res.end();
      }
    });
  });
  deps.bodyBudget ??= new BodyBudget(deps.state.settings.bodyBytesInFlight);
  server.maxConnections = deps.state.settings.maxConnections;
  server.keepAliveTimeout = 30_000;
  // a backstop behind the body timeout (408 from node itself): headers within 10 s, a request within 15 s
  server.headersTimeout = 10_000;
  server.requestTimeout = Math.max(15_000, deps.state.settings.bodyTimeoutMs + 5_000);
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      const addr = server.address() as AddressInfo;
      const baseUrl = `http://${host}:${addr.port}${BASE_PATH}`;
      resolve({
        server,
        port: addr.port,
        baseUrl,
        close: () =>
          new Promise<void>((r) => {
            server.close(() => r());
            server.closeAllConnections();
          }),
      });
    });
  });
}
