/**
 * checkpoint-copy: the memory the run's books checkpoint copy (src/ledger/books-checkpoint.ts
 * saveBooksCheckpointInSlices, kept by src/ledger/bot-ledger.ts between checkpoints) holds per market the
 * bot has finished, at rotation-soak's pace: a market every 30 s of venue time trading `--per` fills over 5
 * minutes, a sliced checkpoint every 40 markets (20 minutes) going on from the last. After each, the heap
 * and array buffers after two full collections (the copy and the ledger are all the process holds). Figures:
 * the array buffers after the first hour (nothing folded yet: every market's book whole in the copy on the
 * old code) and the heap's growth per market over all but the first 160 markets, less the same run's growth
 * without checkpoints (`--no-checkpoint`: the ledger's own, and V8's bytecode flushing). Each tree (this one
 * and `--base DIR`, default /work/base) runs in a child process of its own, alternating, `--rounds` times.
 *
 *   npm run bench -- checkpoint-copy [--markets 1440] [--per 25] [--rounds 2] [--base /work/base]
 */
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { runInNewContext } from 'node:vm';
import { setFlagsFromString } from 'node:v8';
import { report, argOf, positiveIntArg } from './lib.ts';
import { recordFills, rotationFills, STILL_CLOCK } from '../ledger/rotation-ledger.ts';

const MARKETS = Math.max(200, positiveIntArg('markets', 1_440));
const PER = positiveIntArg('per', 25);
const STEP = 40;
/** markets whose growth per market is read: all but the first 160 (the first hour and some) */
const LAST = MARKETS - 160;

interface Reading {
  /** array buffers after the first hour (120 markets), bytes */
  abHour: number;
  /** heap growth per market over the last LAST markets, bytes */
  heapPerMarket: number;
  /** books in the copy at the end */
  inCopy: number;
}

/** One tree's run (a child process): the ledger, the fills and the chain of sliced checkpoints. */
async function child(root: string, checkpoints: boolean): Promise<void> {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  const { openLedger } = (await import(`${root}/src/ledger/ledger.ts`)) as typeof import('../../src/ledger/ledger.ts');
  const cp = (await import(`${root}/src/ledger/books-checkpoint.ts`)) as typeof import('../../src/ledger/books-checkpoint.ts');
  const l = openLedger({ path: ':memory:', clock: STILL_CLOCK });
  const mem = (): { heap: number; ab: number } => {
    gc();
    gc();
    const m = process.memoryUsage();
    return { heap: m.heapUsed, ab: m.arrayBuffers };
  };
  let resume: Awaited<ReturnType<typeof cp.saveBooksCheckpointInSlices>> = null;
  let from = { heap: 0, ab: 0 };
  let abHour = 0;
  for (let m = 0; m < MARKETS; m += STEP) {
    recordFills(l, rotationFills(11 + m, { markets: STEP, first: m, perMarket: PER, everyMs: 30_000, activeMs: 300_000 }));
    if (checkpoints) resume = (await cp.saveBooksCheckpointInSlices(l, { minTail: 1, sliceMs: 50, resume })) ?? resume;
    const x = mem();
    if (m + STEP === 120) abHour = x.ab;
    if (m + STEP === MARKETS - LAST) from = x;
  }
  const to = mem();
  const r: Reading = { abHour, heapPerMarket: (to.heap - from.heap) / LAST, inCopy: resume?.account.marketIds().length ?? 0 };
  l.close();
  process.stdout.write(`${JSON.stringify(r)}\n`);
}

function run(root: string, checkpoints: boolean): Reading {
  const args = ['--import', 'tsx', new URL(import.meta.url).pathname, '--child', root, '--markets', String(MARKETS), '--per', String(PER)];
  if (!checkpoints) args.push('--no-checkpoint');
  const p = spawnSync(process.execPath, args, { encoding: 'utf8', cwd: new URL('../..', import.meta.url).pathname });
  if (p.status !== 0) throw new Error(`checkpoint-copy child (${root}) failed: ${p.stderr}`);
  return JSON.parse(p.stdout.trim().split('\n').at(-1)!) as Reading;
}

const childAt = process.argv.indexOf('--child');
if (childAt >= 0) await child(resolve(process.argv[childAt + 1]!), !process.argv.includes('--no-checkpoint'));
else {
  const here = resolve(new URL('../..', import.meta.url).pathname);
  const base = resolve(argOf('base') ?? process.env.BOOKMAKER_BASE_TREE ?? '/work/base');
  const rounds = positiveIntArg('rounds', 2);
  const best = new Map<string, Reading>();
  const keep = (k: string, r: Reading): void => {
    const b = best.get(k);
    // the least of each (noise only adds)
    best.set(k, b === undefined ? r : { abHour: Math.min(b.abHour, r.abHour), heapPerMarket: Math.min(b.heapPerMarket, r.heapPerMarket), inCopy: r.inCopy });
  };
  for (let i = 0; i < rounds; i++) {
    keep('here', run(here, true));
    keep('base', run(base, true));
    keep('fills', run(here, false));
  }
  const h = best.get('here')!;
  const b = best.get('base')!;
  const f = best.get('fills')!;
  const perHere = h.heapPerMarket - f.heapPerMarket;
  const perBase = b.heapPerMarket - f.heapPerMarket;
  const kb = (x: number): string => (x / 1e3).toFixed(0);
  report(
    [
      ['markets (one every 30 s) / fills each / checkpoint every', `${MARKETS} / ${PER} / ${STEP} markets`],
      ['books in the copy at the end: this tree / base', `${h.inCopy} / ${b.inCopy}`],
      ['array buffers after the first hour KB: this tree / base / fills alone', `${kb(h.abHour)} / ${kb(b.abHour)} / ${kb(f.abHour)}`],
      ['heap per finished market B, less the fills alone: this tree / base', `${Math.round(perHere)} / ${Math.round(perBase)}`],
    ],
    {
      name: 'checkpoint-copy',
      unit: 'heap bytes the checkpoint copy holds per finished market',
      value: Math.round(perHere),
      baseline: base,
      baselineValue: Math.round(perBase),
      ratio: Math.round((perHere / perBase) * 100) / 100,
      abFirstHourKb: Math.round(h.abHour / 1e3),
      abFirstHourBaseKb: Math.round(b.abHour / 1e3),
    },
  );
}
