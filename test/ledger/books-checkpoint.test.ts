/**
 * The books checkpoint (src/ledger/books-checkpoint.ts): the checkpoint and the fills after it give
 * the same books as a replay of every fill, to the unit (every field of the account, every position);
 * a start replays only the fills after it; a damaged or stale checkpoint is ignored (logged) and the
 * replay of every fill gives the books. Before it, every start replayed every fill.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { asyncScheduler } from 'rxjs';
import { accountFromLedger, fillsAfter, ledgerSummary, replayPositions, replayResolutions } from '../../src/ledger/books.ts';
import { Account } from '../../src/account/account.ts';
import { CHECKPOINT_EVERY_MS, CHECKPOINT_MIN_TAIL, replayBooks, saveBooksCheckpoint, saveBooksCheckpointInSlices } from '../../src/ledger/books-checkpoint.ts';
import { spawn } from 'node:child_process';
import { openBotLedger } from '../support/bot-ledger.ts';
import type { Address, Bytes32 } from '../../src/model/order.ts';
import { openLedger, type Ledger } from '../../src/ledger/ledger.ts';
import { createLogger } from '../../src/core/logger.ts';
import { randomFills } from '../account/random-fills.ts';
import { createHash } from 'node:crypto';

function captureLogger(): { logger: ReturnType<typeof createLogger>; lines: { msg: string; [k: string]: unknown }[] } {
  const lines: { msg: string; [k: string]: unknown }[] = [];
  const logger = createLogger({ level: 'info', destination: { write: (s: string) => void lines.push(JSON.parse(s) as { msg: string }) } });
  return { logger, lines };
}

const clock = { now: () => 1_800_000_000_000, scheduler: asyncScheduler, setTimeout: () => () => undefined };

function record(l: Ledger, seed: number, n: number, from = 0): void {
  for (const f of randomFills(seed, n, 5)) {
    l.fill({
      fillId: `${seed}:${from}:${f.fillId}`,
      nonce: null,
      marketId: f.marketId,
      outcomeIndex: f.outcomeIndex,
      side: f.side,
      price: f.price,
      size: f.size,
      fee: f.fee,
      ts: f.ts,
      source: 'feed',
      feeSource: f.feeSource,
      origin: f.origin,
    });
  }
  l.flush();
}

function newLedger(): Ledger {
  const l = openLedger({ path: ':memory:', clock });
  l.adoptBaseline({
    at: 1_799_000_000_000,
    collateral: 5_000_000_000n,
    holdings: [{ marketId: ('0x' + '0'.repeat(64)) as Bytes32, outcomeIndex: 1, shares: 9_000_000n, mark: 410_000 }],
  });
  return l;
}

test('checkpoint + the fills after it = a replay of every fill, to the unit', () => {
  for (const seed of [11, 12, 13]) {
    const l = newLedger();
    record(l, seed, 700);
    const first = replayBooks(l, { save: true, minTail: 100 });
    assert.equal(first.checkpoint, 'none');
    assert.equal(first.tail, 700);
    record(l, seed + 50, 5_000, 1); // more than the account's window of kept fills per market
    const mid = replayBooks(l, { save: true, minTail: 100 });
    assert.equal(mid.checkpoint, 'used');
    assert.equal(mid.tail, 5_000);
    record(l, seed + 90, 333, 2);
    const tail = replayBooks(l);
    const full = replayBooks(l, { full: true });
    assert.equal(tail.checkpoint, 'used');
    assert.equal(tail.tail, 333, 'only the fills after the checkpoint are replayed');
    assert.equal(full.tail, 6_033);
    assert.deepStrictEqual(tail.account, full.account);
    assert.deepStrictEqual(tail.positions, full.positions);
    assert.equal(tail.seq, full.seq);
    // the figures every reader shows
    assert.deepStrictEqual(accountFromLedger(l).figures(), accountFromLedger(l, { replayed: full }).figures());
    assert.deepStrictEqual(replayPositions(l), full.positions);
    l.close();
  }
});

test('a start replays only the fills after the checkpoint; a clean stop writes one when many were recorded', () => {
  const l = newLedger();
  record(l, 21, 2_500);
  saveBooksCheckpoint(l, { minTail: 1_000 });
  assert.equal(replayBooks(l).tail, 0);
  record(l, 22, 500, 1);
  saveBooksCheckpoint(l, { minTail: 1_000 }); // fewer than minTail since: not rewritten
  assert.equal(replayBooks(l).tail, 500);
  record(l, 23, 600, 2);
  saveBooksCheckpoint(l, { minTail: 1_000 });
  assert.equal(replayBooks(l).tail, 0);
  assert.deepStrictEqual(replayBooks(l).account, replayBooks(l, { full: true }).account);
  // the summary reads the same books whichever way they were rebuilt
  const s = ledgerSummary(l);
  l.db.prepare('DELETE FROM books_checkpoint').run();
  assert.deepStrictEqual(ledgerSummary(l), s);
  l.close();
});

test('a damaged or stale checkpoint is ignored, logged, and every fill replayed', () => {
  const cases: [string, (l: Ledger) => void, RegExp][] = [
    ['state edited', (l) => l.db.prepare('UPDATE books_checkpoint SET state = replace(state, \'"fillCount":\', \'"fillCount":1\')').run(), /digest/],
    [
      'state and digest edited alike (not JSON any more)',
      (l) => {
        const s = (l.db.prepare('SELECT state FROM books_checkpoint').get() as { state: string }).state.slice(0, -3);
        l.db.prepare('UPDATE books_checkpoint SET state = ?, digest = ?').run(s, require256(s));
      },
      /cannot be read/,
    ],
    ['a covered fill deleted', (l) => l.db.prepare('DELETE FROM fills WHERE seq = 5').run(), /fills it covers changed/],
    [
      'the last covered fill replaced',
      (l) => {
        const seq = (l.db.prepare('SELECT seq FROM books_checkpoint').get() as { seq: number }).seq;
        const row = l.db.prepare('SELECT * FROM fills WHERE seq = ?').get(seq) as Record<string, unknown>;
        l.db.prepare('DELETE FROM fills WHERE seq = ?').run(seq);
        l.db
          .prepare(
            'INSERT INTO fills (seq, fill_id, nonce, market_id, outcome, side, price, size, fee, ts, source, filled, fee_source, origin) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
          )
          .run(
            seq,
            'other',
            row.nonce,
            row.market_id,
            row.outcome,
            row.side,
            row.price,
            1,
            row.fee,
            row.ts,
            row.source,
            row.filled,
            row.fee_source,
            row.origin,
          );
      },
      /not the one it covered/,
    ],
    [
      'the baseline changed',
      (l) =>
        l.db
          .prepare(
            "INSERT INTO baseline (kind, market_id, outcome, shares, mark, marked_at) VALUES ('holding', '0x1111111111111111111111111111111111111111111111111111111111111111', 0, '5', 1, 0)",
          )
          .run(),
      /baseline changed/,
    ],
    [
      'written for another shape of the account',
      (l) => {
        const s = (l.db.prepare('SELECT state FROM books_checkpoint').get() as { state: string }).state.replace(
          '"shape":"account:',
          '"shape":"account:resolutions,',
        );
        l.db.prepare('UPDATE books_checkpoint SET state = ?, digest = ?, shape = ?').run(s, require256(s), 'x');
      },
      /shape/,
    ],
  ];
  for (const [name, spoil, why] of cases) {
    const l = newLedger();
    record(l, 31, 400);
    replayBooks(l, { save: true, minTail: 1 });
    record(l, 32, 50, 1);
    spoil(l);
    const cap = captureLogger();
    const r = replayBooks(l, { logger: cap.logger });
    assert.notEqual(r.checkpoint, 'used', name);
    assert.match(r.checkpoint, why, name);
    assert.ok(
      cap.lines.some((x) => x.msg === 'books checkpoint ignored: replaying every fill' && why.test(String(x.why))),
      `${name}: ${JSON.stringify(cap.lines)}`,
    );
    const full = replayBooks(l, { full: true });
    assert.deepStrictEqual(r.account, full.account, name);
    assert.deepStrictEqual(r.positions, full.positions, name);
    l.close();
  }
});

test('a read-only reader uses the checkpoint and never writes one; a ledger from before it has none', () => {
  const dir = mkdtempSync(join(tmpdir(), 'bookmaker-books-checkpoint-'));
  const path = join(dir, 'books.sqlite');
  try {
    const w = openLedger({ path, clock });
    record(w, 41, 300);
    replayBooks(w, { save: true, minTail: 1 });
    record(w, 42, 20, 1);
    w.close();
    const r = openLedger({ path, clock, mustExist: true, readonly: true });
    const b = replayBooks(r, { save: true, minTail: 1 });
    assert.equal(b.checkpoint, 'used');
    assert.equal(b.tail, 20);
    assert.equal(replayBooks(r).tail, 20, 'nothing written by a reader');
    r.close();
    // a file an older bookmaker wrote has no checkpoint table: every fill is replayed
    const w2 = openLedger({ path, clock });
    w2.db.prepare('DROP TABLE books_checkpoint').run();
    w2.close();
    const r2 = openLedger({ path, clock, mustExist: true, readonly: true });
    assert.equal(replayBooks(r2).checkpoint, 'none');
    assert.equal(replayBooks(r2).tail, 320);
    r2.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

function require256(s: string): string {
  // the digest as the checkpoint keeps it (sha-256 of the state text)
  return createHash('sha256').update(s).digest('hex');
}

test('a checkpoint keeps how each sale settled (order kind) and the resolutions replayed after it: the same books as a full replay', () => {
  const l = newLedger();
  const M = ('0x' + 'ab'.repeat(32)) as Bytes32;
  // a sale without inventory mints (kind 2) whatever is held; then more fills, a resolution and a claim
  l.fill({ fillId: 'k1', nonce: null, marketId: M, outcomeIndex: 1, side: 0, price: 400_000, size: 5_000_000, fee: 0, ts: 1, source: 'feed', orderKind: 0 });
  l.fill({ fillId: 'k2', nonce: null, marketId: M, outcomeIndex: 1, side: 1, price: 450_000, size: 3_000_000, fee: 0, ts: 2, source: 'feed', orderKind: 2 });
  l.flush();
  record(l, 31, 200);
  assert.equal(replayBooks(l, { save: true, minTail: 10 }).checkpoint, 'none');
  l.fill({ fillId: 'k3', nonce: null, marketId: M, outcomeIndex: 0, side: 1, price: 500_000, size: 2_000_000, fee: 0, ts: 3, source: 'feed', orderKind: 2 });
  l.flush();
  // before the resolution: the holdings as the venue settled each sale (5 YES and 3 NO, not 2 YES)
  const heldBefore = (a: Account) =>
    a
      .positions()
      .filter((p) => p.marketId === M)
      .map((p) => [p.outcomeIndex, p.shares]);
  const settled = new Account();
  for (const f of fillsAfter(l, 0)) if (f.marketId === M) settled.applyFill(f);
  assert.deepStrictEqual(heldBefore(accountFromLedger(l)), heldBefore(settled));
  assert.equal(replayBooks(l).checkpoint, 'used');
  l.resolution(M, 1_000_000, 10);
  l.claim(M, 11);
  const viaCheckpoint = accountFromLedger(l);
  const full = accountFromLedger(l, { replayed: replayBooks(l, { full: true }) });
  assert.equal(replayBooks(l).checkpoint, 'used');
  assert.deepStrictEqual(viaCheckpoint.figures(), full.figures());
  assert.deepStrictEqual(viaCheckpoint.positions(), full.positions());
  // and both equal the books built fill by fill from the records (each with its order kind)
  const byHand = new Account();
  const b = l.baseline()!;
  byHand.adoptBaseline(
    b.holdings.map((h) => ({ marketId: h.marketId, outcomeIndex: h.outcomeIndex === 1 ? 1 : 0, shares: Number(h.shares), mark: h.mark ?? 0 })),
    b.at,
  );
  for (const f of fillsAfter(l, 0)) byHand.applyFill(f);
  replayResolutions(l, byHand);
  assert.deepStrictEqual(viaCheckpoint.figures(), byHand.figures());
  // the resolution is applied once: a second rebuild from the (unchanged) checkpoint gives the same
  assert.deepStrictEqual(accountFromLedger(l).figures(), full.figures());
  l.close();
});

test('a bot killed (kill -9) while it writes its books checkpoint: the next start uses the previous one and its books are exact', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'bm-cp-'));
  const file = join(dir, 'l.sqlite');
  try {
    const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'checkpoint-writer.child.ts'), file], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise<string | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
    let written = 0;
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    // killed at once after some checkpoint writes: the process is then recording fills or writing the next one
    await new Promise<void>((resolve) =>
      child.stdout.on('data', (d: Buffer) => {
        written += d.toString().split('checkpoint').length - 1;
        if (written >= 5) resolve();
      }),
    );
    child.kill('SIGKILL');
    assert.equal(await exited, 'SIGKILL', err);
    const l = openLedger({ path: file, clock });
    const start = replayBooks(l);
    const full = replayBooks(l, { full: true });
    assert.equal(start.checkpoint, 'used', 'the checkpoint written before the kill is whole');
    assert.ok(start.tail < full.tail, 'only the fills after it are replayed');
    assert.deepStrictEqual(start.account, full.account, 'the books equal a replay of every fill');
    assert.deepStrictEqual(start.positions, full.positions);
    l.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('during a run the bot ledger writes a books checkpoint every few minutes when many fills were recorded since the last', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'bm-cp-'));
  const file = join(dir, 'l.sqlite');
  try {
    const c = { ...clock, t: 1_800_000_000_000, now: () => c.t };
    const bl = await openBotLedger({ path: file, clock: c, trader: ('0x' + '33'.repeat(20)) as Address, newLedger: true });
    for (const f of randomFills(5, CHECKPOINT_MIN_TAIL + 10, 5))
      bl.onEvent({ type: 'OrderFilled', ...f, marketId: f.marketId as Bytes32, nonce: null, outcomeIndex: f.outcomeIndex, ts: c.t });
    bl.ledger.flush();
    assert.equal(bl.checkpointIfDue(), false, 'not yet due');
    assert.equal(replayBooks(bl.ledger).checkpoint, 'none');
    c.t += CHECKPOINT_EVERY_MS;
    assert.equal(bl.checkpointIfDue(), true);
    await bl.checkpointSettled();
    const after = replayBooks(bl.ledger);
    assert.equal(after.checkpoint, 'used', 'written during the run (old code: only at start and at a clean stop)');
    assert.equal(after.tail, 0);
    assert.deepStrictEqual(after.account, replayBooks(bl.ledger, { full: true }).account);
    bl.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("the run's checkpoint replays its tail in slices, yielding between them while fills keep being recorded: the same books as a full replay", async () => {
  const l = newLedger();
  record(l, 31, 300);
  saveBooksCheckpoint(l, { minTail: 1 });
  record(l, 32, 400);
  let turns = 0;
  // every batch its own turn (sliceMs 0); fills recorded between turns are not part of this checkpoint
  const wrote = await saveBooksCheckpointInSlices(l, {
    minTail: 1,
    sliceMs: 0,
    pause: async () => {
      turns++;
      if (turns === 3) record(l, 33, 50);
    },
  });
  assert.ok(wrote !== null);
  // old code: the whole tail in one turn of the event loop
  assert.ok(turns >= Math.ceil(400 / 64), `a turn per batch of fills (${turns} turns)`);
  const after = replayBooks(l);
  assert.equal(after.checkpoint, 'used');
  assert.equal(after.tail, 50, 'the fills recorded while it ran come after it');
  const full = replayBooks(l, { full: true });
  assert.deepStrictEqual(after.account, full.account, 'the books equal a replay of every fill');
  assert.deepStrictEqual(after.positions, full.positions);
  // the next one goes on from the books this one wrote (no read of the row): the same books
  record(l, 35, 200);
  const next = await saveBooksCheckpointInSlices(l, { minTail: 1, sliceMs: 0, pause: async () => undefined, resume: wrote });
  assert.ok(next !== null && next.seq > wrote!.seq);
  const again = replayBooks(l);
  assert.equal(again.checkpoint, 'used');
  assert.equal(again.tail, 0);
  assert.deepStrictEqual(again.account, replayBooks(l, { full: true }).account);
  assert.deepStrictEqual(again.positions, replayBooks(l, { full: true }).positions);
  // a ledger closed while it runs: nothing written, nothing thrown
  record(l, 34, 100);
  const closing = saveBooksCheckpointInSlices(l, { minTail: 1, sliceMs: 0, pause: async () => l.close() });
  assert.equal(await closing, null);
  // closed in the same turn it began (a stop right after the mark timer started one): null, no throw
  const l2 = newLedger();
  record(l2, 36, 100);
  const started = saveBooksCheckpointInSlices(l2, { minTail: 1, sliceMs: 1_000 });
  l2.close();
  assert.equal(await started, null);
});
