/**
 * Market rotation end to end, against the local exchange over real HTTP: a bot started
 * with `markets: { refreshSeconds: 1, select: [ { all: true } ] }`
 *   - quotes a market created after it started (within a refresh or two: waited for, not timed),
 *   - retires a market the venue resolves and one it closes while our quotes rest there: no open
 *     order of ours is left in either (the closed one's cancels are the bot's own — the venue does not
 *     cancel them), its book stream is closed and its state released (kernel slot, health model,
 *     store, feed health source, order-manager maps, metric series),
 *   - holds its invariants meanwhile: never two orders in one slot, never past the size limit, and
 *     nothing left open after stop.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseConfigText } from '../../src/config/load-config.ts';
import type { Bytes32, VenueOrder } from '../../src/model/order.ts';
import { openOrders, ROTATING, setBook, startExchange, startTestBot, waitFor, yaml, yesTerms, type Harness } from './harness.ts';

/** At most one order per (market, side, price level): the bands strategy quotes one level a side. */
function slotsOnce(orders: readonly VenueOrder[]): void {
  const seen = new Map<string, number>();
  for (const o of orders) {
    const k = `${o.marketId.toLowerCase()}|${yesTerms(o).side}`;
    seen.set(k, (seen.get(k) ?? 0) + 1);
  }
  for (const [k, n] of seen) assert.ok(n <= 1, `slot ${k} quoted ${n} times`);
  for (const o of orders) assert.ok(o.size <= 50_000_000, `order size ${o.size} past maxOrderSize`);
}

test('rotation: a new market is quoted, resolved and closed markets retire with nothing left behind', async () => {
  const h: Harness = await startExchange({ markets: 3 });
  const [m0, m1, m2] = h.markets as [Bytes32, Bytes32, Bytes32];
  const services = h.ex.state.services;
  try {
    for (const m of h.markets) await setBook(h, m, 480_000, 520_000);
    const cfg = await parseConfigText(yaml(h, { markets: ROTATING }), '', { env: {} });
    assert.equal(cfg.selection.refreshMs, 1_000);
    const bot = await startTestBot(h, cfg);
    let stopped = false;
    try {
      await waitFor('quotes in the three start-up markets', async () => {
        const o = await openOrders(h.bot);
        return [m0, m1, m2].every((m) => o.filter((x) => x.marketId.toLowerCase() === m.toLowerCase()).length === 2);
      });
      assert.equal(bot.rotation.summary().started, 3);

      // 1. a market created after start: quoted at a refresh, no restart
      const added = services.addMarket({ question: 'Will rotation pick this market up?' }, Date.now());
      const m3 = added.id as Bytes32;
      await setBook(h, m3, 470_000, 530_000);
      await waitFor('the new market quoted', async () => (await openOrders(h.bot, m3)).length === 2);
      assert.ok(bot.rotation.isActive(m3));
      assert.ok(bot.markets.some((m) => m.toLowerCase() === m3.toLowerCase()));
      assert.deepEqual(bot.rotation.totals().started, { startup: 3, selected: 1 });
      slotsOnce(await openOrders(h.bot));

      // 2. the venue resolves m1: it retires (reason resolved) and nothing of it stays
      services.resolveMarket(m1, 1_000_000, Date.now(), null);
      await waitFor('m1 retired', () => !bot.rotation.isActive(m1) && !bot.rotation.isRetiring(m1));
      assert.equal((await openOrders(h.bot, m1)).length, 0, 'no open order in a resolved market');

      // 3. the venue closes m2 with our quotes resting there: the bot cancels them itself
      assert.equal((await openOrders(h.bot, m2)).length, 2);
      h.ex.state.stores.markets.get(m2.toLowerCase())!.status = 'closed';
      await waitFor('m2 retired', () => !bot.rotation.isActive(m2) && !bot.rotation.isRetiring(m2));
      assert.equal((await openOrders(h.bot, m2)).length, 0, 'the retirement cancelled our quotes in the closed market');
      assert.deepEqual(bot.rotation.totals().retired, { resolved: 1, closed: 1 });

      // released: kernel slot, health model, book stream's health source, store (no position there)
      for (const m of [m1, m2]) {
        assert.equal(bot.kernel.hasMarket(m), false);
        assert.equal(bot.healthModel.marketState(m), null);
        assert.ok(!bot.health.all().some((s) => s.name === `book:${m.toLowerCase()}`), 'book stream closed');
        // its heavy state went at release; a record of orders the venue ended without our cancel (the
        // resolution) stays until their fills are known, then the market leaves the store
        const st = bot.store.state.markets.get(m.toLowerCase());
        if (st) assert.ok(st.books.yes === null && st.midHistory.length === 0 && st.trades.length === 0, 'only a position record stays');
        await waitFor(`${m} gone from the store`, () => !bot.store.state.markets.has(m.toLowerCase()), 45_000);
        assert.ok(!bot.markets.some((x) => x.toLowerCase() === m.toLowerCase()));
      }
      const metrics = await bot.metrics.registry.metrics();
      assert.match(metrics, /bookmaker_markets_active 2\b/);
      // bookmaker ctl status shows the rotation too
      const st = bot.control.status().rotation as { active: number; retired: number; retiring: unknown[] };
      assert.deepEqual([st.active, st.retired, st.retiring.length], [2, 2, 0]);
      assert.match(metrics, /bookmaker_markets_started_total\{reason="selected"\} 1/);
      assert.match(metrics, /bookmaker_markets_retired_total\{reason="resolved"\} 1/);
      assert.match(metrics, /bookmaker_markets_retired_total\{reason="closed"\} 1/);
      assert.match(metrics, /bookmaker_market_retire_seconds_count 2/);
      const leftOver = metrics.split('\n').filter((l) => l.toLowerCase().includes(`market="${m2.toLowerCase()}"`));
      assert.deepEqual(leftOver, [], 'the retired market has no label series left');

      // the markets still quoted keep quoting, one order per slot
      await waitFor('m0 and m3 still quoted', async () => (await openOrders(h.bot, m0)).length === 2 && (await openOrders(h.bot, m3)).length === 2);
      slotsOnce(await openOrders(h.bot));

      // the run report names the retirements
      const code = await bot.stop('test');
      stopped = true;
      assert.equal(code, 0);
      assert.equal((await openOrders(h.bot)).length, 0, 'nothing left after stop');
      const report = bot.report('test', code);
      assert.equal(report.rotation?.retired, 2);
      assert.deepEqual(report.rotation?.retiredBy, { resolved: 1, closed: 1 });
      assert.deepEqual(
        report.markets.filter((m) => m.retired).map((m) => [m.marketId.toLowerCase(), m.retired]),
        [
          [m1.toLowerCase(), 'resolved'],
          [m2.toLowerCase(), 'closed'],
        ],
      );
    } finally {
      if (!stopped) await bot.stop('test');
    }
  } finally {
    await h.close();
  }
});

test('rotation: a market listed by id that is already closed at start-up retires at once; the other quotes', async () => {
  const h: Harness = await startExchange({ markets: 2 });
  const [m0, m1] = h.markets as [Bytes32, Bytes32];
  try {
    for (const m of h.markets) await setBook(h, m, 480_000, 520_000);
    h.ex.state.stores.markets.get(m1.toLowerCase())!.status = 'closed';
    const bot = await startTestBot(h, await parseConfigText(yaml(h), '', { env: {} }));
    try {
      await waitFor('m1 retired as closed', () => bot.rotation.totals().retired.closed === 1 && !bot.rotation.isRetiring(m1));
      await waitFor('m0 quoted', async () => (await openOrders(h.bot, m0)).length === 2);
      assert.equal(bot.kernel.hasMarket(m1), false);
      assert.equal((await openOrders(h.bot, m1)).length, 0);
    } finally {
      assert.equal(await bot.stop('test'), 0);
    }
  } finally {
    await h.close();
  }
});

test('rotation: a start-up that selects nothing waits for a refresh (no exit), then quotes the first market that appears', async () => {
  const h: Harness = await startExchange({ markets: 2 });
  const services = h.ex.state.services;
  try {
    const cfg = await parseConfigText(yaml(h, { markets: `  refreshSeconds: 1\n  select:\n    - filter: { category: launches-later }` }), '', { env: {} });
    const bot = await startTestBot(h, cfg);
    let stopped = false;
    try {
      assert.deepEqual(bot.markets, [], 'nothing selected at start-up, and the bot runs');
      assert.equal((await openOrders(h.bot)).length, 0);
      const added = services.addMarket({ question: 'Will the first market of the category arrive?', category: 'launches-later' }, Date.now());
      const m = added.id as Bytes32;
      await setBook(h, m, 470_000, 530_000);
      await waitFor('the first market of the category quoted', async () => (await openOrders(h.bot, m)).length === 2);
      assert.equal((await openOrders(h.bot)).filter((o) => o.marketId.toLowerCase() !== m.toLowerCase()).length, 0, 'only that market');
      await bot.stop();
      stopped = true;
      assert.equal((await openOrders(h.bot)).length, 0, 'nothing left after stop');
    } finally {
      if (!stopped) await bot.stop();
    }
  } finally {
    await h.close();
  }
});

test('rotation off (refreshSeconds 0): a start-up that selects nothing is still a config error', async () => {
  const h: Harness = await startExchange({ markets: 1 });
  try {
    const cfg = await parseConfigText(yaml(h, { markets: `  refreshSeconds: 0\n  select:\n    - filter: { category: launches-later }` }), '', { env: {} });
    await assert.rejects(startTestBot(h, cfg), /no market at the venue matches the configured selectors/);
  } finally {
    await h.close();
  }
});
