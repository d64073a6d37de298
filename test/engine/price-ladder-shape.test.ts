/**
 * The price ladder's number fields keep the representation of their first value in V8 (src/engine/price-ladder.ts):
 * `invTick` a double, `tick`, `top` and the best levels small integers. Before, they were declared without a
 * value, so each was defined as undefined first (ES2022 class fields) and went tagged when the constructor
 * assigned it, and `invTick`, read at every order the engine prices, was a boxed heap number. Every ladder,
 * whatever its tick, has one map.
 *
 * Read in a child process that switches on --trace-generalization around the ladders it makes (V8 prints, on stdout, each field whose representation
 * or constness changes, with its before and after, e.g. `invTick:h{Any;const}->t{Any;mutable}`) and
 * --allow-natives-syntax (%HaveSameMap), which this file becomes when PRICE_LADDER_SHAPE_CHILD is set.
 * Fails on the code before (tick and invTick h -> t).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { PriceLadder } from '../../src/engine/price-ladder.ts';

/** valid ticks (validateMarketConfig: at least 100, dividing 1e6, below 5e5) */
const TICKS = [100, 1_000, 10_000, 250_000];

if (process.env.PRICE_LADDER_SHAPE_CHILD === '1') {
  // traced from here only: the modules are loaded, so tsx's loader thread (which prints to the same stdout,
  // its pieces of a line between the main thread's) is idle, and no ladder was made before
  setFlagsFromString('--trace-generalization');
  const ladders = TICKS.map((t) => new PriceLadder(t));
  // the best levels written as the engine writes them (a restore sets both)
  const again = new PriceLadder(1_000);
  again.restoreData({ ...again.exportData(), bestBid: 400, bestAsk: 600 });
  ladders.push(again);
  setFlagsFromString('--no-trace-generalization');
  // natives syntax is parsed only with the flag, so it goes through the Function constructor
  const sameMap = new Function('a', 'b', 'return %HaveSameMap(a, b)') as (a: unknown, b: unknown) => boolean;
  process.stderr.write(`${JSON.stringify({ sameMap: ladders.every((l) => sameMap(l, ladders[0])), invTicks: ladders.map((l) => l.invTick) })}\n`);
} else {
  test("the price ladder's number fields keep their representation (invTick a double, never tagged); every ladder has one map", () => {
    // V8 prints the trace on stdout (buffered: its lines reach the pipe in chunks), the child its answer on stderr
    const child = spawnSync(process.execPath, ['--allow-natives-syntax', '--import', 'tsx', fileURLToPath(import.meta.url)], {
      env: { ...process.env, PRICE_LADDER_SHAPE_CHILD: '1' },
      encoding: 'utf8',
      maxBuffer: 64 * 2 ** 20,
    });
    assert.equal(child.status, 0, child.stderr);
    const answer = child.stderr.split('\n').find((l) => l.startsWith('{"sameMap"'));
    assert.ok(answer, `the child's answer (stderr: ${child.stderr})`);
    const r = JSON.parse(answer) as { sameMap: boolean; invTicks: number[] };
    const lines = child.stdout.split('\n');
    assert.deepEqual(r.invTicks, [...TICKS.map((t) => 1 / t), 1 / 1_000], 'the ladders were made');
    assert.equal(r.sameMap, true, 'ladders of different ticks have one map');

    // `[generalizing]FIELD:R{...}->R'{...} (why) [new ~PriceLadder+N at …]`: R is the representation, s(mi), d(ouble), h(eap object), t(agged)
    const changes = new Map<string, string[]>();
    for (const l of lines) {
      const m = /^\[generalizing\](\w+):(\w)\{[^}]*\}->(\w)\{[^}]*\} \([^)]*\) \[new [~*^+]?PriceLadder\+\d+ at [^\]]*price-ladder\.ts/.exec(l);
      if (m) changes.set(m[1]!, [...(changes.get(m[1]!) ?? []), `${m[2]}->${m[3]}`]);
    }
    assert.ok(changes.has('invTick'), `the trace names the ladder's fields (read: ${[...changes.keys()].join(', ') || 'none'})`);
    assert.deepEqual([...new Set(changes.get('invTick'))], ['d->d'], 'invTick: a double from the start (only its constness changes)');
    for (const [field, reps] of changes)
      for (const rep of reps) assert.equal(rep[0], rep[3], `${field}: representation changed (${rep}), a field defined with a value of another kind`);
  });
}
