/**
 * The books checkpoint of a rotating bot (src/ledger/books-checkpoint.ts, docs/ledger-operations.md
 * "Finished markets are folded"): a market idle for an hour of venue time is kept folded (its figures,
 * no kept fills), so the checkpoint does not grow with the markets a bot has finished beyond a small
 * record each; a start from it and the fills after it gives every figure a replay of every fill
 * gives, to the unit, a folded market that gets a late fill included (its book is rebuilt from its
 * fills first); a kill -9 while such a checkpoint is written leaves a usable ledger.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { restoreAccount } from '../../src/account/account-snapshot.ts';
import { RunFigures } from '../../src/account/run-figures.ts';
import { accountFromLedger, ledgerSummary, pnlByMarket, replayPositions } from '../../src/ledger/books.ts';
import { FOLD_IDLE_MS, replayBooks, saveBooksCheckpoint, saveBooksCheckpointInSlices, type CheckpointResume } from '../../src/ledger/books-checkpoint.ts';
import { openLedger, type Ledger } from '../../src/ledger/ledger.ts';
import { mulberry32 } from '../../src/sim/rng.ts';
import { drawnFill, newestFillTs, recordFills, rotationLedger, rotM, rotationFills, STILL_CLOCK, T0, type RotationFill } from './rotation-ledger.ts';

interface Checkpoint {
  seq: number;
  state: string;
}
const checkpointRow = (l: Ledger): Checkpoint | undefined => l.db.prepare('SELECT seq, state FROM books_checkpoint').get() as Checkpoint | undefined;
const foldedIn = (l: Ledger): string[] => (JSON.parse(checkpointRow(l)!.state) as { folded: string[] }).folded;

/** Every figure a reader shows, from the books `accountFromLedger` gives (the checkpoint when there is one). */
function figures(l: Ledger): unknown {
  const a = accountFromLedger(l);
  return {
    account: a.figures(),
    late: a.late,
    fillCount: a.fillCount,
    markets: a
      .marketIds()
      .sort()
      .map((id) => a.market(id)),
    holdings: a.positions(),
    positions: replayPositions(l),
    summary: ledgerSummary(l),
    pnl: pnlByMarket(l),
    since: ledgerSummary(l, { since: T0 + 1_800_000 }),
  };
}

/** The same figures from a replay of every fill: the checkpoint set aside for the reading, then put back. */
function fullFigures(l: Ledger): unknown {
  const row = l.db.prepare('SELECT * FROM books_checkpoint').get() as Record<string, unknown> | undefined;
  l.db.prepare('DELETE FROM books_checkpoint').run();
  try {
    return figures(l);
  } finally {
    if (row) {
      const keys = Object.keys(row);
      l.db.prepare(`INSERT INTO books_checkpoint (${keys.join(', ')}) VALUES (${keys.map(() => '?').join(', ')})`).run(...keys.map((k) => row[k]));
    }
  }
}

/** A late fill of market i: `ago` ms before its newest recorded fill (sorts among its folded fills), of either origin. */
const lateFill = (l: Ledger, i: number, n: number, ago: number, r: () => number): RotationFill =>
  drawnFill(`late:${i}:${n}`, i, newestFillTs(l, i) - ago, r, 'drawn');

test('random rotating ledgers: a start from the folded checkpoint and its tail gives every figure a replay of every fill gives, to the unit', async () => {
  for (const seed of [1, 2, 3, 4, 5, 6]) {
    const r = mulberry32(seed * 7919);
    const l = rotationLedger();
    let resume: CheckpointResume | null = null;
    let next = 0;
    let late = 0;
    let unfolded = 0;
    for (let step = 0; step < 8; step++) {
      // a few more markets, some of them late fills of markets long finished (folded by now)
      const markets = 3 + Math.floor(r() * 8);
      recordFills(l, rotationFills(seed * 100 + step, { markets, first: next, perMarket: 5 + Math.floor(r() * 60) }));
      next += markets;
      const folded = checkpointRow(l) ? foldedIn(l) : [];
      for (let k = 0; k < 3 && folded.length > 0; k++) {
        const i = Number(BigInt(folded[Math.floor(r() * folded.length)]!) - 0xabc000000n);
        // before its newest fill (re-ordered among the fills the checkpoint folded) or after it
        recordFills(l, [lateFill(l, i, late++, r() < 0.7 ? Math.floor(r() * 300_000) : -Math.floor(r() * 60_000), r)]);
        unfolded++;
      }
      if (r() < 0.3) {
        const i = Math.floor(r() * next);
        l.resolution(rotM(i), r() < 0.5 ? 1_000_000 : 0, T0 + next * 120_000);
        if (r() < 0.5) l.claim(rotM(i), T0 + next * 120_000 + 1);
        l.flush();
      }
      // the checkpoint written as a start or a stop writes it, or as the run's (sliced, going on from its last)
      if (r() < 0.5) saveBooksCheckpoint(l, { minTail: 1 });
      else resume = (await saveBooksCheckpointInSlices(l, { minTail: 1, sliceMs: 0, resume })) ?? resume;
      const start = replayBooks(l);
      assert.equal(start.checkpoint, 'used');
      assert.deepStrictEqual(figures(l), fullFigures(l), `seed ${seed}, step ${step}`);
    }
    assert.ok(foldedIn(l).length > 0, 'markets were folded');
    assert.ok(unfolded > 0, 'folded markets got late fills');
    // the books a start gives the running bot go on as a replay's do: a fill of every market (folded ones included)
    const live = replayBooks(l).account;
    const full = replayBooks(l, { full: true }).account;
    const runLive = new RunFigures(live);
    const runFull = new RunFigures(full);
    const newest = (l.db.prepare('SELECT MAX(ts) AS t FROM fills').get() as { t: number }).t;
    for (let i = 0; i < next; i++) {
      const f = { ...lateFill(l, i, late++, 0, r), ts: newest + 1_000 + i, feeSource: 'venue' as const };
      assert.equal(live.applyFill(f), full.applyFill(f));
    }
    assert.deepStrictEqual(live.figures(), full.figures());
    assert.deepStrictEqual(runLive.totals(), runFull.totals());
    for (let i = 0; i < next; i++) assert.deepStrictEqual(live.market(rotM(i)), full.market(rotM(i)));
    l.close();
  }
});

test("a folded market's late fill, before its newest: re-ordered among its fills as a full replay does (its book rebuilt first)", () => {
  const l = rotationLedger();
  recordFills(l, rotationFills(9, { markets: 40, perMarket: 50 }));
  saveBooksCheckpoint(l, { minTail: 1 });
  assert.ok(foldedIn(l).includes(rotM(0)), 'market 0 (idle for over an hour) is folded');
  const folded = replayBooks(l).account;
  assert.equal(folded.kept(rotM(0)).fills, 0, 'no kept fills in the folded book');
  // a fill 4 minutes before market 0's newest: re-ordered among its last fills, which changes its average cost
  const late = lateFill(l, 0, 0, 240_000, mulberry32(5));
  recordFills(l, [late]);
  const start = replayBooks(l);
  assert.equal(start.checkpoint, 'used');
  assert.equal(start.tail, 1);
  const full = replayBooks(l, { full: true });
  assert.deepStrictEqual(start.account.market(rotM(0)), full.account.market(rotM(0)));
  assert.deepStrictEqual(start.account.figures(), full.account.figures());
  assert.equal(start.account.late, full.account.late);
  assert.ok(start.account.kept(rotM(0)).fills > 1, 'rebuilt: its fills kept again');
  // the same fill applied after the folded ones (no rebuild) gives other figures: the rebuild is what makes it exact
  folded.applyFill({ ...late, feeSource: 'venue' });
  assert.notDeepStrictEqual(folded.market(rotM(0)), full.account.market(rotM(0)));
  // the new checkpoint keeps it unfolded while it is recent again in the books' order (its newest is as old as before)
  saveBooksCheckpoint(l, { minTail: 1 });
  assert.deepStrictEqual(figures(l), fullFigures(l));
  l.close();
});

test('the checkpoint does not grow with finished markets beyond a small record each (before: each kept its whole book)', () => {
  const bytes: number[] = [];
  const l = rotationLedger();
  const per = 60;
  for (const [first, markets] of [
    [0, 100],
    [100, 200],
  ] as const) {
    recordFills(l, rotationFills(3, { markets, first, perMarket: per }));
    saveBooksCheckpoint(l, { minTail: 1 });
    bytes.push(checkpointRow(l)!.state.length);
  }
  // 200 more finished markets (the markets of the last hour are as many before and after)
  const each = (bytes[1]! - bytes[0]!) / 200;
  assert.ok(each < 2_000, `${Math.round(each)} bytes a finished market (a book with 60 fills is ~10,000)`);
  // what the rest is: the markets of the last hour, whole
  const idle = Math.ceil(FOLD_IDLE_MS / 120_000) + 6;
  assert.ok(foldedIn(l).length >= 300 - idle, `${foldedIn(l).length} folded`);
  assert.deepStrictEqual(figures(l), fullFigures(l));
  l.close();
});

test('a bot killed (kill -9) while it writes a checkpoint with folded markets: the next start uses the previous one, exact', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'bm-cp-fold-'));
  const file = join(dir, 'l.sqlite');
  try {
    const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'checkpoint-writer.child.ts'), file, 'rotate'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise<string | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
    let written = 0;
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (d: Buffer) => {
        written += d.toString().split('checkpoint').length - 1;
        if (written >= 30) resolve();
      });
      child.on('exit', () => reject(new Error(`the writer ended: ${err}`)));
    });
    child.kill('SIGKILL');
    assert.equal(await exited, 'SIGKILL', err);
    const l = openLedger({ path: file, clock: STILL_CLOCK });
    const start = replayBooks(l);
    assert.equal(start.checkpoint, 'used', 'the checkpoint written before the kill is whole');
    assert.ok(foldedIn(l).length > 0, 'it has folded markets');
    assert.deepStrictEqual(figures(l), fullFigures(l));
    l.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a checkpoint from before folding (shape unmarked, no list) is used; this one's shape is another to an older bookmaker's reader (it ignores it)", () => {
  const l = rotationLedger();
  recordFills(l, rotationFills(4, { markets: 5, perMarket: 30 }));
  saveBooksCheckpoint(l, { minTail: 1 });
  const row = l.db.prepare('SELECT shape, state FROM books_checkpoint').get() as { shape: string; state: string };
  assert.ok(row.shape.endsWith('+folded'));
  const s = JSON.parse(row.state) as { account: { shape: string }; folded?: string[] };
  assert.deepStrictEqual(s.folded, [], 'nothing idle for an hour yet');
  // what bed0a3b2's restoreAccount is given: a shape it does not know, so it ignores the checkpoint
  assert.throws(() => restoreAccount(s.account as never), /another shape/);
  // as the bookmaker before wrote it
  s.account.shape = row.shape.slice(0, -'+folded'.length);
  delete s.folded;
  const state = JSON.stringify(s);
  l.db.prepare('UPDATE books_checkpoint SET shape = ?, state = ?, digest = ?').run(s.account.shape, state, createHash('sha256').update(state).digest('hex'));
  recordFills(l, rotationFills(5, { markets: 3, first: 5, perMarket: 30 }));
  const start = replayBooks(l);
  assert.equal(start.checkpoint, 'used');
  assert.equal(start.tail, 90);
  assert.deepStrictEqual(figures(l), fullFigures(l));
  l.close();
});

test('the running books from a folded checkpoint: a folded market that trades again remembers its fill ids again (a duplicate is not counted twice)', () => {
  const l = rotationLedger();
  recordFills(l, rotationFills(6, { markets: 40, perMarket: 20 }));
  saveBooksCheckpoint(l, { minTail: 1 });
  assert.ok(foldedIn(l).includes(rotM(1)));
  const live = replayBooks(l).account;
  const full = replayBooks(l, { full: true }).account;
  const newest = (l.db.prepare('SELECT MAX(ts) AS t FROM fills').get() as { t: number }).t;
  const r = mulberry32(8);
  const again = [0, 1, 2, 3].map((k) => ({ ...lateFill(l, 1, k, 0, r), ts: newest + 1_000 * (k + 1), feeSource: 'venue' as const }));
  for (const f of again) assert.equal(live.applyFill(f), true);
  // a feed delivers them again: the books know them
  for (const f of again) assert.equal(live.applyFill(f), false, f.fillId);
  for (const f of again) full.applyFill(f);
  assert.deepStrictEqual(live.market(rotM(1)), full.market(rotM(1)));
  l.close();
});
