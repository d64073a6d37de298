/**
 * Kill switch: drawdown measured from the PEAK of total PnL (a bot up 100 then down to 40 has lost
 * 60, even though it is still up since start), the loss over the current UTC day (from the account
 * PnL when the day began), the loss since inception (the account PnL itself, which the ledger
 * carries across restarts), and the venue error rate over the store's window.
 * Once fired it stays latched in the state; the runtime also latches it in the ledger, so a
 * restarted bot stays stopped until an operator clears it (`bookmaker ctl clear-kill`).
 */
import type { MarketView } from '../strategy/types.ts';
import type { RiskLimits, RiskReason, RiskState } from './types.ts';

export const DAY_MS = 86_400_000;

export interface KillCheck {
  readonly peakPnl: number;
  readonly killed: RiskReason | null;
  readonly detail: string;
  /** UTC day number of `dayStartPnl` */
  readonly day: number;
  readonly dayStartPnl: number;
}

/** The result as one literal (it runs on every tick of every market: no spreads). */
function check(peakPnl: number, day: number, dayStartPnl: number, killed: RiskReason | null, detail: string): KillCheck {
  return { peakPnl, killed, detail, day, dayStartPnl };
}

export function killSwitch(view: MarketView, limits: RiskLimits, state: RiskState): KillCheck {
  const pnl = view.account.pnl;
  const peakPnl = Math.max(state.peakPnl ?? pnl, pnl);
  const day = Math.floor(view.now / DAY_MS);
  // a new UTC day opens at the PnL the bot first sees in it
  const dayStartPnl = state.day === day && state.dayStartPnl !== undefined ? state.dayStartPnl : pnl;
  if (state.killed) return check(peakPnl, day, dayStartPnl, state.killed, 'kill switch latched');
  const drawdown = peakPnl - pnl;
  if (limits.maxDrawdown > 0 && drawdown > limits.maxDrawdown) {
    return check(peakPnl, day, dayStartPnl, 'KILL_DRAWDOWN', `drawdown ${drawdown} from peak ${peakPnl} exceeds ${limits.maxDrawdown}`);
  }
  const dailyLoss = dayStartPnl - pnl;
  if (limits.maxDailyLoss > 0 && dailyLoss > limits.maxDailyLoss) {
    return check(peakPnl, day, dayStartPnl, 'KILL_DAILY_LOSS', `loss ${dailyLoss} since the UTC day began (PnL ${dayStartPnl} then, ${pnl} now) exceeds ${limits.maxDailyLoss}`);
  }
  if (limits.maxLoss > 0 && -pnl > limits.maxLoss) {
    return check(peakPnl, day, dayStartPnl, 'KILL_LOSS', `loss ${-pnl} since inception exceeds ${limits.maxLoss}`);
  }
  const { requests, errors } = view.venue;
  if (limits.maxErrorRate > 0 && requests >= Math.max(1, limits.minRequestsForErrorRate) && errors / requests > limits.maxErrorRate) {
    return check(peakPnl, day, dayStartPnl, 'KILL_ERROR_RATE', `venue error rate ${errors}/${requests} exceeds ${limits.maxErrorRate}`);
  }
  return check(peakPnl, day, dayStartPnl, null, '');
}
