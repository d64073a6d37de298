/**
 * The edge table's generator (scripts/edge-table.ts) on a small fixture of the edge bench's stderr:
 * runs of two invocations pooled, the bench's mean and interval, the goals' verdicts, a seed cut short
 * left out, and runs that cannot be pooled refused.
 */
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { edgeTable, guardGoal, parseRuns, replaceTable, BEGIN, END, type EdgeRun } from '../../scripts/edge-table.ts';
import { formatMeanCi, meanCi } from '../../src/backtest/mean-ci.ts';

const SETUP = { hours: 1, markets: 4, loop: 'closed' };
const line = (flow: string, seed: number, key: string, pnl: number, volume = 100) =>
  `edge: run ${JSON.stringify({ flow, seed, key, pnl, volume, fills: 10, mk10: 0.5, ...SETUP })}`;

/** Two invocations' stderr: seeds 1–2 and 3 of each flow, with the bench's progress lines between. */
function fixture(): string[] {
  const a: string[] = [];
  const b: string[] = [];
  const pnl = {
    calibrated: { 'bands|plain': [2, 3, 4], 'bands|guard': [-1, 1, 3], 'glft|plain': [-5, -6, -7], 'glft|guard': [-4, -5, -6], 'follow|plain': [1, -1, 0] },
    toxic: {
      'bands|plain': [-100, -80, -120],
      'bands|guard': [-40, -40, -40],
      'glft|plain': [-50, -50, -50],
      'glft|guard': [-40, -35, -45],
      'follow|plain': [5, 5, 5],
    },
    benign: {
      'bands|plain': [100, 100, 100],
      'bands|guard': [95, 95, 95],
      'glft|plain': [-10, -10, -10],
      'glft|guard': [-12, -12, -12],
      'follow|plain': [1, 1, 1],
    },
  };
  for (const [flow, keys] of Object.entries(pnl)) {
    for (let seed = 1; seed <= 3; seed++) {
      const out = seed < 3 ? a : b;
      for (const [key, xs] of Object.entries(keys)) out.push(line(flow, seed, key, xs[seed - 1]!, key.startsWith('glft') ? 300 : 100));
      out.push(`edge: ${flow} seed ${seed} done (12 s)`);
    }
  }
  return [a.join('\n'), `${b.join('\n')}\nedge bench: 1 seeds (from 3) × 1 h × 4 markets per flow, closed loop (10 s)\n`];
}

test('runs of two invocations are pooled per flow, strategy and guard, with the bench mean and 95 % interval', () => {
  const runs = fixture().flatMap((t, i) => parseRuns(t, `part${i}`));
  assert.equal(runs.length, 45);
  const t = edgeTable(runs, { commit: 'abc1234', date: '2026-11-29' });
  assert.deepEqual(t.seeds.calibrated, { used: [1, 2, 3], dropped: [] });
  const rows = t.markdown.split('\n').filter((l) => l.startsWith('| `'));
  assert.deepEqual(
    rows.map((r) => r.split(' | ')[0]),
    ['| `bands`', '| `glft`', '| `follow`'],
  );
  const bands = rows[0]!.split(' | ');
  assert.equal(bands[1], `${formatMeanCi(meanCi([2, 3, 4]))} on 100 (3.0 %)`);
  assert.equal(bands[2], `${formatMeanCi(meanCi([-1, 1, 3]))} on 100 (1.0 %)`);
  // calibrated: guard off's interval is above 0, guard on's is not
  assert.equal(bands[3], '**met** (guard off)');
  assert.equal(rows[1]!.split(' | ')[3], 'not met: loses (interval below 0)');
  assert.equal(rows[2]!.split(' | ')[3], 'not met: interval spans 0');
  // toxic: bands −100 → −40 is a 60 % cut; glft −50 → −40 is 20 %
  assert.match(bands[6]!, /^60 %: \*\*met\*\* \(on − off \+60\.00 \[/);
  assert.match(rows[1]!.split(' | ')[6]!, /^20 %: not met \(on − off \+10\.00 \[/);
  // benign: 100 → 95 costs 5.0 %; glft has no profit to cost; follow has no guard
  assert.match(bands[9]!, /^5\.0 %: \*\*met\*\* \(on − off -5\.00/);
  assert.match(rows[1]!.split(' | ')[9]!, /^no profit to cost/);
  assert.equal(rows[2]!.split(' | ')[9], 'no guard |');
  assert.match(
    t.markdown,
    /^Measured on commit `abc1234`, 2026-11-29: calibrated 3 seeds \(1–3\), toxic 3 seeds \(1–3\), benign 3 seeds \(1–3\), each run 1 h × 4 markets/,
  );
  assert.match(t.goals.calibrated!, /best mean is bands \(guard off\), 3\.00 \[.*\*\*met\*\*/);
  assert.equal(t.goals.toxic, "toxic: the guard's cut ≥ 50 % is met for 1 of 2 strategies with a guard (bands)");
  assert.equal(t.goals.benign, "benign: the guard's cost ≤ 10 % is met for 1 of 2 strategies with a guard (bands)");
});

test("the guard's cut and cost are the bench's goals", () => {
  assert.deepEqual(guardGoal('toxic', -100, -50), { kind: 'cut', percent: 50, met: true });
  assert.deepEqual(guardGoal('toxic', -100, -51), { kind: 'cut', percent: 49, met: false });
  assert.deepEqual(guardGoal('toxic', 10, 5), { kind: 'cut', percent: null, met: null });
  assert.deepEqual(guardGoal('benign', 100, 90), { kind: 'cost', percent: 10, met: true });
  assert.equal(guardGoal('benign', 100, 89).met, false);
  assert.equal(guardGoal('benign', 100, 120).met, true);
  assert.equal(guardGoal('benign', -5, 0).percent, null);
});

test('a seed cut short is left out of its flow, and said so', () => {
  const [a, b] = fixture();
  // the second invocation stopped after seed 3's first calibrated run
  const cut = b!.split('\n').filter((l) => !l.includes('"flow":"calibrated"') || l.includes('"key":"bands|plain"'));
  const t = edgeTable(parseRuns(`${a}\n${cut.join('\n')}`));
  assert.deepEqual(t.seeds.calibrated, { used: [1, 2], dropped: [3] });
  assert.deepEqual(t.seeds.toxic, { used: [1, 2, 3], dropped: [] });
  assert.match(t.markdown, /calibrated 2 seeds \(1–2\).*calibrated seed 3 left out \(cut short/);
  assert.equal(
    t.markdown
      .split('\n')
      .find((l) => l.startsWith('| `bands`'))!
      .split(' | ')[1],
    `${formatMeanCi(meanCi([2, 3]))} on 100 (2.5 %)`,
  );
});

test('runs of other sizes or settings, different repeats and old run lines are refused', () => {
  const runs = parseRuns(fixture()[0]!);
  const other: EdgeRun = { ...runs[0]!, seed: 9, hours: 0.5 };
  assert.throws(() => edgeTable([...runs, other]), /different sizes or settings/);
  assert.throws(() => edgeTable([...runs, { ...runs[0]!, extra: 'minSpread: 0.01' }]), /different sizes or settings/);
  assert.throws(() => edgeTable([...runs, { ...runs[0]!, pnl: runs[0]!.pnl + 1 }]), /twice with different results/);
  assert.equal(edgeTable([...runs, { ...runs[0]! }]).seeds.calibrated!.used.length, 2);
  assert.throws(
    () => parseRuns('edge: run {"flow":"toxic","seed":1,"key":"bands|plain","pnl":1,"volume":2,"fills":1,"mk10":null}', 'old.err'),
    /old\.err:1: .*without its size/,
  );
  assert.throws(() => parseRuns(line('choppy', 1, 'bands|plain', 1)), /unknown flow/);
  assert.throws(() => edgeTable([]), /no `edge: run` lines/);
});

test('the page keeps everything outside its table markers', () => {
  const doc = `# Edge\n\nintro\n\n${BEGIN}\nold table\n${END}\n\nrest\n`;
  assert.equal(replaceTable(doc, 'new table'), `# Edge\n\nintro\n\n${BEGIN}\nnew table\n${END}\n\nrest\n`);
  assert.throws(() => replaceTable('# Edge\n', 'x'), /no <!-- edge-table begin -->/);
});

test('the command line: an unknown flag or a missing file is a clear error (exit 2), never a stack trace', () => {
  for (const [args, said] of [
    [['--bogus'], /unknown flag --bogus/],
    [['/nonexistent/edge.err'], /no such file: \/nonexistent\/edge\.err/],
  ] as const) {
    const r = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/edge-table.ts', ...args], { encoding: 'utf8' });
    assert.equal(r.status, 2);
    assert.match(r.stderr, said);
    assert.doesNotMatch(r.stderr, /\n\s+at /);
  }
});
