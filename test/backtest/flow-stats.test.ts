import assert from 'node:assert/strict';
import { test } from 'node:test';
import { flowStats, quantileCi } from '../../src/backtest/flow-stats.ts';
import { loadReplaySource } from '../../src/backtest/replay-source.ts';
import { syntheticSource } from '../../src/backtest/synthetic-source.ts';
import { polymarketRecording } from '../bench/fixtures.ts';
import { M, onRecording } from './helpers.ts';

const S = 1_000_000;
const close = (a: number, b: number, what: string) => assert.ok(Math.abs(a - b) < 1e-9, `${what}: ${a} ≠ ${b}`);

test('sweeps: counted where the run first reaches N shares, sized by the whole run, and what the mid and the prints do after', async () => {
  // the others' book: 0.40 / 0.60 at 0 (onRecording), then a 350-share buy run at 10 s (two prints at
  // once), the book re-quoted to 0.44 / 0.64 by 11 s, then mids 0.56 (15 s), 0.60 (40 s), 0.58 (70 s)
  const book = (t: number, bid: number, ask: number) => ({
    t: 'xbook' as const,
    m: M,
    vts: t,
    lts: t,
    snap: true as const,
    b: [[bid, 500 * S]] as [number, number][],
    a: [[ask, 500 * S]] as [number, number][],
  });
  const print = (t: number, p: number, shares: number, side: 'buy' | 'sell') => ({ t: 'trade' as const, m: M, vts: t, lts: t, p, s: shares * S, side });
  await onRecording(
    0,
    (w) => {
      w.write(print(10_000, 600_000, 200, 'buy'));
      w.write(print(10_000, 610_000, 150, 'buy'));
      w.write(book(10_500, 440_000, 640_000));
      w.write(print(12_000, 440_000, 10, 'sell'));
      w.write(print(13_000, 640_000, 30, 'buy'));
      w.write(book(15_000, 480_000, 640_000));
      w.write(book(40_000, 560_000, 640_000));
      w.write(book(70_000, 520_000, 640_000));
      w.write(book(100_000, 520_000, 640_000));
    },
    async (dir) => {
      const s = flowStats(loadReplaySource(dir)).sweeps;
      assert.equal(s['100'].count, 1, 'one run, counted once where it first reaches 100 shares');
      assert.equal(s['300'].count, 1);
      assert.equal(s['600'].count, 0, '350 shares is no 600-share sweep');
      const w = s['300'];
      close(w.perMarketHour, 36, 'one sweep in 100 s of a listed market');
      assert.equal(w.sizeP50, 350);
      assert.equal(w.spanP50Ms, 0, 'both prints at once');
      // the mid 1 s after (0.54) against 5/30/60 s after (0.56, 0.60, 0.58), in the sweep's direction
      close(w.continuation['5s'].mean, 2, 'continuation 5 s');
      close(w.continuation['30s'].mean, 6, 'continuation 30 s');
      close(w.continuation['60s'].mean, 4, 'continuation 60 s');
      // a follower pays the ask 1 s after (0.64)
      close(w.follower['5s'].mean, -8, 'follower 5 s');
      close(w.follower['30s'].mean, -4, 'follower 30 s');
      close(w.follower['60s'].mean, -6, 'follower 60 s');
      // after it: a 10-share sale and a 30-share buy within 10 s; 4 prints in 100 s is 2.4 a minute
      close(w.afterSameSide.mean, 0.75, 'same side');
      close(w.afterRate.mean, 12 / 2.4, 'prints after');
    },
  );
});

test("a 25-share quote's markout: each print weighted by min(size, 25 shares), where the passive markout weighs it by its size", async () => {
  // mid 0.50 until the book moves to 0.60 / 0.80 at 10.5 s; a 100-share buy at 0.60 at 10 s (its maker
  // sold at 60¢, the mid then 70¢: −10¢), a 10-share sale at 0.60 at 30 s (its maker bought at 60¢: +10¢)
  const book = (t: number, bid: number, ask: number) => ({
    t: 'xbook' as const,
    m: M,
    vts: t,
    lts: t,
    snap: true as const,
    b: [[bid, 500 * S]] as [number, number][],
    a: [[ask, 500 * S]] as [number, number][],
  });
  await onRecording(
    0,
    (w) => {
      w.write({ t: 'trade', m: M, vts: 10_000, lts: 10_000, p: 600_000, s: 100 * S, side: 'buy' });
      w.write(book(10_500, 600_000, 800_000));
      w.write({ t: 'trade', m: M, vts: 30_000, lts: 30_000, p: 600_000, s: 10 * S, side: 'sell' });
      w.write(book(100_000, 600_000, 800_000));
    },
    async (dir) => {
      const s = flowStats(loadReplaySource(dir));
      for (const h of ['1s', '10s', '60s'] as const) {
        close(s.passiveMarkouts[h].centsPerShare, (100 * -10 + 10 * 10) / 110, `size-weighted ${h}`);
        close(s.quoteMarkouts[h].centsPerShare, (25 * -10 + 10 * 10) / 35, `a 25-share quote ${h}`);
        assert.equal(s.quoteMarkouts[h].n, 2);
      }
    },
  );
});

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

test("the calibrated preset matches the capture: a 25-share quote's 1 and 10 s markouts inside its intervals, large prints more adverse than small ones, the trade rate, the size tail and the rate of 300-share sweeps inside its intervals", async () => {
  const capture = flowStats(loadReplaySource(await polymarketRecording()));
  // seeds neither the fit (9001…, 9101…, 9201…) nor the edge bench (1…) uses; the mean of two, as one
  // half-hour sample's 60 s markout and 90th-percentile size spread wider than the capture's intervals
  const sims = [41, 42].map(async (seed) => flowStats(await syntheticSource({ seed, hours: 0.5, markets: 4, flow: 'calibrated' })));
  const all = await Promise.all(sims);
  const mean = (f: (x: (typeof all)[number]) => number) => all.reduce((a, x) => a + f(x), 0) / all.length;
  // a 25-share quote at the front of the touch: the capture's is near zero (its small prints are
  // noise); inside its 95 % intervals at 1 and 10 s, as the fit is asked to be (the quote refit before
  // this fit: +0.33¢ and +0.09¢ on these seeds, outside at both)
  for (const h of ['1s', '10s'] as const) {
    const q = capture.quoteMarkouts[h];
    const m = mean((x) => x.quoteMarkouts[h].centsPerShare);
    assert.ok(m >= q.lo && m <= q.hi, `a 25-share quote's ${h} markout ${m.toFixed(2)}¢ inside the capture's [${q.lo.toFixed(2)}, ${q.hi.toFixed(2)}]`);
  }
  // the capture's large prints are more adverse than its small ones: size-weighted minus a 25-share
  // quote, −0.82¢ [−1.64, −0.00] at 1 s and −1.03¢ [−2.05, −0.01] at 10 s (the prints paired); the
  // preset's too. At 60 s the capture's gap (−1.93¢ [−3.18, −0.68]) is not the preset's: over seeds
  // 41–60 it is −0.21¢ [−0.50, +0.07] (the quote refit's +0.03¢ [−0.30, +0.36]), so not asserted
  // (docs/edge.md, "The shipped fit")
  for (const h of ['1s', '10s'] as const) {
    assert.ok(capture.passiveMarkouts[h].centsPerShare < capture.quoteMarkouts[h].centsPerShare, `capture ${h}`);
    const p = mean((x) => x.passiveMarkouts[h].centsPerShare);
    const s = mean((x) => x.quoteMarkouts[h].centsPerShare);
    assert.ok(p < s, `${h}: size-weighted ${p.toFixed(2)}¢ below the 25-share quote's ${s.toFixed(2)}¢`);
  }
  const r = mean((x) => x.tradesPerMarketMinute);
  assert.ok(r >= capture.tradeRateCi.lo && r <= capture.tradeRateCi.hi, `trade rate ${r.toFixed(2)} inside the capture's interval`);
  // the tail of the print sizes: an order larger than the touch prints as several trades
  const p90 = mean((x) => x.size.p90);
  assert.ok(
    p90 >= capture.sizeCi.p90.lo && p90 <= capture.sizeCi.p90.hi,
    `size p90 ${p90.toFixed(0)} inside the capture's [${capture.sizeCi.p90.lo}, ${capture.sizeCi.p90.hi}]`,
  );
  // the sweeps follow trades on, as often as the capture's
  const c300 = capture.sweeps['300'];
  const rate300 = mean((x) => x.sweeps['300'].perMarketHour);
  assert.ok(
    rate300 >= c300.perMarketHourCi.lo && rate300 <= c300.perMarketHourCi.hi,
    `300-share sweeps ${rate300.toFixed(1)} per market-hour inside the capture's [${c300.perMarketHourCi.lo.toFixed(1)}, ${c300.perMarketHourCi.hi.toFixed(1)}]`,
  );
});
