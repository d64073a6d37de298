/**
 * What holds the next start of a bot on this ledger, and in which record (docs/ledger-operations.md#safety-records-are-durable-before-they-take-effect):
 * the kill-switch latch, the halt and the paused markets, read from the ledger (read-only: a running
 * bot may hold it) and from the latch file beside it, as a start ORs them. `bookmaker doctor`,
 * `bookmaker ledger backup` and `ledger check` show this one reading.
 *
 *   const h = heldState('/var/lib/bookmaker/live.ledger.sqlite');
 *   h.latch?.from   // 'ledger' | 'latch file' | 'ledger and latch file'
 *   heldText(h)     // "kill switch latched (KILL_DRAWDOWN …, in the latch file only): …; halted …"
 */
import { existsSync } from 'node:fs';
import { systemClock } from '../core/clock.ts';
import { latchPathOf, readLatchRecord, type FileLatch } from './latch-file.ts';
import { openLedger, type HoldRecord, type OperatorHold } from './ledger.ts';

export interface HeldState {
  readonly latch: (FileLatch & { readonly from: HoldRecord }) | null;
  readonly halt: OperatorHold | null;
  /** market id → its pause (each with `from`) */
  readonly pauses: ReadonlyMap<string, OperatorHold>;
  /** the ledger file could not be read (missing, damaged, older schema): only the latch file was */
  readonly ledgerUnread: string | null;
}

const from = (inLedger: boolean, inFile: boolean): HoldRecord => (inLedger && inFile ? 'ledger and latch file' : inLedger ? 'ledger' : 'latch file');

/** The holds of the ledger at `path` and its latch file (an in-memory ledger holds nothing across starts). */
export function heldState(path: string): HeldState {
  const file = readLatchRecord(path);
  let ledgerUnread: string | null = null;
  let dbLatch: FileLatch | null = null;
  let halt: OperatorHold | null = null;
  let pauses = new Map<string, OperatorHold>();
  if (!existsSync(path)) ledgerUnread = `${path} does not exist`;
  else {
    try {
      const l = openLedger({ path, clock: systemClock, mustExist: true, readonly: true, busyTimeoutMs: 1_000 });
      try {
        dbLatch = l.risk(false).latch;
        // the ledger's holds OR the file's, each marked with where it came from
        const h = l.operatorHolds();
        halt = h.halt;
        pauses = new Map(h.pauses);
      } finally {
        l.close();
      }
    } catch (e) {
      ledgerUnread = `${path}: ${(e as Error).message}`;
    }
  }
  if (ledgerUnread !== null) {
    halt = file.halt ? { ...file.halt, from: 'latch file' } : null;
    pauses = new Map([...file.pauses].map(([m, h]) => [m, { ...h, from: 'latch file' as const }]));
  }
  const latch = dbLatch ?? file.latch;
  return {
    latch: latch ? { ...latch, from: from(dbLatch !== null, file.latch !== null) } : null,
    halt,
    pauses,
    ledgerUnread,
  };
}

/** Any hold at all: the next start does not quote (everything, or some markets). */
export function holdsAny(h: HeldState): boolean {
  return h.latch !== null || h.halt !== null || h.pauses.size > 0;
}

const where = (f: HoldRecord | undefined): string => (f === 'latch file' ? ', in the latch file only' : f === 'ledger' ? ', in the ledger only' : '');

/**
 * One line per hold, with what lifts it: the kill-switch latch (`ctl clear-kill`), the halt and the
 * pauses (`ctl resume`). A hold in the latch file only says so (a backup of the .sqlite alone loses it).
 */
export function heldLines(h: HeldState, ledgerPath: string): string[] {
  const out: string[] = [];
  if (h.latch)
    out.push(
      `kill switch latched: ${h.latch.reason}${h.latch.at ? ` since ${new Date(h.latch.at).toISOString()}` : ''}${where(h.latch.from)}` +
        `${h.latch.detail ? ` (${h.latch.detail})` : ''}; bookmaker ctl clear-kill --reason TEXT lifts it`,
    );
  if (h.halt)
    out.push(
      `halted${h.halt.source === 'wallet' ? ' by the bot (another trader on its wallet)' : ''}${h.halt.reason ? `: ${h.halt.reason}` : ''}` +
        `${h.halt.at ? ` since ${new Date(h.halt.at).toISOString()}` : ''}${where(h.halt.from)}; bookmaker ctl resume lifts it once the bot runs`,
    );
  for (const [m, p] of h.pauses)
    out.push(`market ${m} paused${p.reason ? `: ${p.reason}` : ''}${where(p.from)}; bookmaker ctl resume ${m} lifts it once the bot runs`);
  if (out.length > 0 && [h.latch?.from, h.halt?.from, ...[...h.pauses.values()].map((p) => p.from)].includes('latch file'))
    out.push(`the latch file ${latchPathOf(ledgerPath)} holds what the ledger does not: keep it beside the ledger (copy it with a backup)`);
  return out;
}
