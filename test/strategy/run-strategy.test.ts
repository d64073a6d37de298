import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runStrategy } from '../../src/strategy/run-strategy.ts';
import { INITIAL_RISK_STATE } from '../../src/risk/types.ts';
import type { StrategyModule } from '../../src/strategy/types.ts';
import bands from '../../strategies/bands/index.ts';
import { makeView } from './make-view.ts';
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
  const boom = runStrategy(makeView(), mod(() => { throw new Error('boom'); }), {}, limits(), INITIAL_RISK_STATE);
  assert.equal(boom.action, 'pull');
  assert.equal(boom.strategyError!.message, 'boom');
  const weird = runStrategy(makeView(), mod(() => 42), {}, limits(), INITIAL_RISK_STATE);
  assert.equal(weird.action, 'pull');
  assert.match(weird.strategyError!.message, /returned number/);
  const junk = runStrategy(makeView(), mod(() => [null, 'x', { side: 'bid', price: 470_000, size: 1_000_000 }]), {}, limits(), INITIAL_RISK_STATE);
  assert.deepEqual(junk.decisions.map((d) => (d.kind === 'deny' ? d.reason : d.kind)), ['BAD_QUOTE', 'BAD_QUOTE', 'pass']);
});

test('malformed entries do not hide a self-crossing pair', () => {
  const t = runStrategy(
    makeView(),
    mod(() => [{ side: 'ask', price: Number.NaN, size: 1 }, { side: 'bid', price: 500_000, size: 1_000_000 }, { side: 'ask', price: 500_000, size: 1_000_000 }]),
    {},
    limits({ allowCrossing: true }),
    INITIAL_RISK_STATE,
  );
  assert.deepEqual(t.decisions.map((d) => (d.kind === 'deny' ? d.reason : d.kind)), ['BAD_QUOTE', 'SELF_TRADE', 'SELF_TRADE']);
});
