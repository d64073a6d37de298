/**
 * The books checkpoint of a rotating bot: its size and the CPU of writing it after N markets traded
 * and finished (each `--per` fills over 10 minutes, a new one every 2 minutes: test/ledger/rotation-ledger.ts).
 * One ledger per tree holds the fills of N markets and a checkpoint of them (not timed); then the
 * last market's fills were recorded after it, and the timed step writes the next checkpoint on a copy:
 * one-shot (saveBooksCheckpoint, a start or a clean stop: the row read back, the tail replayed, the
 * books encoded and written) and sliced (saveBooksCheckpointInSlices, the run's: its total CPU and
 * its longest turn). This tree and the base tree (`--base DIR`, default /work/base: a checkout with
 * node_modules) alternate in the same process, `--rounds` times; the best of each is kept.
 *
 *   npm run bench -- books-checkpoint-rotation [--markets 2000] [--per 60] [--rounds 3] [--base /work/base]
 */
import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { report, argOf, positiveIntArg } from './lib.ts';
import { load, type Mod } from './quiet-markets.ts';
import { recordFills, rotationFills, STILL_CLOCK } from '../ledger/rotation-ledger.ts';

const N = positiveIntArg('markets', 2000);
const PER = positiveIntArg('per', 60);
const ROUNDS = positiveIntArg('rounds', 3);
const base = resolve(argOf('base') ?? process.env.BOOKMAKER_BASE_TREE ?? '/work/base');
if (!existsSync(join(base, 'src/ledger/books-checkpoint.ts'))) {
  process.stderr.write(`books-checkpoint-rotation: no base tree at ${base} (--base DIR)\n`);
  process.exit(2);
}
const here = resolve(new URL('../..', import.meta.url).pathname);
const cpuMs = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const dir = mkdtempSync(join(tmpdir(), 'bm-cp-rot-'));

interface Tree {
  readonly name: string;
  readonly src: string;
  readonly openLedger: Mod;
  readonly cp: Mod;
}

interface Reading {
  bytes: number;
  oneShot: number;
  sliced: number;
  slicedTurn: number;
}

async function tree(name: string, root: string): Promise<Tree> {
  const [{ openLedger }, cp] = await Promise.all([load(root, 'src/ledger/ledger.ts'), load(root, 'src/ledger/books-checkpoint.ts')]);
  const src = join(dir, `${name}.sqlite`);
  const l = openLedger({ path: src, clock: STILL_CLOCK });
  // every market but the last, a checkpoint of them, then the last market's fills after it
  recordFills(l, rotationFills(1, { markets: N - 1, perMarket: PER }));
  cp.saveBooksCheckpoint(l, { minTail: 1 });
  recordFills(l, rotationFills(1, { markets: 1, first: N - 1, perMarket: PER }));
  l.close();
  return { name, src, openLedger, cp };
}

const stateBytes = (l: Mod): number => (l.db.prepare('SELECT length(state) AS n FROM books_checkpoint').get() as { n: number }).n;

async function measure(t: Tree, round: number): Promise<Reading> {
  const one = join(dir, `${t.name}-one-${round}.sqlite`);
  copyFileSync(t.src, one);
  let l = t.openLedger({ path: one, clock: STILL_CLOCK });
  const c0 = cpuMs();
  t.cp.saveBooksCheckpoint(l, { minTail: 1 });
  const oneShot = cpuMs() - c0;
  const bytes = stateBytes(l);
  l.close();
  const sliced = join(dir, `${t.name}-sliced-${round}.sqlite`);
  copyFileSync(t.src, sliced);
  l = t.openLedger({ path: sliced, clock: STILL_CLOCK });
  let longest = 0;
  let turn = cpuMs();
  const s0 = turn;
  await t.cp.saveBooksCheckpointInSlices(l, {
    minTail: 1,
    pause: () =>
      new Promise<void>((done) => {
        longest = Math.max(longest, cpuMs() - turn);
        setImmediate(() => {
          turn = cpuMs();
          done();
        });
      }),
  });
  longest = Math.max(longest, cpuMs() - turn);
  const slicedCpu = cpuMs() - s0;
  l.close();
  rmSync(one, { force: true });
  rmSync(sliced, { force: true });
  return { bytes, oneShot, sliced: slicedCpu, slicedTurn: longest };
}

try {
  const trees = [await tree('this', here), await tree('base', base)];
  const best = new Map<string, Reading>();
  for (let r = 0; r < ROUNDS; r++) {
    for (const t of r % 2 === 0 ? trees : [...trees].reverse()) {
      const m = await measure(t, r);
      const b = best.get(t.name);
      best.set(
        t.name,
        b === undefined
          ? m
          : { bytes: m.bytes, oneShot: Math.min(b.oneShot, m.oneShot), sliced: Math.min(b.sliced, m.sliced), slicedTurn: Math.min(b.slicedTurn, m.slicedTurn) },
      );
    }
  }
  const a = best.get('this')!;
  const b = best.get('base')!;
  report(
    [
      ['markets, fills each', `${N}, ${PER}`],
      ['checkpoint bytes (this, base)', `${a.bytes.toLocaleString('en-US')}, ${b.bytes.toLocaleString('en-US')}`],
      ['bytes a market (this, base)', `${Math.round(a.bytes / N)}, ${Math.round(b.bytes / N)}`],
      ['one-shot write, CPU ms (this, base)', `${a.oneShot.toFixed(1)}, ${b.oneShot.toFixed(1)}`],
      ['sliced write, CPU ms (this, base)', `${a.sliced.toFixed(1)}, ${b.sliced.toFixed(1)}`],
      ['sliced: longest turn, CPU ms (this, base)', `${a.slicedTurn.toFixed(1)}, ${b.slicedTurn.toFixed(1)}`],
    ],
    {
      name: 'books-checkpoint-rotation',
      unit: 'checkpoint bytes',
      value: a.bytes,
      baseline: base,
      baselineValue: b.bytes,
      ratio: a.bytes / b.bytes,
      oneShotMs: a.oneShot,
      baselineOneShotMs: b.oneShot,
      slicedMs: a.sliced,
      baselineSlicedMs: b.sliced,
      slicedTurnMs: a.slicedTurn,
      baselineSlicedTurnMs: b.slicedTurn,
    },
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
