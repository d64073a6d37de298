/** What `startBot` (src/runtime/bot.ts) is started with: the config, the logger and the overrides of the command line. */
import type { Clock } from '../core/clock.ts';
import type { Logger } from '../core/logger.ts';
import type { BotConfig } from '../config/types.ts';
import type { Watchdog } from './watchdog.ts';

export interface BotOptions {
  config: BotConfig;
  logger: Logger;
  /** overrides the config's venue, including the embedded local exchange */
  baseUrl?: string;
  paper?: boolean;
  apiKey?: string;
  keyFile?: string;
  /** overrides config metrics.port; 0 = off */
  metricsPort?: number;
  clock?: Clock;
  env?: NodeJS.ProcessEnv;
  /** where the activity poller keeps its position across restarts (default: in memory) */
  activityStateFile?: string;
  /** wait at most this long for first books before reconciling (default 5 000 ms) */
  warmupMs?: number;
  /** overrides config admin.port (0 = off); the endpoint needs BOOKMAKER_ADMIN_TOKEN in `env` */
  adminPort?: number;
  /**
   * A stop request during start-up (SIGINT/SIGTERM, --duration): every start-up wait and retry
   * pause ends at once, anything placed is cancelled, and startBot rejects with StartupAbortedError.
   */
  signal?: AbortSignal;
  /**
   * The event-loop watchdog (watchdog.ts): when given, it owns the metrics socket (the bot answers
   * its forwarded /metrics and /readyz) and is armed with the venue's keys to cancel from its thread.
   */
  watchdog?: Watchdog;
  /**
   * `run --startup-deadline`: how long start-up keeps retrying a venue that fails transiently (429, 5xx,
   * timeouts, no connection) before it gives up with VenueUnreachableError (exit 8), ms (default 300 000)
   */
  startupDeadlineMs?: number;
  /** `run --new-ledger`: a new or empty ledger on a wallet with venue history adopts the holdings as its baseline (src/ledger/baseline.ts) instead of refusing the start */
  newLedger?: boolean;
  /**
   * `run --cancel-foreign-orders`: open orders of another trader found in the bot's markets at start-up
   * are left over from an earlier run (its ledger gone): the start-up reconcile cancels them instead of
   * refusing the start (src/runtime/wallet-watch.ts)
   */
  cancelForeignOrders?: boolean;
  /**
   * the claims tracker's periodic holdings check while running (src/runtime/claims/claims-tracker.ts): its
   * pause, ms (default HELD_CHECK_MS, 15 min); tests shorten it
   */
  claimsHeldCheckMs?: number;
}
