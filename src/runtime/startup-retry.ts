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
 * the pause between attempts ends at once and the step rejects with StartupAbortedError.
 */
import type { Clock } from '../core/clock.ts';
import type { Logger } from '../core/logger.ts';
import { scrubSecrets } from '../core/logger.ts';
import { classify } from '../exchange/client/classify.ts';

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
  const until = o.clock.now() + (o.budgetMs ?? 120_000);
  let pause = o.firstPauseMs ?? 1_000;
  for (let attempt = 1; ; attempt++) {
    try {
      return await untilAborted(step(), o.signal);
    } catch (err) {
      if (err instanceof StartupAbortedError) throw err;
      const c = classify(err);
      const wait = Math.max(pause, c.retryAfterMs ?? 0);
      if ((c.action !== 'retry' && c.action !== 'backoff') || o.clock.now() + wait > until) throw err;
      o.log.warn({ step: name, attempt, reason: c.reason, ...errorFields(err), retryInMs: wait }, 'start-up step failed transiently; retrying');
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
