/**
 * A start-up step (market selection, the migration read) retried while the venue fails transiently —
 * 5xx, 429, timeouts, a dropped connection — with growing pauses, up to a time budget. The client
 * already retries each call a few times within seconds; a rate-limit burst or a venue restart can
 * outlast that, and a long-running quoting process should not exit because the venue hiccuped while
 * it started. Anything the classifier does not call transient (bad config, auth, bad input, a
 * malformed answer) fails at once.
 *
 *   const markets = await retryStartupStep('select markets', () => selectMarkets(client, cfg.markets), { clock, log, signal });
 *   await untilAborted(promise, signal)   // any other start-up wait, cut short by a stop request
 *
 * Each retry warning carries the error itself: `code` (the venue's code, the errno or our code),
 * `status`, `endpoint` and the message. A stop request (SIGINT/SIGTERM, --duration) aborts `signal`:
 * the pause between attempts ends at once and the step rejects with StartupAbortedError. A transient
 * failure still there when the next pause would pass the budget (or `deadlineAt`, the whole start-up's
 * deadline: `run --startup-deadline`) rejects with VenueUnreachableError (`run` exits 8), the last
 * error its `cause`. `onWait` hears what the step waits for (null once it passed): /readyz shows it.
 */
import type { Clock } from '../core/clock.ts';
import type { Logger } from '../core/logger.ts';
import { scrubSecrets } from '../core/logger.ts';
import { classify } from '../exchange/client/classify.ts';
import { BookmakerError } from '../model/errors.ts';

export interface StartupRetryOptions {
  clock: Clock;
  log: Logger;
  /** give up after this long (default 120 000 ms) */
  budgetMs?: number;
  /** first pause, doubled up to maxPauseMs (defaults 1 000 and 10 000 ms) */
  firstPauseMs?: number;
  maxPauseMs?: number;
  /** a stop request: ends the current pause at once and rejects with StartupAbortedError */
  signal?: AbortSignal;
  /** give up at this time on `clock` (the start-up's deadline); when given, it replaces `budgetMs` */
  deadlineAt?: number;
  /** what the step waits for, at each failed attempt; null once the step passed or failed for good */
  onWait?: (w: StartupWait | null) => void;
}

/** A start-up step waiting for the venue: what failed last, since when, and when it gives up. */
export interface StartupWait {
  readonly step: string;
  readonly attempts: number;
  /** the classifier's reason: rate-limited, server-error, network, timeout */
  readonly reason: string;
  readonly code?: string;
  readonly status?: number;
  readonly endpoint?: string;
  readonly message: string;
  /** clock time of the step's first failure */
  readonly since: number;
  readonly retryInMs: number;
  /** clock time at which the start-up gives up */
  readonly givesUpAt: number;
}

/**
 * The venue still failed transiently (rate limit, 5xx, timeout, no connection) when the start-up's
 * deadline came: not a config error (exit 2) nor an unexpected one (exit 1); `run` exits 8
 * (EXIT_VENUE_UNREACHABLE). `cause` is the last error.
 */
export class VenueUnreachableError extends BookmakerError {
  readonly step: string;
  readonly attempts: number;
  readonly waitedMs: number;
  readonly last: ReturnType<typeof errorFields> & { reason: string };
  constructor(step: string, attempts: number, waitedMs: number, last: unknown, reason: string) {
    const f = errorFields(last);
    const secs = Math.round(waitedMs / 1000);
    super('NETWORK', `the venue did not answer "${step}" in ${secs} s, ${attempts} attempt(s) (last: ${reason}: ${f.message})`, { cause: last });
    this.step = step;
    this.attempts = attempts;
    this.waitedMs = waitedMs;
    this.last = { ...f, reason };
  }
}

/** Start-up was cut short by a stop request (not a failure: the caller exits 0). */
export class StartupAbortedError extends Error {
  readonly reason: string;
  constructor(reason: string) {
    super(`start-up stopped (${reason})`);
    this.name = 'StartupAbortedError';
    this.reason = reason;
  }
}

function abortReason(signal: AbortSignal): string {
  const r: unknown = signal.reason;
  return typeof r === 'string' ? r : r instanceof Error ? r.message : 'stop';
}

/** `p`, or a StartupAbortedError as soon as `signal` aborts (p keeps running; its result is dropped). */
export function untilAborted<T>(p: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return p;
  if (signal.aborted) {
    p.catch(() => undefined);
    return Promise.reject(new StartupAbortedError(abortReason(signal)));
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(new StartupAbortedError(abortReason(signal)));
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}

/** The fields of an error worth a log line: code, HTTP status, endpoint, message (secrets scrubbed). */
export function errorFields(err: unknown): { code?: string; status?: number; endpoint?: string; message: string } {
  const e = err as { venueCode?: unknown; errno?: unknown; code?: unknown; status?: unknown; endpoint?: unknown; message?: unknown } | null;
  const out: { code?: string; status?: number; endpoint?: string; message: string } = {
    message: scrubSecrets(typeof e?.message === 'string' ? e.message : String(err)),
  };
  const code = [e?.venueCode, e?.errno, e?.code].find((c) => typeof c === 'string' && c !== '');
  if (typeof code === 'string') out.code = code;
  if (typeof e?.status === 'number') out.status = e.status;
  if (typeof e?.endpoint === 'string') out.endpoint = e.endpoint;
  return out;
}

export async function retryStartupStep<T>(name: string, step: () => Promise<T>, o: StartupRetryOptions): Promise<T> {
  const start = o.clock.now();
  const until = o.deadlineAt ?? start + (o.budgetMs ?? 120_000);
  let pause = o.firstPauseMs ?? 1_000;
  let since: number | null = null;
  for (let attempt = 1; ; attempt++) {
    try {
      const v = await untilAborted(step(), o.signal);
      if (since !== null) {
        o.onWait?.(null);
        const waitedSeconds = Math.round((o.clock.now() - since) / 1000);
        o.log.info({ step: name, attempts: attempt, waitedSeconds }, 'start-up step passed: the venue answers again');
      }
      return v;
    } catch (err) {
      if (err instanceof StartupAbortedError) throw err;
      const c = classify(err);
      if (c.action !== 'retry' && c.action !== 'backoff') {
        if (since !== null) o.onWait?.(null);
        throw err;
      }
      since ??= o.clock.now();
      const wait = Math.max(pause, c.retryAfterMs ?? 0);
      if (o.clock.now() + wait > until) {
        o.onWait?.(null);
        throw new VenueUnreachableError(name, attempt, o.clock.now() - start, err, c.reason);
      }
      const f = errorFields(err);
      const what = [`${name}: ${c.reason}`, f.status, f.endpoint].filter((x) => x !== undefined).join(' ');
      o.onWait?.({ step: name, attempts: attempt, reason: c.reason, ...f, since, retryInMs: wait, givesUpAt: until });
      o.log.warn(
        { step: name, attempt, reason: c.reason, ...f, retryInMs: wait, givesUpInSeconds: Math.round((until - o.clock.now()) / 1000) },
        `start-up step failed transiently; retrying: waiting for the venue (${what})`,
      );
      await untilAborted(
        new Promise<void>((resolve) => {
          const cancel = o.clock.setTimeout(resolve, wait);
          o.signal?.addEventListener(
            'abort',
            () => {
              cancel();
              resolve();
            },
            { once: true },
          );
        }),
        o.signal,
      );
      pause = Math.min(o.maxPauseMs ?? 10_000, pause * 2);
    }
  }
}
