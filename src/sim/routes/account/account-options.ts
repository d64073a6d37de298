/**
 * Settings of the account routes (quotas and simulated latencies), per exchange. Defaults follow the
 * venue where it documents a number (mint: 100 requests per hour per key) and are otherwise chosen to
 * be generous for bots yet reachable by tests.
 */
import type { ExchangeState } from '../../context.ts';
import { RateLimiter } from '../../rate-limiter.ts';

export interface AccountOptions {
  /** mint-test-usdc requests per hour per key (venue: 100) */
  mintsPerHour: number;
  /** POST /questions and agent-submit per hour per key */
  questionsPerHour: number;
  /** POST /markets/create per day per key */
  marketsPerDay: number;
  /** a submission is `pending` for this long, then `processing` */
  submissionProcessingAfterMs: number;
  /** ... and `completed` after this long (from submission) */
  submissionCompletedAfterMs: number;
  /**
   * Where the testnet faucet puts USDC: `holdings` (default: tradeable at once) or `wallet` (the
   * wallet's ERC-20 balance, as on the venue; a permit deposit then moves it into Holdings).
   */
  faucet: 'holdings' | 'wallet';
}

export const DEFAULT_ACCOUNT_OPTIONS: Readonly<AccountOptions> = Object.freeze({
  mintsPerHour: 100,
  questionsPerHour: 60,
  marketsPerDay: 10,
  submissionProcessingAfterMs: 2_000,
  submissionCompletedAfterMs: 6_000,
  faucet: 'holdings',
});

interface AccountRuntime {
  options: AccountOptions;
  mintLimiter: RateLimiter;
  questionLimiter: RateLimiter;
  marketLimiter: RateLimiter;
}

const runtimes = new WeakMap<ExchangeState, AccountRuntime>();

function build(options: AccountOptions): AccountRuntime {
  return {
    options,
    mintLimiter: new RateLimiter(options.mintsPerHour, options.mintsPerHour / 3600),
    questionLimiter: new RateLimiter(options.questionsPerHour, options.questionsPerHour / 3600),
    marketLimiter: new RateLimiter(options.marketsPerDay, options.marketsPerDay / 86_400),
  };
}

/** Set the account options of an exchange (call before serving; later calls reset the quotas). */
export function configureAccounts(state: ExchangeState, opts: Partial<AccountOptions> = {}): AccountOptions {
  const options = { ...DEFAULT_ACCOUNT_OPTIONS, ...opts };
  runtimes.set(state, build(options));
  return options;
}

export function accountRuntime(state: ExchangeState): AccountRuntime {
  let r = runtimes.get(state);
  if (!r) {
    r = build({ ...DEFAULT_ACCOUNT_OPTIONS });
    runtimes.set(state, r);
  }
  return r;
}
