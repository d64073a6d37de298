/**
 * sim-crash: the crash test's loop, longer. `bookmaker sim --state` in a child process under signed
 * create/cancel traffic from two crossing wallets, `kill -9` at a random moment (50–650 ms into
 * the traffic), restart, every acknowledged create and cancel checked by id, acknowledged bodies
 * replayed (must be 409); at the end a clean stop and an in-process restore checks the engine's
 * invariants. SIM_CRASH_CYCLES (default 100), SIM_CRASH_SEED.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bundleChild, crashCycles } from '../sim/durability/crash-harness.ts';
import { report } from './lib.ts';

const CYCLES = Number(process.env.SIM_CRASH_CYCLES ?? 100);
const SEED = Number(process.env.SIM_CRASH_SEED ?? 7);
const dir = mkdtempSync(join(tmpdir(), 'sim-crash-bench-'));
try {
  const t0 = performance.now();
  const r = await crashCycles(await bundleChild(), join(dir, 'state'), CYCLES, SEED);
  const s = (performance.now() - t0) / 1000;
  report(
    [
      ['kill -9 cycles', r.cycles],
      ['creates sent', r.sent],
      ['creates acknowledged', r.acked],
      ['cancels acknowledged', r.cancels],
      ['acknowledged orders checked after restarts', r.checked],
      ['acknowledged bodies replayed (all 409)', r.replayed],
      ['acknowledged changes lost', 0],
      ['seconds', s],
    ],
    {
      name: 'sim-crash',
      unit: 'acknowledged changes lost over kill -9 cycles',
      value: 0,
      cycles: r.cycles,
      acked: r.acked,
      cancels: r.cancels,
      checked: r.checked,
      replayed: r.replayed,
    },
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
