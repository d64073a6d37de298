/**
 * The run's books checkpoint: the longest turn of the event loop it takes, in process CPU time, for a
 * tail of N fills after the last checkpoint (five minutes of a busy bot). The baseline is the one-shot
 * replay (saveBooksCheckpoint, what the mark loop ran before), the figure the sliced replay
 * (saveBooksCheckpointInSlices: its longest turn), alternated on copies of the same ledger.
 * `npm run bench -- books-checkpoint [fills] [rounds]` (defaults 100000, 2)
 */
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { asyncScheduler } from 'rxjs';
import { openLedger } from '../../src/ledger/ledger.ts';
import { saveBooksCheckpoint, saveBooksCheckpointInSlices } from '../../src/ledger/books-checkpoint.ts';
import { randomFills } from '../account/random-fills.ts';
import { report } from './lib.ts';

const N = Number(process.argv[2] ?? 100_000);
const ROUNDS = Number(process.argv[3] ?? 2);
const clock = { now: () => 1_800_000_000_000, scheduler: asyncScheduler, setTimeout: () => () => undefined };
const dir = mkdtempSync(join(tmpdir(), 'bm-cp-bench-'));
const cpuMs = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
/** the longest turn by process CPU time (GC helper threads included) and by wall time, ms */
const longest = { cpu: 0, wall: 0 };
try {
  const src = join(dir, 'src.sqlite');
  const l = openLedger({ path: src, clock });
  let i = 0;
  for (const f of randomFills(7, N, 200)) {
    l.fill({ ...f, fillId: `f${i++}`, nonce: null, source: 'feed' });
    if (i % 5_000 === 0) l.flush();
  }
  l.close();
  let oneShot = Infinity;
  let sliced = Infinity;
  let oneShotWall = Infinity;
  let slicedWall = Infinity;
  let turns = 0;
  for (let r = 0; r < ROUNDS; r++) {
    for (const side of ['one-shot', 'sliced'] as const) {
      const file = join(dir, `${side}-${r}.sqlite`);
      copyFileSync(src, file);
      const c = openLedger({ path: file, clock });
      if (side === 'one-shot') {
        const t0 = cpuMs();
        const w0 = performance.now();
        saveBooksCheckpoint(c, { minTail: 1 });
        oneShot = Math.min(oneShot, cpuMs() - t0);
        oneShotWall = Math.min(oneShotWall, performance.now() - w0);
      } else {
        longest.cpu = 0;
        longest.wall = 0;
        let n = 0;
        let t0 = cpuMs();
        let w0 = performance.now();
        const end = (): void => {
          longest.cpu = Math.max(longest.cpu, cpuMs() - t0);
          longest.wall = Math.max(longest.wall, performance.now() - w0);
        };
        const wrote = await saveBooksCheckpointInSlices(c, {
          minTail: 1,
          pause: () =>
            new Promise<void>((resolve) => {
              end();
              n++;
              setImmediate(() => {
                t0 = cpuMs();
                w0 = performance.now();
                resolve();
              });
            }),
        });
        end();
        if (wrote === null) throw new Error('the sliced checkpoint wrote nothing');
        sliced = Math.min(sliced, longest.cpu);
        slicedWall = Math.min(slicedWall, longest.wall);
        turns = n + 1;
      }
      c.close();
    }
  }
  report(
    [
      ['fills in the tail', N],
      ['one-shot: the turn, CPU ms', oneShot],
      ['sliced: longest turn, CPU ms', sliced],
      ['one-shot: the turn, wall ms', oneShotWall],
      ['sliced: longest turn, wall ms', slicedWall],
      ['sliced: turns', turns],
    ],
    { name: 'books-checkpoint', unit: 'ms longest turn (CPU)', value: sliced, baseline: 'one-shot replay', baselineValue: oneShot, ratio: oneShot / sliced },
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
