/**
 * The holds phase of the live start-up (src/runtime/bot.ts): before the kernel can tick, the operator's
 * halt and pauses from an earlier run (or sent during start-up) hold it again; the watch that pulls every
 * quote while the ledger cannot be written starts, and so does the ledger's retention. The kernel itself
 * starts ticking only after the start-up reconcile and its checks (phases/running.ts).
 */
import type { OperatorHolds as LedgerHolds } from '../../ledger/ledger.ts';
import { haltText } from '../../ledger/held-state.ts';
import { schedulePrune } from '../../ledger/retention.ts';
import type { Bytes32 } from '../../model/order.ts';
import type { CorePhase } from './core.ts';
import type { LedgerPhase } from './ledger.ts';
import type { StartContext } from './start-context.ts';

/** Pause in `kernel` what the ledger holds: the halt, and each held market among `marketIds`. */
export function applyHolds(kernel: { pause(marketId: Bytes32 | null): void }, holds: LedgerHolds, marketIds: readonly Bytes32[]): void {
  if (holds.halt) kernel.pause(null);
  for (const m of marketIds) if (holds.pauses.has(m)) kernel.pause(m);
}

export function holdsPhase(c: StartContext, marketIds: readonly Bytes32[], { bookLedger }: LedgerPhase, cp: CorePhase): LedgerHolds {
  const k = cp.core.kernel;
  const holds = bookLedger.operatorHolds();
  applyHolds(k, holds, marketIds);
  // until the control is wired (control phase): the ledger's pauses, and the halt the kernel holds in the
  // words of its own source (held-state.ts haltText), as the control says it later
  cp.operator.use({
    isHeldPause: (id) => holds.pauses.has(id),
    readinessReasons: () => (k.halted ? [haltText(holds.halt ?? { reason: null, at: 0, source: 'admin' })] : []),
  });
  const watch = cp.ledgerWatch;
  watch.start();
  c.life.add(() => watch.stop());
  // orders, cancels and marks older than ledger.retainDays go, in small batches
  c.life.add(schedulePrune({ ledger: bookLedger.ledger, clock: c.clock, retainDays: c.cfg.ledger.retainDays, logger: c.o.logger }));
  return holds;
}
