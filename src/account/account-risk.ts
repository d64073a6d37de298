/**
 * Risk on the account: the kill switch's figures kept once per account, not per market
 * slot, and checked on every tick of any market against the account's PnL (src/account/account.ts).
 *
 *   const r = new AccountRisk(limits, ledger.initialRisk())
 *   r.check(pnl, now, { requests, errors })  → null, or the reason and detail the kill fires with
 *   r.figures()                              → { peakPnl, day, dayStartPnl } for the ledger
 *   r.standing(pnl, now)                     → peak, drawdown, the day's loss now (read only: ctl status)
 *   r.reopen(pnl, now)                       → an operator clear: peak and day measured from here
 *
 * - drawdown: from the PEAK of account PnL (a bot up 100 then down to 40 has lost 60);
 * - the day's loss: from the account PnL when the trading day began (`account.dayStartsAt`); a day
 *   the bot was not running at its start opens at the first PnL it sees in it;
 * - loss since inception: the account PnL itself (the books carry it across restarts);
 * - the venue error rate over the store's window.
 * Once fired it stays latched until `reopen`.
 */
import type { RiskReason } from '../risk/types.ts';
import { tradingDay, type TradingDay } from './trading-day.ts';

/** The `account:` config section in integer units. 0 = off. */
export interface AccountLimits {
  /** account PnL below its peak, 1e-6 USDC */
  readonly maxDrawdown: number;
  /** account PnL below its value when the trading day began, 1e-6 USDC */
  readonly maxDailyLoss: number;
  /** account PnL since inception below −maxLoss, 1e-6 USDC */
  readonly maxLoss: number;
  /** venue errors / requests in the window above this fraction */
  readonly maxErrorRate: number;
  /** the error rate is ignored until the window holds this many requests */
  readonly minRequestsForErrorRate: number;
  /** IANA time zone or UTC offset the trading day follows */
  readonly dayStartsAt: string;
}

export const DEFAULT_ACCOUNT_LIMITS: AccountLimits = {
  maxDrawdown: 100_000_000,
  maxDailyLoss: 0,
  maxLoss: 0,
  maxErrorRate: 0.5,
  minRequestsForErrorRate: 20,
  dayStartsAt: 'UTC',
};

/** What the ledger keeps of the account risk (RiskSnapshot's figures, as numbers). */
export interface AccountRiskFigures {
  readonly peakPnl: number | null;
  /** the trading day `dayStartPnl` belongs to (days since 1970-01-01 in the configured zone) */
  readonly day: number | null;
  readonly dayStartPnl: number | null;
}

/** The kill switch's figures at one moment (AccountRisk.standing), 1e-6 USDC. */
export interface AccountStanding {
  /** the account PnL they are measured at */
  readonly pnl: number;
  /** the highest account PnL since the peak was last measured afresh (start of the books, or a clear) */
  readonly peak: number;
  /** peak − pnl: what account.maxDrawdown is compared with */
  readonly drawdown: number;
  /** the trading day (days since 1970-01-01 in the configured zone) */
  readonly day: number;
  /** the account PnL when the trading day began (or when the bot first saw it) */
  readonly dayStartPnl: number;
  /** dayStartPnl − pnl: what account.maxDailyLoss is compared with */
  readonly dailyLoss: number;
}

export interface AccountKill {
  readonly reason: RiskReason;
  readonly detail: string;
}

const usdc = (micro: number): string => (micro / 1e6).toFixed(6);

export class AccountRisk {
  readonly limits: AccountLimits;
  readonly day: TradingDay;
  private peakPnl: number | null;
  private dayNo: number | null;
  private dayStartPnl: number | null;
  private killedBy: AccountKill | null = null;

  constructor(limits: AccountLimits = DEFAULT_ACCOUNT_LIMITS, initial: Partial<AccountRiskFigures> = {}) {
    this.limits = limits;
    this.day = tradingDay(limits.dayStartsAt);
    this.peakPnl = initial.peakPnl ?? null;
    this.dayNo = initial.day ?? null;
    this.dayStartPnl = initial.dayStartPnl ?? null;
  }

  get killed(): AccountKill | null {
    return this.killedBy;
  }

  /**
   * The kill switch's figures at this PnL and time, as `check` measures them, without moving the peak
   * or the day (`bookmaker ctl status` shows them): the peak counting `pnl`, the drawdown from it, the
   * trading day's opening PnL (a new day opens at `pnl`) and the loss since then, 1e-6 USDC.
   */
  standing(pnl: number, now: number): AccountStanding {
    const peak = this.peakWith(pnl);
    const day = this.day.of(now);
    const dayStartPnl = this.dayStartWith(pnl, day);
    return { pnl, peak, drawdown: peak - pnl, day, dayStartPnl, dailyLoss: dayStartPnl - pnl };
  }

  /** The peak counting `pnl` (standing's and check's). */
  private peakWith(pnl: number): number {
    return this.peakPnl === null || pnl > this.peakPnl ? pnl : this.peakPnl;
  }

  /** Day `day`'s opening PnL: a new day opens at the PnL first seen in it (standing's and check's). */
  private dayStartWith(pnl: number, day: number): number {
    return this.dayNo !== day || this.dayStartPnl === null ? pnl : this.dayStartPnl;
  }

  /** The account's figures now, advancing the peak and the day; the kill reason when a limit is broken. */
  check(pnl: number, now: number, venue: { readonly requests: number; readonly errors: number }): AccountKill | null {
    // standing()'s figures without its object (this runs on every tick of every market)
    const peak = this.peakWith(pnl);
    const day = this.day.of(now);
    const dayStartPnl = this.dayStartWith(pnl, day);
    this.peakPnl = peak;
    this.dayNo = day;
    this.dayStartPnl = dayStartPnl;
    if (this.killedBy !== null) return this.killedBy;
    const l = this.limits;
    const drawdown = peak - pnl;
    if (l.maxDrawdown > 0 && drawdown > l.maxDrawdown) {
      return this.fire('KILL_DRAWDOWN', `account drawdown ${usdc(drawdown)} USDC from peak ${usdc(peak)} exceeds account.maxDrawdown ${usdc(l.maxDrawdown)}`);
    }
    const dailyLoss = dayStartPnl - pnl;
    if (l.maxDailyLoss > 0 && dailyLoss > l.maxDailyLoss) {
      return this.fire(
        'KILL_DAILY_LOSS',
        `account loss ${usdc(dailyLoss)} USDC since the trading day began (${this.day.zone}; PnL ${usdc(dayStartPnl)} then, ${usdc(pnl)} now) ` +
          `exceeds account.maxDailyLoss ${usdc(l.maxDailyLoss)}`,
      );
    }
    if (l.maxLoss > 0 && -pnl > l.maxLoss) {
      return this.fire('KILL_LOSS', `account loss ${usdc(-pnl)} USDC since inception exceeds account.maxLoss ${usdc(l.maxLoss)}`);
    }
    const { requests, errors } = venue;
    if (l.maxErrorRate > 0 && requests >= Math.max(1, l.minRequestsForErrorRate) && errors / requests > l.maxErrorRate) {
      return this.fire('KILL_ERROR_RATE', `venue error rate ${errors}/${requests} exceeds account.maxErrorRate ${l.maxErrorRate}`);
    }
    return null;
  }

  private fire(reason: RiskReason, detail: string): AccountKill {
    this.killedBy = { reason, detail };
    return this.killedBy;
  }

  /**
   * An operator cleared the kill switch: the latch goes, and the peak and the day's opening PnL are
   * measured from `pnl` (null: from the next check).
   */
  reopen(pnl: number | null, now: number): void {
    this.killedBy = null;
    this.peakPnl = pnl;
    this.dayNo = pnl === null ? null : this.day.of(now);
    this.dayStartPnl = pnl;
  }

  figures(): AccountRiskFigures {
    return { peakPnl: this.peakPnl, day: this.dayNo, dayStartPnl: this.dayStartPnl };
  }
}

/**
 * The figures an offline clear (no bot running) leaves in the ledger: none, so the next start opens
 * its peak and its day at the first PnL it sees (`bookmaker ctl clear-kill` offline;).
 */
export const REOPENED_FIGURES: AccountRiskFigures = { peakPnl: null, day: null, dayStartPnl: null };
