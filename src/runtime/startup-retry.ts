/**
 * A start-up step (market selection, the migration read) retried while the venue fails transiently —
 * 5xx, 429, timeouts, a dropped connection — with growing pauses, up to a time budget. The client
 * already retries each call a few times within seconds; a rate-limit burst or a venue restart can
 * outlast that, and a long-running quoting process should not exit because the venue hiccuped while
 * it started. Anything the classifier does not call transient (bad config, auth, bad input, a
 * malformed answer) fails at once.
 *
 *   const markets = await retryStartupStep('select markets', () => selectMarkets(client, cfg.markets), { clock, log });
 */
import type { Clock } from '../core/clock.ts';
import type { Logger } from '../core/logger.ts';
import { classify } from '../exchange/client/classify.ts';

export interface StartupRetryOptions {
  clock: Clock;
  log: Logger;
  /** give up after this long (default 120 000 ms) */
  budgetMs?: number;
  /** first pause, doubled up to maxPauseMs (defaults 1 000 and 10 000 ms) */
  firstPauseMs?: number;
  maxPauseMs?: number;
}

export async function retryStartupStep<T>(name: string, step: () => Promise<T>, o: StartupRetryOptions): Promise<T> {
  const until = o.clock.now() + (o.budgetMs ?? 120_000);
  let pause = o.firstPauseMs ?? 1_000;
  for (let attempt = 1; ; attempt++) {
    try {
      return await step();
    } catch (err) {
      const c = classify(err);
      const wait = Math.max(pause, c.retryAfterMs ?? 0);
      if ((c.action !== 'retry' && c.action !== 'backoff') || o.clock.now() + wait > until) throw err;
      o.log.warn({ step: name, attempt, reason: c.reason, retryInMs: wait }, 'start-up step failed transiently; retrying');
      await new Promise<void>((resolve) => o.clock.setTimeout(resolve, wait));
      pause = Math.min(o.maxPauseMs ?? 10_000, pause * 2);
    }
  }
}
