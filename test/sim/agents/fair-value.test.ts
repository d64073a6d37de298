/**
 * The hidden fair value's walk (src/sim/agents/fair-value.ts): a walk in logit space drifts toward ½
 * in probability; `martingale: true` keeps the expected probability where it is.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_FAIR_VALUE, fairProbability, initFairValue, martingaleJumpMean, stepFairValue } from '../../../src/sim/agents/fair-value.ts';
import { createRng } from '../../../src/sim/rng.ts';
import { FLOW_PRESETS, flowPresetAgents } from '../../../src/sim/flow-presets.ts';

const sigmoid = (x: number) => 1 / (1 + Math.exp(-x));
// a walk like the calibrated preset's as it was fitted on 2026-11-29 (0.025 logit/√s, a jump of σ 0.9 every 150 s;
// today's: CALIBRATED_FIT in src/sim/flow-presets.ts): the martingale checks below hold for any such walk
const CAL = { ...DEFAULT_FAIR_VALUE, volPerSqrtSec: 0.025, jumpRatePerSec: 1 / 150, jumpStd: 0.9 };

/** mean probability after `seconds` over `n` paths from `p0` (steps of 500 ms, as the agents step) */
function meanAfter(p0: number, seconds: number, martingale: boolean, n = 300): number {
  let sum = 0;
  for (let i = 0; i < n; i++) {
    const rng = createRng(1000 + i);
    let s = initFairValue(p0, { ...CAL, martingale }, rng, 0);
    for (let t = 500; t <= seconds * 1000; t += 500) s = stepFairValue(s, { ...CAL, martingale }, rng, t);
    sum += fairProbability(s);
  }
  return sum / n;
}

describe('fair value: martingale in probability', () => {
  it("a jump's mean: 0 at ½, positive above ½, negative below, and the expected probability after it is the one before", () => {
    const lim = Math.log(0.98 / 0.02);
    assert.ok(Math.abs(martingaleJumpMean(0, 0.9, lim)) < 1e-9);
    const x = Math.log(4); // p = 0.8
    const m = martingaleJumpMean(x, 0.9, lim);
    assert.ok(m > 0.1 && m < 0.5, `m = ${m}`);
    assert.ok(martingaleJumpMean(-x, 0.9, lim) < -0.1);
    // E[sigmoid(clamp(x + m + 0.9 Z))] by a fine sum
    let e = 0;
    let w = 0;
    for (let z = -8; z <= 8; z += 0.001) {
      const d = Math.exp((-z * z) / 2);
      e += d * sigmoid(Math.min(lim, Math.max(-lim, x + m + 0.9 * z)));
      w += d;
    }
    assert.ok(Math.abs(e / w - 0.8) < 1e-4, `E = ${e / w}`);
  });
  it('ten minutes from 0.8: the logit walk drifts toward ½, the martingale stays', () => {
    const drift = meanAfter(0.8, 600, false);
    const mart = meanAfter(0.8, 600, true);
    assert.ok(drift < 0.75, `without: ${drift}`);
    assert.ok(Math.abs(mart - 0.8) < 0.03, `with: ${mart}`);
  });
  it('the same draws either way: at ½ with no diffusion the paths agree', () => {
    const cfg = { ...CAL, volPerSqrtSec: 0, jumpRatePerSec: 0 };
    const a = stepFairValue(initFairValue(0.5, cfg, createRng(1), 0), cfg, createRng(2), 10_000);
    const b = stepFairValue(initFairValue(0.5, { ...cfg, martingale: true }, createRng(1), 0), { ...cfg, martingale: true }, createRng(2), 10_000);
    assert.equal(fairProbability(a), fairProbability(b));
  });
});

describe('fair value: the flow presets', () => {
  for (const preset of FLOW_PRESETS) {
    it(`${preset}: a martingale by default (five minutes from 0.7 stay at 0.7 on average)`, () => {
      const cfg = { ...DEFAULT_FAIR_VALUE, ...flowPresetAgents(preset).fair };
      assert.equal(cfg.martingale, true);
      // 200 paths: the plain logit walk ends at 0.60 (calibrated) and 0.58 (toxic) on these draws
      let sum = 0;
      const n = 200;
      for (let i = 0; i < n; i++) {
        const rng = createRng(5000 + i);
        let s = initFairValue(0.7, cfg, rng, 0);
        for (let t = 5000; t <= 300_000; t += 5000) s = stepFairValue(s, cfg, rng, t);
        sum += fairProbability(s);
      }
      assert.ok(Math.abs(sum / n - 0.7) < 0.05, `${preset}: ${sum / n}`);
    });
  }
});
