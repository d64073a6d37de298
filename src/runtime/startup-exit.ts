/**
 * Why a start-up failed, and the exit code it gives: the one mapping of `bookmaker run`
 * (src/cli/startup-failed.ts says why, then exits with it) and of the chaos harness's bot child
 * (src/chaos/bot-child.ts), so the orchestrator and the load benchmark read the bot's own reason from
 * the child's code. The codes: docs/reference/exit-codes.md.
 *
 *   const f = startupFailure(err);   // { kind: 'venue-unreachable', code: 8, error }
 *   process.exit(startupExitCode(err));
 */
import { VenueError } from '../exchange/client/errors.ts';
import { commandExitCode } from '../model/errors.ts';
import { EXIT_HALT, EXIT_OK, EXIT_VENUE_UNREACHABLE, EXIT_WALLET_SHARED } from './exit-codes.ts';
import { StartupAbortedError, VenueUnreachableError } from './startup-retry.ts';
import { WalletSharedError } from './wallet-watch.ts';

export type StartupFailure =
  /** the venue refuses the API key (401, 403): no retry passes it, the same halt as a refusal of every create */
  | { readonly kind: 'key-refused'; readonly code: typeof EXIT_HALT; readonly error: VenueError }
  /** another trader has open orders on this wallet in this bot's markets */
  | { readonly kind: 'wallet-shared'; readonly code: typeof EXIT_WALLET_SHARED; readonly error: WalletSharedError }
  /** the venue kept failing transiently until the start-up deadline */
  | { readonly kind: 'venue-unreachable'; readonly code: typeof EXIT_VENUE_UNREACHABLE; readonly error: VenueUnreachableError }
  /** a stop (signal, --duration) ended the start-up */
  | { readonly kind: 'aborted'; readonly code: typeof EXIT_OK; readonly error: StartupAbortedError }
  /** bad input (config, flags, a missing key: every command's 2) or anything else (1) */
  | { readonly kind: 'error'; readonly code: 1 | 2; readonly error: unknown };

export function startupFailure(e: unknown): StartupFailure {
  if (e instanceof VenueError && (e.status === 401 || e.status === 403)) return { kind: 'key-refused', code: EXIT_HALT, error: e };
  if (e instanceof WalletSharedError) return { kind: 'wallet-shared', code: EXIT_WALLET_SHARED, error: e };
  if (e instanceof VenueUnreachableError) return { kind: 'venue-unreachable', code: EXIT_VENUE_UNREACHABLE, error: e };
  if (e instanceof StartupAbortedError) return { kind: 'aborted', code: EXIT_OK, error: e };
  return { kind: 'error', code: commandExitCode(e), error: e };
}

/** The exit code of a start-up that failed with `e`. */
export function startupExitCode(e: unknown): number {
  return startupFailure(e).code;
}
