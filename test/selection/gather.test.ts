import { test } from 'node:test';
import assert from 'node:assert/strict';
import { gatherRank } from '../../src/selection/gather.ts';
import type { RankSettings } from '../../src/config/types.ts';
import { fakeSource, market, mid } from './fake-source.ts';
import { DEFAULT_WEIGHTS } from '../../src/config/types.ts';
import { rankSettings } from '../support/rank-settings.ts';

const NOW = Date.parse('2026-11-26T00:00:00.000Z');
const S = (o: Partial<RankSettings> = {}): RankSettings => rankSettings({ top: 2, minHoldMs: 0, ...o });
const CTX = { nowMs: NOW, skip: () => false, incumbents: new Set<string>() };
const range = (n: number, from = 1) => Array.from({ length: n }, (_, i) => market(i + from));

test('budget: list pages take at most a quarter, the shortlist what is left (4 reads a market); never more than maxRequests', async () => {
  // 20 requests: 3 list pages (120 markets), then ⌊17 / 4⌋ = 4 of the 6 (3 × top) wanted; 8: 2 pages, then 1
  for (const [maxRequests, calls, want] of [
    [20, { list: 3, orderbook: 4, prices: 4, activity: 4, oracle: 4 }, { requests: 19, listTruncated: false, rows: 120, scored: 4 }],
    [8, { list: 2, orderbook: 1, prices: 1, activity: 1, oracle: 1 }, { requests: 6, listTruncated: true, rows: 100, scored: 1 }],
  ] as const) {
    const src = fakeSource(range(120));
    const g = await gatherRank(src, S({ maxRequests }), CTX);
    assert.deepEqual(src.calls, calls, `maxRequests ${maxRequests}`);
    const got = { requests: g.requests, listTruncated: g.listTruncated, rows: g.rows.length, scored: g.rows.filter((r) => r.scored).length };
    assert.deepEqual(got, want, `maxRequests ${maxRequests}`);
  }
});

test('the shortlist is the best by the list-only terms (here volume), and unscored markets carry no drops', async () => {
  const src = fakeSource(range(10));
  const g = await gatherRank(src, S({ shortlist: 3 }), CTX);
  assert.deepEqual(
    g.rows
      .filter((r) => r.scored)
      .map((r) => r.id)
      .sort(),
    [mid(8), mid(9), mid(10)].sort(),
  );
  assert.ok(g.rows.filter((r) => !r.scored).every((r) => r.drops.length === 0 && r.terms.depth === null));
});

test('reads run at most `concurrency` at a time', async () => {
  const src = fakeSource(range(30));
  await gatherRank(src, S({ shortlist: 30, concurrency: 3 }), CTX);
  assert.equal(src.calls.orderbook, 30);
  assert.ok(src.maxInFlight <= 3 && src.maxInFlight >= 2, `max in flight ${src.maxInFlight}`);
});

test('a term with weight 0 costs no request', async () => {
  const src = fakeSource(range(5));
  const g = await gatherRank(src, S({ weights: { ...DEFAULT_WEIGHTS, depth: 0, volatility: 0, tradeRate: 0, oracleDisagreement: 0 } }), CTX);
  assert.deepEqual(src.calls, { list: 1 });
  assert.equal(g.rows.filter((r) => r.scored).length, 5);
  assert.ok(g.rows.every((r) => r.terms.depth === null && r.drops.length === 0));
});

test('failed, bad and missing figures drop only their term, with the reason; nothing throws', async () => {
  const ms = range(6);
  ms[2]!.bids = [{ price: 450_000, size: -5 }]; // market 3: a bad book
  ms[3]!.oracle = null; // market 4: no oracle quote
  ms[4] = market(5, { ask: null }); // market 5: one-sided
  ms[5]!.history = [500_000, 3_000_000, 500_000]; // market 6: a price above 1
  const src = fakeSource(ms);
  src.fail.book = (id) => id === mid(2);
  const noActivity = { markets: src.markets };
  const g = await gatherRank(noActivity, S({ shortlist: 6 }), CTX);
  const drops = Object.fromEntries(g.rows.map((r) => [Number.parseInt(r.id.slice(2), 16), r.drops.map((d) => `${d.term}:${d.reason}`).sort()]));
  assert.deepEqual(drops, {
    1: ['tradeRate:unsupported'],
    2: ['depth:error', 'tradeRate:unsupported'],
    3: ['depth:bad', 'tradeRate:unsupported'],
    4: ['oracleDisagreement:missing', 'tradeRate:unsupported'],
    5: ['oracleDisagreement:missing', 'spread:missing', 'tradeRate:unsupported'], // no mid either: the oracle term cannot compare
    6: ['tradeRate:unsupported', 'volatility:bad'],
  });
  assert.equal(src.calls.activity, undefined);
  // a market's other terms survive its drops
  const m2 = g.rows.find((r) => r.id === mid(2))!;
  assert.ok(m2.terms.spread !== null && m2.terms.volatility !== null && Number.isFinite(m2.score));
});

test('the first list page failing fails the refresh; a later one ranks what was listed', async () => {
  const src = fakeSource(range(120));
  src.fail.list = (page) => page === 0;
  await assert.rejects(gatherRank(src, S(), CTX), /503 list/);
  src.fail.list = (page) => page === 1;
  const g = await gatherRank(src, S(), CTX);
  assert.equal(g.rows.length, 50);
  assert.equal(g.listTruncated, true);
});

test('pre-filter: category (case-insensitive), minimum volume, markets an earlier entry owns; an incumbent the list lacks is read by id', async () => {
  const ms = [
    market(1, { category: 'Weather' }),
    market(2, { category: 'sports' }),
    market(3, { category: 'weather', volume: 10n }),
    market(4, { category: 'weather' }),
    market(5, { category: 'weather', status: 'resolved' }),
  ];
  const src = fakeSource(ms);
  const g = await gatherRank(src, S({ category: 'Weather', minVolume: 1_000_000 }), { nowMs: NOW, skip: (id) => id === mid(4), incumbents: new Set([mid(5)]) });
  // listed: 1, 3, 4 (the venue's category match is case-insensitive); 3 is below minVolume, 4 is owned by an earlier entry
  assert.deepEqual(
    g.rows.map((r) => [r.id, r.status]),
    [
      [mid(1), 'active'],
      [mid(5), 'resolved'],
    ],
  );
  assert.equal(src.calls.get, 1);
  assert.equal(src.calls.orderbook, 1); // only market 1 is scored in full: a resolved market is not shortlisted
});
