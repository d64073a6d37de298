/**
 * A rank report's rows (kept by the Ranker until the entry is ranked again) are one literal each, not
 * `{ ...decision, marketId, name, drops }`: a spread followed by new keys gave each row a V8 map of its own
 * (docs/performance/map-churn.md). Counted with V8's %HaveSameMap (natives syntax, switched on for one function made here);
 * the rows keep their keys and order.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { parseConfigText } from '../../src/config/load-config.ts';
import { selectMarkets } from '../../src/selection/select-markets.ts';
import { Ranker } from '../../src/selection/ranker.ts';
import { fakeSource, market } from './fake-source.ts';

setFlagsFromString('--allow-natives-syntax');
const haveSameMap = new Function('a', 'b', 'return %HaveSameMap(a, b);') as (a: object, b: object) => boolean;

function distinctMaps(objs: readonly object[]): number {
  const reps: object[] = [];
  for (const o of objs) if (!reps.some((r) => haveSameMap(r, o))) reps.push(o);
  return reps.length;
}

const SPREAD_ONLY = 'weights: { spread: 1, depth: 0, volume: 0, volume24h: 0, volatility: 0, tradeRate: 0, timeToDeadline: 0, oracleDisagreement: 0, fee: 0 }';

test('the 60 rows of a rank report share one map, with the decision keys then marketId, name, drops', async () => {
  const text = `venue: mainnet
defaults:
  risk: { maxNotional: 200, maxTotalNotional: 100000 }
markets:
  - rank:
      top: 5
      ${SPREAD_ONLY}
`;
  const c = await parseConfigText(text, 'x.yaml', { env: {} });
  const src = fakeSource(Array.from({ length: 60 }, (_, i) => market(i + 1, { bid: 400_000, ask: 400_000 + (1 + (i % 9)) * 10_000 })));
  const ranker = new Ranker();
  await selectMarkets(src, c.markets, { ranker, now: () => 0 });
  const rows = ranker.lastReports()[0]!.rows;
  assert.equal(rows.length, 60);
  assert.deepEqual(Object.keys(rows[0]!), ['id', 'score', 'terms', 'status', 'scored', 'verdict', 'effective', 'place', 'marketId', 'name', 'drops']);
  assert.equal(distinctMaps(rows), 1);
  // the check tells maps apart: a row of another shape has another map
  assert.equal(haveSameMap(rows[0]!, { ...rows[0]!, extra: 1 }), false);
});
