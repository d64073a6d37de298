/**
 * kill -9 at random moments under signed order traffic (the real `bookmaker sim --state` in a child
 * process), then restart: zero acknowledged orders, fills or cancels lost, zero replays accepted,
 * the engine's invariants (conservation included) hold. The sim-crash bench runs many more cycles.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bundleChild, crashCycles } from './crash-harness.ts';

test('kill -9 at random moments under signed traffic loses no acknowledged change', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sim-crash-'));
  try {
    const bundle = await bundleChild();
    const cycles = Number(process.env.SIM_CRASH_CYCLES ?? 6);
    // each cycle is killed at a random moment after its 4th acknowledged create: a busy machine answers fewer
    // creates in a moment, not none
    const r = await crashCycles(bundle, join(dir, 'state'), cycles, 20261125, 600, 4);
    assert.equal(r.cycles, cycles);
    assert.ok(r.acked > cycles * 3, `acknowledged creates across the cycles: ${r.acked}`);
    assert.ok(r.replayed >= 10);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
