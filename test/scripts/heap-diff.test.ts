/**
 * scripts/heap-diff.mjs on two heap snapshots of a small process made here: what grew between them is
 * found under the object that owns it by the dominator tree (the nearest object of a named class whose
 * going would free it), with its count, apart from V8's code; and a structure that did not grow is not
 * among the growth.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';

const ROOT = new URL('../../', import.meta.url).pathname;

/** a process that keeps 10 rows in a Keeper, snapshots, adds 500, snapshots again; a Steady that does not grow */
const CHILD = `
const { writeHeapSnapshot } = require('node:v8');
class Keeper { constructor() { this.rows = []; } }
class Steady { constructor() { this.items = Array.from({ length: 300 }, (_, i) => ({ i, s: 'steady-' + i })); } }
globalThis.keeper = new Keeper();
globalThis.steady = new Steady();
const add = (n) => { for (let i = 0; i < n; i++) globalThis.keeper.rows.push({ id: 'row-' + keeper.rows.length, v: [i, i + 1] }); };
add(10);
writeHeapSnapshot(process.argv[1]);
add(500);
writeHeapSnapshot(process.argv[2]);
`;

/** the rows of one printed section: [growth KB, count change, label] */
function section(out: string, title: RegExp): [number, number, string][] {
  const lines = out.split('\n');
  const at = lines.findIndex((l) => title.test(l));
  assert.ok(at >= 0, `a section ${title} in the output`);
  const rows: [number, number, string][] = [];
  for (const l of lines.slice(at + 1)) {
    const m = /^\s*(-?[\d.]+)\s+(-?\d+)\s+\d+ -> \d+\s+(.*)$/.exec(l);
    if (!m) break;
    rows.push([Number(m[1]), Number(m[2]), m[3]!]);
  }
  return rows;
}

test('growth is found under its dominating owner with its count, code aside', () => {
  const dir = mkdtempSync(join(tmpdir(), 'heap-diff-'));
  try {
    const [a, b] = [join(dir, 'a.heapsnapshot'), join(dir, 'b.heapsnapshot')];
    execFileSync(process.execPath, ['-e', CHILD, a, b], { stdio: 'ignore' });
    const out = execFileSync(process.execPath, ['--max-old-space-size=1024', join(ROOT, 'scripts/heap-diff.mjs'), a, b], { encoding: 'utf8' });
    const owners = section(out, /^== by dominating owner \(code aside\)/);
    const [kb, count, label] = owners[0]!;
    assert.equal(label, 'Keeper', 'the largest growth is the Keeper rows');
    // 500 rows, each an object, an array (and its elements) and an id string: counted under Keeper
    assert.ok(count >= 1_500, `count change ${count}`);
    assert.ok(kb >= 500 * 0.05, `growth ${kb} KB`);
    assert.ok(!owners.some(([k, , l]) => l === 'Steady' && k > 0), 'Steady did not grow');
    const kinds = section(out, /^== by kind/);
    assert.ok(
      kinds.some(([, , l]) => l.startsWith("V8's code")),
      'code apart',
    );
    assert.match(out, /== code run by a function, new in the later snapshot: [\d.]+ KB \(and [\d.]+ KB of the earlier one's gone\), by script ==/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
