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

test('a TTY: updates faster than ~10 per second are dropped, out-of-range fractions are clamped in the bar', () => {
  const { stream, written } = fakeStream(true);
  const bar = progressBar('sweep', stream);
  const t0 = performance.now();
  bar.update(-0.5);
  for (let i = 0; i < 1000; i++) bar.update(0.1);
  // the bound follows the wall time actually spent, so a slow machine cannot fail it; without the
  // throttle all 1001 updates would draw
  const allowed = Math.floor((performance.now() - t0) / 100) + 1;
  assert.ok(written.length <= allowed, `${written.length} draws, at most ${allowed} expected`);
  assert.match(written[0]!, /^\rsweep \[\.{30}\]/);
  bar.done();
  assert.equal(written.at(-1), '\n');
});

test('a TTY bar that never drew writes no stray newline', () => {
  const { stream, written } = fakeStream(true);
  progressBar('backtest', stream).done();
  assert.deepEqual(written, []);
});
