/**
 * Joining the others' touch (src/strategy/touch-join.ts): a quote ahead of the others' touch goes back
 * to it, `behindTicks` further out; `minDepth` leaves out a side whose touch is thin; bands applies it
 * when `touch` is set.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { applyTouchJoin, parseTouchJoin, TOUCH_JOIN_OFF } from '../../src/strategy/touch-join.ts';
import { loadStrategy } from '../../src/strategy/registry.ts';
import type { DesiredQuote, WorkingQuote } from '../../src/strategy/types.ts';
import { makeView, S } from './make-view.ts';

const C = 10_000;
const q = (side: 'bid' | 'ask', cents: number): DesiredQuote => ({ side, price: cents * C, size: 25 * S, level: 0 });
const sides = (qs: DesiredQuote[]) => qs.map((x) => `${x.side}@${x.price / C}`);
// the others: 100 shares at 48 / 52, 5,000 behind them at 47 / 53
const view = (extra: Parameters<typeof makeView>[0] = {}) =>
  makeView({
    bids: [
      { price: 48 * C, size: 100 * S },
      { price: 47 * C, size: 5_000 * S },
    ],
    asks: [
      { price: 52 * C, size: 100 * S },
      { price: 53 * C, size: 5_000 * S },
    ],
    ...extra,
  });

describe('applyTouchJoin', () => {
  it('off: quotes as given', () => {
    assert.deepEqual(sides(applyTouchJoin([q('bid', 49), q('ask', 51)], view(), TOUCH_JOIN_OFF)), ['bid@49', 'ask@51']);
  });
  it('a quote ahead of the touch goes back to it; one at or behind it stays', () => {
    const cfg = parseTouchJoin({}, 'p');
    assert.deepEqual(sides(applyTouchJoin([q('bid', 49), q('ask', 51)], view(), cfg)), ['bid@48', 'ask@52']);
    assert.deepEqual(sides(applyTouchJoin([q('bid', 47), q('ask', 52)], view(), cfg)), ['bid@47', 'ask@52']);
  });
  it('behindTicks: that many ticks behind the touch at the closest', () => {
    const cfg = parseTouchJoin({ behindTicks: 1 }, 'p');
    assert.deepEqual(sides(applyTouchJoin([q('bid', 48), q('ask', 51)], view(), cfg)), ['bid@47', 'ask@53']);
  });
  it('aheadTicks: up to that many ticks ahead of the touch, a bid below the others mid and an ask above it', () => {
    const cfg = parseTouchJoin({ aheadTicks: 1 }, 'p');
    // 48 / 52: one tick ahead on each side; a quote already behind that stays
    assert.deepEqual(sides(applyTouchJoin([q('bid', 50), q('ask', 50)], view(), cfg)), ['bid@49', 'ask@51']);
    assert.deepEqual(sides(applyTouchJoin([q('bid', 47), q('ask', 53)], view(), cfg)), ['bid@47', 'ask@53']);
    // 48 / 51: 49 and 50; 48 / 50 (a 2-tick book): no room, the touch
    const three = makeView({ bids: [{ price: 48 * C, size: 100 * S }], asks: [{ price: 51 * C, size: 100 * S }] });
    assert.deepEqual(sides(applyTouchJoin([q('bid', 50), q('ask', 49)], three, cfg)), ['bid@49', 'ask@50']);
    const two = makeView({ bids: [{ price: 48 * C, size: 100 * S }], asks: [{ price: 50 * C, size: 100 * S }] });
    assert.deepEqual(sides(applyTouchJoin([q('bid', 49), q('ask', 49)], two, cfg)), ['bid@48', 'ask@50']);
    // two ticks ahead in 48 / 52 still stops short of the mid
    assert.deepEqual(sides(applyTouchJoin([q('bid', 51), q('ask', 49)], view(), parseTouchJoin({ aheadTicks: 2 }, 'p'))), ['bid@49', 'ask@51']);
    assert.throws(() => parseTouchJoin({ aheadTicks: 1, behindTicks: 1 }, 'p.touch'), /p\.touch: behindTicks and aheadTicks/);
  });
  it('minDepth: a side whose touch holds fewer of the others shares is left out', () => {
    const thinBid = makeView({ bids: [{ price: 48 * C, size: 10 * S }], asks: [{ price: 52 * C, size: 100 * S }] });
    assert.deepEqual(sides(applyTouchJoin([q('bid', 48), q('ask', 52)], thinBid, parseTouchJoin({ minDepth: 50 }, 'p'))), ['ask@52']);
    assert.deepEqual(sides(applyTouchJoin([q('bid', 48), q('ask', 52)], thinBid, parseTouchJoin({ minDepth: 10 }, 'p'))), ['bid@48', 'ask@52']);
  });
  it('the own quotes are not the touch: the others book is', () => {
    // our bid of 25 at 49 sits in the book; the others' best bid is 48
    const own: WorkingQuote = { side: 'bid', price: 49 * C, size: 25 * S, state: 'working', outcomeIndex: 0, venueSide: 'buy', placedAt: 0, level: 0 };
    const v = makeView({
      bids: [
        { price: 49 * C, size: 25 * S },
        { price: 48 * C, size: 100 * S },
      ],
      asks: [{ price: 52 * C, size: 100 * S }],
      quotes: [own],
    });
    assert.deepEqual(sides(applyTouchJoin([q('bid', 49)], v, parseTouchJoin({}, 'p'))), ['bid@48']);
  });
  it('maxPQ: no quote while the others mid m has m(1 - m) above it', () => {
    const cfg = parseTouchJoin({ maxPQ: 0.16 }, 'p');
    // mid 0.50: 0.25 > 0.16
    assert.deepEqual(sides(applyTouchJoin([q('bid', 48), q('ask', 52)], view(), cfg)), []);
    // mid 0.15: 0.1275 ≤ 0.16
    const low = makeView({ bids: [{ price: 14 * C, size: 100 * S }], asks: [{ price: 16 * C, size: 100 * S }] });
    assert.deepEqual(sides(applyTouchJoin([q('bid', 14), q('ask', 16)], low, cfg)), ['bid@14', 'ask@16']);
    // mid 0.85 likewise
    const high = makeView({ bids: [{ price: 84 * C, size: 100 * S }], asks: [{ price: 86 * C, size: 100 * S }] });
    assert.deepEqual(sides(applyTouchJoin([q('bid', 84), q('ask', 86)], high, cfg)), ['bid@84', 'ask@86']);
    assert.throws(() => parseTouchJoin({ maxPQ: 0.3 }, 'p.touch'), /p\.touch\.maxPQ/);
  });
  it('unwind: where maxPQ leaves the market out, only the side that reduces the position, at most its size', () => {
    const cfg = parseTouchJoin({ maxPQ: 0.16, unwind: true }, 'p');
    const size = (qs: DesiredQuote[]) => qs.map((x) => `${x.side}@${x.price / C}x${x.size / S}`);
    // mid 0.50, flat: nothing
    assert.deepEqual(sides(applyTouchJoin([q('bid', 48), q('ask', 52)], view(), cfg)), []);
    // long 10: the ask only, 10 shares, placed at the touch as any quote
    assert.deepEqual(size(applyTouchJoin([q('bid', 49), q('ask', 51)], view({ net: 10 * S }), cfg)), ['ask@52x10']);
    // short 40: the bid only, its own 25 shares
    assert.deepEqual(size(applyTouchJoin([q('bid', 48), q('ask', 52)], view({ net: -40 * S }), cfg)), ['bid@48x25']);
    // inside maxPQ: both sides as before
    const low = makeView({ bids: [{ price: 14 * C, size: 100 * S }], asks: [{ price: 16 * C, size: 100 * S }], net: 10 * S });
    assert.deepEqual(size(applyTouchJoin([q('bid', 14), q('ask', 16)], low, cfg)), ['bid@14x25', 'ask@16x25']);
    // without unwind (the default) a position is left unquoted there
    assert.deepEqual(sides(applyTouchJoin([q('bid', 48), q('ask', 52)], view({ net: 10 * S }), parseTouchJoin({ maxPQ: 0.16 }, 'p'))), []);
    assert.throws(() => parseTouchJoin({ unwind: 1 }, 'p.touch'), /p\.touch\.unwind/);
  });
  it('minPQ: near a bound (m(1 - m) below it) only the unwinding side, or nothing', () => {
    const cfg = parseTouchJoin({ maxPQ: 0.16, minPQ: 0.06, unwind: true }, 'p');
    // mid 0.05: 0.0475 < 0.06; long 3: the ask for 3 only
    const edge = (net: number) => makeView({ bids: [{ price: 4 * C, size: 100 * S }], asks: [{ price: 6 * C, size: 100 * S }], net: net * S });
    const size = (qs: DesiredQuote[]) => qs.map((x) => `${x.side}@${x.price / C}x${x.size / S}`);
    assert.deepEqual(size(applyTouchJoin([q('bid', 4), q('ask', 6)], edge(3), cfg)), ['ask@6x3']);
    assert.deepEqual(size(applyTouchJoin([q('bid', 4), q('ask', 6)], edge(0), cfg)), []);
    // mid 0.10: 0.09, inside [0.06, 0.16]: both sides
    const mid10 = makeView({ bids: [{ price: 9 * C, size: 100 * S }], asks: [{ price: 11 * C, size: 100 * S }], net: 3 * S });
    assert.deepEqual(sides(applyTouchJoin([q('bid', 9), q('ask', 11)], mid10, cfg)), ['bid@9', 'ask@11']);
    // without unwind: nothing near the bound
    assert.deepEqual(sides(applyTouchJoin([q('bid', 4), q('ask', 6)], edge(3), parseTouchJoin({ minPQ: 0.06 }, 'p'))), []);
    assert.throws(() => parseTouchJoin({ minPQ: 0.3 }, 'p.touch'), /p\.touch\.minPQ/);
  });
  it('flattenPQ: near a bound (m(1 - m) below it) the position alone, at the others opposite touch, flagged reduce', () => {
    const cfg = parseTouchJoin({ maxPQ: 0.16, minPQ: 0.06, unwind: true, flattenPQ: 0.06 }, 'p');
    // mid 0.05: 0.0475 < 0.06
    const edge = (net: number) => makeView({ bids: [{ price: 4 * C, size: 100 * S }], asks: [{ price: 6 * C, size: 100 * S }], net: net * S });
    const full = (qs: DesiredQuote[]) => qs.map((x) => `${x.side}@${x.price / C}x${x.size / S}${x.reduce ? ' reduce' : ''}`);
    // long 3: an ask for 3 at their bid (crossing), whatever the strategy wanted, even nothing
    assert.deepEqual(full(applyTouchJoin([q('bid', 4), q('ask', 6)], edge(3), cfg)), ['ask@4x3 reduce']);
    assert.deepEqual(full(applyTouchJoin([], edge(3), cfg)), ['ask@4x3 reduce']);
    // short 2: a bid for 2 at their ask; flat: nothing
    assert.deepEqual(full(applyTouchJoin([q('bid', 4)], edge(-2), cfg)), ['bid@6x2 reduce']);
    assert.deepEqual(full(applyTouchJoin([q('bid', 4), q('ask', 6)], edge(0), cfg)), []);
    // mid 0.10 (0.09): as before, both sides joined, nothing flagged
    const mid10 = makeView({ bids: [{ price: 9 * C, size: 100 * S }], asks: [{ price: 11 * C, size: 100 * S }], net: 3 * S });
    assert.deepEqual(full(applyTouchJoin([q('bid', 9), q('ask', 11)], mid10, cfg)), ['bid@9x25', 'ask@11x25']);
    // off (the default): minPQ's unwind at the touch, no crossing
    assert.equal(parseTouchJoin({}, 'p').flattenPQ, 0);
    assert.deepEqual(full(applyTouchJoin([q('bid', 4), q('ask', 6)], edge(3), parseTouchJoin({ maxPQ: 0.16, minPQ: 0.06, unwind: true }, 'p'))), ['ask@6x3']);
    assert.throws(() => parseTouchJoin({ flattenPQ: 0.3 }, 'p.touch'), /p\.touch\.flattenPQ/);
  });
  it('awayPQ: near a bound (m(1 - m) below it) a position opens only on the side away from it; the other side only reduces', () => {
    const cfg = parseTouchJoin({ maxPQ: 0.09, minPQ: 0.06, unwind: true, awayPQ: 0.1 }, 'p');
    const size = (qs: DesiredQuote[]) => qs.map((x) => `${x.side}@${x.price / C}x${x.size / S}`);
    // mid 0.08 (0.0736): below 1/2 the bound is 0, so the bid (buying toward it) only covers a short position
    const low = (net: number) => makeView({ bids: [{ price: 7 * C, size: 100 * S }], asks: [{ price: 9 * C, size: 100 * S }], net: net * S });
    assert.deepEqual(size(applyTouchJoin([q('bid', 7), q('ask', 9)], low(0), cfg)), ['ask@9x25']);
    assert.deepEqual(size(applyTouchJoin([q('bid', 7), q('ask', 9)], low(-3), cfg)), ['bid@7x3', 'ask@9x25']);
    assert.deepEqual(size(applyTouchJoin([q('bid', 7), q('ask', 9)], low(4), cfg)), ['ask@9x25']);
    // mid 0.92: the mirror, the ask only covers a long position
    const high = (net: number) => makeView({ bids: [{ price: 91 * C, size: 100 * S }], asks: [{ price: 93 * C, size: 100 * S }], net: net * S });
    assert.deepEqual(size(applyTouchJoin([q('bid', 91), q('ask', 93)], high(0), cfg)), ['bid@91x25']);
    assert.deepEqual(size(applyTouchJoin([q('bid', 91), q('ask', 93)], high(30), cfg)), ['bid@91x25', 'ask@93x25']);
    // mid 0.12 (0.1056): above awayPQ, both sides as before (maxPQ 0.16 here)
    const wide = parseTouchJoin({ maxPQ: 0.16, awayPQ: 0.1 }, 'p');
    const mid12 = makeView({ bids: [{ price: 11 * C, size: 100 * S }], asks: [{ price: 13 * C, size: 100 * S }] });
    assert.deepEqual(size(applyTouchJoin([q('bid', 11), q('ask', 13)], mid12, wide)), ['bid@11x25', 'ask@13x25']);
    // off (the default): both sides near the bound
    assert.equal(parseTouchJoin({}, 'p').awayPQ, 0);
    assert.deepEqual(size(applyTouchJoin([q('bid', 7), q('ask', 9)], low(0), parseTouchJoin({ maxPQ: 0.09, minPQ: 0.06 }, 'p'))), ['bid@7x25', 'ask@9x25']);
    assert.throws(() => parseTouchJoin({ awayPQ: 0.3 }, 'p.touch'), /p\.touch\.awayPQ/);
  });
  it('a side with no others on it is left out', () => {
    const v = makeView({ bids: [], asks: [{ price: 52 * C, size: 100 * S }] });
    assert.deepEqual(sides(applyTouchJoin([q('bid', 48), q('ask', 52)], v, parseTouchJoin({}, 'p'))), ['ask@52']);
  });
  it('rejects a bad setting with its path', () => {
    assert.throws(() => parseTouchJoin({ behindTicks: -1 }, 'p.touch'), /p\.touch\.behindTicks/);
    assert.throws(() => parseTouchJoin({ depth: 5 }, 'p.touch'), /p\.touch/);
  });
});

describe('bands with touch', () => {
  it('a bid the fair price puts inside the spread goes back to the others touch', async () => {
    const bands = await loadStrategy('bands', process.cwd());
    // fair (mid 50) − 1¢ = 49: ahead of the others' 48
    const params = { fair: 'mid', bands: [{ minMargin: 0.005, targetMargin: 0.01, maxMargin: 0.02, size: 25 }] };
    const plain = bands.quote(view(), bands.parseConfig(params, 'p'));
    assert.deepEqual(sides(plain ?? []), ['bid@49', 'ask@51']);
    const joined = bands.quote(view(), bands.parseConfig({ ...params, touch: {} }, 'p'));
    assert.deepEqual(sides(joined ?? []), ['bid@48', 'ask@52']);
  });
});
