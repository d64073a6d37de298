import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Registry } from 'prom-client';
import { parseConfigText } from '../../src/config/load-config.ts';
import { selectMarkets } from '../../src/selection/select-markets.ts';
import { Ranker } from '../../src/selection/ranker.ts';
import { registerRankMetrics } from '../../src/metrics/rank-metrics.ts';
import { fakeSource, market, mid } from './fake-source.ts';
import type { Bytes32 } from '../../src/model/order.ts';

const cfgText = (rank: string, before = '') => `venue: mainnet
defaults:
  risk: { maxNotional: 200, maxTotalNotional: 1000 }
markets:
${before}  - rank:
${rank
  .split('\n')
  .map((l) => `      ${l}`)
  .join('\n')}
`;
const ids = (ms: { marketId: string }[]) => ms.map((m) => m.marketId).sort();
// weights that make the score the spread term alone (no other reads): spread s cents → s / 10
const SPREAD_ONLY = 'weights: { spread: 1, depth: 0, volume: 0, volume24h: 0, volatility: 0, tradeRate: 0, timeToDeadline: 0, oracleDisagreement: 0, fee: 0 }';
const spreadMarket = (n: number, cents: number) => market(n, { bid: 400_000, ask: 400_000 + cents * 10_000 });

test('rank entry in selectMarkets: best by score within top and capital; an earlier entry keeps its market; capital caps maxNotional', async () => {
  const c = await parseConfigText(
    cfgText(`top: 3\ncapital: { perMarket: 150, total: 300 }\n${SPREAD_ONLY}`, `  - id: "${mid(1)}"\n    risk: { maxNotional: 999 }\n`),
    'x.yaml',
    { env: {} },
  );
  const src = fakeSource([spreadMarket(1, 9), spreadMarket(2, 1), spreadMarket(3, 5), spreadMarket(4, 7), spreadMarket(5, 3)]);
  const ranker = new Ranker();
  const got = await selectMarkets(src, c.markets, { ranker, now: () => 0 });
  // market 1 belongs to the id entry (not ranked); of the rest, capital 300 / 150 = 2 markets: 4 (7¢) and 3 (5¢)
  assert.deepEqual(ids(got), [mid(1), mid(3), mid(4)].sort());
  assert.equal(got.find((m) => m.marketId === mid(1))!.risk.maxNotional, 999_000_000);
  assert.equal(got.find((m) => m.marketId === mid(4))!.risk.maxNotional, 150_000_000);
  const rows = Object.fromEntries(ranker.lastReports()[0]!.rows.map((r) => [r.id, r.verdict]));
  assert.deepEqual(rows, { [mid(4)]: 'selected', [mid(3)]: 'selected', [mid(5)]: 'capital', [mid(2)]: 'capital' });
  const scores = ranker.scores();
  assert.deepEqual([...scores.keys()].sort(), [mid(3), mid(4)].sort());
  assert.ok(Math.abs(scores.get(mid(4))!.score - 0.7) < 1e-9);
  assert.equal(scores.get(mid(4))!.terms.spread, 0.7);
});

test('maxMarkets caps the whole selection; an empty selection is an error unless allowEmpty', async () => {
  const c = await parseConfigText(cfgText(`top: 5\nminScore: 0.5\n${SPREAD_ONLY}`), 'x.yaml', { env: {} });
  const src = fakeSource([spreadMarket(1, 9), spreadMarket(2, 8), spreadMarket(3, 7)]);
  assert.deepEqual(ids(await selectMarkets(src, c.markets, { ranker: new Ranker(), maxMarkets: 2 })), [mid(1), mid(2)].sort());
  const low = fakeSource([spreadMarket(1, 1)]);
  await assert.rejects(selectMarkets(low, c.markets, { ranker: new Ranker() }), /no market at the venue matches/);
  assert.deepEqual(await selectMarkets(low, c.markets, { ranker: new Ranker(), allowEmpty: true }), []);
});

/** A config ranking for the single best market by spread, with this hysteresis. */
const topOne = (enterMargin: number, minHoldSeconds: number) =>
  parseConfigText(cfgText(`top: 1\nhysteresis: { enterMargin: ${enterMargin}, minHoldSeconds: ${minHoldSeconds} }\n${SPREAD_ONLY}`), 'x.yaml', { env: {} });

/** Markets 1 and 2 with these spreads in cents, their source and a fresh ranker. */
function twoMarkets(centsA: number, centsB: number) {
  const a = spreadMarket(1, centsA);
  const b = spreadMarket(2, centsB);
  return { a, b, src: fakeSource([a, b]), ranker: new Ranker() };
}

test('refreshes with `previous`: oscillating scores do not flap the selection; a resolved market leaves at once', async () => {
  const c = await topOne(0.15, 0);
  const { a, b, src, ranker } = twoMarkets(5, 5);
  // refresh i: a and b swap between 6¢ and 5¢ of spread (±0.1 of score around the cut-off); returns the new `previous`
  const swapAndSelect = async (i: number, markets: typeof c.markets, r: Ranker, prev: Set<string> | undefined) => {
    const [hi, lo] = i % 2 === 0 ? [a, b] : [b, a];
    hi.info.outcomePrices[0]!.bestAsk = 460_000;
    lo.info.outcomePrices[0]!.bestAsk = 450_000;
    const got = await selectMarkets(src, markets, { ranker: r, previous: prev, now: () => i * 60_000 });
    return { got, previous: new Set(got.map((m) => m.marketId.toLowerCase())) };
  };
  let previous: Set<string> | undefined;
  const seen: Bytes32[] = [];
  for (let i = 0; i < 10; i++) {
    const r = await swapAndSelect(i, c.markets, ranker, previous);
    previous = r.previous;
    seen.push(r.got[0]!.marketId);
  }
  assert.deepEqual(new Set(seen).size, 1, `the selection stayed put: ${seen.map((x) => x.slice(-1)).join('')}`);
  const first = seen[0]!;
  // the same refreshes without a margin toggle every time
  const c0 = await topOne(0, 0);
  const r0 = new Ranker();
  let prev0: Set<string> | undefined;
  let toggles = 0;
  let last = '';
  for (let i = 0; i < 10; i++) {
    const r = await swapAndSelect(i, c0.markets, r0, prev0);
    prev0 = r.previous;
    if (last && r.got[0]!.marketId !== last) toggles++;
    last = r.got[0]!.marketId;
  }
  assert.equal(toggles, 9);
  // the kept market resolves: it leaves at the next refresh, whatever the margin
  src.all.find((m) => m.info.id === first)!.info.status = 'resolved';
  const got = await selectMarkets(src, c.markets, { ranker, previous, now: () => 99 * 60_000 });
  assert.deepEqual(ids(got), [first === mid(1) ? mid(2) : mid(1)]);
  assert.equal(ranker.lastReports()[0]!.rows.find((r) => r.id === first)!.verdict, 'ineligible');
  assert.equal(ranker.leftBecause(first), 'ineligible');
  assert.equal(ranker.leftBecause(first === mid(1) ? mid(2) : mid(1)), null);
  assert.equal(ranker.leftBecause(mid(77)), null);
});

test('minHoldSeconds: a newly selected market stays until its hold is over, then a better one replaces it', async () => {
  const c = await topOne(0, 600);
  const { b, src, ranker } = twoMarkets(5, 3);
  const at = async (ms: number, previous?: Set<string>) =>
    ids(await selectMarkets(src, c.markets, { ranker, ...(previous ? { previous } : {}), now: () => ms }));
  assert.deepEqual(await at(0), [mid(1)]);
  b.info.outcomePrices[0]!.bestAsk = 490_000; // b is now far better
  assert.deepEqual(await at(599_000, new Set([mid(1)])), [mid(1)]);
  assert.equal(ranker.lastReports()[0]!.rows.find((r) => r.id === mid(1))!.verdict, 'held');
  assert.deepEqual(await at(600_000, new Set([mid(1)])), [mid(2)]);
  assert.equal(ranker.leftBecause(mid(1)), 'ranked-out');
});

test('metrics: only selected markets have series; a market that leaves loses its series; drops are counted', async () => {
  const reg = new Registry();
  const m = registerRankMetrics(reg);
  const terms = (spread: number | null) => ({
    spread,
    depth: 0.5,
    volume: null,
    volume24h: null,
    volatility: null,
    tradeRate: null,
    timeToDeadline: null,
    oracleDisagreement: null,
    fee: null,
  });
  m.update(
    new Map([
      ['0xa', { score: 1.5, terms: terms(0.25), entry: 0, name: 'a' }],
      ['0xb', { score: 0.5, terms: terms(null), entry: 0, name: 'b' }],
    ]),
    [{ entry: 0, requests: 7, listTruncated: false, perMarket: 1, total: 0, rows: [{ drops: [{ term: 'spread', reason: 'missing' }] }] as never }],
  );
  let text = await reg.metrics();
  assert.match(text, /bookmaker_market_rank_score\{market="0xa"\} 1\.5/);
  assert.match(text, /bookmaker_market_rank_term\{market="0xa",term="spread"\} 0\.25/);
  assert.match(text, /bookmaker_market_rank_term\{market="0xb",term="depth"\} 0\.5/);
  assert.doesNotMatch(text, /market="0xb",term="spread"/);
  assert.match(text, /bookmaker_market_rank_term_drops_total\{term="spread",reason="missing"\} 1/);
  assert.match(text, /bookmaker_market_rank_requests 7/);
  m.update(new Map([['0xb', { score: 0.7, terms: terms(0.1), entry: 0, name: 'b' }]]));
  text = await reg.metrics();
  assert.doesNotMatch(text, /market="0xa"/);
  assert.match(text, /bookmaker_market_rank_score\{market="0xb"\} 0\.7/);
  assert.match(text, /bookmaker_market_rank_term\{market="0xb",term="spread"\} 0\.1/);
});
