import assert from 'node:assert/strict';
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { Registry } from 'prom-client';
import { guardOutput, outputReasons, type OutputFailures } from '../../src/runtime/output-guard.ts';
import { registerOutputMetrics } from '../../src/runtime/output-metrics.ts';

const fresh = (): OutputFailures => ({ stdout: 0, stderr: 0, lastError: null });
const fakeStream = (): NodeJS.WriteStream => ({ isTTY: false, write: () => assert.fail('the unguarded write ran') }) as unknown as NodeJS.WriteStream;

test('a write the disk refuses is dropped and counted; the stream stays usable and its callback runs', {
  skip: !existsSync('/dev/full') && 'no /dev/full',
}, async () => {
  const fd = openSync('/dev/full', 'w');
  try {
    const failures = fresh();
    const s = fakeStream();
    assert.equal(guardOutput(s, fd, 'stderr', failures), true);
    let called = 0;
    assert.equal(
      s.write('a line\n', () => called++),
      true,
    );
    assert.equal(s.write(Buffer.from('another\n')), true);
    await new Promise((r) => setImmediate(r));
    assert.equal(failures.stderr, 2);
    assert.equal(failures.stdout, 0);
    assert.equal(failures.lastError, 'ENOSPC');
    assert.equal(called, 1);
    const reg = new Registry();
    registerOutputMetrics(reg, 'bookmaker_', failures);
    assert.match(await reg.metrics(), /bookmaker_output_write_failures_total\{stream="stderr"\} 2/);
  } finally {
    closeSync(fd);
  }
});

test('a regular file: every byte is written, nothing counted', () => {
  const dir = mkdtempSync(join(tmpdir(), 'output-guard-'));
  const path = join(dir, 'log');
  const fd = openSync(path, 'w');
  try {
    const failures = fresh();
    const s = fakeStream();
    assert.equal(guardOutput(s, fd, 'stdout', failures), true);
    s.write('héllo ');
    s.write(Buffer.from('world\n'));
    assert.equal(readFileSync(path, 'utf8'), 'héllo world\n');
    assert.deepEqual(failures, fresh());
  } finally {
    closeSync(fd);
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a terminal is left as it is', () => {
  const s = { isTTY: true, write: () => true } as unknown as NodeJS.WriteStream;
  const before = s.write;
  assert.equal(guardOutput(s, 1, 'stdout', fresh()), false);
  assert.equal(s.write, before);
});

test("/readyz's reason names the stream whose writes fail and the count, until a write succeeds again", {
  skip: !existsSync('/dev/full') && 'no /dev/full',
}, () => {
  const dir = mkdtempSync(join(tmpdir(), 'output-guard-'));
  const full = openSync('/dev/full', 'w');
  const file = openSync(join(dir, 'log'), 'w');
  try {
    const failures = fresh();
    assert.deepEqual(outputReasons(failures), []);
    // the same stream name over two descriptors: the disk full, then room again
    const onFull = fakeStream();
    const withRoom = fakeStream();
    guardOutput(onFull, full, 'stderr', failures);
    guardOutput(withRoom, file, 'stderr', failures);
    const t0 = Date.now();
    onFull.write('a\n');
    onFull.write('b\n');
    onFull.write('c\n');
    const [reason, ...more] = outputReasons(failures, t0 + 42_000);
    assert.deepEqual(more, []);
    assert.match(reason!, /^logs-unwritable: stderr: 3 write\(s\) dropped since the start, failing for 4[12] s \(ENOSPC\); quoting goes on$/);
    withRoom.write('d\n');
    assert.deepEqual(outputReasons(failures), [], 'a write that succeeds ends the reason');
    assert.equal(failures.stderr, 3, 'the count stays (the metric is a counter)');
  } finally {
    closeSync(full);
    closeSync(file);
    rmSync(dir, { recursive: true, force: true });
  }
});
