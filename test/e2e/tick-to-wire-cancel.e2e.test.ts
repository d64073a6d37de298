/**
 * Tick-to-wire of a requote that only cancels, scraped over HTTP from a bot quoting the local exchange:
 * a book event after which the strategy wants nothing (a bid of 48¢ shows) sends one cancel-only bulk
 * request, and that send is observed in bookmaker_tick_to_wire_cancel_seconds (before, a cancel-only
 * request carried no market and was never measured). The create histogram is not charged for it.
 * Waits are bounded and event-driven; no timing is asserted.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Bot } from '../../src/runtime/bot.ts';
import { config, metricValue, openOrders, place, scrapeMetrics, exchangeForFile, startTestBot, waitFor, type Harness } from './harness.ts';
import { freePort } from './sim-process.ts';

const STRATEGY = new URL('./fixtures/pull-above-strategy.ts', import.meta.url).pathname;

let h: Harness;
let bot: Bot;

exchangeForFile({ markets: 1, book: [450_000, 550_000] }, async (x) => {
  h = x;
  bot = await startTestBot(h, await config(h, { strategy: '      {}', markets: `  - id: "${h.markets[0]}"\n    strategy: { name: "${STRATEGY}" }` }), {
    metricsPort: await freePort(),
  });
  await waitFor('the bot quotes', async () => (await openOrders(h.bot)).length === 2);
  return () => bot.stop();
});

const scrape = (): Promise<string> => scrapeMetrics(bot);
const value = metricValue;

test('a book event whose requote only cancels is observed in the cancel-only tick-to-wire series', async () => {
  const before = await scrape();
  const cancels = (t: string) => value(t, 'bookmaker_tick_to_wire_cancel_seconds_count');
  const creates = (t: string) => value(t, 'bookmaker_tick_to_wire_seconds_count');
  assert.equal(cancels(before), 0, 'exported (at zero) before any cancel-only send');
  assert.match(before, /^bookmaker_tick_to_wire_cancel_seconds_bucket\{le="0.00005"\} 0/m);
  // the book event: a bid at 48¢ → the strategy wants nothing → one cancel-only request
  await place(h.mover, { marketId: h.markets[0]!, outcomeIndex: 1, side: 0, price: 480_000, shares: 5 });
  await waitFor('the quotes pulled', async () => (await openOrders(h.bot)).length === 0);
  await waitFor('the cancel-only send observed', async () => cancels(await scrape()) === 1);
  const after = await scrape();
  assert.equal(creates(after), creates(before), 'the create series is not charged for it');
  const sum = value(after, 'bookmaker_tick_to_wire_cancel_seconds_sum');
  assert.ok(Number.isFinite(sum) && sum >= 0, `sum ${sum}`);
});
