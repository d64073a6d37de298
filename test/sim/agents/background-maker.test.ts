import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MatchingEngine } from '../../../src/engine/matching-engine.ts';
import type { EngineCommand } from '../../../src/engine/types.ts';
import { DEFAULT_MAKER, initMaker, stepMaker, type MakerConfig, type MakerState } from '../../../src/sim/agents/background-maker.ts';
import { toSubmitOrder } from '../../../src/sim/agents/order-builder.ts';
import { createRng } from '../../../src/sim/rng.ts';

const T0 = 1_763_700_000_000;
const TICK = 10_000;
const MAKER = 0;
const BOT = 1;
const TAKER = 2;

/** A maker at a fixed fair value (no noise, no lag) on one engine market, stepped by hand, with a bot and a taker. */
function setup(extra: Partial<MakerConfig>) {
  const engine = new MatchingEngine({});
  engine.addMarket();
  for (let i = 0; i < 3; i++) {
    engine.addTrader();
    engine.deposit(i, 10_000_000_000_000n);
  }
  const cfg: MakerConfig = { ...DEFAULT_MAKER, trader: MAKER, fairNoise: 0, sizeJitter: 0, size: 50_000_000, keepQueue: true, ...extra };
  const rng = createRng(7);
  let state: MakerState = initMaker(T0);
  const orders = { remaining: (id: number) => engine.order(id)?.remainingShares ?? 0 };
  const applied: EngineCommand[] = [];
  const refresh = (nowMs: number, fair: number): void => {
    const view = { market: 0, tick: TICK, bestBid: engine.bestBid(0), bestAsk: engine.bestAsk(0) };
    const s = stepMaker(cfg, state, rng, nowMs, view, fair, orders);
    state = s.state;
    for (const c of s.commands) {
      applied.push(c);
      const r = engine.apply(c);
      s.notes?.get(c)?.(r as { ok: boolean; id?: number; status?: string });
    }
  };
  /** the bot buys YES at `price`, resting */
  const botBid = (price: number, shares: number, nowMs: number) =>
    engine.submit(toSubmitOrder({ market: 0, trader: BOT, outcome: 1, side: 'buy', price, size: shares * 1_000_000, nowMs }));
  /** a taker sells YES down to `price` (buys NO at 1 − price), immediate or cancel */
  const takeBid = (price: number, shares: number, nowMs: number) =>
    engine.submit(
      toSubmitOrder({ market: 0, trader: TAKER, outcome: 0, side: 'buy', price: 1_000_000 - price, size: shares * 1_000_000, timeInForce: 1, nowMs }),
    );
  return { engine, refresh, botBid, takeBid, applied, state: () => state };
}

describe('background maker keeping its queue place (keepQueue)', () => {
  it("a bot order joining the maker's level stays behind the maker's resting size after the next refresh", () => {
    const m = setup({});
    m.refresh(T0, 0.5);
    const best = m.engine.bestBid(0);
    assert.equal(best, 0.5e6 - 2 * TICK);
    const bot = m.botBid(best, 5, T0 + 100);
    assert.ok(bot.ok && bot.status === 'open');
    m.refresh(T0 + 2000, 0.5); // same prices: nothing to do
    const take = m.takeBid(best, 20, T0 + 2100);
    assert.ok(take.ok);
    // the 20 shares went to the maker, in front; the bot's 5 are untouched
    assert.equal(m.engine.order(bot.id)?.filledShares, 0);
    const t = m.takeBid(best, 40, T0 + 2200);
    assert.ok(t.ok);
    // 30 more of the maker's 50, then the bot's 5
    assert.equal(m.engine.order(bot.id), undefined, 'the bot filled in full once the maker ahead was gone');
  });

  it('cancels only the orders whose price moved, and tops up a partly filled level behind the others', () => {
    const m = setup({ levels: 2 });
    m.refresh(T0, 0.5);
    const first = m.applied.length;
    assert.equal(first, 4, 'two levels a side');
    const best = m.engine.bestBid(0);
    m.takeBid(best, 20, T0 + 100);
    const bot = m.botBid(best, 5, T0 + 200);
    assert.ok(bot.ok);
    m.refresh(T0 + 2000, 0.5);
    const topUp = m.applied.slice(first);
    assert.equal(topUp.length, 1, 'one top-up, nothing cancelled');
    assert.ok(topUp[0]!.type === 'submit' && topUp[0].order.minSharesOut === 20_000_000 && topUp[0].order.price === best);
    // the maker's 30 left, then the bot, then the 20 of the top-up
    m.takeBid(best, 34, T0 + 2100);
    assert.equal(m.engine.order(bot.id)?.filledShares, 4_000_000);
    // the fair value moves a tick up: the levels at the new prices are posted, the ones that left are cancelled
    const before = m.applied.length;
    m.refresh(T0 + 4000, 0.51);
    const moved = m.applied.slice(before);
    const cancels = moved.filter((c) => c.type === 'cancel');
    const submits = moved.filter((c) => c.type === 'submit');
    assert.ok(moved.indexOf(cancels.at(-1)!) < moved.indexOf(submits[0]!), 'cancels come first');
    // bid levels 0.48, 0.47 -> 0.49, 0.48: 0.47 goes, 0.48 stays (its two orders), 0.49 is new; the asks likewise
    assert.equal(cancels.length, 2);
    assert.equal(submits.length, 3, 'the new bid, the new ask, and the top-up of the 0.48 level the taker hit');
    // 0.49 (new), 0.48 (the first top-up's 20 and the new one's 30: the first order filled), 0.53 (kept), 0.54 (new)
    assert.equal(m.engine.openOrders({ trader: MAKER }).length, 1 + 2 + 1 + 1);
  });

  it('is deterministic: the same steps give the same commands', () => {
    const log = () => {
      const m = setup({ fairNoise: 0.003, sizeJitter: 0.5 });
      let fair = 0.5;
      for (let s = 0; s < 200; s++) {
        fair += (s % 7) * 0.001 - 0.003;
        m.refresh(T0 + s * 1000, fair);
        if (s % 5 === 0) m.takeBid(m.engine.bestBid(0), 10 + s, T0 + s * 1000 + 500);
      }
      return JSON.stringify(m.applied);
    };
    assert.equal(log(), log());
  });

  it('off (the default) re-posts the whole ladder every refresh, as before', () => {
    const m = setup({ keepQueue: false });
    m.refresh(T0, 0.5);
    const n = m.applied.length;
    m.refresh(T0 + 2000, 0.5);
    assert.equal(m.applied[n]!.type, 'cancelAll');
    assert.equal(m.applied.length - n, n);
  });
});
