/** A sweep (src/strategy/sweep.ts): the newest run of same-side taker prints inside the window, when it reaches its size. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { newestSweep, parseSweep } from '../../src/strategy/sweep.ts';
import type { ViewTrade } from '../../src/strategy/types.ts';
import { makeView, NOW, S } from './make-view.ts';

const trade = (agoMs: number, takerSide: 'buy' | 'sell', shares: number): ViewTrade => ({ price: 500_000, size: shares * S, takerSide, ts: NOW - agoMs });
const cfg = parseSweep({ sweepShares: 300, sweepSeconds: 2 }, 'p');
const side = (...trades: ViewTrade[]) => newestSweep(makeView({ trades }), cfg)?.side ?? null;

describe('newestSweep', () => {
  it('a one-sided run inside the window that reaches the size is a sweep, in its side', () => {
    assert.equal(side(trade(1_500, 'buy', 150), trade(100, 'buy', 150)), 'buy');
    assert.equal(side(trade(0, 'sell', 300)), 'sell');
  });
  it('below the size, or with part of it older than the window, it is not', () => {
    assert.equal(side(trade(100, 'buy', 299)), null);
    assert.equal(side(trade(2_001, 'buy', 150), trade(100, 'buy', 150)), null);
    assert.equal(side(), null);
  });
  it('a print on the other side ends the run: only the newest side counts', () => {
    assert.equal(side(trade(1_000, 'buy', 300), trade(100, 'sell', 10)), null);
    assert.equal(side(trade(1_500, 'sell', 200), trade(1_000, 'buy', 200), trade(100, 'buy', 100)), 'buy');
  });
  it('its price is the furthest the run reached: the highest buy, the lowest sale', () => {
    const at = (agoMs: number, takerSide: 'buy' | 'sell', cents: number): ViewTrade => ({ price: cents * 10_000, size: 100 * S, takerSide, ts: NOW - agoMs });
    assert.deepEqual(newestSweep(makeView({ trades: [at(300, 'buy', 50), at(200, 'buy', 53), at(100, 'buy', 52)] }), cfg), { side: 'buy', price: 530_000 });
    assert.deepEqual(newestSweep(makeView({ trades: [at(300, 'sell', 50), at(200, 'sell', 47), at(100, 'sell', 48)] }), cfg), { side: 'sell', price: 470_000 });
  });
  it('defaults and bad values', () => {
    assert.deepEqual(parseSweep({}, 'p'), { windowMs: 2_000, minShares: 300 * S });
    assert.throws(() => parseSweep({ sweepShares: 0 }, 'p'), /p\.sweepShares/);
    assert.throws(() => parseSweep({ sweepSeconds: -1 }, 'p'), /p\.sweepSeconds/);
    assert.throws(() => parseSweep({ sweepShares: 'x' }, 'p'), /p\.sweepShares/);
  });
});
