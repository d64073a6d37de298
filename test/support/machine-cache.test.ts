import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { oncePerMachine, oncePerMachineSync } from './machine-cache.ts';

const HELPER = pathToFileURL(join(import.meta.dirname, 'machine-cache.ts')).href;

/**
 * A process that wants `path`: its first look (`ready`) leaves `looked-ID` beside it, and a build waits until all
 * `n` processes have looked, so every one of them has found nothing built before any build could end.
 */
const CHILD = `
import { appendFileSync, existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { oncePerMachine } from ${JSON.stringify(HELPER)};
const [dir, id, n] = process.argv.slice(2);
const path = join(dir, 'thing');
let looked = false;
await oncePerMachine(path, async (own) => {
  appendFileSync(join(dir, 'builds'), id + '\\n');
  while (readdirSync(dir).filter((f) => f.startsWith('looked-')).length < Number(n)) await new Promise((r) => setTimeout(r, 20));
  writeFileSync(own, 'built by ' + id);
}, (p) => {
  if (!looked) writeFileSync(join(dir, 'looked-' + id), '');
  looked = true;
  return existsSync(p);
});
process.stdout.write(readFileSync(path, 'utf8'));
`;

test('processes that want the same thing at once: one builds it, the others wait and read what it built', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'bm-machine-cache-'));
  try {
    writeFileSync(join(dir, 'child.mjs'), CHILD);
    const n = 3;
    const outs = await Promise.all(
      Array.from({ length: n }, (_, i) => {
        const child = spawn(process.execPath, ['--import', 'tsx', join(dir, 'child.mjs'), dir, String(i), String(n)], { stdio: ['ignore', 'pipe', 'pipe'] });
        let out = '';
        let err = '';
        child.stdout.on('data', (b: Buffer) => (out += b.toString()));
        child.stderr.on('data', (b: Buffer) => (err += b.toString()));
        return new Promise<string>((resolve, reject) =>
          child.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`child ${i}: exit ${code}: ${err}`)))),
        );
      }),
    );
    const builds = readFileSync(join(dir, 'builds'), 'utf8').trim().split('\n');
    assert.equal(builds.length, 1, `one build, not ${builds.join(', ')}`);
    assert.deepEqual(outs, Array(n).fill(`built by ${builds[0]}`));
    assert.deepEqual(
      readdirSync(dir)
        .filter((f) => !f.startsWith('looked-'))
        .sort(),
      ['builds', 'child.mjs', 'thing'],
      'no lock or half-built copy left',
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a lock left by a process that died is taken over; a build that fails leaves no lock, and the next call builds', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'bm-machine-cache-'));
  try {
    const path = join(dir, 'thing');
    const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout;
    mkdirSync(`${path}.lock`);
    writeFileSync(join(`${path}.lock`, 'pid'), gone);
    await assert.rejects(
      oncePerMachine(path, async () => {
        throw new Error('no disk');
      }),
      /no disk/,
    );
    assert.ok(!existsSync(`${path}.lock`), 'the failed build released the lock');
    assert.ok(!existsSync(path));
    await oncePerMachine(path, async (own) => writeFileSync(own, 'x'));
    assert.equal(readFileSync(path, 'utf8'), 'x');
    await oncePerMachine(path, async () => assert.fail('built again'));

    // the synchronous form: a half-built folder a killed run left is not ready, and is replaced
    const folder = join(dir, 'folder');
    mkdirSync(folder);
    writeFileSync(join(folder, 'partial'), '');
    const whole = (p: string) => existsSync(join(p, 'done'));
    oncePerMachineSync(
      folder,
      (own) => {
        mkdirSync(own);
        writeFileSync(join(own, 'done'), '');
      },
      whole,
    );
    assert.deepEqual(readdirSync(folder), ['done']);
    assert.deepEqual(readdirSync(dir).sort(), ['folder', 'thing']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
