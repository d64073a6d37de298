/**
 * A child process for test/ledger/books-checkpoint.test.ts: records fills into the ledger at argv[2]
 * and rewrites its books checkpoint after each batch, forever, printing `checkpoint` after each write,
 * until the test kills it (kill -9), so the kill can land in the middle of a checkpoint write.
 */
import { asyncScheduler } from 'rxjs';
import { saveBooksCheckpoint } from '../../src/ledger/books-checkpoint.ts';
import { openLedger } from '../../src/ledger/ledger.ts';
import { randomFills } from '../account/random-fills.ts';

const clock = { now: () => 1_800_000_000_000, scheduler: asyncScheduler, setTimeout: () => () => undefined };
const l = openLedger({ path: process.argv[2]!, clock });
for (let batch = 0; ; batch++) {
  for (const f of randomFills(1_000 + batch, 200, 40)) {
    l.fill({ ...f, fillId: `${batch}:${f.fillId}`, nonce: null, source: 'feed' });
  }
  l.flush();
  saveBooksCheckpoint(l, { minTail: 1 });
  process.stdout.write('checkpoint\n');
}
