/**
 * `bookmaker run`'s word on a start-up that failed: the log line and the terminal line for each reason,
 * with the exit code of src/runtime/startup-exit.ts (the bot child of the chaos harness exits with the
 * same). Bad input and unexpected errors are thrown on, and the CLI's entry says them and exits 2 or 1
 * (src/cli/main.ts, commandExitCode).
 *
 *   catch (e) { const code = await startupFailed(e, { logger, startupDeadlineMs }); process.exit(code); }
 */
import type { Logger } from '../core/logger.ts';
import { startupFailure } from '../runtime/startup-exit.ts';

export interface StartupFailedOptions {
  readonly logger: Logger;
  /** run's --startup-deadline, ms (named in the message of a venue that stayed unreachable) */
  readonly startupDeadlineMs: number;
  readonly stdout?: (s: string) => void;
  readonly stderr?: (s: string) => void;
}

/** Says why the start-up failed and returns the exit code; throws `e` on for the CLI's entry to say (2 or 1). */
export async function startupFailed(e: unknown, o: StartupFailedOptions): Promise<number> {
  const f = startupFailure(e);
  const logger = o.logger;
  const stderr = o.stderr ?? ((s: string) => void process.stderr.write(s));
  const stdout = o.stdout ?? ((s: string) => void process.stdout.write(s));
  switch (f.kind) {
    case 'key-refused': {
      const err = f.error;
      // no retry can pass this: the same halt (exit 4) as a refusal of every create, with cause and fix
      const fix =
        err.status === 401
          ? 'pass the API key the venue issued (--api-key or BOOKMAKER_API_KEY) for the venue at this base URL'
          : 'use an API key with the permissions this call needs, issued for the signing wallet';
      logger.fatal(
        { status: err.status, code: err.venueCode, endpoint: err.endpoint, err: err.message, exitCode: f.code },
        `halting at start-up: the venue refuses this API key (${err.status}). Fix: ${fix}`,
      );
      stderr(`bookmaker run: ${err.message}\nhalted at start-up: the venue refuses this API key. Fix: ${fix}. Exit ${f.code}\n`);
      break;
    }
    case 'wallet-shared': {
      const found = f.error.found;
      const tags = found.tags.map((t) => t.tag);
      logger.fatal({ orders: found.orders, markets: found.markets, tags, exitCode: f.code }, `refusing to quote: ${f.error.message}`);
      stderr(`bookmaker run: refusing to quote: ${f.error.message}. Exit ${f.code}\n`);
      break;
    }
    case 'venue-unreachable': {
      const err = f.error;
      const why = `the venue kept failing transiently until the start-up deadline (${o.startupDeadlineMs / 1000} s, --startup-deadline): ${err.message}`;
      logger.fatal({ step: err.step, attempts: err.attempts, ...err.last, exitCode: f.code }, `giving up at start-up: ${why}`);
      stderr(`bookmaker run: giving up at start-up, nothing quoted: ${why}. Exit ${f.code}\n`);
      break;
    }
    case 'aborted':
      stdout(`bookmaker: stopped during start-up (${f.error.reason}), exit ${f.code}\n`);
      break;
    case 'error':
      throw e;
  }
  await new Promise<void>((r) => logger.flush(() => r()));
  return f.code;
}
