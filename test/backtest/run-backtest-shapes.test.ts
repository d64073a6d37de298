/**
 * Backtest speed guard: the state store's limits keep one hidden class from run to run. At 79aa9d4
 * they were built with object spreads inside a runBacktest that V8 optimised whole (replay loop
 * included), and the optimised set-up code gave them a new map on every run, so every run of a
 * process (a sweep, the benchmark's warm-ups) deoptimised the reducer code optimised on the previous
 * run's limits. Now the limits are one fixed literal and the loop is a closure of its own (either
 * alone removes the new maps; this checks the outcome). Three full runs of the real Polymarket capture
 * in a child process started with --allow-natives-syntax (%HaveSameMap), which this file becomes
 * when LIMITS_SHAPE_CHILD is set. Fails at 79aa9d4 (sameMap false), passes since.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { loadBacktestConfig } from '../../src/backtest/backtest-config.ts';
import { loadReplaySource } from '../../src/backtest/replay-source.ts';
import { runBacktest } from '../../src/backtest/run-backtest.ts';
import { polymarketRecording } from '../bench/fixtures.ts';

if (process.env.LIMITS_SHAPE_CHILD === '1') {
  const data = await polymarketRecording();
  const cfg = await loadBacktestConfig('config/backtest.yaml', {}, {});
  const limitsOf = async (): Promise<unknown> => {
    const r = await runBacktest({ source: loadReplaySource(data), config: cfg.bot, settings: cfg.settings });
    return (r.store as unknown as { limits: unknown }).limits;
  };
  // the second and third runs: by then V8 has optimised what it will of the set-up code
  await limitsOf();
  const a = await limitsOf();
  const b = await limitsOf();
  // natives syntax is parsed only with the flag, so it goes through the Function constructor
  const sameMap = new Function('a', 'b', 'return %HaveSameMap(a, b)') as (a: unknown, b: unknown) => boolean;
  process.stdout.write(JSON.stringify({ sameMap: sameMap(a, b), equal: JSON.stringify(a) === JSON.stringify(b) }) + '\n');
} else {
  test("two runs' store limits share one hidden class", () => {
    const out = execFileSync(process.execPath, ['--allow-natives-syntax', '--import', 'tsx', fileURLToPath(import.meta.url)], {
      env: { ...process.env, LIMITS_SHAPE_CHILD: '1' },
      encoding: 'utf8',
    });
    const r = JSON.parse(out.trim().split('\n').pop()!) as { sameMap: boolean; equal: boolean };
    assert.equal(r.equal, true, 'the same config gives the same limits');
    assert.equal(r.sameMap, true, 'the limits object got a new hidden class between the second and third runs (built with spreads?)');
  });
}
