/**
 * Fail closed when the ledger cannot be written.
 *
 *   const watch = new LedgerWatch({ ledger, clock, graceMs, logger, onDown, onUp });
 *   watch.start()      // checks once a second (a stat and, while failing, one retried write)
 *   watch.down         // the reason while the bot is held (health state ledger-unwritable), else null
 *   watch.stop()
 *
 * A ledger whose writes fail (disk full, I/O error, a damaged page) or whose file was deleted,
 * replaced or emptied under the process (Ledger.problem) for longer than `graceMs` is "down": `onDown`
 * pulls every quote (the bot keeps no books it cannot write, and a latch it might need would go to
 * the latch file only). Once writes succeed again, and the file is the one the bot opened, `onUp`
 * lets it quote again. A file deleted under the bot does not come back by itself: the operator
 * restarts the bot (see docs/ledger-operations.md).
 *
 * Nothing here runs on the hot path: a 1 s timer on the clock.
 */
import type { Clock } from '../core/clock.ts';
import { silentLogger, type Logger } from '../core/logger.ts';
import type { Ledger } from './ledger.ts';

export interface LedgerWatchOptions {
  readonly ledger: Ledger;
  readonly clock: Clock;
  /** the problem must last this long before the bot is held, ms */
  readonly graceMs: number;
  readonly logger?: Logger;
  /** check this often, ms (default 1 000) */
  readonly everyMs?: number;
  readonly onDown: (reason: string) => void;
  readonly onUp: () => void;
}

export class LedgerWatch {
  /** the reason the bot is held now (null: writable, or within the grace) */
  down: string | null = null;
  /** times the bot was held since start */
  downs = 0;
  private cancel: (() => void) | null = null;
  private readonly log: Logger;
  private readonly everyMs: number;

  constructor(private readonly o: LedgerWatchOptions) {
    this.log = (o.logger ?? silentLogger).child({ component: 'ledger' });
    this.everyMs = o.everyMs ?? 1_000;
  }

  start(): void {
    if (this.cancel) return;
    const loop = (): void => {
      this.check();
      this.cancel = this.o.clock.setTimeout(loop, this.everyMs);
    };
    this.cancel = this.o.clock.setTimeout(loop, this.everyMs);
  }

  stop(): void {
    this.cancel?.();
    this.cancel = null;
  }

  /** One check (the timer's; tests call it). */
  check(): void {
    const l = this.o.ledger;
    let p = l.problem();
    // failing writes are retried here too, so recovery shows even when nothing else writes
    if (p && p.reason.startsWith('writes fail')) {
      l.retryWrites();
      p = l.problem();
    }
    const now = this.o.clock.now();
    if (p && this.down === null && now - p.since >= this.o.graceMs) {
      this.down = p.reason;
      this.downs++;
      this.log.error(
        { reason: p.reason, forMs: now - p.since, path: l.path },
        'ledger unwritable: pulling every quote (health state ledger-unwritable) until writes succeed; see docs/ledger-operations.md',
      );
      this.o.onDown(p.reason);
    } else if (p && this.down !== null) this.down = p.reason;
    else if (!p && this.down !== null) {
      this.log.warn({ path: l.path }, 'ledger writable again: quoting resumes');
      this.down = null;
      this.o.onUp();
    }
  }
}
