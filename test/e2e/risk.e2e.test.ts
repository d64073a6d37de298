/**
 * Risk end to end: the position limit holds at the venue counting resting orders at worst case,
 * and the kill switch pulls every quote and stops the bot with a non-zero exit code.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Bytes32 } from '../../src/model/order.ts';
import { remainingShares } from '../../src/orders/venue-order-shares.ts';
import { EXIT_KILL_SWITCH } from '../../src/runtime/bot.ts';
import { config, withTimeout, openOrders, place, setBook, startExchange, startTestBot, waitFor, yesTerms, type Harness, loseTwoDollars } from './harness.ts';

async function netAtVenue(h: Harness, m: Bytes32): Promise<number> {
  const s = await h.bot.client.balance.summary(h.bot.wallet);
  let net = 0;
  for (const t of s.outcomeTokens) if (t.marketId.toLowerCase() === m.toLowerCase()) net += (t.outcomeIndex === 1 ? 1 : -1) * Number(t.balance);
  return net;
}

async function worstLong(h: Harness, m: Bytes32): Promise<{ net: number; bids: number; best: number }> {
  const orders = (await openOrders(h.bot, m)).filter((o) => yesTerms(o).side === 'bid');
  const bids = orders.reduce((s, o) => s + remainingShares(o), 0);
  return { net: await netAtVenue(h, m), bids, best: Math.min(...orders.map((o) => yesTerms(o).price)) };
}

test('the position limit holds at worst case (position + every resting bid) while fills come in', async () => {
  const h = await startExchange({ markets: 1 });
  const m = h.markets[0]!;
  // the mover rests behind the bot (0.46 / 0.54) so a sell at 0.48 can only take the bot's bid
  await setBook(h, m, 460_000, 540_000);
  const bot = await startTestBot(h, await config(h, { risk: '    maxPosition: 25\n    maxNotional: 1000\n    maxOrderSize: 50\n    maxBookAgeSeconds: 60' }));
  try {
    const LIMIT = 25_000_000;
    await waitFor('a resting bid', async () => (await worstLong(h, m)).bids > 0);
    for (let round = 0; round < 4; round++) {
      const before = await worstLong(h, m);
      assert.ok(before.net + before.bids <= LIMIT, `round ${round}: ${before.net} + ${before.bids} exceeds the limit`);
      if (before.bids === 0) break;
      // take the whole bid: the bot buys, then may only re-bid what is left under the limit
      // the strategy skews its bid down as it gets long; sell down to its lowest bid (still above the mover's 0.46)
      await place(h.mover, {
        marketId: m,
        outcomeIndex: 1,
        side: 1,
        price: Math.max(before.best, 470_000),
        shares: before.bids / 1e6,
        timeInForce: 1,
        inventoryMode: 2,
      });
      await waitFor(
        'the fill is seen',
        async () => (await netAtVenue(h, m)) > before.net && (bot.store.state.markets.get(m.toLowerCase())?.position.net ?? 0) >= (await netAtVenue(h, m)),
        5_000,
      ).catch(() => undefined);
      // let it requote: a new bid unless the limit leaves less than the market minimum (1 share)
      await waitFor('a new bid or a full position', async () => {
        const w = await worstLong(h, m);
        return w.bids > 0 || w.net >= LIMIT - 1_000_000;
      });
      const after = await worstLong(h, m);
      assert.ok(after.net + after.bids <= LIMIT, `after round ${round}: ${after.net} + ${after.bids} exceeds the limit`);
    }
    const end = await worstLong(h, m);
    assert.ok(end.net >= 20_000_000, `the bot was filled up towards the limit (${end.net})`);
    assert.ok(end.net + end.bids <= LIMIT);
    // the denials were counted
    const denials = bot.store.state.markets.get(m.toLowerCase())!.denials;
    assert.ok((denials.get('POSITION_LIMIT') ?? 0) > 0 || end.bids < 10_000_000, 'the limit trimmed or denied a bid');
  } finally {
    await bot.stop();
    await h.close();
  }
});

test('the kill switch pulls every quote and exits non-zero', async () => {
  const h = await startExchange({ markets: 2 });
  for (const m of h.markets) await setBook(h, m, 480_000, 520_000);
  const bot = await startTestBot(
    h,
    await config(h, { risk: '    maxPosition: 100\n    maxNotional: 1000\n    maxBookAgeSeconds: 60', account: '  maxDrawdown: 0.5' }),
  );
  try {
    // the bot buys 10 at 0.48, then the market drops 20¢: a 2 USDC loss against a 0.5 limit
    await loseTwoDollars(h, bot);
    const code = await withTimeout(bot.exit, 20_000, 'no kill within 20 s');
    assert.equal(code, EXIT_KILL_SWITCH);
    assert.equal(bot.kernel.killed, 'KILL_DRAWDOWN');
    assert.equal((await openOrders(h.bot)).length, 0, 'nothing left open anywhere');
  } finally {
    await bot.stop();
    await h.close();
  }
});
