/**
 * How fast each flow preset's hidden fair value (src/sim/agents/fair-value.ts, a martingale in
 * probability bounded by 0.02/0.98) settles near a bound: 400 paths per preset started uniformly in
 * [0.2, 0.8], stepped every 500 ms for an hour; the share of paths outside 5–95 % after 10, 30 and
 * 60 minutes, and the share of the first 30 minutes spent inside 5–95 %. docs/edge.md, "`toxic` is
 * not toxic with a martingale, and why".
 *
 *   node --import tsx scripts/fair-value-bounds.ts
 */
import { DEFAULT_FAIR_VALUE, initFairValue, stepFairValue, type FairValueConfig } from '../src/sim/agents/fair-value.ts';
import { flowPresetAgents, FLOW_PRESETS } from '../src/sim/flow-presets.ts';
import { createRng } from '../src/sim/rng.ts';

const sigmoid = (x: number) => 1 / (1 + Math.exp(-x));
for (const flow of FLOW_PRESETS) {
  const cfg: FairValueConfig = { ...DEFAULT_FAIR_VALUE, ...flowPresetAgents(flow).fair };
  const rng = createRng(7);
  const outside = { 600_000: 0, 1_800_000: 0, 3_600_000: 0 } as Record<number, number>;
  let inner = 0;
  let samples = 0;
  const paths = 400;
  for (let path = 0; path < paths; path++) {
    let s = initFairValue(0.2 + 0.6 * rng.next(), cfg, rng, 0);
    for (let t = 500; t <= 3_600_000; t += 500) {
      s = stepFairValue(s, cfg, rng, t);
      const p = sigmoid(s.logit);
      const out = p < 0.05 || p > 0.95;
      if (t <= 1_800_000) {
        samples++;
        if (!out) inner++;
      }
      if (t in outside && out) outside[t]!++;
    }
  }
  const pct = (n: number) => `${((n / paths) * 100).toFixed(0)} %`;
  process.stdout.write(
    `${flow}: outside 5–95 % after 10 min ${pct(outside[600_000]!)}, 30 min ${pct(outside[1_800_000]!)}, 60 min ${pct(outside[3_600_000]!)}; ` +
      `first 30 min inside ${((inner / samples) * 100).toFixed(0)} % of the time\n`,
  );
}
