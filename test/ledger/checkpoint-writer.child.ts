/**
 * A child process for test/ledger/books-checkpoint.test.ts: records fills into the ledger at argv[2]
 * and rewrites its books checkpoint after each batch, forever, printing `checkpoint` after each write,
 * until the test kills it (kill -9), so the kill can land in the middle of a checkpoint write. With
 * `rotate` after the path: a rotating bot's fills, so the checkpoints fold finished markets.
 */
import { saveBooksCheckpoint } from '../../src/ledger/books-checkpoint.ts';
import { openLedger } from '../../src/ledger/ledger.ts';
import { randomFills } from '../account/random-fills.ts';
import { recordFills, rotationFills, STILL_CLOCK } from './rotation-ledger.ts';

const l = openLedger({ path: process.argv[2]!, clock: STILL_CLOCK });
// `rotate`: a rotating bot's fills (five new markets a batch, each idle after 10 minutes): its checkpoints fold the finished ones
if (process.argv[3] === 'rotate')
  for (let batch = 0; ; batch++) {
    recordFills(l, rotationFills(batch, { markets: 5, first: batch * 5, perMarket: 40 }));
    saveBooksCheckpoint(l, { minTail: 1 });
    process.stdout.write('checkpoint\n');
  }
for (let batch = 0; ; batch++) {
  for (const f of randomFills(1_000 + batch, 200, 40)) {
    l.fill({ ...f, fillId: `${batch}:${f.fillId}`, nonce: null, source: 'feed' });
  }
  l.flush();
  saveBooksCheckpoint(l, { minTail: 1 });
  process.stdout.write('checkpoint\n');
}
