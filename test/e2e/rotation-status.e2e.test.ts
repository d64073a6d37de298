/**
 * The book stream's `event: status` retires a market at once (against the local exchange over real
 * HTTP, with its market churn keeping deadlines): a bot quoting two markets with re-selection off, the
 * market poll every 10 minutes and the activity poll every 5, so neither poll can tell it a market
 * ended while the test runs. Then
 *   - the churn closes one market at its deadline: the stream says `closed` and the rotation retires
 *     it with reason `closed`, its quotes cancelled by the bot (the venue keeps them), its state released;
 *   - the venue resolves the other: the stream says `resolved`, the rotation retires it as `resolved`.
 * Before the stream's status reached the rotation, neither retirement happened until the next poll.
 * Waits are bounded and event-driven; nothing is timed.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseConfigText } from '../../src/config/load-config.ts';
import type { Bytes32 } from '../../src/model/order.ts';
import { createMarketChurn } from '../../src/sim/market-churn.ts';
import { openOrders, setBook, startExchange, startTestBot, waitFor, yaml, type Harness } from './harness.ts';

test('a stream status (closed by the churn, resolved by the venue) retires the market before any poll could', async () => {
  const h: Harness = await startExchange({ markets: 1 });
  // the churn's deadlines and resolution delay are far off; the test moves one deadline to now
  const churn = createMarketChurn(h.ex, { seed: 5, lifetimeMs: 3_600_000, resolutionDelayMs: 3_600_000 });
  const generated = churn.createMarket()!;
  const closing = generated.id as Bytes32;
  const resolving = h.markets[0]!;
  try {
    await setBook(h, closing, 480_000, 520_000);
    await setBook(h, resolving, 470_000, 530_000);
    let text = yaml(h, { markets: `  refreshSeconds: 0\n  select:\n    - all: true` });
    text = text.replace('balancePollSeconds: 0.5', 'balancePollSeconds: 300').replace('activityPollSeconds: 1', 'activityPollSeconds: 300');
    const cfg = await parseConfigText(text, '', { env: {} });
    assert.equal(cfg.selection.refreshMs, 0);
    assert.equal(cfg.feeds.balancePollMs, 300_000, 'the market poll runs every max(5 s, 2 × balance poll) = 10 minutes');
    assert.equal(cfg.feeds.activityPollMs, 300_000);
    const bot = await startTestBot(h, cfg);
    let stopped = false;
    try {
      await waitFor('quotes in both markets', async () => (await openOrders(h.bot, closing)).length === 2 && (await openOrders(h.bot, resolving)).length === 2);
      assert.equal(bot.rotation.summary().started, 2);

      // 1. the deadline passes: the churn closes the market (the venue keeps its resting orders)
      generated.deadline = Date.now();
      churn.step();
      assert.equal(churn.counts.closed, 1);
      assert.equal(generated.status, 'closed');
      await waitFor('the closed market retired', () => (bot.rotation.totals().retired.closed ?? 0) === 1 && !bot.rotation.isRetiring(closing));
      assert.equal(bot.rotation.isActive(closing), false);
      assert.deepEqual(await openOrders(h.bot, closing), [], 'the bot cancelled its own quotes in the closed market');
      assert.equal(bot.kernel.hasMarket(closing), false);
      assert.equal(bot.healthModel.marketState(closing), null);
      assert.equal(bot.rotation.isActive(resolving), true, 'the other market still quotes');

      // 2. the venue resolves the other market
      h.ex.state.services.resolveMarket(resolving, 1_000_000, Date.now(), null);
      await waitFor('the resolved market retired', () => (bot.rotation.totals().retired.resolved ?? 0) === 1 && !bot.rotation.isRetiring(resolving));
      assert.equal(bot.rotation.isActive(resolving), false);
      assert.deepEqual(bot.rotation.totals().retired, { closed: 1, resolved: 1 });
      assert.deepEqual(await openOrders(h.bot), []);

      const code = await bot.stop('test');
      stopped = true;
      assert.equal(code, 0);
    } finally {
      if (!stopped) await bot.stop('test');
    }
  } finally {
    churn.stop();
    await h.close();
  }
});
