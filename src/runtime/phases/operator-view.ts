/**
 * The operator's holds as the kernel and /readyz read them (src/runtime/bot.ts): nothing held until the
 * holds phase reads the ledger's halt and pauses, those until the control phase wires `bookmaker ctl`,
 * and the control's from then on. The kernel asks `heldPause` when rotation brings a market back.
 */
import type { Bytes32 } from '../../model/order.ts';

/** Who answers for the operator's holds now. */
export interface OperatorHolds {
  isHeldPause(marketId: Bytes32): boolean;
  /** why /readyz is not ready because of the operator (a halt, pauses) */
  readinessReasons(): string[];
}

const NOTHING_HELD: OperatorHolds = { isHeldPause: () => false, readinessReasons: () => [] };

export class OperatorView {
  private source: OperatorHolds = NOTHING_HELD;

  /** The holds answer from `source` from now on. */
  use(source: OperatorHolds): void {
    this.source = source;
  }

  readonly heldPause = (marketId: Bytes32): boolean => this.source.isHeldPause(marketId);
  readonly reasons = (): string[] => this.source.readinessReasons();
}
