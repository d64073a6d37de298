/**
 * What a stop says when the ledger could not be written (file deleted under the bot, disk full, lock
 * lost): the run's books are not (all) on disk, and where its figures can be had again
 * (docs/ledger-operations.md#recovering).
 *
 *   const lost = booksNotOnDisk(ledger.path, ledger.problem());   // null when the ledger is fine
 *   if (lost) log.error({ ledger: lost.path, reason: lost.reason }, lost.message);
 */
import type { LedgerProblem } from '../ledger/ledger.ts';

export interface BooksNotOnDisk {
  readonly path: string;
  readonly reason: string;
  readonly message: string;
}

export function booksNotOnDisk(path: string, problem: LedgerProblem | null): BooksNotOnDisk | null {
  if (!problem) return null;
  return {
    path,
    reason: problem.reason,
    message:
      `the books of this run are not on disk: the ledger ${path} could not be written (${problem.reason}). ` +
      "The run report above (and --report-json) has this run's figures; its fills stay at the venue and are fetched " +
      'again into the ledger at the next start (restore the last backup to ledger.path, or --new-ledger); ' +
      'see docs/ledger-operations.md#recovering',
  };
}
