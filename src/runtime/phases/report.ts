/**
 * The end-of-run report of the live bot (src/runtime/bot.ts; run-report.ts): the markets quoted now, the
 * released ones (a retired market still holding a position with its PnL as of now), rotation, the
 * account's figures and claims.
 */
import { marketAttribution } from '../../state/edge-view.ts';
import { rotationReport } from '../retired-rows.ts';
import { buildRunReport, type RunReport } from '../run-report.ts';
import type { CorePhase } from './core.ts';
import type { LedgerPhase } from './ledger.ts';
import type { RotationPhase } from './rotation.ts';
import type { StartContext } from './start-context.ts';

export function botReport(
  { clock, paper }: Pick<StartContext, 'clock' | 'paper'>,
  { accountBooks }: LedgerPhase,
  cp: CorePhase,
  rp: RotationPhase,
): (stopReason: string, exitCode: number) => RunReport {
  const { healthModel, runFigures } = cp;
  const { store } = cp.core;
  const rot = rp.rotation;
  return (stopReason, exitCode) => {
    healthModel.evaluate();
    const times = healthModel.report();
    return buildRunReport({
      startedAt: cp.startedAt,
      stoppedAt: clock.now(),
      paper,
      stopReason,
      exitCode,
      process: healthModel.process,
      haltedBecause: healthModel.haltedBecause,
      markets: [
        ...(rp.earlier.row ? [rp.earlier.row] : []),
        // a retired market still holding a position: its PnL as of now, not as of its release
        ...rp.retiredRows.map((r) => {
          // (a market started again since has its own row below)
          if (rot.isActive(r.time.marketId)) return r;
          // its fills after the release (the books took them) count in its row
          const ledger = runFigures.since(r.time.marketId, r.ledger);
          const m = store.state.markets.get(r.time.marketId);
          if (!m) return { ...r, ledger };
          const pnl = accountBooks.marketPnl(r.time.marketId);
          return { ...r, ledger, realised: pnl.realised, unrealised: pnl.unrealised, net: accountBooks.holdingsOf(r.time.marketId).net };
        }),
        ...times.map((time) => {
          const m = store.state.markets.get(time.marketId);
          const pnl = accountBooks.marketPnl(time.marketId);
          return {
            time,
            ledger: runFigures.market(time.marketId),
            realised: pnl.realised,
            unrealised: pnl.unrealised,
            net: accountBooks.holdingsOf(time.marketId).net,
            ...(m ? { attribution: marketAttribution(m, accountBooks) } : {}),
          };
        }),
      ],
      rotation: rotationReport(rot),
      account: accountBooks.figures(),
      run: runFigures.totals(),
      ...(cp.claims ? { claims: cp.claims.report() } : {}),
    });
  };
}
