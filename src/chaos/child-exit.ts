/**
 * The bot child's exit code when its start-up fails: the code `bookmaker run` exits with for the same error
 * (src/cli/commands/run.ts and src/cli/main.ts; docs/reference/exit-codes.md), so the orchestrator and the
 * load benchmark read the bot's own reason from the child's code.
 *
 *   main().catch((e) => process.exit(startupExitCode(e)))
 */
import { VenueError } from '../exchange/client/errors.ts';
import { BookmakerError } from '../model/errors.ts';
import { EXIT_HALT, EXIT_OK, EXIT_ORDERS_LEFT, EXIT_VENUE_UNREACHABLE, EXIT_WALLET_SHARED } from '../runtime/exit-codes.ts';
import { StartupAbortedError, VenueUnreachableError } from '../runtime/startup-retry.ts';
import { WalletSharedError } from '../runtime/wallet-watch.ts';

/** bad input (config, flags, a missing key, an unusable metrics port): every command's 2 (src/cli/main.ts) */
const BAD_INPUT_EXIT = 2;

export function startupExitCode(e: unknown): number {
  // the venue refuses the API key: no retry passes it (run halts at start-up)
  if (e instanceof VenueError && (e.status === 401 || e.status === 403)) return EXIT_HALT;
  if (e instanceof WalletSharedError) return EXIT_WALLET_SHARED;
  if (e instanceof VenueUnreachableError) return EXIT_VENUE_UNREACHABLE;
  if (e instanceof StartupAbortedError) return EXIT_OK;
  if (e instanceof BookmakerError && (e.code === 'BAD_INPUT' || e.code === 'CONFIG')) return BAD_INPUT_EXIT;
  return EXIT_ORDERS_LEFT; // an unexpected error: run's 1
}
