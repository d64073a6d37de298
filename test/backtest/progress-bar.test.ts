/** The progress bar: drawn on a TTY (one carriage-return line, a newline at the end), silent otherwise. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { progressBar } from '../../src/backtest/progress-bar.ts';

/** A stand-in for process.stderr that keeps what is written. */
function fakeStream(isTTY: boolean): { stream: NodeJS.WriteStream; written: string[] } {
  const written: string[] = [];
  const stream = { isTTY, write: (s: string) => (written.push(s), true) } as unknown as NodeJS.WriteStream;
  return { stream, written };
}

test('not a TTY (pipe, CI log): nothing is written, not even the final newline', () => {
  const { stream, written } = fakeStream(false);
  const bar = progressBar('backtest', stream);
  for (const f of [0, 0.25, 0.5, 1]) bar.update(f);
  bar.done();
  assert.deepEqual(written, []);
});

test('a TTY: the bar redraws in place and ends with a newline', () => {
  const { stream, written } = fakeStream(true);
  const bar = progressBar('backtest', stream);
  bar.update(0.5); // the first update always draws (no earlier draw to throttle against)
  bar.update(1); // completion always draws, however soon after the previous one
  bar.done();
  assert.equal(written.length, 3);
  assert.equal(written[0], `\rbacktest [${'#'.repeat(15)}${'.'.repeat(15)}]  50%`);
  assert.equal(written[1], `\rbacktest [${'#'.repeat(30)}] 100%`);
  assert.equal(written[2], '\n');
});

test('a TTY: redraws follow wall time, ten a second by default, whatever the row rate; out-of-range fractions are clamped', () => {
  const { stream, written } = fakeStream(true);
  let clock = 0;
  const bar = progressBar('sweep', stream, { now: () => clock });
  bar.update(-0.5);
  // 1000 reports 25 ms apart (25 s of wall time): one redraw per 100 ms = 250, never one per report
  for (let i = 0; i < 1000; i++) {
    clock += 25;
    bar.update(0.1);
  }
  assert.equal(written.length, 1 + 250);
  assert.match(written[0]!, /^\rsweep \[\.{30}\]/);
  // a slow replay that reports once every 2 s redraws every time: time, not rows, drives the bar
  const before = written.length;
  for (let i = 0; i < 5; i++) {
    clock += 2000;
    bar.update(0.2);
  }
  assert.equal(written.length - before, 5);
  bar.done();
  assert.equal(written.at(-1), '\n');
});

test('a TTY: the detail (where the replay is) follows the percentage; a shorter line blanks out the longer one before it', () => {
  const { stream, written } = fakeStream(true);
  let clock = 0;
  const bar = progressBar('backtest', stream, { now: () => clock, everyMs: 250 });
  bar.update(0.25, '2026-01-03T00:00:00.000Z · 1,024/4,096 rows');
  clock += 250;
  bar.update(0.5, 'short');
  assert.equal(written[0], `\rbacktest [${'#'.repeat(8)}${'.'.repeat(22)}]  25% 2026-01-03T00:00:00.000Z · 1,024/4,096 rows`);
  const second = `\rbacktest [${'#'.repeat(15)}${'.'.repeat(15)}]  50% short`;
  assert.ok(written[1]!.startsWith(second));
  assert.equal(written[1]!.length, written[0]!.length, 'padded over the previous line');
  assert.match(written[1]!.slice(second.length), /^ +$/);
});

test('a TTY bar that never drew writes no stray newline', () => {
  const { stream, written } = fakeStream(true);
  progressBar('backtest', stream).done();
  assert.deepEqual(written, []);
});
