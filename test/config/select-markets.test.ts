import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseConfigText } from '../../src/config/load-config.ts';
import { selectMarkets, type MarketInfo } from '../../src/selection/selectors.ts';
import type { Bytes32 } from '../../src/model/order.ts';

const id = (n: number) => ('0x' + n.toString(16).padStart(64, '0')) as Bytes32;
const M = (n: number, o: Partial<MarketInfo> = {}): MarketInfo => ({
  id: id(n),
  slug: `m${n}`,
  category: n % 2 ? 'sports' : 'politics',
  status: 'active',
  volume: n * 1_000_000_000,
  ...o,
});
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

test('assignFirstWins: first entry wins, an owned market does not count toward a later limit, maxMarkets caps the whole', async () => {
  const { assignFirstWins } = await import('../../src/selection/selectors.ts');
  const got = assignFirstWins(
    [
      { ids: ['0xa', '0xb'], limit: 0 },
      { ids: ['0xa', '0xc', '0xd'], limit: 1 }, // 0xa is owned: the limit takes 0xc
      { ids: ['0xe', '0xf'], limit: 0 },
    ],
    4,
  );
  assert.deepEqual(
    [...got],
    [
      ['0xa', 0],
      ['0xb', 0],
      ['0xc', 1],
      ['0xe', 2],
    ],
  );
});

test('matchesSelector: categories from the venue list, case-insensitive; rank pre-filter is active, category and volume', async () => {
  const { matchesSelector } = await import('../../src/selection/selectors.ts');
  const c = await parseConfigText(
    `venue: mainnet\nmarkets:\n  - filter: { category: Sports, minVolume: 5 }\n  - rank: { filter: { category: sports, minVolume: 5 } }\n`,
    'x.yaml',
    { env: {} },
  );
  const [f, r] = c.markets.map((m) => m.select);
  const m = { id: id(1), categories: ['news', 'SPORTS'], status: 'active' as const, volume: 5_000_000n };
  assert.equal(matchesSelector(f!, m), true);
  assert.equal(matchesSelector(r!, m), true);
  assert.equal(matchesSelector(r!, { ...m, volume: 4_999_999n }), false);
  assert.equal(matchesSelector(r!, { ...m, status: 'pending' }), false);
  assert.equal(matchesSelector(f!, { ...m, categories: ['news'] }), false);
  // a market that names no category passes: the venue's category filter listed it
  assert.equal(matchesSelector(f!, { ...m, categories: [] }), true);
  // the pure selection leaves rank entries to the runtime (they need the venue's scores)
  assert.deepEqual(selectMarkets(c.markets.slice(1), [M(1)]).selected, []);
});
