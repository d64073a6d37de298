import assert from 'node:assert/strict';
import { test } from 'node:test';
import { flowStats, quantileCi } from '../../src/backtest/flow-stats.ts';
import { loadReplaySource } from '../../src/backtest/replay-source.ts';
import { syntheticSource } from '../../src/backtest/synthetic-source.ts';
import { polymarketRecording } from '../bench/fixtures.ts';

test('quantileCi: the order statistics at ranks n·q ∓ 1.96·√(n·q·(1 − q))', () => {
  const xs = Array.from({ length: 100 }, (_, i) => i + 1);
  // median of 1..100: ranks 50 ∓ 9.8 → the 39th and 59th values (1-based ranks 40 and 60)
  assert.deepEqual(quantileCi(xs, 0.5), { lo: 40, hi: 60 });
  // 90th percentile: 90 ∓ 5.88 → 84.1 and 95.9 → values 84 and 96
  assert.deepEqual(quantileCi(xs, 0.9), { lo: 84, hi: 96 });
  // clamped at the ends, NaN when empty
  assert.deepEqual(quantileCi([7], 0.9), { lo: 7, hi: 7 });
  assert.ok(Number.isNaN(quantileCi([], 0.5).lo));
});

test('the calibrated preset matches the capture: passive markouts at 10 s and 60 s and the size tail inside its intervals, adverse drift growing with the horizon', async () => {
  const capture = flowStats(loadReplaySource(await polymarketRecording()));
  // seeds neither the fit (9001…) nor the edge bench (1…) uses; the mean of two, as one
  // half-hour sample's 60 s markout and 90th-percentile size spread wider than the capture's intervals
  const sims = [41, 42].map(async (seed) => flowStats(await syntheticSource({ seed, hours: 0.5, markets: 4, flow: 'calibrated' })));
  const all = await Promise.all(sims);
  const mean = (f: (x: (typeof all)[number]) => number) => all.reduce((a, x) => a + f(x), 0) / all.length;
  for (const h of ['10s', '60s'] as const) {
    const c = capture.passiveMarkouts[h];
    const s = mean((x) => x.passiveMarkouts[h].centsPerShare);
    assert.ok(s >= c.lo && s <= c.hi, `${h}: ${s.toFixed(2)}¢ inside the capture's [${c.lo.toFixed(2)}, ${c.hi.toFixed(2)}]`);
  }
  assert.ok(
    mean((x) => x.passiveMarkouts['60s'].centsPerShare) < mean((x) => x.passiveMarkouts['1s'].centsPerShare) - 0.5,
    'the adverse drift keeps growing after 1 s',
  );
  const r = mean((x) => x.tradesPerMarketMinute);
  assert.ok(r >= capture.tradeRateCi.lo && r <= capture.tradeRateCi.hi, `trade rate ${r.toFixed(2)} inside the capture's interval`);
  // the tail of the print sizes: an order larger than the touch prints as several trades
  const p90 = mean((x) => x.size.p90);
  assert.ok(
    p90 >= capture.sizeCi.p90.lo && p90 <= capture.sizeCi.p90.hi,
    `size p90 ${p90.toFixed(0)} inside the capture's [${capture.sizeCi.p90.lo}, ${capture.sizeCi.p90.hi}]`,
  );
});
