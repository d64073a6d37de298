/**
 * A recording whose JSONL holds lines that are not events, or a file that cannot be decoded: the
 * reader drops and counts them (src/backtest/recording/reader.ts), and the backtest and calibrate say
 * so on stderr with the first reasons, instead of replaying what is left as if it were the whole.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { loadReplaySource, readWarning } from '../../src/backtest/replay-source.ts';
import { bookmaker } from '../support/cli.ts';
import { writeTestManifest } from './helpers.ts';

const root = mkdtempSync(join(tmpdir(), 'bookmaker-drops-'));
process.on('exit', () => rmSync(root, { recursive: true, force: true }));

const M = `0x${'ab'.repeat(32)}`;
const T0 = 1_780_795_851_000;

function recording(name: string, body: Buffer): string {
  const dir = join(root, name);
  mkdirSync(dir);
  writeTestManifest(dir, M, T0, [{ name: 'events-000001.jsonl.gz', events: 40, firstLts: T0, lastLts: T0 + 40_000 }]);
  writeFileSync(join(dir, 'events-000001.jsonl.gz'), body);
  return dir;
}

function lines(): string[] {
  const out: string[] = [];
  for (let i = 0; i < 40; i++) {
    const t = T0 + i * 1000;
    out.push(JSON.stringify({ t: 'book', m: M, vts: t, lts: t, b: [[400_000 + (i % 3) * 10_000, 50_000_000]], a: [[600_000, 50_000_000]] }));
  }
  return out;
}

test('lines that are not events are dropped, counted and said with their line numbers', () => {
  const l = lines();
  l.splice(10, 0, 'not json at all', JSON.stringify({ t: 'book', m: M, vts: 'x', lts: T0 }));
  const dir = recording('bad-lines', gzipSync(l.join('\n') + '\n'));
  const src = loadReplaySource(dir);
  assert.equal(src.read?.dropped, 2);
  assert.equal(src.read?.events, 40);
  const w = readWarning(src.read);
  assert.ok(w);
  assert.match(w, /^warning: the recording could not be read whole: 2 line\(s\) or file\(s\) dropped; 40 events read\n/);
  assert.match(w, /^ {2}- events-000001\.jsonl\.gz:11: /m);
  assert.match(w, /^ {2}- events-000001\.jsonl\.gz:12: vts: /m);
  assert.equal(readWarning(loadReplaySource(recording('clean', gzipSync(lines().join('\n') + '\n'))).read), null);
});

test('backtest and calibrate say that a file could not be decoded, not only that nothing was there', async () => {
  const dir = recording('garbage', Buffer.from('this is not gzip at all, just bytes '.repeat(50)));
  const bt = await bookmaker(['backtest', '-c', 'config/backtest.yaml', '--data', dir]);
  assert.equal(bt.code, 2, bt.stderr);
  assert.match(bt.stderr, /^warning: the recording could not be read whole: 1 line\(s\) or file\(s\) dropped; 0 events read$/m);
  assert.match(bt.stderr, /^ {2}- events-000001\.jsonl\.gz: unreadable \(/m);
  const cal = await bookmaker(['calibrate', '-c', 'config/strategies/glft.yaml', '--data', dir]);
  assert.equal(cal.code, 1, cal.stderr);
  assert.match(cal.stderr, /^ {2}- events-000001\.jsonl\.gz: unreadable \(/m);
});
