import { test } from 'node:test';
import assert from 'node:assert/strict';
import { depthNearTouch, listInputs, priceVolatilityCents, rankTerms, scoreOf, type RankInputs } from '../../src/selection/score.ts';
import { DEFAULT_WEIGHTS, RANK_TERMS } from '../../src/config/types.ts';
import type { MarketInfo } from '../../src/exchange/client/parse-market.ts';
import type { RankTerm } from '../../src/config/types.ts';

const DAY = 86_400_000;
const base: RankInputs = {
  bid: 450_000,
  ask: 470_000,
  mid: 460_000,
  depthUsdc: null,
  volume: null,
  volume24h: null,
  history: null,
  tradesLastHour: null,
  msToDeadline: null,
  oracleProbability: null,
  feeBps: 0,
};

const close = (a: number | null, b: number | null, msg: string): void => {
  if (b === null) return assert.equal(a, null, msg);
  assert.ok(a !== null && Math.abs(a - b) < 1e-9, `${msg}: got ${a}, want ${b}`);
};

// [what, inputs over the base, term, expected value (null = dropped), expected 'bad']
const TABLE: [string, Partial<RankInputs>, RankTerm, number | null, boolean][] = [
  ['spread 2¢ → 0.2', {}, 'spread', 0.2, false],
  ['spread 20¢ clamps at 1', { bid: 400_000, ask: 600_000 }, 'spread', 1, false],
  ['one-sided book: spread unknown, not bad', { ask: null }, 'spread', null, false],
  ['crossed book is bad', { bid: 470_000, ask: 460_000 }, 'spread', null, true],
  ['ask at 1.00 is out of range', { ask: 1_000_000 }, 'spread', null, true],
  ['depth 500 USDC → ½', { depthUsdc: 500 }, 'depth', 0.5, false],
  ['depth 1500 USDC → ¾', { depthUsdc: 1500 }, 'depth', 0.75, false],
  ['depth 0 → 0', { depthUsdc: 0 }, 'depth', 0, false],
  ['depth NaN is bad', { depthUsdc: Number.NaN }, 'depth', null, true],
  ['volume 0 → 0', { volume: 0n }, 'volume', 0, false],
  ['volume 1 000 USDC → log10(1001)/6', { volume: 1_000_000_000n }, 'volume', Math.log10(1001) / 6, false],
  ['volume 10 M USDC clamps at 1', { volume: 10_000_000_000_000n }, 'volume', 1, false],
  ['volume24h 100 USDC → log10(101)/5', { volume24h: 100_000_000n }, 'volume24h', Math.log10(101) / 5, false],
  ['volatility: flat history → 0', { history: [500_000, 500_000, 500_000] }, 'volatility', 0, false],
  ['volatility: a steady trend is not volatile', { history: [500_000, 520_000, 540_000] }, 'volatility', 0, false],
  ['volatility: ±2¢ swings → σ 2¢ → ½', { history: [500_000, 520_000, 500_000] }, 'volatility', 0.5, false],
  ['volatility: two points are too few', { history: [500_000, 520_000] }, 'volatility', null, false],
  ['volatility: a price above 1 is bad', { history: [500_000, 2_000_000, 500_000] }, 'volatility', null, true],
  ['20 trades an hour → ½', { tradesLastHour: 20 }, 'tradeRate', 0.5, false],
  ['no trades → 0', { tradesLastHour: 0 }, 'tradeRate', 0, false],
  ['a negative count is bad', { tradesLastHour: -1 }, 'tradeRate', null, true],
  ['7 days to the deadline → 1 − 1/e', { msToDeadline: 7 * DAY }, 'timeToDeadline', 1 - Math.exp(-1), false],
  ['deadline passed → 0', { msToDeadline: -1000 }, 'timeToDeadline', 0, false],
  ['oracle 20 points above the mid → 1', { oracleProbability: 0.66 }, 'oracleDisagreement', 1, false],
  ['oracle 5 points off → ¼', { oracleProbability: 0.41 }, 'oracleDisagreement', 0.25, false],
  ['oracle probability 1.5 is bad', { oracleProbability: 1.5 }, 'oracleDisagreement', null, true],
  ['no fee → 0', {}, 'fee', 0, false],
  ['1 % fee at 46¢ over a 1¢ half-spread → 0.46', { feeBps: 100 }, 'fee', 0.46, false],
  ['fee eats more than the half-spread → 1', { feeBps: 500 }, 'fee', 1, false],
  ['fee with no spread is unknown', { feeBps: 100, ask: null }, 'fee', null, false],
];

for (const [what, over, term, want, bad] of TABLE) {
  test(`rank term: ${what}`, () => {
    const r = rankTerms({ ...base, ...over });
    close(r.terms[term], want, term);
    assert.equal(r.bad.includes(term), bad, `${term} bad`);
  });
}

test('every term is within 0..1 or null over a grid of inputs', () => {
  for (const bid of [null, 1, 10_000, 500_000, 999_998])
    for (const ask of [null, 2, 20_000, 510_000, 999_999])
      for (const depthUsdc of [null, 0, 1e9])
        for (const oracleProbability of [null, 0, 1]) {
          const r = rankTerms({
            ...base,
            bid,
            ask,
            depthUsdc,
            oracleProbability,
            feeBps: 30,
            volume: 5n,
            history: [0, 1_000_000, 0],
            tradesLastHour: 1e6,
            msToDeadline: 1e15,
          });
          for (const t of RANK_TERMS) {
            const v = r.terms[t];
            assert.ok(v === null || (v >= 0 && v <= 1), `${t} = ${v}`);
          }
        }
});

test('score = Σ weight · term; a dropped term contributes nothing', () => {
  const terms = { spread: 0.2, depth: 0.5, volume: null, volume24h: 0, volatility: 0.5, tradeRate: 1, timeToDeadline: null, oracleDisagreement: 0.25, fee: 0 };
  // 1·0.2 + 0.5·0.5 + 0.5·0 − 0.5·0.5 + 0.5·1 − 1·0.25 − 1·0 = 0.45
  assert.ok(Math.abs(scoreOf(terms, DEFAULT_WEIGHTS) - 0.45) < 1e-12);
  assert.equal(scoreOf(terms, { ...DEFAULT_WEIGHTS, spread: 0, depth: 0, volatility: 0, tradeRate: 0, oracleDisagreement: 0 }), 0);
});

test('depth near the touch: only levels within 5¢ of each best price count; bad levels make it unknown', () => {
  const bids = [
    { price: 450_000, size: 100_000_000 }, // 45 USDC
    { price: 400_000, size: 100_000_000 }, // 40 USDC (exactly 5¢ away: counted)
    { price: 390_000, size: 1_000_000_000 }, // beyond
  ];
  const asks = [{ price: 470_000, size: 10_000_000 }]; // 4.7 USDC
  assert.ok(Math.abs(depthNearTouch(bids, asks)! - 89.7) < 1e-9);
  assert.equal(depthNearTouch([], []), 0);
  assert.equal(depthNearTouch([{ price: 450_000, size: -1 }], asks), null);
  assert.equal(depthNearTouch(bids, [{ price: 1_200_000, size: 1 }]), null);
});

test('price volatility: std. dev. of successive differences, cents', () => {
  assert.equal(priceVolatilityCents([1, 2]), null);
  assert.ok(Math.abs(priceVolatilityCents([500_000, 530_000, 500_000, 530_000])! - Math.sqrt(8)) < 1e-9); // diffs +3 −3 +3: mean 1, var 8
});

test('list inputs: YES prices, deadline from now, mid from the venue or the touch', () => {
  const m = {
    id: '0x' + '1'.repeat(64),
    outcomePrices: [
      { outcomeIndex: 0, bestBid: 530_000, bestAsk: 550_000, spread: 20_000, midPrice: 540_000, lastPrice: null, sellPrice: null, buyPrice: null },
      { outcomeIndex: 1, bestBid: 450_000, bestAsk: 470_000, spread: 20_000, midPrice: null, lastPrice: null, sellPrice: null, buyPrice: null },
    ],
    volume: 7n,
    volume24h: 3n,
    deadline: '2026-12-01T00:00:00.000Z',
  } as unknown as MarketInfo;
  const x = listInputs(m, Date.parse('2026-11-30T00:00:00.000Z'), 25);
  assert.deepEqual([x.bid, x.ask, x.mid, x.volume, x.volume24h, x.msToDeadline, x.feeBps], [450_000, 470_000, 460_000, 7n, 3n, DAY, 25]);
  const y = listInputs({ ...m, deadline: 'not a date', outcomePrices: [] } as MarketInfo, 0, 0);
  assert.deepEqual([y.bid, y.ask, y.mid, y.msToDeadline], [null, null, null, null]);
});
