/**
 * HTTP transport of the venue client: one undici `Pool` (keep-alive) per base URL, the request/retry loop,
 * error mapping and rate-limit bookkeeping. Endpoint modules call `request()`; nothing else touches undici.
 *
 * - `Authorization: Bearer <key>` only when a key is set; `Content-Type: application/json` only with a body.
 * - Query values are URI-encoded, undefined/null dropped, arrays comma-joined (the venue's list syntax).
 * - The body is serialised ONCE, before the first attempt, so every retry resends the same bytes (a signed
 *   create stays the same order: same nonce, same signature).
 * - Retries follow `classify()`; time is injected (`sleep`, `now`, `random`) so tests never wait.
 * - The per-attempt timeout is judged after the reads of the turn it fires in (src/core/late-timer.ts):
 *   an answer that arrived while the event loop was busy or stalled is read, not timed out. A timeout a
 *   stall of the loop made a second or more late gives the request the stall's time back, once (at
 *   most the timeout again): time the bot did not run is not the venue's.
 */
import { AsyncResource } from 'node:async_hooks';
import { Pool } from 'undici';
import { LATE_TIMER_MS, setTimeoutAfterReads } from '../../core/late-timer.ts';
import type { Logger } from '../../core/logger.ts';
import { BadResponseError, BadInputError } from '../../model/errors.ts';
import { DEFAULT_RETRY, nextDelay, type RetryPolicy } from './backoff.ts';
import { classify } from './classify.ts';
import { NetworkError, TimeoutError, VenueError, venueErrorFromBody } from './errors.ts';
import { pacingDelay, readRateLimit, type PacingOptions, type RateLimitState } from './rate-limit.ts';
import { retryAfterMsOf, type HeaderBag } from './retry-after.ts';

export type QueryValue = string | number | boolean | bigint | null | undefined | readonly (string | number)[];

export interface RequestSpec {
  method: 'GET' | 'POST' | 'DELETE';
  /** path below the base URL, starting with '/', segments already encoded (see `seg`) */
  path: string;
  /** stable endpoint name for errors and logs, e.g. "GET /markets/:id" */
  endpoint: string;
  query?: Record<string, QueryValue>;
  body?: unknown;
  /** safe to resend unchanged; default: true for GET, false otherwise */
  idempotent?: boolean;
  headers?: Record<string, string>;
  /** a 304 answer is returned instead of thrown (conditional GET) */
  allowNotModified?: boolean;
  /**
   * For creates: a 409 "duplicate" answer on a RETRY (attempt ≥ 2) means an earlier attempt already placed the
   * order, so it is returned as `{duplicate: true}` instead of thrown.
   */
  duplicateMeansPlaced?: boolean;
}

export interface HttpResponse {
  status: number;
  headers: HeaderBag;
  /** parsed JSON body; null for an empty body or a 304 */
  json: unknown;
  attempts: number;
  /** set when `duplicateMeansPlaced` turned a retried 409 into success */
  duplicate?: boolean;
}

export interface TransportOptions {
  baseUrl: string;
  apiKey?: string;
  /** per-attempt timeout, ms (default 10 000) */
  timeoutMs?: number;
  retry?: Partial<RetryPolicy>;
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
  random?: () => number;
  logger?: Logger;
  pacing?: PacingOptions;
  /** keep-alive connections in the pool (default 8) */
  connections?: number;
  /**
   * Called once per attempt written to the wire, when its answer (or failure) is in: the method, the
   * endpoint's path template (`/markets/:id/orderbook`, never raw ids), the HTTP status or the
   * failure kind (`network`, `timeout`), and the seconds from write to answer. Must not throw.
   */
  onResponse?: (r: ResponseTiming) => void;
}

export interface ResponseTiming {
  method: string;
  /** path template, e.g. "/markets/:id/orderbook" */
  endpoint: string;
  /** HTTP status ("200", "429"…) or "network" / "timeout" */
  status: string;
  seconds: number;
}

/** "GET /markets/:id" → { method: "GET", template: "/markets/:id" } (the endpoint names are templates already). */
export function splitEndpoint(endpoint: string, method: string): { method: string; template: string } {
  const sp = endpoint.indexOf(' ');
  if (sp > 0 && endpoint.startsWith('/', sp + 1)) return { method: endpoint.slice(0, sp), template: endpoint.slice(sp + 1) };
  return { method, template: endpoint.startsWith('/') ? endpoint : `/${endpoint}` };
}

/**
 * The last successful answer of each endpoint (at most KEPT_ENDPOINTS of them), kept until the next one of the
 * same endpoint replaces it. An answer's JSON objects (JSON.parse) and its headers object (undici) get their maps
 * by transitions, key by key, and those maps die at a full GC when no object having them is alive: between two
 * calls of an endpoint, mostly. V8 then discarded every optimised function that had embedded them (the parsers
 * that read the answers: parseOrder, the balance and market readers; undici's and our header readers), to
 * optimise them again after (docs/performance/reoptimisation.md). One answer kept per endpoint holds its maps;
 * it is read by nothing but keptAnswerOf (test/exchange/client/kept-answer-shape.test.ts). Bounded: answers of
 * at most KEPT_MAX_CHARS characters (a long list, e.g. every market of a venue, is not held between calls for
 * this), of at most KEPT_ENDPOINTS endpoints.
 */
const keptAnswers = new Map<string, Omit<HttpResponse, 'attempts'>>();
const KEPT_ENDPOINTS = 64;
const KEPT_MAX_CHARS = 64 * 1024;
function keepAnswer(endpoint: string, answer: Omit<HttpResponse, 'attempts'>): void {
  if (keptAnswers.size < KEPT_ENDPOINTS || keptAnswers.has(endpoint)) keptAnswers.set(endpoint, answer);
}
/** The answer kept for an endpoint (above), or undefined. */
export function keptAnswerOf(endpoint: string): Omit<HttpResponse, 'attempts'> | undefined {
  return keptAnswers.get(endpoint);
}

/**
 * One resource of the kind node's queueMicrotask makes per call (an AsyncResource('Microtask') given its
 * `callback`), kept for the module's life. undici queues microtasks per request and answer body, so at a full GC
 * between requests none was alive, their map died, and V8 discarded queueMicrotask's and runMicrotask's optimised
 * code (docs/performance/reoptimisation.md). This one never runs (nothing queues it) and has no destroy to emit;
 * test/exchange/client/kept-answer-shape.test.ts checks it has the map of queueMicrotask's resources.
 */
export const MICROTASK_SHAPE: AsyncResource & { callback: () => void } = Object.assign(new AsyncResource('Microtask', { requireManualDestroy: true }), {
  callback: (): void => {},
});

const realSleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
/** a request's timeout is judged after the reads of its turn, however late it fires (a sub-second stall too) */
const TIMEOUT_TIMER = { unref: true, lateMs: 0 } as const;

/** Encode one path segment (an id, an address, a slug). */
export function seg(v: string | number): string {
  return encodeURIComponent(String(v));
}

export function buildQuery(q: Record<string, QueryValue> | undefined): string {
  if (!q) return '';
  const parts: string[] = [];
  for (const [k, v] of Object.entries(q)) {
    if (v === undefined || v === null) continue;
    const s = Array.isArray(v) ? v.join(',') : String(v);
    parts.push(`${encodeURIComponent(k)}=${encodeURIComponent(s)}`);
  }
  return parts.length ? `?${parts.join('&')}` : '';
}

function jsonReplacer(_k: string, v: unknown): unknown {
  return typeof v === 'bigint' ? v.toString() : v;
}

function parseUrl(baseUrl: string): { origin: string; basePath: string } {
  let u: URL;
  try {
    u = new URL(baseUrl);
  } catch {
    throw new BadInputError('baseUrl', 'an absolute http(s) URL', baseUrl);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new BadInputError('baseUrl', 'an http(s) URL', baseUrl);
  return { origin: u.origin, basePath: u.pathname.replace(/\/+$/, '') };
}

export class Transport {
  readonly baseUrl: string;
  private readonly basePath: string;
  private readonly pool: Pool;
  private readonly apiKey: string | undefined;
  private readonly timeoutMs: number;
  readonly retryPolicy: RetryPolicy;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly now: () => number;
  private readonly random: () => number;
  private readonly log: Logger | undefined;
  private readonly pacing: PacingOptions | undefined;
  private readonly onResponse: ((r: ResponseTiming) => void) | undefined;
  private lastStartMs: number | null = null;
  private rate: RateLimitState | null = null;

  constructor(opts: TransportOptions) {
    const { origin, basePath } = parseUrl(opts.baseUrl);
    this.baseUrl = opts.baseUrl;
    this.basePath = basePath;
    this.pool = new Pool(origin, { connections: opts.connections ?? 8, pipelining: 1, keepAliveTimeout: 30_000 });
    this.apiKey = opts.apiKey || undefined;
    this.timeoutMs = opts.timeoutMs ?? 10_000;
    this.retryPolicy = { ...DEFAULT_RETRY, ...opts.retry };
    this.sleep = opts.sleep ?? realSleep;
    this.now = opts.now ?? Date.now;
    this.random = opts.random ?? Math.random;
    this.log = opts.logger;
    this.pacing = opts.pacing;
    this.onResponse = opts.onResponse;
  }

  /** whether an API key is configured (the key itself is never exposed) */
  get authenticated(): boolean {
    return this.apiKey !== undefined;
  }

  /** the latest `X-RateLimit-*` state seen on any answer, or null */
  get rateLimit(): RateLimitState | null {
    return this.rate;
  }

  async close(): Promise<void> {
    await this.pool.close();
  }

  /** One logical call: attempts, back-off and error mapping. Resolves with a 2xx (or allowed 304) answer. */
  async request(spec: RequestSpec): Promise<HttpResponse> {
    const idempotent = spec.idempotent ?? spec.method === 'GET';
    const body = spec.body === undefined ? undefined : JSON.stringify(spec.body, jsonReplacer);
    const headers: Record<string, string> = { accept: 'application/json', ...spec.headers };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (this.apiKey !== undefined) headers.authorization = `Bearer ${this.apiKey}`;
    const path = this.basePath + spec.path + buildQuery(spec.query);
    const policy = this.retryPolicy;
    const started = this.now();
    for (let attempt = 1; ; attempt++) {
      await this.pace();
      try {
        const res = await this.once(spec, path, headers, body);
        return { ...res, attempts: attempt };
      } catch (err) {
        if (spec.duplicateMeansPlaced && attempt > 1 && err instanceof VenueError && classify(err).reason === 'duplicate') {
          return { status: err.status, headers: {}, json: err.body, attempts: attempt, duplicate: true };
        }
        const c = classify(err, { idempotent });
        if ((c.action !== 'retry' && c.action !== 'backoff') || attempt >= policy.maxAttempts) throw err;
        const wait = nextDelay(attempt, policy, c.retryAfterMs, this.random);
        if (this.now() + wait - started > policy.maxTotalMs) throw err;
        if (this.log?.isLevelEnabled('debug')) this.log.debug({ endpoint: spec.endpoint, attempt, waitMs: wait, reason: c.reason }, 'venue call retry');
        await this.sleep(wait);
      }
    }
  }

  private observe(spec: RequestSpec, status: string, t0: number): void {
    if (!this.onResponse) return;
    const { method, template } = splitEndpoint(spec.endpoint, spec.method);
    try {
      this.onResponse({ method, endpoint: template, status, seconds: (performance.now() - t0) / 1000 });
    } catch {
      // a metrics sink must never break a venue call
    }
  }

  private async pace(): Promise<void> {
    if (this.pacing) {
      const wait = Math.min(60_000, pacingDelay(this.rate, this.lastStartMs, this.now(), this.pacing));
      if (wait > 0) await this.sleep(wait);
    }
    this.lastStartMs = this.now();
  }

  private async once(spec: RequestSpec, path: string, headers: Record<string, string>, body: string | undefined): Promise<Omit<HttpResponse, 'attempts'>> {
    const ac = new AbortController();
    let timedOut = false;
    let extended = false;
    const arm = (ms: number): (() => void) => {
      const due = performance.now() + ms;
      return setTimeoutAfterReads(
        () => {
          // after the reads: an answer that was in is taken already (the timer was cleared). A timer a
          // stall made late gets the stall's time back, once: a request written just before the
          // stall, or one that waited for its connection during it, had no time to be answered
          const late = performance.now() - due;
          if (!extended && late >= LATE_TIMER_MS) {
            extended = true;
            cancelTimer = arm(Math.min(late, this.timeoutMs));
            return;
          }
          timedOut = true;
          ac.abort();
        },
        ms,
        TIMEOUT_TIMER,
      );
    };
    let cancelTimer = arm(this.timeoutMs);
    let status: number;
    let resHeaders: HeaderBag;
    let text: string;
    const t0 = this.onResponse ? performance.now() : 0;
    try {
      const res = await this.pool.request({ path, method: spec.method, headers, body, signal: ac.signal });
      status = res.statusCode;
      resHeaders = res.headers as HeaderBag;
      text = await res.body.text();
    } catch (e) {
      const code = (e as { code?: unknown }).code;
      const errno = typeof code === 'string' ? code : null;
      const timeout = timedOut || errno === 'UND_ERR_HEADERS_TIMEOUT' || errno === 'UND_ERR_BODY_TIMEOUT' || errno === 'UND_ERR_CONNECT_TIMEOUT';
      this.observe(spec, timeout ? 'timeout' : 'network', t0);
      if (timeout) throw new TimeoutError(spec.endpoint, this.timeoutMs, { cause: e });
      throw new NetworkError(spec.endpoint, e instanceof Error ? e.message : String(e), errno, { cause: e });
    } finally {
      cancelTimer();
    }
    this.observe(spec, String(status), t0);
    const now = this.now();
    const rl = readRateLimit(resHeaders, now);
    if (rl) this.rate = rl;
    if (status === 304 && spec.allowNotModified) return { status, headers: resHeaders, json: null };
    if (status >= 200 && status < 300) {
      if (text.length === 0) return { status, headers: resHeaders, json: null };
      try {
        const answer = { status, headers: resHeaders, json: JSON.parse(text) as unknown };
        if (text.length <= KEPT_MAX_CHARS) keepAnswer(spec.endpoint, answer);
        return answer;
      } catch (e) {
        throw new BadResponseError(spec.endpoint, '(body)', 'JSON', text, { cause: e });
      }
    }
    let errBody: unknown = null;
    if (text.length > 0) {
      try {
        errBody = JSON.parse(text);
      } catch {
        errBody = text;
      }
    }
    throw venueErrorFromBody(status, errBody, spec.endpoint, retryAfterMsOf(resHeaders, errBody, now));
  }
}
