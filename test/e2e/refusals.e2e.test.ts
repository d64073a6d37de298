/**
 * Observation 6 (refusals) and orders.reconcileScope, over real HTTP: the bot's wallet has
 * its collateral locked by an order of its own in a market this bot does not manage, so the venue
 * refuses its creates with 400 INSUFFICIENT_BALANCE. The refusal is logged at warn with status, code
 * and message (aggregated: a few lines, not one per order), the metric carries the venue's code,
 * the markets read orders-refused, and the bot does not halt (the refusal concerns these orders,
 * not every order). With reconcileScope: markets the locking order, outside the bot's markets, is
 * neither cancelled at start-up nor at stop.
 * Before the health model: no log line at all, reason="bad-request", and reconcile cancelled every order of
 * the wallet (the lock included) whatever the config said.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createLogger } from '../../src/core/logger.ts';
import { config, openOrders, place, setBook, startExchange, startTestBot, waitFor, type Harness } from './harness.ts';

let h: Harness;

before(async () => {
  h = await startExchange({ markets: 3 });
  for (const m of h.markets.slice(0, 2)) await setBook(h, m, 480_000, 520_000);
});

after(async () => {
  await h?.close();
});

test('400 INSUFFICIENT_BALANCE: loud and classified, orders-refused, no halt; reconcileScope markets leaves other markets alone', {
  timeout: 60_000,
}, async () => {
  const [m1, m2, elsewhere] = h.markets as [(typeof h.markets)[0], (typeof h.markets)[0], (typeof h.markets)[0]];
  // lock nearly all of the bot wallet's 10 000 USDC in a market the bot will not manage: 0.99 bids
  // as large as the venue accepts, down to 1 share (less than one 10-share quote is left)
  const locks: string[] = [];
  for (const shares of [5_000, 1_000, 100, 10, 1]) {
    for (;;) {
      const o = await place(h.bot, { marketId: elsewhere, outcomeIndex: 1, side: 0, price: 990_000, shares }).catch(() => null);
      if (!o) break;
      locks.push(o.nonce);
    }
  }
  assert.ok(locks.length > 0);
  const lines: Record<string, unknown>[] = [];
  const logger = createLogger({ level: 'info', destination: { write: (s: string) => void lines.push(JSON.parse(s) as Record<string, unknown>) } });
  // the error-rate kill switch is off here: a refusal storm would trip it (exit 3, see the health
  // model's unit tests); this test is about the refusals themselves
  const risk = `    maxPosition: 100\n    maxNotional: 100\n    maxOrderSize: 50\n    maxBookAgeSeconds: 30\n    maxStreamSilenceSeconds: 3`;
  const cfg = await config(h, { markets: `  - id: "${m1}"\n  - id: "${m2}"`, orders: '  reconcileScope: markets\n', risk, account: '  maxErrorRate: 0' });
  assert.equal(cfg.orders.reconcileScope, 'markets');
  const bot = await startTestBot(h, cfg, { logger });
  let halted = false;
  void bot.exit.then(() => (halted = true));
  try {
    await waitFor(
      'refusals with the venue code in the metrics',
      async () =>
        /bookmaker_orders_rejected_total\{market="0x[0-9a-f]+",reason="INSUFFICIENT_BALANCE"\} ([5-9]|\d\d)/.test(await bot.metrics.registry.metrics()),
      20_000,
    );
    // (a stream reconnect on a loaded machine can show as stream-silent for a moment: that reason comes first)
    await waitFor('both markets read orders-refused', () => {
      bot.healthModel.evaluate();
      return bot.healthModel.markets().every((m) => m.state === 'orders-refused');
    });
    assert.match(bot.healthModel.markets()[0]!.detail, /400 INSUFFICIENT_BALANCE/);
    const refusals = lines.filter((l) => l.component === 'refusals');
    assert.ok(refusals.length >= 1, 'logged');
    assert.ok(refusals.length <= 2 * 2, `one line per market and code (plus summaries), not one per order: ${refusals.length}`);
    const w = refusals[0]!;
    assert.equal(w.level, 40);
    assert.equal(w.status, 400);
    assert.equal(w.code, 'INSUFFICIENT_BALANCE');
    assert.equal(typeof w.message, 'string');
    assert.equal(halted, false, 'a refusal of these orders is not a reason to halt');
    assert.equal(bot.orderManager.isHalted, false);
    assert.equal((await openOrders(h.bot, elsewhere)).length, locks.length, 'the orders outside the bot markets were left alone at start-up');
    assert.ok(!lines.some((l) => typeof l.nonce === 'string' && locks.includes(l.nonce)), 'and not named as cancelled');
  } finally {
    assert.equal(await bot.stop(), 0);
  }
  assert.equal((await openOrders(h.bot, elsewhere)).length, locks.length, 'nor at stop');
  const left = [...(await openOrders(h.bot, m1)), ...(await openOrders(h.bot, m2))];
  assert.equal(left.length, 0, JSON.stringify(left.map((o) => [o.nonce, o.marketId, o.price])));
});
