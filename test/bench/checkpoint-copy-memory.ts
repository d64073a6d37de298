/**
 * The memory the run's books checkpoint copy (src/ledger/books-checkpoint.ts saveBooksCheckpointInSlices,
 * kept by src/ledger/bot-ledger.ts between checkpoints) holds per market the bot has finished, at
 * rotation-soak's pace: a market every 30 s of venue time trading `per` fills over 5 minutes, a sliced
 * checkpoint every 40 markets (20 minutes) going on from the last. After each, the heap and array buffers
 * after two full collections (the copy is all this process holds); the figure is their growth per market
 * over all but the first 160 markets (default 1,440: 12 hours). Run once per tree (the tree's own src/ledger), e.g. this one and the base:
 *
 *   node --expose-gc --import tsx test/bench/checkpoint-copy-memory.ts [ROOT] [--per 25] [--markets 1440] [--no-checkpoint]
 */
import { resolve } from 'node:path';
import { asyncScheduler } from 'rxjs';
import { recordFills, rotationFills } from '../ledger/rotation-ledger.ts';

const root = resolve(process.argv[2] && !process.argv[2].startsWith('--') ? process.argv[2] : new URL('../..', import.meta.url).pathname);
const perAt = process.argv.indexOf('--per');
const per = perAt >= 0 ? Number(process.argv[perAt + 1]) : 25;
/** `--no-checkpoint`: the fills alone (what the ledger itself holds per market, to take from the figure) */
const noCheckpoint = process.argv.includes('--no-checkpoint');
const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error('run with node --expose-gc');
const { openLedger } = (await import(`${root}/src/ledger/ledger.ts`)) as typeof import('../../src/ledger/ledger.ts');
const cp = (await import(`${root}/src/ledger/books-checkpoint.ts`)) as typeof import('../../src/ledger/books-checkpoint.ts');
const clock = { now: () => 1_800_000_000_000, scheduler: asyncScheduler, setTimeout: () => () => undefined };
const l = openLedger({ path: ':memory:', clock });
const mem = (): { heap: number; ab: number } => {
  gc();
  gc();
  const m = process.memoryUsage();
  return { heap: m.heapUsed, ab: m.arrayBuffers };
};
let resume: Awaited<ReturnType<typeof cp.saveBooksCheckpointInSlices>> = null;
let from: { heap: number; ab: number } | null = null;
const STEP = 40;
const marketsAt = process.argv.indexOf('--markets');
const MARKETS = marketsAt >= 0 ? Number(process.argv[marketsAt + 1]) : 1_440;
const LAST = MARKETS - 160;
for (let m = 0; m < MARKETS; m += STEP) {
  recordFills(l, rotationFills(11 + m, { markets: STEP, first: m, perMarket: per, everyMs: 30_000, activeMs: 300_000 }));
  if (!noCheckpoint) resume = (await cp.saveBooksCheckpointInSlices(l, { minTail: 1, sliceMs: 50, resume })) ?? resume;
  const x = mem();
  if (m + STEP === MARKETS - LAST) from = x;
  process.stdout.write(
    `${m + STEP} markets: heap ${(x.heap / 1e6).toFixed(2)} MB, array buffers ${(x.ab / 1e6).toFixed(3)} MB, books in the copy ${resume?.account.marketIds().length ?? 0}\n`,
  );
}
const to = mem();
process.stdout.write(
  `${root}: per market over the last ${LAST}: heap ${Math.round((to.heap - from!.heap) / LAST)} B, array buffers ${Math.round((to.ab - from!.ab) / LAST)} B\n`,
);
l.close();
