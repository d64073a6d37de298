/**
 * The end-of-run report of the live bot (src/runtime/bot.ts; run-report.ts): the markets quoted now, the
 * released ones (a retired market still holding a position with its PnL as of now), rotation, the
 * account's figures and claims.
 */
import { marketAttribution } from '../../state/edge-view.ts';
import { tradesPlus } from '../../account/run-figures.ts';
import type { Bytes32 } from '../../model/order.ts';
import { rotationReport, type RetiredRow } from '../retired-rows.ts';
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
    // each market's newest released row: it, or the market's active row once it started again (a fill
    // between the release and the new start then shows there), reads the books on from there
    const newest = new Map<Bytes32, RetiredRow>();
    for (const r of rp.retiredRows) newest.set(r.time.marketId, r);
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
          // (a market started again since has its own row below, and so has a later release)
          if (rot.isActive(r.time.marketId) || newest.get(r.time.marketId) !== r) return r;
          // its fills after the release (the books took them) count in its row
          const ledger = tradesPlus(r.ledger, runFigures.after(r.time.marketId, r.ledgerAt));
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
            ledger: runFigures.after(time.marketId, newest.get(time.marketId)?.ledgerAt),
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
