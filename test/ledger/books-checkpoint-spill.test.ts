/**
 * The run's books checkpoint copy (src/ledger/books-checkpoint.ts saveBooksCheckpointInSlices, kept by
 * src/ledger/bot-ledger.ts as checkpointResume) holds in memory only the markets still trading: a market
 * idle for SPILL_IDLE_MS is spilled (its book and position into the ledger connection's TEMP table) and
 * comes back when it trades again or is folded. The checkpoint it writes is, byte for byte, the one a
 * copy rebuilt from the checkpoint row writes; a start from it gives the books a replay of every fill
 * gives, to the unit (docs/running-for-weeks.md, "What a retired market leaves behind").
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { replayBooks, saveBooksCheckpointInSlices, SPILL_IDLE_MS, type CheckpointResume } from '../../src/ledger/books-checkpoint.ts';
import type { Ledger } from '../../src/ledger/ledger.ts';
import { mulberry32 } from '../../src/sim/rng.ts';
import { drawnFill, newestFillTs, recordFills, rotationLedger, rotM, rotationFills, T0, type RotationFill } from './rotation-ledger.ts';

const stateOf = (l: Ledger): string => (l.db.prepare('SELECT state FROM books_checkpoint').get() as { state: string }).state;
const spilled = (r: CheckpointResume): number => [...r.order!.books.values()].filter(Boolean).length;

test('a copy that spills idle markets writes the checkpoint a copy rebuilt from the row writes, byte for byte, and a start from it is exact', async () => {
  for (const seed of [1, 2, 3, 4]) {
    const r = mulberry32(seed * 104_729);
    // the same fills into both ledgers: `spill` goes on from its copy (spilling), `fresh` rebuilds its copy from the row every time
    const spill = rotationLedger();
    const fresh = rotationLedger();
    const record = (fills: RotationFill[]): void => {
      recordFills(spill, fills);
      recordFills(fresh, fills);
    };
    let resume: CheckpointResume | null = null;
    let next = 0;
    let again = 0;
    let mostSpilled = 0;
    let unspilled = 0;
    for (let step = 0; step < 10; step++) {
      const markets = 2 + Math.floor(r() * 6);
      // a market every 2 min trading for 10 min: the ones of the earlier steps are idle by now
      record(rotationFills(seed * 100 + step, { markets, first: next, perMarket: 3 + Math.floor(r() * 40) }));
      next += markets;
      // markets the copy spilled (or folded) trading again: late among their old fills, or after them
      if (resume !== null && spilled(resume) > 0) {
        const out = [...resume.order!.books].filter(([, o]) => o).map(([id]) => Number(BigInt(id) - 0xabc000000n));
        for (let k = 0; k < 2; k++) {
          const i = out[Math.floor(r() * out.length)]!;
          const newest = newestFillTs(spill, i);
          record([drawnFill(`again:${i}:${again++}`, i, newest + (r() < 0.5 ? -Math.floor(r() * 200_000) : 1_000), r, 'own')]);
          unspilled++;
        }
      }
      if (r() < 0.3) {
        const i = Math.floor(r() * next);
        for (const l of [spill, fresh]) {
          l.resolution(rotM(i), r() < 0.5 ? 1_000_000 : 0, T0 + next * 120_000);
          l.flush();
        }
      }
      resume = (await saveBooksCheckpointInSlices(spill, { minTail: 1, sliceMs: 0, resume })) ?? resume;
      assert.ok(resume !== null && resume.order !== undefined);
      assert.ok((await saveBooksCheckpointInSlices(fresh, { minTail: 1, sliceMs: 0, spillIdleMs: Infinity })) !== null);
      assert.equal(stateOf(spill), stateOf(fresh), `seed ${seed}, step ${step}: the same checkpoint`);
      mostSpilled = Math.max(mostSpilled, spilled(resume));
      // a start from it: the books of a replay of every fill
      const start = replayBooks(spill);
      assert.equal(start.checkpoint, 'used');
      const full = replayBooks(spill, { full: true });
      assert.deepStrictEqual(start.account.figures(), full.account.figures());
      for (let i = 0; i < next; i++) assert.deepStrictEqual(start.account.market(rotM(i)), full.account.market(rotM(i)), `seed ${seed}, market ${i}`);
      assert.deepStrictEqual(start.positions, full.positions);
    }
    assert.ok(mostSpilled > 0, 'the copy spilled idle markets');
    assert.ok(unspilled > 0, 'spilled markets traded again');
    assert.ok((JSON.parse(stateOf(spill)) as { folded: string[] }).folded.length > 0, 'markets were folded');
    spill.close();
    fresh.close();
  }
});

test('the copy keeps in memory the markets of the last few minutes, not every market it ever saw (old code: all of them)', async () => {
  const l = rotationLedger();
  let resume: CheckpointResume | null = null;
  const perStep = 10;
  // 300 markets, one every 30 s of venue time, each trading for 4 minutes; a checkpoint every 10 markets (5 min)
  for (let first = 0; first < 300; first += perStep) {
    recordFills(l, rotationFills(7 + first, { markets: perStep, first, perMarket: 6, everyMs: 30_000, activeMs: 240_000 }));
    resume = (await saveBooksCheckpointInSlices(l, { minTail: 1, sliceMs: 0, resume })) ?? resume;
  }
  assert.ok(resume !== null);
  const inMemory = resume.account.marketIds().length;
  // markets whose newest fill is within SPILL_IDLE_MS of the books' newest: ~(5 + 4) min / 30 s, and a few re-ordered
  const bound = Math.ceil((SPILL_IDLE_MS + 240_000 + 90_000) / 30_000) + 1;
  assert.ok(inMemory <= bound, `books in memory: ${inMemory} of 300 markets (at most ${bound})`);
  assert.ok(resume.positions.size <= bound, `positions in memory: ${resume.positions.size}`);
  // everything else is on disk, in order, and the checkpoint still holds every market
  assert.equal(resume.order!.books.size, 300);
  const start = replayBooks(l);
  assert.equal(start.checkpoint, 'used');
  assert.equal(start.account.marketIds().length, 300);
  assert.deepStrictEqual(start.account.figures(), replayBooks(l, { full: true }).account.figures());
  l.close();
});
