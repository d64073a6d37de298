/**
 * A bot whose markets: is a rank entry quotes the markets the ranking selects, and only those: the
 * local exchange over HTTP (test/e2e/harness.ts), four markets whose books the mover sets to 2¢, 8¢
 * and 5¢ of spread (the fourth stays empty); rank top 2 by spread → the bot quotes the 8¢ and 5¢ ones.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { config, openOrders, setBook, startExchange, startTestBot, waitFor } from '../e2e/harness.ts';
import type { Bytes32 } from '../../src/model/order.ts';

test('bookmaker run with a rank entry quotes the top markets by score and nothing else; nothing is left after stop', async () => {
  const h = await startExchange({ markets: 4 });
  try {
    const [narrow, wide, middle, empty] = h.markets as [Bytes32, Bytes32, Bytes32, Bytes32];
    await setBook(h, narrow, 490_000, 510_000);
    await setBook(h, wide, 460_000, 540_000);
    await setBook(h, middle, 470_000, 520_000);
    const cfg = await config(h, {
      markets: `  - rank:
      top: 2
      weights: { spread: 1, depth: 0, volume: 0, volume24h: 0, volatility: 0, tradeRate: 0, timeToDeadline: 0, oracleDisagreement: 0, fee: 0 }`,
    });
    const bot = await startTestBot(h, cfg);
    let stopped = false;
    try {
      const quoted = async (id: string) => (await openOrders(h.bot, id as Bytes32)).length > 0;
      await waitFor('the bot quotes the two widest markets', async () => (await quoted(wide)) && (await quoted(middle)));
      assert.equal(await quoted(narrow), false);
      assert.equal(await quoted(empty), false);
      const scores = bot.ranker.scores();
      assert.deepEqual([...scores.keys()].sort(), [wide, middle].map((x) => x.toLowerCase()).sort());
      assert.ok(Math.abs(scores.get(wide.toLowerCase())!.terms.spread! - 0.8) < 1e-9);
      // the running bot exposes each selected market's score and terms, and no series for the others
      const text = await bot.metrics.registry.metrics();
      assert.match(text, new RegExp(`bookmaker_market_rank_score\\{market="${wide.toLowerCase()}"\\} `));
      assert.match(text, new RegExp(`bookmaker_market_rank_term\\{market="${middle.toLowerCase()}",term="spread"\\} 0\\.5`));
      assert.doesNotMatch(text, new RegExp(`bookmaker_market_rank_score\\{market="${narrow.toLowerCase()}"`));
      await bot.stop();
      stopped = true;
      assert.equal((await openOrders(h.bot)).length, 0, 'no order left after stop');
    } finally {
      if (!stopped) await bot.stop();
    }
  } finally {
    await h.close();
  }
});
