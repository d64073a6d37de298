/**
 * The bot against the local exchange over real HTTP: quotes appear and follow the book, fills
 * update positions and PnL, and stop() leaves nothing open.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Bot } from '../../src/runtime/bot.ts';
import { config, openOrders, place, exchangeForFile, setBook, startTestBot, waitFor, yesTerms, type Harness } from './harness.ts';
import type { Bytes32 } from '../../src/model/order.ts';

let h: Harness;
let bot: Bot;

exchangeForFile({}, async (x) => {
  h = x;
  bot = await startTestBot(h, await config(h));
  return () => bot.stop('test end');
});

const bestBid = async (m: Bytes32) =>
  Math.max(
    ...(await openOrders(h.bot, m))
      .map(yesTerms)
      .filter((y) => y.side === 'bid')
      .map((y) => y.price),
  );

test('quotes appear on both sides of every market', async () => {
  await waitFor('two quotes per market', async () => {
    for (const m of h.markets) {
      const ys = (await openOrders(h.bot, m)).map(yesTerms);
      if (ys.filter((y) => y.side === 'bid').length !== 1 || ys.filter((y) => y.side === 'ask').length !== 1) return false;
    }
    return true;
  });
  const ys = (await openOrders(h.bot, h.markets[0])).map(yesTerms);
  assert.equal(ys.find((y) => y.side === 'bid')!.price, 480_000, 'bid at mid 0.50 − 0.02');
  assert.equal(ys.find((y) => y.side === 'ask')!.price, 520_000, 'ask at mid 0.50 + 0.02');
});

test('quotes follow the book when it moves', async () => {
  const m = h.markets[0]!;
  // the whole book moves up 10¢; the bot's bid must follow to mid − 2¢
  await setBook(h, m, 580_000, 620_000);
  await waitFor('bid follows to 0.58', async () => (await bestBid(m)) === 580_000);
  const ys = (await openOrders(h.bot, m)).map(yesTerms);
  assert.equal(ys.length, 2, 'still exactly one order per slot');
  assert.equal(ys.find((y) => y.side === 'ask')!.price, 620_000);
});

test('a fill updates the position and PnL', async () => {
  const m = h.markets[1]!;
  await waitFor('bot bid resting', async () => (await bestBid(m)) === 480_000);
  // the mover sells 4 YES into the bot's 0.48 bid (IOC)
  await place(h.mover, { marketId: m, outcomeIndex: 1, side: 1, price: 480_000, shares: 4, timeInForce: 1, inventoryMode: 2 });
  // The fill event first, then the figures, from the books (bot.kernel.account: what risk, /metrics and
  // the summary read). A balance read can land before the fills poll reports the fill (it happened
  // between the poll's orders read and its balance read): the store's own position then shows +4
  // with no cost (unrealised 2.000000 USDC) until the fill arrives. Waiting on the position and
  // reading that snapshot was this test's race, not the bot's (the books hold the fill, exactly).
  await waitFor('fill counted', () => (bot.fills.get(m.toLowerCase()) ?? 0) >= 1);
  const id = m.toLowerCase() as Bytes32;
  await waitFor('position +4 YES in the books', () => bot.kernel.account.holdingsOf(id).net === 4_000_000);
  await waitFor('marked at the mid', () => bot.kernel.account.market(id)?.mark2 === 1_000_000);
  // bought at 0.48 with the mid at 0.50: +0.02 × 4 = +0.08 USDC unrealised (mark to mid)
  assert.equal(bot.kernel.account.marketPnl(id).unrealised, 80_000n);
});

test('stop cancels everything: no order of the bot is left open', async () => {
  const code = await bot.stop('test');
  assert.equal(code, 0);
  assert.equal((await openOrders(h.bot)).length, 0);
});
