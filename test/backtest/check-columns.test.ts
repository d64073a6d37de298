/**
 * A damaged book.cols (bytes overwritten inside the file, so its size still matches its header) is
 * refused before the replay with the file, the first bad row and the fix; before, times of ±1e308 sent
 * the replay's virtual clock stepping for ever (a copy of the Polymarket capture with 200 KB of its
 * columns overwritten ran for over two minutes without a line, where the intact one takes seconds).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, openSync, rmSync, writeSync, closeSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadReplaySource } from '../../src/backtest/replay-source.ts';
import { damagedRow } from '../../src/backtest/recording/check-columns.ts';
import { readColumns, toColumns, writeColumns } from '../../src/backtest/recording/columns.ts';
import type { RecordedEvent } from '../../src/backtest/recording/format.ts';
import { BadInputError } from '../../src/model/errors.ts';
import { writeTestManifest } from './helpers.ts';

const root = mkdtempSync(join(tmpdir(), 'bookmaker-cols-'));
process.on('exit', () => rmSync(root, { recursive: true, force: true }));

const M = `0x${'cd'.repeat(32)}`;
const T0 = 1_780_795_851_000;

function recording(name: string): string {
  const dir = join(root, name);
  mkdirSync(dir);
  const events: RecordedEvent[] = [];
  for (let i = 0; i < 200; i++) {
    const t = T0 + i * 1000;
    events.push({ t: 'book', m: M, vts: t, lts: t, b: [[400_000 + (i % 3) * 10_000, 50_000_000]], a: [[600_000, 50_000_000]] } as RecordedEvent);
  }
  writeTestManifest(dir, M, T0);
  writeColumns(dir, toColumns(events, [M]));
  return dir;
}

test('an intact book.cols loads; one with overwritten times is refused naming the file, the row and the fix', () => {
  const dir = recording('damaged');
  assert.equal(loadReplaySource(dir).rows.length, 400);
  assert.equal(damagedRow(readColumns(dir)), null);
  // overwrite the lts of rows 100..109 with bytes that read as huge and NaN doubles
  const path = join(dir, 'book.cols');
  const buf = readFileSync(path);
  const hl = buf.readUInt32LE(8);
  let off = 12 + hl;
  off += (8 - (off % 8)) % 8;
  const junk = Buffer.alloc(80, 0xff);
  junk.writeDoubleLE(-1.7e308, 0);
  const fd = openSync(path, 'r+');
  writeSync(fd, junk, 0, junk.length, off + 100 * 8);
  closeSync(fd);
  assert.throws(
    () => loadReplaySource(dir),
    (e: unknown) =>
      e instanceof BadInputError &&
      e.message.startsWith(`${path}: expected columns whose every row is a recorded event (the file is damaged: delete it`) &&
      e.message.endsWith('got "row 100: local time -1.7e+308"'),
  );
});

test('damagedRow names kinds, sides, markets, prices and sizes out of range', () => {
  const c = readColumns(recording('fields'));
  const cases: [keyof typeof c, number, RegExp][] = [
    ['kind', 9, /^kind 9$/],
    ['side', 2, /^side 2$/],
    ['market', 3, /^market index 3 of 1$/],
    ['price', Number.NaN, /^price NaN$/],
    ['size', -1, /^size -1$/],
    ['vts', Number.POSITIVE_INFINITY, /^venue time Infinity$/],
    ['lts', -1, /^local time -1$/],
  ];
  for (const [col, v, what] of cases) {
    const arr = c[col] as Float64Array | Uint8Array | Uint16Array;
    const was = arr[7]!;
    arr[7] = v;
    const bad = damagedRow(c);
    assert.equal(bad?.row, 7, col);
    assert.match(bad!.what, what);
    arr[7] = was;
  }
  assert.equal(damagedRow(c), null);
  // a synthetic recording's virtual clock starts at 0: a time of 0 is a recorded event, not damage
  c.lts[7] = 0;
  c.vts[7] = 0;
  assert.equal(damagedRow(c), null);
});
