/**
 * What holds the next start of a bot on this ledger, and in which record (docs/ledger-operations.md#safety-records-are-durable-before-they-take-effect):
 * the kill-switch latch, the halt and the paused markets, read from the ledger (read-only: a running
 * bot may hold it) and from the latch file beside it, as a start ORs them. `bookmaker doctor`,
 * `bookmaker ledger backup` and `ledger check` show this one reading.
 *
 *   const h = heldState('/var/lib/bookmaker/live.ledger.sqlite');
 *   h.latch?.from   // 'ledger' | 'latch file' | 'ledger and latch file'
 *   heldLines(h, path)  // ["kill switch latched since …: KILL_DRAWDOWN (…), in the latch file only; bookmaker ctl clear-kill …", "halted by …"]
 *   haltText(hold)      // the one sentence every place names a halt with (latchText: the kill switch's)
 */
import { existsSync } from 'node:fs';
import { systemClock } from '../core/clock.ts';
import { DAMAGED_CLEAR, latchPathOf, PAUSES_OVERFLOW, readLatchRecord, type FileLatch } from './latch-file.ts';
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

const where = (f: string | undefined): string => (f === 'latch file' ? ', in the latch file only' : f === 'ledger' ? ', in the ledger only' : '');

/** A halt as any place holds it: the ledger's OperatorHold, the control's view, the status answer. */
export interface HaltLike {
  readonly reason: string | null;
  /** who halted: 'admin', 'cli', 'wallet', 'latch-file', … (src/ledger/ledger.ts OperatorHold) */
  readonly source: string;
  /** ms since the epoch; 0 or null: not known (a damaged latch file) */
  readonly at: number | null;
  /** the record a start read it from (absent: this process placed it) */
  readonly from?: string;
}

/** A kill-switch latch as any place holds it (ledger, latch file, status answer). */
export interface LatchLike {
  readonly reason: string;
  readonly detail: string | null;
  readonly at: number | null;
  readonly from?: string;
}

const sinceText = (at: number | null): string => (at ? ` since ${new Date(at).toISOString()}` : '');

/**
 * Who placed a halt and what lifts it, by its source: the words of every place that names a halt (the
 * start-up line, /readyz, `ctl status`, the restore log, doctor). A source this version does not know
 * is named as it is.
 */
export function haltCause(h: Pick<HaltLike, 'source' | 'reason'>): { by: string; reason: string | null; lifts: string } {
  switch (h.source) {
    case 'admin':
      return { by: 'by the operator', reason: h.reason, lifts: 'bookmaker ctl resume lifts it' };
    case 'cli':
      return { by: 'by the operator (offline ctl)', reason: h.reason, lifts: 'bookmaker ctl resume lifts it' };
    case 'wallet':
      return {
        by: 'by the bot',
        reason: h.reason ?? 'another trader on this wallet',
        lifts: 'stop the other trader on this wallet, then bookmaker ctl resume lifts it',
      };
    case 'latch-file':
      return h.reason?.startsWith(PAUSES_OVERFLOW)
        ? { by: 'by the bot', reason: h.reason, lifts: 'bookmaker ctl resume lifts it (and every pause it stands for)' }
        : { by: 'by the latch file, which cannot be read (fail closed)', reason: h.reason, lifts: `it ${DAMAGED_CLEAR}` };
    default:
      return { by: `by ${h.source || 'an unnamed source'}`, reason: h.reason, lifts: 'bookmaker ctl resume lifts it' };
  }
}

/**
 * The one sentence that names a halt: who placed it, since when, why, the record it came from, what
 * lifts it. `offline`: said by a command that runs without the bot (ctl resume needs the bot running).
 *
 *   haltText({ source: 'wallet', reason: 'another trader …', at, from: 'ledger' })
 *   // "halted by the bot since …: another trader …, in the ledger only; stop the other trader on this wallet, then bookmaker ctl resume lifts it"
 */
export function haltText(h: HaltLike, offline = false): string {
  const c = haltCause(h);
  const lifts = offline && c.lifts.endsWith('lifts it') ? `${c.lifts} once the bot runs` : c.lifts;
  return `halted ${c.by}${sinceText(h.at)}${c.reason ? `: ${c.reason}` : ''}${where(h.from)}; ${lifts}`;
}

/** The one sentence that names a kill-switch latch, with what lifts it (a damaged latch file's: both commands). */
export function latchText(l: LatchLike): string {
  const damaged = l.reason === 'LATCH_FILE_DAMAGED' || l.reason === 'LATCH_FILE_UNREADABLE';
  return (
    `kill switch latched${sinceText(l.at)}: ${l.reason}${l.detail ? ` (${l.detail})` : ''}${where(l.from)}; ` +
    (damaged ? `it ${DAMAGED_CLEAR}` : 'bookmaker ctl clear-kill --reason TEXT lifts it')
  );
}

/**
 * One line per hold, with what lifts it: the kill-switch latch (`ctl clear-kill`), the halt and the
 * pauses (`ctl resume`). A hold in the latch file only says so (a backup of the .sqlite alone loses it).
 */
export function heldLines(h: HeldState, ledgerPath: string): string[] {
  const out: string[] = [];
  if (h.latch) out.push(latchText(h.latch));
  if (h.halt) out.push(haltText(h.halt, true));
  for (const [m, p] of h.pauses)
    out.push(`market ${m} paused${p.reason ? `: ${p.reason}` : ''}${where(p.from)}; bookmaker ctl resume ${m} lifts it once the bot runs`);
  if (out.length > 0 && [h.latch?.from, h.halt?.from, ...[...h.pauses.values()].map((p) => p.from)].includes('latch file'))
    out.push(`the latch file ${latchPathOf(ledgerPath)} holds what the ledger does not: keep it beside the ledger (copy it with a backup)`);
  return out;
}
