import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseConfigText } from '../../src/config/load-config.ts';
import { DEFAULT_WEIGHTS } from '../../src/config/types.ts';
import type { RankSettings } from '../../src/config/types.ts';
import { rankSettings } from '../support/rank-settings.ts';

const parse = (markets: string) => parseConfigText(`venue: mainnet\n${markets}`, 'x.yaml', { env: {} });
const rankOf = async (markets: string): Promise<RankSettings> => {
  const c = await parse(markets);
  const s = c.markets[0]!.select;
  assert.equal(s.by, 'rank');
  return (s as { rank: RankSettings }).rank;
};

test('rank: defaults (top 20, no floor, capital from risk, margin 0.1, hold 600 s, default weights, 200 requests, 4 at once)', async () => {
  assert.deepEqual(await rankOf('markets:\n  - rank: {}\n'), rankSettings());
  // the budget's floor follows the reads the weights need: none → any budget
  assert.equal((await rankOf('markets:\n  - rank: { budget: { requests: 106 } }\n')).maxRequests, 106);
  assert.equal(
    (await rankOf('markets:\n  - rank: { budget: { requests: 1 }, weights: { depth: 0, volatility: 0, tradeRate: 0, oracleDisagreement: 0 } }\n')).maxRequests,
    1,
  );
  // an empty `rank:` is the defaults too
  assert.equal((await rankOf('markets:\n  - rank:\n')).top, 20);
});

test('rank: every setting, amounts in USDC → 1e-6 units, weights merged over the defaults', async () => {
  const r = await rankOf(`markets:
  refreshSeconds: 30
  select:
    - rank:
        top: 5
        minScore: -0.25
        capital: { perMarket: 150.5, total: 1500 }
        hysteresis: { enterMargin: 0.2, minHoldSeconds: 90 }
        weights: { spread: 2, fee: 0 }
        filter: { category: Sports, minVolume: 1000 }
        feeBps: 25
        budget: { requests: 50, concurrency: 2, shortlist: 12 }
      strategy: avellaneda
`);
  assert.deepEqual(r, {
    top: 5,
    minScore: -0.25,
    perMarket: 150_500_000,
    total: 1_500_000_000,
    enterMargin: 0.2,
    minHoldMs: 90_000,
    weights: { ...DEFAULT_WEIGHTS, spread: 2, fee: 0 },
    minVolume: 1_000_000_000,
    feeBps: 25,
    maxRequests: 50,
    concurrency: 2,
    shortlist: 12,
    category: 'Sports',
  });
});

test('rank: bad settings are clear errors with their path', async () => {
  const bad: [string, RegExp][] = [
    ['rank: { top: 0 }', /markets\[0\]\.rank\.top: expected an integer in \[1, 10000\]/],
    ['rank: { top: 2.5 }', /markets\[0\]\.rank\.top/],
    ['rank: { weights: { spreads: 1 } }', /markets\[0\]\.rank\.weights\.spreads: expected a known key/],
    ['rank: { weights: { spread: "high" } }', /markets\[0\]\.rank\.weights\.spread/],
    ['rank: { capital: { perMarket: 0 } }', /markets\[0\]\.rank\.capital\.perMarket/],
    ['rank: { capital: { perMarket: 100, total: 50 } }', /markets\[0\]\.rank\.capital\.total: expected at least perMarket/],
    ['rank: { hysteresis: { enterMargin: -1 } }', /markets\[0\]\.rank\.hysteresis\.enterMargin/],
    ['rank: { hysteresis: { minHold: 5 } }', /markets\[0\]\.rank\.hysteresis\.minHold/],
    ['rank: { budget: { concurrency: 0 } }', /markets\[0\]\.rank\.budget\.concurrency/],
    ['rank: { filter: { status: resolved } }', /markets\[0\]\.rank\.filter\.status/],
    ['rank: { feeBps: -1 }', /markets\[0\]\.rank\.feeBps/],
    ['rank: true', /markets\[0\]\.rank: expected a mapping/],
    // 20 markets × 4 reads = 80 after the list's quarter: at least 106 (106 − ⌊106 / 4⌋ = 80)
    [
      'rank: { budget: { requests: 105 } }',
      /markets\[0\]\.rank\.budget\.requests: expected at least 106 \(a quarter for the market list, then 4 read\(s\) for each of the top 20\), got 105/,
    ],
    ['rank: {}\n    all: true', /markets\[0\]: expected exactly one of id, slug, filter, all or rank/],
  ];
  for (const [entry, re] of bad) await assert.rejects(parse(`markets:\n  - ${entry}\n`), re, entry);
});
