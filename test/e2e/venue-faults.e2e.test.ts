/**
 * Venue trouble end to end: a stalled book stream pulls quotes within the staleness limit; start-up
 * migration completes for a seeded legacy account before quoting; 5xx and 429 answers are absorbed
 * (no double quote per slot, nothing left open at the end).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Bytes32 } from '../../src/model/order.ts';
import { installMigration } from '../../src/sim/migration/install.ts';
import { config, openOrders, setBook, startExchange, startTestBot, waitFor, yesTerms, type Harness } from './harness.ts';
import { holding, legacyOrder } from '../support/legacy-seeds.ts';

/** Keep the book changing (a real market's stream is never silent for long). */
function wiggle(h: Harness, m: Bytes32): () => void {
  let stop = false;
  let i = 0;
  void (async () => {
    while (!stop) {
      try {
        await setBook(h, m, 480_000, 520_000, 100 + (i++ % 5));
      } catch {
        /* faults may refuse the mover too */
      }
      await new Promise((r) => setTimeout(r, 200));
    }
  })();
  return () => (stop = true);
}

test('a stalled stream pulls the quotes within the staleness limit', async () => {
  const h = await startExchange({ markets: 1 });
  const m = h.markets[0]!;
  await setBook(h, m, 480_000, 520_000);
  const stopWiggle = wiggle(h, m);
  const bot = await startTestBot(
    h,
    await config(h, { risk: '    maxPosition: 100\n    maxNotional: 1000\n    maxBookAgeSeconds: 1.5\n    maxStreamSilenceSeconds: 1.5' }),
  );
  try {
    await waitFor('quoting', async () => (await openOrders(h.bot, m)).length === 2);
    // every stream event from now on stalls its connection (open socket, no bytes)
    h.ex.faults.configure({ streamStallRate: 1 });
    // pulled by the stale-data guard: a moment with no order open (a fill, a requote) is not enough
    const staleDenials = (): number => {
      const d = bot.store.state.markets.get(m)!.denials;
      return (d.get('STALE_BOOK') ?? 0) + (d.get('STREAM_SILENT') ?? 0);
    };
    await waitFor('quotes pulled by the stale-data guard', async () => staleDenials() > 0 && (await openOrders(h.bot, m)).length === 0, 15_000);
    assert.ok(h.ex.faults.counts.streamStall > 0);
  } finally {
    stopWiggle();
    h.ex.faults.configure({ streamStallRate: 0 });
    await bot.stop();
    await h.close();
  }
});

test('start-up migration completes for a seeded legacy account, then the bot quotes', async () => {
  const h = await startExchange({ markets: 1 });
  const m = h.markets[0]!;
  installMigration(h.ex.state, {
    active: true,
    legacyAccounts: [
      { wallet: h.bot.wallet, collateral: 50_000_000n, positions: [holding(m, 1, 3_000_000n)], orders: [legacyOrder(m, 1, 0, 300_000, 5_000_000)] },
    ],
  });
  const before = await h.bot.client.migration.status(h.bot.wallet);
  assert.equal(before.migrationActive, true);
  assert.equal(before.migrationComplete, false);
  await setBook(h, m, 480_000, 520_000);
  const bot = await startTestBot(h, await config(h));
  try {
    const after = await h.bot.client.migration.status(h.bot.wallet);
    assert.ok(after.migrationComplete || !after.migrationActive, 'trading allowed after start-up');
    await waitFor('quoting after migration', async () => (await openOrders(h.bot, m)).map(yesTerms).some((y) => y.side === 'ask' && y.price === 520_000));
  } finally {
    await bot.stop();
    assert.equal((await openOrders(h.bot)).length, 0, 'restored legacy orders are cancelled on stop too');
    await h.close();
  }
});

test('5xx and 429 answers are absorbed: never two orders per slot, nothing left open', async () => {
  const h = await startExchange({ markets: 2 });
  for (const m of h.markets) await setBook(h, m, 480_000, 520_000);
  const bot = await startTestBot(h, await config(h));
  try {
    await waitFor('quoting', async () => (await openOrders(h.bot)).length === 4);
    h.ex.faults.configure({ errorRate: 0.2, burst429Rate: 0.05, burst429Length: 3 });
    const movers = h.markets.map((m) => wiggleMid(h, m));
    for (let i = 0; i < 30; i++) {
      let orders;
      try {
        orders = await openOrders(h.bot);
      } catch {
        continue; // our own read met a fault
      }
      for (const m of h.markets) {
        const ys = orders.filter((o) => o.marketId.toLowerCase() === m.toLowerCase()).map(yesTerms);
        assert.ok(ys.filter((y) => y.side === 'bid').length <= 1 && ys.filter((y) => y.side === 'ask').length <= 1, `double quote in ${m}`);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    movers.forEach((s) => s());
    assert.ok(h.ex.faults.counts.error5xx > 0, '5xx were injected');
  } finally {
    h.ex.faults.configure({ errorRate: 0, burst429Rate: 0 });
    assert.equal(await bot.stop(), 0);
    assert.equal((await openOrders(h.bot)).length, 0);
    await h.close();
  }
});

/** Move the mid up and down by a cent so the bot keeps requoting under faults. */
function wiggleMid(h: Harness, m: Bytes32): () => void {
  let stop = false;
  let up = false;
  void (async () => {
    while (!stop) {
      up = !up;
      try {
        await setBook(h, m, up ? 490_000 : 480_000, up ? 530_000 : 520_000);
      } catch {
        /* a fault refused the mover */
      }
      await new Promise((r) => setTimeout(r, 150));
    }
  })();
  return () => (stop = true);
}
