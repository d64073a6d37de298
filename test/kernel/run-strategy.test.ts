import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runStrategy } from '../../src/kernel/run-strategy.ts';
import { INITIAL_RISK_STATE } from '../../src/risk/types.ts';
import type { StrategyModule } from '../../src/strategy/types.ts';
import bands from '../../strategies/bands/index.ts';
import { makeView } from '../strategy/make-view.ts';
import { limits } from '../risk/limits.ts';

const mod = (quote: (v: unknown) => unknown): StrategyModule<unknown> => ({ name: 't', parseConfig: (r) => r, quote: quote as StrategyModule['quote'] });

test('strategy then gate', () => {
  const t = runStrategy(makeView(), bands as StrategyModule<unknown>, bands.parseConfig({}, 'p'), limits(), INITIAL_RISK_STATE);
  assert.equal(t.strategyError, null);
  assert.equal(t.action, 'quote');
  assert.equal(t.quotes.length, 4);
  assert.equal(t.wanted!.length, 4);
});

test('a throwing or misbehaving strategy pulls quotes and reports, never throws', () => {
  const boom = runStrategy(
    makeView(),
    mod(() => {
      throw new Error('boom');
    }),
    {},
    limits(),
    INITIAL_RISK_STATE,
  );
  assert.equal(boom.action, 'pull');
  assert.equal(boom.strategyError!.message, 'boom');
  const weird = runStrategy(
    makeView(),
    mod(() => 42),
    {},
    limits(),
    INITIAL_RISK_STATE,
  );
  assert.equal(weird.action, 'pull');
  assert.match(weird.strategyError!.message, /returned number/);
  const junk = runStrategy(
    makeView(),
    mod(() => [null, 'x', { side: 'bid', price: 470_000, size: 1_000_000 }]),
    {},
    limits(),
    INITIAL_RISK_STATE,
  );
  assert.deepEqual(
    junk.decisions.map((d) => (d.kind === 'deny' ? d.reason : d.kind)),
    ['BAD_QUOTE', 'BAD_QUOTE', 'pass'],
  );
});

test('malformed entries do not hide a self-crossing pair', () => {
  const t = runStrategy(
    makeView(),
    mod(() => [
      { side: 'ask', price: Number.NaN, size: 1 },
      { side: 'bid', price: 500_000, size: 1_000_000 },
      { side: 'ask', price: 500_000, size: 1_000_000 },
    ]),
    {},
    limits({ allowCrossing: true }),
    INITIAL_RISK_STATE,
  );
  assert.deepEqual(
    t.decisions.map((d) => (d.kind === 'deny' ? d.reason : d.kind)),
    ['BAD_QUOTE', 'SELF_TRADE', 'SELF_TRADE'],
  );
});

test('quotes without a level reach the gate with the level of the slot they will take', () => {
  // no levels: ranks per side, as the order manager's slots (src/orders/slots.ts) will number them
  const seen: unknown[] = [];
  const quotes = [
    { side: 'bid', price: 470_000, size: 1_000_000 },
    { side: 'ask', price: 530_000, size: 1_000_000 },
    { side: 'bid', price: 460_000, size: 1_000_000 },
    { side: 'bid', price: 450_000, size: 1_000_000, level: 1 },
  ];
  const t = runStrategy(
    makeView(),
    mod(() => (seen.push(quotes), quotes)),
    {},
    limits(),
    INITIAL_RISK_STATE,
  );
  assert.deepEqual(
    t.quotes.map((q) => `${q.side}${q.level}`),
    ['bid0', 'ask0', 'bid1', 'bid2'],
  );
  assert.equal((quotes[0] as { level?: number }).level, undefined, "the strategy's own list is not changed");
  // a working order in slot bid:1 with the third quote's price and size is that quote: with 1 of 3
  // shares working, the two new bids fit (counted as new, the third would not)
  const view = makeView({
    quotes: [{ side: 'bid', price: 460_000, size: 1_000_000, level: 1, state: 'working', outcomeIndex: 1, venueSide: 'buy', placedAt: 0 }],
  });
  const again = runStrategy(
    view,
    mod(() => quotes),
    {},
    limits({ maxPosition: 3_000_000 }),
    INITIAL_RISK_STATE,
  );
  assert.deepEqual(
    again.decisions.map((d) => (d.kind === 'deny' ? d.reason : d.kind)),
    ['pass', 'pass', 'pass', 'pass'],
  );
});

test('unusable levels (NaN, infinite, negative, fractional, not a number) take the rank of their quote: no hang, one slot each', () => {
  const bad = [Number.NaN, Number.NaN, Number.POSITIVE_INFINITY, -1, 1.5, '2' as unknown as number];
  const quotes = bad.map((level, i) => ({ side: 'bid', price: 400_000 - i * 10_000, size: 1_000_000, level }));
  const t = runStrategy(
    makeView(),
    mod(() => quotes),
    {},
    limits(),
    INITIAL_RISK_STATE,
  );
  const levels = t.quotes.map((q) => q.level);
  assert.deepEqual(levels, [0, 1, 2, 3, 4, 5]);
});
