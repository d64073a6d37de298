/**
 * Observation 5: metrics that tell the truth, scraped over HTTP from a bot quoting the
 * local exchange over real HTTP.
 * - bookmaker_api_latency_seconds is observed for the bot's real calls, labelled by method, path
 *   template and status (never a raw market id or address);
 * - prom-client's default process and Node.js metrics are exported, unprefixed;
 * - tick-to-wire is not charged by a book event that triggered nothing: a book change the strategy
 *   ignores, then (2 s later) a send no book event caused, adds no sample of 2 s (the old meter
 *   charged that send from the ignored event).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Bot } from '../../src/runtime/bot.ts';
import { config, metricValue, openOrders, place, scrapeMetrics, exchangeForFile, startTestBot, waitFor, type Harness } from './harness.ts';
import { freePort } from './sim-process.ts';

let h: Harness;
let bot: Bot;

exchangeForFile({}, async (x) => {
  h = x;
  bot = await startTestBot(h, await config(h), { metricsPort: await freePort() });
  await waitFor('the bot quotes', async () => (await openOrders(h.bot)).length >= 4);
  return () => bot.stop();
});

const scrape = (): Promise<string> => scrapeMetrics(bot);
const value = metricValue;

test('API latency is observed for real calls with method, endpoint template and status', async () => {
  const text = await scrape();
  const lines = text.split('\n').filter((l) => l.startsWith('bookmaker_api_latency_seconds_count{'));
  assert.ok(lines.length >= 3, text);
  assert.ok(
    lines.some((l) => l.includes('method="GET"') && l.includes('endpoint="/markets/:id"') && l.includes('status="200"')),
    lines.join('\n'),
  );
  assert.ok(
    lines.some((l) => l.includes('method="GET"') && l.includes('endpoint="/balance/:address"')),
    lines.join('\n'),
  );
  assert.ok(
    lines.some((l) => l.includes('method="POST"') && /endpoint="\/orders\/bulk(\/create)?"/.test(l)),
    lines.join('\n'),
  );
  for (const l of lines) assert.doesNotMatch(l, /0x[0-9a-fA-F]{8}/, `a raw id in a label: ${l}`);
});

test('default process and Node.js metrics are exported unprefixed', async () => {
  const text = await scrape();
  for (const name of ['process_start_time_seconds', 'process_resident_memory_bytes', 'nodejs_eventloop_lag_p99_seconds', 'nodejs_heap_size_used_bytes']) {
    assert.match(text, new RegExp(`^${name}(\\{| )`, 'm'), `${name} missing`);
  }
  assert.match(text, /^# TYPE nodejs_gc_duration_seconds histogram/m);
  assert.match(text, /^bookmaker_requote_throttle_seconds_count /m);
  assert.match(text, /^bookmaker_tick_to_wire_seconds_bucket\{le="0.00005"\}/m, 'tick-to-wire buckets start at 50 µs');
  assert.match(text, /^bookmaker_tick_to_wire_seconds_bucket\{le="10"\}/m, 'tick-to-wire buckets reach 10 s');
});

test('a book event that triggered nothing is not charged to a later send it did not cause', async () => {
  const m = h.markets[0]!;
  // the strategy quotes around the mid: a deep bid changes the book, not the mid, so nothing is sent
  const sentBefore = (await openOrders(h.bot, m)).map((o) => o.nonce).sort();
  await place(h.mover, { marketId: m, outcomeIndex: 1, side: 0, price: 100_000, shares: 5 });
  await new Promise((r) => setTimeout(r, 2_000));
  assert.deepEqual((await openOrders(h.bot, m)).map((o) => o.nonce).sort(), sentBefore, 'the deep bid caused no requote');
  // a send no book event caused: the quotes moved by one tick from outside the feed
  const desired = bot.kernel.desired().filter((d) => d.order.marketId.toLowerCase() === m.toLowerCase());
  assert.ok(desired.length > 0);
  const before = await scrape();
  const moved = desired
    .map((d) => ({ ...d, keeps: undefined, order: { ...d.order, price: d.order.side === 0 ? d.order.price - 10_000 : d.order.price + 10_000 } }))
    .map(({ keeps: _k, ...d }) => d);
  await bot.orderManager.sync(m, moved);
  await waitFor('the moved quotes rest at the venue', async () => (await openOrders(h.bot, m)).some((o) => !sentBefore.includes(o.nonce)));
  const after = await scrape();
  const count = (t: string) => value(t, 'bookmaker_tick_to_wire_seconds_count');
  const sum = (t: string) => value(t, 'bookmaker_tick_to_wire_seconds_sum');
  assert.ok(Number.isFinite(sum(before)) && Number.isFinite(sum(after)));
  // the old meter charged this send from the ignored event, 2 s earlier: a sample of ≥ 2 s
  assert.ok(sum(after) - sum(before) < 1, `tick-to-wire charged ${sum(after) - sum(before)} s to a send no book event caused`);
  // and a book event that does cause a send is observed
  await place(h.mover, { marketId: m, outcomeIndex: 1, side: 0, price: 510_000, shares: 50 });
  await waitFor('a requote caused by the book is observed', async () => count(await scrape()) > count(after));
});
