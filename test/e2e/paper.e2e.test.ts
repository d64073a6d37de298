/**
 * --paper: live data from the venue, simulated fills, no order sent. The bot quotes (in memory)
 * around the real book, nothing appears at the venue, and a public trade through a quote fills it.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { config, openOrders, place, setBook, startExchange, startTestBot, waitFor } from './harness.ts';

test('paper mode quotes on live data, sends nothing and fills from public trades', async () => {
  const h = await startExchange({ markets: 1 });
  const m = h.markets[0]!;
  await setBook(h, m, 460_000, 540_000);
  const bot = await startTestBot(h, await config(h), { paper: true, env: {}, apiKey: '' });
  try {
    assert.equal(bot.paper, true);
    await waitFor('paper quotes', () => (bot.store.state.markets.get(m.toLowerCase())?.orders.size ?? 0) === 2);
    assert.equal((await openOrders(h.bot)).length, 0, 'nothing reached the venue');
    const fillsBefore = bot.store.state.markets.get(m.toLowerCase())!.position.fills;
    assert.equal(fillsBefore, 0);
    // another account (the bot's wallet is idle in paper mode) sells 3 YES into the mover's 0.46 bid:
    // the public trade prints through the paper bid at 0.48, which would have been hit first
    await place(h.bot, { marketId: m, outcomeIndex: 1, side: 1, price: 460_000, shares: 3, timeInForce: 1, inventoryMode: 2 });
    await waitFor('a paper fill', () => (bot.store.state.markets.get(m.toLowerCase())?.position.net ?? 0) > 0, 10_000);
    assert.equal(bot.store.state.markets.get(m.toLowerCase())!.position.net, 3_000_000);
  } finally {
    assert.equal(await bot.stop(), 0);
    await h.close();
  }
});
