/**
 * The end-of-run report of the live bot (src/runtime/bot.ts; run-report.ts): the markets quoted now, the
 * released ones (a retired market still holding a position with its PnL as of now), rotation, the
 * account's figures and claims.
 */
import { marketAttribution } from '../../state/edge-view.ts';
import { booksClaimable } from '../../account/books-claimable.ts';
import { rotationReport } from '../retired-rows.ts';
import { buildRunReport, type RunReport } from '../run-report.ts';
import type { CorePhase } from './core.ts';
import type { LedgerPhase } from './ledger.ts';
import type { RotationPhase } from './rotation.ts';
import type { StartContext } from './start-context.ts';

export function botReport(
  { clock, paper }: Pick<StartContext, 'clock' | 'paper'>,
  { accountBooks, bookLedger }: LedgerPhase,
  cp: CorePhase,
  rp: RotationPhase,
): (stopReason: string, exitCode: number) => RunReport {
  const { healthModel } = cp;
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
        // the released markets' rows, each with its fills since and its position's PnL now
        // (src/runtime/retired-rows.ts)
        ...rp.retired.reportRows((id) => rot.isActive(id)),
        ...times.map((time) => {
          const m = store.state.markets.get(time.marketId);
          return {
            time,
            ledger: rp.retired.since(time.marketId),
            unrealised: accountBooks.marketPnl(time.marketId).unrealised,
            net: accountBooks.holdingsOf(time.marketId).net,
            ...(m ? { attribution: marketAttribution(m, accountBooks) } : {}),
          };
        }),
      ],
      rotation: rotationReport(rot),
      account: accountBooks.figures(),
      run: cp.runFigures.totals(),
      orders: bookLedger.orderEndsOfRun(),
      // the venue's claimable (the tracker) and the books' resolved-unclaimed (the ledger summary's function)
      ...(cp.claims ? { claims: cp.claims.report(), booksClaimable: booksClaimable(accountBooks) } : {}),
    });
  };
}
