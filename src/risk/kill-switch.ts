/**
 * Kill switch: drawdown measured from the PEAK of total PnL (a bot up 100 then down to 40 has lost
 * 60, even though it is still up since start), and the venue error rate over the store's window.
 * Once fired it stays latched in the state: only an operator restart clears it.
 */
import type { MarketView } from '../strategy/types.ts';
import type { RiskLimits, RiskReason, RiskState } from './types.ts';

export interface KillCheck {
  readonly peakPnl: number;
  readonly killed: RiskReason | null;
  readonly detail: string;
}

export function killSwitch(view: MarketView, limits: RiskLimits, state: RiskState): KillCheck {
  const pnl = view.account.pnl;
  const peakPnl = Math.max(state.peakPnl ?? pnl, pnl);
  if (state.killed) return { peakPnl, killed: state.killed, detail: 'kill switch latched' };
  const drawdown = peakPnl - pnl;
  if (limits.maxDrawdown > 0 && drawdown > limits.maxDrawdown) {
    return { peakPnl, killed: 'KILL_DRAWDOWN', detail: `drawdown ${drawdown} from peak ${peakPnl} exceeds ${limits.maxDrawdown}` };
  }
  const { requests, errors } = view.venue;
  if (limits.maxErrorRate > 0 && requests >= Math.max(1, limits.minRequestsForErrorRate) && errors / requests > limits.maxErrorRate) {
    return { peakPnl, killed: 'KILL_ERROR_RATE', detail: `venue error rate ${errors}/${requests} exceeds ${limits.maxErrorRate}` };
  }
  return { peakPnl, killed: null, detail: '' };
}
