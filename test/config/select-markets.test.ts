import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseConfigText } from '../../src/config/load-config.ts';
import { selectMarkets, type MarketInfo } from '../../src/config/select-markets.ts';

const id = (n: number) => ('0x' + n.toString(16).padStart(64, '0')) as `0x${string}`;
const M = (n: number, o: Partial<MarketInfo> = {}): MarketInfo => ({ id: id(n), slug: `m${n}`, category: n % 2 ? 'sports' : 'politics', status: 'active', volume: n * 1_000_000_000, ...o });
const list = [M(1), M(2), M(3), M(4, { status: 'resolved' }), M(5), M(6)];

test('first entry wins; filters by status, category, volume; limit by volume', async () => {
  const c = await parseConfigText(
    `venue: mainnet
markets:
  - slug: m1
    strategy: avellaneda
  - id: "${id(99)}"
  - filter: { category: sports, minVolume: 2000, limit: 1 }
  - filter: { category: Sports }
    strategy: oracle-anchored
  - slug: nope
  - all: true
`,
    'x.yaml',
    { env: {} },
  );
  const s = selectMarkets(c.markets, list);
  const got = Object.fromEntries(s.selected.map((x) => [Number.parseInt(x.marketId.slice(2), 16), x.entry]));
  // m1 → entry 0; 99 by id → 1; sports ≥ 2000: m5 (highest volume) → 2 (limit 1); m3 → 3; active rest (6, 2) → 5; m4 resolved: none
  assert.deepEqual(got, { 1: 0, 99: 1, 5: 2, 3: 3, 6: 5, 2: 5 });
  assert.equal(s.selected.find((x) => x.entry === 0)!.config.strategy.ref, 'avellaneda');
  assert.deepEqual(s.missing, ['nope']);
});
