/**
 * The local exchange's drop copy (src/sim/flow-tap.ts): the others' book without the excluded
 * trader's orders, taker orders before their fills (IOC always, GTC only when it trades on arrival),
 * and the excluded trader's own levels and fills — driven through the real engine host.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Address } from '../../src/model/order.ts';
import { toSubmitOrder } from '../../src/sim/agents/order-builder.ts';
import type { FlowEvent } from '../../src/sim/flow-tap.ts';
import { createLocalExchange } from '../../src/sim/local-exchange.ts';

const S = 1_000_000;
const C = 10_000;
const addr = (b: string) => `0x${b.repeat(40)}` as Address;

test("the drop copy: others' book without the bot, taker orders before their fills, the bot's quotes and fills", async () => {
  const ex = createLocalExchange({ seed: 3, markets: 1, expirySweepMs: 0 });
  try {
    const host = ex.state.engine;
    const id = [...ex.state.stores.markets.values()][0]!.id;
    const m = host.marketIndex(id)!;
    const maker = host.ensureTrader(addr('1'));
    const bot = host.ensureTrader(addr('2'));
    const taker = host.ensureTrader(addr('3'));
    const seller = host.ensureTrader(addr('4'));
    for (const t of [maker, bot, taker, seller]) assert.ok(host.deposit(t, 10_000n * BigInt(S)).ok);
    const buy = (trader: number, outcome: 0 | 1, cents: number, shares: number, timeInForce: 0 | 1 = 0) =>
      host.submit(toSubmitOrder({ market: m, trader, outcome, side: 'buy', price: cents * C, size: shares * S, timeInForce, nowMs: 1 }));
    // before the tap: the maker bids 40 and asks 60 (buys NO at 40), the bot asks 55
    assert.ok(buy(maker, 1, 40, 50).ok);
    assert.ok(buy(maker, 0, 40, 50).ok);
    assert.ok(buy(bot, 0, 45, 10).ok);

    const events: FlowEvent[] = [];
    const stop = ex.tapFlow({ markets: [id], exclude: addr('2') }, (e) => events.push(e));
    const [snap, quote] = events.splice(0);
    assert.equal(snap!.type, 'book');
    assert.deepEqual(
      snap!.type === 'book' && { snap: snap!.snap, bids: snap!.bids, asks: snap!.asks },
      { snap: true, bids: [[40 * C, 50 * S]], asks: [[60 * C, 50 * S]] },
      "the bot's ask at 55 is not in the others' book",
    );
    assert.deepEqual(quote, { type: 'own', marketId: id, atMs: snap!.atMs, side: 'ask', price: 55 * C, size: 10 * S }, 'its quote, separately');

    // the bot joins the bid at 40: only its own level moves, the others' book does not
    assert.ok(buy(bot, 1, 40, 10).ok);
    const joined = events.splice(0);
    assert.deepEqual(joined, [{ type: 'own', marketId: id, atMs: joined[0]?.atMs, side: 'bid', price: 40 * C, size: 10 * S }]);

    // a GTC order that rests without trading is no taker flow; its level is
    assert.ok(buy(taker, 1, 41, 5).ok);
    assert.deepEqual(
      events.splice(0).map((e) => e.type),
      ['book'],
    );

    // an IOC buy of 30 up to 60: taker event first, then the bot's fill (10 @ 55), its level, the others' levels
    assert.ok(buy(taker, 1, 60, 30, 1).ok);
    const seq = events.splice(0);
    assert.deepEqual(seq[0], { type: 'taker', marketId: id, atMs: 1, side: 'buy', limit: 60 * C, size: 30 * S, timeInForce: 1 });
    const fill = seq.find((e) => e.type === 'fill');
    assert.deepEqual(fill, { type: 'fill', marketId: id, atMs: 1, side: 'sell', price: 55 * C, size: 10 * S, maker: true });
    assert.ok(
      seq.some((e) => e.type === 'own' && e.side === 'ask' && e.price === 55 * C && e.size === 0),
      "the bot's ask is gone",
    );
    assert.ok(
      seq.some((e) => e.type === 'book' && e.asks.length === 1 && e.asks[0]![0] === 60 * C && e.asks[0]![1] === 30 * S),
      "the others' ask at 60 lost the 20 the taker took from it",
    );
    assert.ok(seq.findIndex((e) => e.type === 'taker') < seq.findIndex((e) => e.type === 'fill'), 'the order comes before its fills');

    // a GTC sell that trades on arrival is taker flow (emitted before its fill); an IOC that finds nothing still is
    assert.ok(buy(seller, 0, 60, 5).ok); // buys NO at 60 = sells YES down to 40: takes the 41 bid
    const gtc = events.splice(0);
    assert.deepEqual(gtc[0], { type: 'taker', marketId: id, atMs: 1, side: 'sell', limit: 40 * C, size: 5 * S, timeInForce: 0 });
    assert.ok(
      gtc.some((e) => e.type === 'book' && e.bids.length === 1 && e.bids[0]![0] === 41 * C && e.bids[0]![1] === 0),
      'the 41 bid it took is gone',
    );
    assert.ok(buy(taker, 1, 20, 5, 1).ok);
    assert.deepEqual(
      events.splice(0).map((e) => e.type),
      ['taker'],
    );
    stop();
    assert.ok(buy(taker, 1, 60, 1, 1).ok);
    assert.equal(events.length, 0, 'nothing after stop');
  } finally {
    await ex.close();
  }
});
