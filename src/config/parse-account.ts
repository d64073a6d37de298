/**
 * `account:` settings: the limits that act on the whole account's PnL, in human units →
 * AccountLimits in integer units. Every key is optional (DEFAULT_ACCOUNT_LIMITS).
 *
 *   account:
 *     maxDrawdown: 250        # USDC below the account PnL's peak → kill switch
 *     maxDailyLoss: 100       # USDC since the trading day began (0 = off)
 *     maxLoss: 0              # USDC since inception (0 = off)
 *     maxErrorRate: 0.5       # venue error fraction over the window (0 = off)
 *     minRequestsForErrorRate: 20
 *     dayStartsAt: UTC        # IANA time zone (Europe/London) or UTC offset (+02:00)
 */
import { DEFAULT_ACCOUNT_LIMITS, type AccountLimits } from '../account/account-risk.ts';
import { tradingDay } from '../account/trading-day.ts';
import { ConfigError } from '../model/errors.ts';
import { at, ConfigFieldError, readNumber, readOptionalObject, readString } from '../core/fields.ts';

export const ACCOUNT_KEYS = ['maxDrawdown', 'maxDailyLoss', 'maxLoss', 'maxErrorRate', 'minRequestsForErrorRate', 'dayStartsAt'];

/** The account keys that used to sit under `risk:` (defaults or a market). */
export const MOVED_TO_ACCOUNT = ['maxDrawdown', 'maxDailyLoss', 'maxLoss', 'maxErrorRate', 'minRequestsForErrorRate'];

const S = 1_000_000;
const BIG = 1e9;

export function parseAccount(raw: unknown, path: string, base: AccountLimits = DEFAULT_ACCOUNT_LIMITS): AccountLimits {
  const o = readOptionalObject(raw, path, ACCOUNT_KEYS);
  const usdc = (key: string, dflt: number): number => Math.round(readNumber(o, key, path, { min: 0, max: BIG }, dflt / S) * S);
  const dayStartsAt = readString(o, 'dayStartsAt', path, base.dayStartsAt);
  try {
    tradingDay(dayStartsAt);
  } catch {
    throw new ConfigFieldError(at(path, 'dayStartsAt'), 'an IANA time zone (Europe/London) or a UTC offset (+02:00)', dayStartsAt);
  }
  return {
    maxDrawdown: usdc('maxDrawdown', base.maxDrawdown),
    maxDailyLoss: usdc('maxDailyLoss', base.maxDailyLoss),
    maxLoss: usdc('maxLoss', base.maxLoss),
    maxErrorRate: readNumber(o, 'maxErrorRate', path, { min: 0, max: 1 }, base.maxErrorRate),
    minRequestsForErrorRate: readNumber(o, 'minRequestsForErrorRate', path, { min: 1, max: 1e6, integer: true }, base.minRequestsForErrorRate),
    dayStartsAt,
  };
}

/** An account limit under `risk:` is refused with where it went (it acts on the account, not a market). */
export function refuseMovedKeys(raw: unknown, path: string): void {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return;
  for (const k of MOVED_TO_ACCOUNT) {
    if (k in raw) {
      throw new ConfigError(
        `${at(path, k)}: ${k} is an account limit now: move it to the top-level \`account:\` section (account.${k}); it acts on the whole account's PnL, not on one market`,
      );
    }
  }
}
