/**
 * Imports are idempotent: a second import into the same folder is refused (it used to add a second
 * events file and the backtest replayed every row twice), --force replaces the recording (and only a
 * recording), --append joins trade tapes without adding a print twice.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { importInto, newEvents } from '../../../src/backtest/importers/import-into.ts';
import { readEvents, readManifest } from '../../../src/backtest/recording/reader.ts';
import type { RecordedEvent } from '../../../src/backtest/recording/format.ts';
import { cliArgs } from '../../support/cli.ts';

const run = promisify(execFile);
const root = mkdtempSync(join(tmpdir(), 'bm-import-into-'));
after(() => rmSync(root, { recursive: true, force: true }));

const HEADER = 'ts_ms,ts_iso,ticker,date,side_of_close,price,price_cents,quantity,direction,liquidity_event,group';
/** A Kalshi tape row: [ms offset, ticker suffix, cents, quantity, yes?] */
type Row = [number, string, number, number, boolean];
const T0 = 1_767_313_178_676;
function tape(name: string, rows: Row[]): string {
  const lines = rows.map(([dt, t, c, q, yes]) => {
    const ts = T0 + dt;
    return `${ts},${new Date(ts).toISOString()},KXINX-26JAN02H1600-${t},2026-01-02,above,${c / 100},${c},${q},${yes ? 'yes_taker,lift_offer' : 'no_taker,hit_bid'},1_2`;
  });
  const p = join(root, name);
  writeFileSync(p, gzipSync([HEADER, ...lines].join('\n') + '\n'));
  return p;
}

// two identical prints in the same millisecond (a sweep of two makers) are two trades, not one
const A: Row[] = [
  [0, 'B1', 40, 1, true],
  [10, 'B1', 41, 5, false],
  [10, 'B1', 41, 5, false],
  [20, 'B2', 55, 2, true],
];
// a later download of the same tape: it repeats A's last three prints and one more copy of the pair, and adds two new ones
const B: Row[] = [
  [10, 'B1', 41, 5, false],
  [10, 'B1', 41, 5, false],
  [10, 'B1', 41, 5, false],
  [20, 'B2', 55, 2, true],
  [30, 'B2', 56, 3, false],
];
const tapeA = tape('a.csv.gz', A);
const tapeB = tape('b.csv.gz', B);

const events = (dir: string): RecordedEvent[] => [...readEvents(dir)];
const eventsFiles = (dir: string) => readdirSync(dir).filter((n) => n.startsWith('events-'));
const snapshot = (dir: string) =>
  Object.fromEntries(
    readdirSync(dir)
      .sort()
      .map((n) => [n, readFileSync(join(dir, n)).toString('base64')]),
  );

test('a second import into a non-empty folder is refused, naming the folder and --force/--append, and changes nothing', async () => {
  const out = join(root, 'twice');
  const first = await importInto('kalshi', tapeA, out);
  assert.equal(first.events, 4);
  const before = snapshot(out);
  await assert.rejects(importInto('kalshi', tapeA, out), (e: Error) => {
    assert.match(
      e.message,
      new RegExp(
        `--out ${out}: holds a recording of kalshi-kxinx-trades \\(2 markets, 1 events file\\); importing into it again would add a second copy of every event\\. Use --force to replace it, or --append`,
      ),
    );
    return (e as { code?: string }).code === 'BAD_INPUT';
  });
  assert.deepEqual(snapshot(out), before);
  // a polymarket recording cannot be appended to, so only --force is offered
  await assert.rejects(importInto('polymarket', tapeA, out), /Use --force to replace it, or choose another folder/);
  // any other non-empty folder is refused too
  const other = join(root, 'notes');
  mkdirSync(other);
  writeFileSync(join(other, 'todo.txt'), 'x');
  await assert.rejects(importInto('kalshi', tapeA, other), /--out .*notes: is not empty \(todo\.txt\)/);
});

test('--force replaces the recording: one copy of every event, built beside it so a failed import keeps the old one', async () => {
  const out = join(root, 'force');
  await importInto('kalshi', tapeA, out);
  const once = events(out);
  const r = await importInto('kalshi', tapeA, out, { mode: 'force' });
  assert.equal(r.mode, 'force');
  assert.deepEqual(events(out), once, 'the same events, not twice');
  assert.equal(eventsFiles(out).length, 1);
  assert.equal(readManifest(out).files.length, 1);
  assert.ok(existsSync(join(out, 'book.cols')));
  assert.deepEqual(
    readdirSync(root).filter((n) => n.startsWith('.force.')),
    [],
    'no temporary folder left',
  );
  // a broken input fails before anything of the old recording is touched
  const before = snapshot(out);
  const bad = join(root, 'bad.csv.gz');
  writeFileSync(bad, gzipSync(`${HEADER}\n1,x,T,d,above,0.4,400,1,yes_taker,lift_offer,1_2\n`));
  await assert.rejects(importInto('kalshi', bad, out, { mode: 'force' }), /price_cents/);
  assert.deepEqual(snapshot(out), before);
  assert.deepEqual(
    readdirSync(root).filter((n) => n.startsWith('.force.')),
    [],
    'no temporary folder left after a failure',
  );
  // a replacement is a new recording, whatever the source
  await importInto('kalshi', tapeB, out, { mode: 'force' });
  assert.equal(events(out).length, 5);
});

test('--force never empties a folder that holds more than a recording', async () => {
  const out = join(root, 'mixed');
  await importInto('kalshi', tapeA, out);
  writeFileSync(join(out, 'notes.md'), 'mine');
  const before = snapshot(out);
  await assert.rejects(
    importInto('kalshi', tapeA, out, { mode: 'force' }),
    /holds files that are not part of a recording \(notes\.md\); --force only touches a recording folder, so nothing was changed/,
  );
  assert.deepEqual(snapshot(out), before);
});

test('--append joins trade tapes: prints already held are skipped (as a multiset), new ones added in time order; appending again adds nothing', async () => {
  const out = join(root, 'append');
  await importInto('kalshi', tapeA, out);
  const r = await importInto('kalshi', tapeB, out, { mode: 'append' });
  assert.equal(r.mode, 'append');
  assert.equal(r.previousEvents, 4);
  assert.equal(r.duplicatesSkipped, 3, 'two copies of the pair and the B2 print were held already');
  assert.equal(r.events, 6, 'A plus the third copy of the pair and the 56¢ print');
  const ev = events(out);
  assert.equal(ev.length, 6);
  assert.deepEqual(
    ev.map((e) => e.vts - T0),
    [0, 10, 10, 10, 20, 30],
  );
  assert.equal(ev.filter((e) => e.t === 'trade' && e.p === 410_000).length, 3);
  assert.equal(eventsFiles(out).length, 1, 'one events file, rewritten whole');
  assert.equal(readManifest(out).markets.length, 2);
  const again = await importInto('kalshi', tapeB, out, { mode: 'append' });
  assert.equal(again.duplicatesSkipped, 5);
  assert.deepEqual(events(out), ev);
  const aAgain = await importInto('kalshi', tapeA, out, { mode: 'append' });
  assert.equal(aAgain.events, 6);
});

test('--append is refused where the format cannot be joined, and onto a recording of another source', async () => {
  const out = join(root, 'append-refused');
  await importInto('kalshi', tapeA, out);
  await assert.rejects(
    importInto('polymarket', tapeA, out, { mode: 'append' }),
    /--append: not supported for polymarket: the Polymarket capture is book deltas without snapshots/,
  );
  await assert.rejects(importInto('binance', tapeA, out, { mode: 'append' }), /--append: not supported for binance/);
  const manifest = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8'));
  writeFileSync(join(out, 'manifest.json'), JSON.stringify({ ...manifest, source: 'something-else' }));
  await assert.rejects(importInto('kalshi', tapeA, out, { mode: 'append' }), /--append: .* holds a recording of something-else, not of kalshi-kxinx-trades/);
});

test('newEvents: a multiset difference in the order of the new events', () => {
  const e = (p: number): RecordedEvent => ({ t: 'trade', m: '0x01', vts: 1, lts: 1, p, s: 1, side: 'buy' });
  assert.deepEqual(newEvents([e(1), e(1), e(2)], [e(3), e(1), e(1), e(1), e(2), e(2)]), { fresh: [e(3), e(1), e(2)], skipped: 3 });
});

test('bookmaker import: a second run exits 2 with the reason; --force and --append report what they did', async () => {
  const out = join(root, 'cli');
  const cli = (args: string[]) => run(process.execPath, cliArgs(['import', 'kalshi', ...args]), { timeout: 60_000 });
  const r1 = await cli([tapeA, '--out', out]);
  assert.match(r1.stdout, /^imported kalshi: 4 events, 2 markets/);
  await assert.rejects(cli([tapeA, '--out', out]), (e: { code?: number; stderr?: string }) => {
    assert.equal(e.code, 2);
    assert.match(e.stderr!, /importing into it again would add a second copy of every event\. Use --force to replace it, or --append/);
    return true;
  });
  assert.match((await cli([tapeA, '--out', out, '--force'])).stdout, /4 events, 2 markets → .* \(replaced\)/);
  assert.match((await cli([tapeB, '--out', out, '--append'])).stdout, /6 events, 2 markets → .* \(appended 2, 3 already held\)/);
  await assert.rejects(
    cli([tapeA, '--out', out, '--append', '--force']),
    (e: { code?: number; stderr?: string }) => e.code === 2 && /--force\/--append: expected one of them, not both/.test(e.stderr!),
  );
});
