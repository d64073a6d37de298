// The soak benches' heap probe (test/bench/heap-probe.mjs) and its readers (test/bench/lib.ts): readings after the
// process's own full collections carry no young generation and never count a forced probe's collections.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { probeModeArg, probeSecondHalf, readProbes } from './lib.ts';
import { probeV8 } from './soak-memory-maps.ts';

const PROBE = new URL('./heap-probe.mjs', import.meta.url).pathname;

/**
 * A process that makes full collections of its own (no `gc()`: it keeps a ring of arrays of objects, so they
 * survive into the old generation and V8 collects it when it fills), sends itself one SIGWINCH (a forced probe)
 * half-way, then waits a little for the observer.
 */
const CHILD = `
const ring = new Array(4).fill(null);
const steps = Number(process.argv[2]);
let n = 0;
const step = () => {
  const a = [];
  for (let i = 0; i < 2e5; i++) a.push({ i, s: [i] });
  ring[n % ring.length] = a;
  if (++n === Math.floor(steps / 2)) process.kill(process.pid, 'SIGWINCH');
  if (n < steps) setTimeout(step, 5);
  else setTimeout(() => {}, 300);
};
step();
`;

function runChild(dir: string, env: Record<string, string>): Promise<number | null> {
  const script = join(dir, 'child.mjs');
  writeFileSync(script, CHILD);
  const p = spawn(process.execPath, ['--import', PROBE, script, '40'], {
    env: { ...process.env, ...env },
    stdio: 'ignore',
  });
  return new Promise((r) => p.on('exit', (code) => r(code)));
}

test("major readings follow the process's own full collections, without the young generation or the forced probe's", async () => {
  const dir = mkdtempSync(join(tmpdir(), 'heap-probe-'));
  try {
    const file = join(dir, 'probe.jsonl');
    assert.equal(await runChild(dir, { BOOKMAKER_HEAP_PROBE: file, BOOKMAKER_HEAP_PROBE_MAJOR: '1' }), 0);
    const lines = readFileSync(file, 'utf8')
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as { kind: string; at: number; from?: number; spaces: Record<string, number>; arrayBuffers: number });
    const forced = lines.filter((l) => l.kind === 'forced');
    const major = lines.filter((l) => l.kind === 'major');
    assert.equal(forced.length, 1, 'the one SIGWINCH: one forced reading');
    assert.ok(major.length >= 1, `the process's own full collections were read (${lines.length} lines)`);
    for (const m of major) {
      assert.ok(!('new_space' in m.spaces) && !('new_large_object_space' in m.spaces), 'no young generation in a major reading');
      assert.ok((m.spaces.old_space ?? 0) > 0 && Number.isFinite(m.arrayBuffers));
    }
    assert.ok('new_space' in forced[0]!.spaces, 'a forced reading has every space');
    // the forced probe's two collections are not read as the process's own: a major reading's time is its
    // collection's end, and none of the process's own can end while the probe's gc() holds the thread
    const { from, at } = forced[0] as { from: number; at: number };
    assert.ok(from <= at);
    assert.deepEqual(
      major.filter((m) => m.at >= from && m.at <= at),
      [],
    );
    // V8's own figures ride on every line, and the readers keep them: probeV8 reads what readProbes read
    const v8 = probeV8(file, 0, 'major');
    assert.equal(v8.length, major.length, 'a V8 reading for each major line');
    assert.deepEqual(
      v8.map((r) => r.t),
      readProbes(file, 0, 'major').map((p) => p.t),
    );
    for (const r of v8) assert.ok(r.physical > 0 && r.malloced > 0 && (r.committed.old ?? 0) > 0, 'resident pages, malloc and old space read');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('without BOOKMAKER_HEAP_PROBE_MAJOR only the forced probe reads', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'heap-probe-'));
  try {
    const file = join(dir, 'probe.jsonl');
    assert.equal(await runChild(dir, { BOOKMAKER_HEAP_PROBE: file }), 0);
    const kinds = readFileSync(file, 'utf8')
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => (JSON.parse(l) as { kind: string }).kind);
    assert.deepEqual(kinds, ['forced']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('readProbes keeps one kind, in time order; a line without a kind (an older probe) is forced', () => {
  const dir = mkdtempSync(join(tmpdir(), 'heap-probe-'));
  try {
    const file = join(dir, 'probe.jsonl');
    // a line with V8's own figures (as heap-probe.mjs writes them, MB here) or without them (an older probe's)
    const line = (at: number, kind: string | null, old: number, v8?: number) =>
      JSON.stringify({
        at,
        ...(kind ? { kind } : {}),
        spaces: { old_space: old * 2 ** 20 },
        arrayBuffers: 0,
        external: 0,
        rss: 0,
        ...(v8 !== undefined
          ? { v8: { physical: v8 * 2 ** 20, malloced: (v8 / 10) * 2 ** 20, peakMalloced: 0, committed: { old_space: old * 2 ** 20, code_space: 2 ** 20 } } }
          : {}),
      });
    writeFileSync(file, [line(120_000, 'major', 11, 31), line(0, null, 9), line(60_000, 'major', 10, 30), line(90_000, 'forced', 12, 32), ''].join('\n'));
    assert.deepEqual(
      readProbes(file, 0, 'major').map((p) => [p.t, p.spaces.old_space! / 2 ** 20]),
      [
        [1, 10],
        [2, 11],
      ],
    );
    assert.deepEqual(
      readProbes(file, 0).map((p) => p.t),
      [0, 1.5],
    );
    // the V8 block is kept where the line has one (bytes, as written; peakMalloced left out), absent where not (the older line)
    assert.deepEqual(
      readProbes(file, 0, 'major').map((p) => p.v8),
      [
        { physical: 30 * 2 ** 20, malloced: 3 * 2 ** 20, committed: { old_space: 10 * 2 ** 20, code_space: 2 ** 20 } },
        { physical: 31 * 2 ** 20, malloced: 3.1 * 2 ** 20, committed: { old_space: 11 * 2 ** 20, code_space: 2 ** 20 } },
      ],
    );
    assert.deepEqual(
      readProbes(file, 0).map((p) => p.v8?.physical),
      [undefined, 32 * 2 ** 20],
    );
    // probeV8 reads readProbes' readings of the kind that carry it, in MB, spaces without `_space`
    assert.deepEqual(probeV8(file, 0, 'major'), [
      { t: 1, physical: 30, malloced: 3, committed: { old: 10, code: 1 } },
      { t: 2, physical: 31, malloced: 3.1, committed: { old: 11, code: 1 } },
    ]);
    assert.deepEqual(probeV8(file, 0), [{ t: 1.5, physical: 32, malloced: 3.2, committed: { old: 12, code: 1 } }]);
    assert.deepEqual(probeV8(join(dir, 'none.jsonl'), 0), [], 'no file: no readings');
    const half = probeSecondHalf(readProbes(file, 0, 'major'), 2);
    assert.ok(half);
    // 10 → 11 MB over the second half (1 → 2 min of a 2-minute run): +1 MB
    assert.equal(Math.round(half.growth * 100) / 100, 1);
    assert.match(String(half.rows[0]![0]), /own full GCs/);
    // one reading in the half is no slope
    const one = probeSecondHalf(readProbes(file, 0, 'major'), 3);
    assert.ok(one && Number.isNaN(one.growth) && Number.isNaN(one.growthNoCode));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('--probe takes major or forced, major by default', () => {
  const argv = process.argv;
  try {
    process.argv = ['node', 'bench'];
    assert.equal(probeModeArg(), 'major');
    process.argv = ['node', 'bench', '--probe', 'forced'];
    assert.equal(probeModeArg(), 'forced');
    process.argv = ['node', 'bench', '--probe', 'every'];
    assert.throws(() => probeModeArg(), /--probe: expected major or forced, got every/);
  } finally {
    process.argv = argv;
  }
});
