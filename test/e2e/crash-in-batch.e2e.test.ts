/**
 * `kill -9` within the ledger's batch: the bot sent a create and the venue ran it, but the create's record
 * was still in the ledger's queue (written every `ledger.flushSeconds`, 200 ms by default) when the process
 * died, so the ledger has no record of an order resting at the venue. Until now a unit test alone
 * (catch-up's tagged nonces); here a real `bookmaker run` child on a ledger file:
 *   - the hook: the local exchange holds run 1's creates after it ran them (src/sim/http-server.ts
 *     RequestHold), and the test kills run 1 with SIGKILL from inside the hold, the moment the first
 *     create has run; run 1's batch is widened to 60 s (`flushSeconds: 60`, the most the config takes),
 *     so nothing but the kill ends it; the test asserts the case was made (the ledger file, final once
 *     run 1 is dead, holds no record of the orders the venue holds), no sleep stands for a sync;
 *   - restarted (in this process, same ledger, the default batch): every order run 1 left at the venue
 *     is found there (its nonce carries the ledger's tag), adopted into its quote slot, and recorded;
 *     `ledger summary`'s ordersAdopted, the run report's orders line and bookmaker_orders_adopted_total
 *     count the same adoptions, after they ended too; a fill on an adopted order is recorded once, and
 *     the store, the books and a replay of the ledger agree with the venue to the unit.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ledgerSummary } from '../../src/ledger/books.ts';
import type { Bytes32 } from '../../src/model/order.ts';
import type { Bot } from '../../src/runtime/bot.ts';
import type { HeldRequest } from '../../src/sim/http-server.ts';
import { allOrders, ledgerConfig, onLedgerExchange, openOrders, scrapeMetrics, startTestBot, waitFor, withTimeout, yesTerms } from './harness.ts';
import { freePort } from '../support/net.ts';
import { readLedgerFile } from './ledger-runs.ts';
import { assertMoneyAgrees, ledgerFillRows, runChild, take } from './restart-checks.ts';

/** The nonces the ledger file holds an order row of (lower case). */
const recordedNonces = (file: string): Set<string> =>
  readLedgerFile(file, (l) => new Set((l.db.prepare('SELECT nonce FROM orders').all() as { nonce: string }[]).map((r) => r.nonce.toLowerCase())));

test('kill -9 after the venue ran a create and before its batch reached the ledger: found at the venue, adopted, the books = the venue to the unit', async () => {
  await onLedgerExchange(async (h, ledger, dir) => {
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    const held: HeldRequest[] = [];
    let run1: ReturnType<typeof runChild>['child'] | null = null;
    // the hook: run 1's creates are held once the venue ran them, and run 1 dies at the first one
    h.ex.holdRequests((r) => {
      if (r.trader.toLowerCase() !== h.bot.wallet.toLowerCase() || r.method !== 'POST' || !r.path.startsWith('/orders') || r.stage !== 'after')
        return undefined;
      held.push(r);
      run1?.proc.kill('SIGKILL');
      return released;
    });
    run1 = runChild(h, dir, ledger, '  flushSeconds: 60\n').child;
    let bot: Bot | null = null;
    try {
      // a child's start-up alone (tsx, the venue, the warm-up) takes 10 s and more on a loaded machine
      await waitFor('run 1 sends its first create', () => held.length > 0, 120_000);
      await withTimeout(run1.exit, 30_000, 'run 1 did not die');
      assert.equal(run1.proc.signalCode, 'SIGKILL');
      await withTimeout(Promise.all(held.map((r) => r.gone)), 30_000, "the exchange did not see run 1's connections close");
      h.ex.holdRequests(null);
      release();
      const left = (await allOrders(h.bot)).filter((v) => v.status === 'open');
      assert.ok(left.length > 0, 'the venue holds the orders of the create it ran');
      // the case is made: the ledger (final, run 1 is dead) has no record of them: they were in the batch
      const recorded = recordedNonces(ledger);
      for (const v of left) assert.ok(!recorded.has(v.nonce.toLowerCase()), `order ${v.nonce}: its record was still in the batch at the kill`);
      const atVenue = new Set(left.map((v) => v.nonce.toLowerCase()));

      // (the start-up reconcile waits for the first books, at most `warmupMs`: on a loaded machine 3 s may pass first)
      bot = await startTestBot(h, await ledgerConfig(h, ledger), { metricsPort: await freePort(), warmupMs: 60_000 });
      const b = bot;
      const runStart = Date.now();
      // the start-up reconcile is done when startBot returns: run 1's orders are known, each adopted into its slot
      const tracked = new Map(b.orderManager.tracked().map((t) => [t.planned.nonce.toLowerCase(), t] as const));
      for (const n of atVenue) {
        const t = tracked.get(n);
        assert.ok(t, `order ${n} at the venue is known to the restarted bot`);
        assert.equal(t.state, 'working', `order ${n} is working`);
        assert.ok(!t.slot.startsWith('orphan:'), `order ${n} is adopted into a quote slot (${t.slot}), not cancelled as a stranger`);
      }
      const adopted = atVenue.size;
      await waitFor('the adoptions are in the ledger', () => [...atVenue].every((n) => recordedNonces(ledger).has(n)), 30_000);
      assert.equal(
        readLedgerFile(ledger, (l) => ledgerSummary(l).orders.adopted),
        adopted,
        "`ledger summary`'s ordersAdopted: run 1's orders, adopted",
      );
      // a fill on an adopted order (a bid of run 1 still resting: the mover sells into it)
      const bid = left.find((v) => yesTerms(v).side === 'bid');
      assert.ok(bid, 'run 1 left a bid');
      const before = ledgerFillRows(ledger).rows;
      await take(h, bid.marketId as Bytes32, 'bid', 2);
      await waitFor('run 2 recorded the fill on the adopted order', () => ledgerFillRows(ledger).rows === before + 1, 30_000);
      const fills = readLedgerFile(
        ledger,
        (l) => l.db.prepare('SELECT nonce, size, origin FROM fills').all() as { nonce: string; size: number; origin: string }[],
      );
      assert.deepEqual(
        fills.map((f) => [f.nonce.toLowerCase(), f.size, f.origin]),
        [[bid.nonce.toLowerCase(), 2_000_000, 'own']],
        "once, on the adopted order, the bookmaker's own",
      );
      await assertMoneyAgrees(h, b, ledger);
      const metric = (await scrapeMetrics(b))
        .split('\n')
        .filter((l) => l.startsWith('bookmaker_orders_adopted_total{'))
        .reduce((n, l) => n + Number(l.slice(l.lastIndexOf(' ') + 1)), 0);
      assert.equal(metric, adopted, 'bookmaker_orders_adopted_total: the same adoptions');
      bot = null;
      assert.equal(await b.stop(), 0);
      assert.equal((await openOrders(h.bot)).length, 0, 'the stop cancelled everything');
      for (const v of await allOrders(h.bot)) if (atVenue.has(v.nonce.toLowerCase())) assert.notEqual(v.status, 'open');
      // after they ended (cancelled at the stop, or filled): still counted as adopted, in every place
      const summary = readLedgerFile(ledger, (l) => ({ all: ledgerSummary(l), run: ledgerSummary(l, { since: runStart - 60_000 }) }));
      assert.equal(summary.all.orders.adopted, adopted, 'ordersAdopted once the adopted orders ended');
      assert.equal(summary.run.orderEnds.adopted, adopted, "the run's orders by end count them adopted");
      assert.equal(summary.all.orderEnds.unended, 0, 'every order of both runs ended in the ledger');
    } finally {
      h.ex.holdRequests(null);
      release();
      if (run1.proc.exitCode === null && run1.proc.signalCode === null) run1.proc.kill('SIGKILL');
      if (bot) await bot.stop();
    }
  });
});
