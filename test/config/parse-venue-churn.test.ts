/** `venue.local` market-churn settings (src/config/parse-venue.ts): defaults, values, refusals naming the field. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseVenue } from '../../src/config/parse-venue.ts';
import { churnOptions } from '../../src/sim/market-churn.ts';
import { autoClaimAfterMs } from '../../src/sim/auto-claim.ts';
import { SYNTHETIC_SETTLE_OUTSIDE } from '../../src/backtest/synthetic-source.ts';

function local(raw: Record<string, unknown>) {
  const v = parseVenue({ local: raw }, 'venue');
  assert.equal(v.kind, 'local');
  if (v.kind !== 'local') throw new Error('not local');
  return v.local;
}

test('defaults: no churn, 30-minute lifetime, delay derived, no cap, the synthetic backtest’s settle band', () => {
  const l = local({});
  assert.equal(l.newMarketEverySeconds, 0);
  assert.equal(l.marketLifetimeSeconds, 1800);
  assert.equal(l.resolutionDelaySeconds, null);
  assert.equal(l.maxLiveMarkets, 0);
  assert.equal(l.settleOutside, SYNTHETIC_SETTLE_OUTSIDE);
  const o = churnOptions(l.seed, l);
  assert.equal(o.newMarketEveryMs, 0);
  assert.equal(o.resolutionDelayMs, undefined);
  assert.equal(o.settleOutside, 0.05);
  assert.equal(local({ settleOutside: 0 }).settleOutside, 0, '0: never');
  assert.equal(churnOptions(1, local({ settleOutside: 0.1 })).settleOutside, 0.1);
});

test('values are read and become the churn options in whole ms', () => {
  const l = local({ newMarketEverySeconds: 15, marketLifetimeSeconds: 45, resolutionDelaySeconds: 2.5, maxLiveMarkets: 20 });
  assert.deepEqual([l.newMarketEverySeconds, l.marketLifetimeSeconds, l.resolutionDelaySeconds, l.maxLiveMarkets], [15, 45, 2.5, 20]);
  const o = churnOptions(7, l);
  assert.deepEqual([o.seed, o.newMarketEveryMs, o.lifetimeMs, o.resolutionDelayMs, o.maxLiveMarkets], [7, 15_000, 45_000, 2_500, 20]);
});

test('bad values are refused naming the field', () => {
  const cases: [Record<string, unknown>, RegExp][] = [
    [{ newMarketEverySeconds: -1 }, /venue\.local\.newMarketEverySeconds/],
    [{ newMarketEverySeconds: '30' }, /venue\.local\.newMarketEverySeconds/],
    [{ marketLifetimeSeconds: 0 }, /venue\.local\.marketLifetimeSeconds/],
    [{ marketLifetimeSeconds: 400 * 86_400 }, /venue\.local\.marketLifetimeSeconds/],
    [{ resolutionDelaySeconds: -0.5 }, /venue\.local\.resolutionDelaySeconds/],
    [{ maxLiveMarkets: 2.5 }, /venue\.local\.maxLiveMarkets/],
    [{ settleOutside: 0.5 }, /venue\.local\.settleOutside/],
    [{ settleOutside: -0.01 }, /venue\.local\.settleOutside/],
    [{ settleOutside: '5%' }, /venue\.local\.settleOutside/],
    [{ newMarketEvery: 30 }, /newMarketEvery/],
  ];
  for (const [raw, re] of cases) assert.throws(() => local(raw), re, JSON.stringify(raw));
});

test('autoClaimAfterSeconds: off by default, seconds to whole ms, bad values refused naming the field', () => {
  assert.equal(local({}).autoClaimAfterSeconds, null, 'off: positions stay claimable');
  assert.equal(autoClaimAfterMs(local({}).autoClaimAfterSeconds), null);
  assert.equal(local({ autoClaimAfterSeconds: 0 }).autoClaimAfterSeconds, 0);
  assert.equal(autoClaimAfterMs(local({ autoClaimAfterSeconds: 45.5 }).autoClaimAfterSeconds), 45_500);
  for (const bad of [-1, '30', 400 * 86_400, Number.NaN, true])
    assert.throws(() => local({ autoClaimAfterSeconds: bad }), /venue\.local\.autoClaimAfterSeconds/, String(bad));
  assert.throws(() => local({ autoClaimAfter: 30 }), /autoClaimAfter/);
});
