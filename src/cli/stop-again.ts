/**
 * What `bookmaker run` says to a stop signal (SIGTERM, SIGINT) that comes while it is already stopping
 * (docs/operating.md, "Stopping"): the first one more is answered with where the stop is (warn) and ends
 * nothing; the next is the operator's last word: the process ends at once with EXIT_STOP_CUT_SHORT (error).
 *
 *   const a = stopAgain(2, 'SIGTERM', bot.stopProgress(), true, 120_000);   // { exit: false, fields, message }
 */
import { EXIT_STOP_CUT_SHORT } from '../runtime/exit-codes.ts';
import type { StopProgress } from '../runtime/phases/shutdown.ts';

export interface StopAgain {
  /** true: end the process now with EXIT_STOP_CUT_SHORT (the message is logged as an error first) */
  readonly exit: boolean;
  readonly fields: Record<string, unknown>;
  readonly message: string;
}

/**
 * The answer to the `nth` stop signal (2 = the first one more). `progress`: the bot's stop under way, when it
 * runs; `botRuns`: the bot was up (else start-up is being undone); `deadManMs`: the orders' dead-man expiry
 * (orders.deadManExpirySeconds), null before the config is read.
 */
export function stopAgain(nth: number, signal: string, progress: StopProgress | null, botRuns: boolean, deadManMs: number | null): StopAgain {
  const secs = (ms: number): number => Math.round(ms / 100) / 10;
  const p = progress;
  const where = p
    ? `${p.step}, for ${secs(p.stepMs)} s (stopping for ${secs(p.stoppingMs)} s)`
    : botRuns
      ? 'finishing (the orders are cancelled)'
      : 'ending the start-up (anything placed is cancelled)';
  const expiry =
    deadManMs === null ? '' : deadManMs > 0 ? ` (orders.deadManExpirySeconds: ${deadManMs / 1000} s)` : ' (none is set: orders.deadManExpirySeconds is 0)';
  const fields = { signal, waitingOn: p?.step ?? null, stepSeconds: p ? secs(p.stepMs) : null, stoppingSeconds: p ? secs(p.stoppingMs) : null };
  if (nth <= 2)
    return {
      exit: false,
      fields,
      message:
        `${signal} again while stopping: still ${where}; the stop cancels every order before it ends. ` +
        `One more SIGTERM or SIGINT ends the process at once (exit ${EXIT_STOP_CUT_SHORT}) and leaves what is still open at the venue ` +
        `until its dead-man expiry${expiry} or the next start's reconcile`,
    };
  return {
    exit: true,
    fields: { ...fields, exitCode: EXIT_STOP_CUT_SHORT },
    message:
      `${signal} a third time: stop cut short while ${where}; exiting now (exit ${EXIT_STOP_CUT_SHORT}). Orders may rest at the venue ` +
      `until their dead-man expiry${expiry} or the next start's reconcile cancels them (bookmaker ctl status, the venue)`,
  };
}
