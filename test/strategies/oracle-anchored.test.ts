import { test } from 'node:test';
import assert from 'node:assert/strict';
import oa from '../../strategies/oracle-anchored/index.ts';
import { blendFair, oracleWeight } from '../../strategies/oracle-anchored/fair-value.ts';
import { ConfigError } from '../../src/model/errors.ts';
import { makeView, NOW, S } from '../strategy/make-view.ts';
import type { ViewOracle } from '../../src/strategy/types.ts';

const oracle = (probability: number, confidence: number, ageMs: number): ViewOracle => ({ probability, confidence, ageMs, updatedAt: NOW - ageMs });

test('oracle-anchored: weight and blend', () => {
  assert.equal(oracleWeight(null, 0.5, 300_000), 0);
  assert.equal(oracleWeight(oracle(0.6, 1, 0), 0.5, 300_000), 0.5);
  assert.equal(oracleWeight(oracle(0.6, 0.5, 150_000), 0.8, 300_000), 0.2);
  assert.equal(oracleWeight(oracle(0.6, 1, 300_000), 0.8, 300_000), 0, 'stale at the limit');
  const b = blendFair(0.5, oracle(0.6, 1, 0), 0.5, 300_000)!;
  assert.ok(Math.abs(b.fair - 0.55) < 1e-12);
  assert.ok(Math.abs(b.disagreement - 0.1) < 1e-12);
  assert.equal(blendFair(null, null, 0.5, 1000), null);
  assert.equal(blendFair(null, oracle(0.3, 1, 0), 0.5, 1000)!.fair, 0.3, 'oracle alone when the book is one-sided');
});

test('oracle-anchored: quote table', () => {
  const base = { book: 'mid', oracleWeight: 0.5, halfSpread: 0.02, disagreeThreshold: 0.05, widenFactor: 2, maxOracleAgeSeconds: 300 };
  const rows: { name: string; params?: object; view: ReturnType<typeof makeView>; want: string[] | null }[] = [
    { name: 'no oracle: book mid only', view: makeView(), want: ['bid 480000', 'ask 520000'] },
    { name: 'agreeing oracle pulls fair by w·Δ', view: makeView({ oracle: oracle(0.54, 1, 0) }), want: ['bid 500000', 'ask 540000'] },
    { name: 'disagreeing oracle widens', view: makeView({ oracle: oracle(0.6, 1, 0) }), want: ['bid 510000', 'ask 590000'] },
    { name: 'low confidence: small pull, but still widens', view: makeView({ oracle: oracle(0.7, 0.2, 0) }), want: ['bid 480000', 'ask 560000'] },
    { name: 'half-stale oracle counts half', view: makeView({ oracle: oracle(0.54, 1, 150_000) }), want: ['bid 490000', 'ask 530000'] },
    { name: 'stale oracle ignored', view: makeView({ oracle: oracle(0.9, 1, 400_000) }), want: ['bid 480000', 'ask 520000'] },
    { name: 'stale oracle with pullWhenStale: pull', params: { pullWhenStale: true }, view: makeView({ oracle: oracle(0.9, 1, 400_000) }), want: null },
    { name: 'missing oracle with pullWhenStale: pull', params: { pullWhenStale: true }, view: makeView(), want: null },
    {
      name: 'one-sided book, fresh oracle: quote the oracle',
      view: makeView({ bids: [{ price: 300_000, size: S }], asks: [], oracle: oracle(0.42, 1, 0) }),
      want: ['bid 400000', 'ask 440000'],
    },
    { name: 'one-sided book, no oracle: pull', view: makeView({ bids: [{ price: 300_000, size: S }], asks: [] }), want: null },
    {
      name: 'inventory skew: long 10 shares lowers fair 1¢',
      params: { inventorySkew: 0.001 },
      view: makeView({ net: 10 * S }),
      want: ['bid 470000', 'ask 510000'],
    },
  ];
  for (const r of rows) {
    const cfg = oa.parseConfig({ ...base, ...r.params }, 'p');
    const got = oa.quote(r.view, cfg);
    assert.deepEqual(got && got.map((q) => `${q.side} ${q.price}`), r.want, r.name);
  }
});

test('oracle-anchored: config errors name the path', () => {
  const bad: [unknown, RegExp][] = [
    [{ oracleWeight: 1.5 }, /^s\.oracleWeight: expected a number in \[0, 1\], got 1\.5/],
    [{ halfSpread: 'wide' }, /^s\.halfSpread: expected a number in \(0, 0\.5\], got "wide"/],
    [{ pullWhenStale: 'yes' }, /^s\.pullWhenStale: expected true or false, got "yes"/],
    [{ widenFactor: 0.5 }, /^s\.widenFactor: expected a number in \[1, 100\]/],
    [{ maxOracleAge: 3 }, /^s\.maxOracleAge: expected a known key/],
    [[1, 2], /^s: expected a mapping, got a list/],
  ];
  for (const [raw, re] of bad) {
    assert.throws(
      () => oa.parseConfig(raw, 's'),
      (e: unknown) => e instanceof ConfigError && re.test(e.message),
      JSON.stringify(raw),
    );
  }
});
