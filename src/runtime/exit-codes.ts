/** The exit codes of `bookmaker run` that the bot itself decides (docs/reference/exit-codes.md). */
export const EXIT_OK = 0;
export const EXIT_ORDERS_LEFT = 1;
export const EXIT_KILL_SWITCH = 3;
export const EXIT_HALT = 4;
/** stopped with every order cancelled, but the ledger could not be written: this run's books are not (all) on disk */
export const EXIT_LEDGER_UNWRITABLE = 6;
/** refused at start-up: another trader (a second bot, a person) has open orders on this wallet in this bot's markets */
export const EXIT_WALLET_SHARED = 7;
/**
 * gave up at start-up: the venue kept failing transiently (rate limits, 5xx, timeouts, no connection) until
 * the start-up deadline (`run --startup-deadline`); nothing was quoted. Not a config error: restart later
 */
export const EXIT_VENUE_UNREACHABLE = 8;
/**
 * a stop signal (SIGTERM, SIGINT) after the one that reported a stop's progress ended the process before the stop
 * finished: orders may rest at the venue until their dead-man expiry; the next start's reconcile cancels them
 */
export const EXIT_STOP_CUT_SHORT = 9;
