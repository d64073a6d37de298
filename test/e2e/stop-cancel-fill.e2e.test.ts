/**
 * A fill that lands between the stop's list of open orders and its cancel, made deterministic: the local
 * exchange holds the cancel-all's first cancel call (src/sim/http-server.ts RequestHold) after its list
 * ran, the mover takes the whole of one of the bot's bids (the feeds are closed by then), and the call is
 * let go. The venue answers that order `alreadyCancelled` (there is nothing left to cancel: it filled).
 *
 * That answer is not the order's end: the ledger records it as an answer, the stop's final sweep reads the
 * order at the venue (filled), records its fill, and only then ends it in the ledger with the venue's
 * status. On the code before, the ledger ended it 'cancelled' on our word (the fill recorded, the end
 * wrong) and the stop counted it among the orders it cancelled (docs/operating.md, "Stopping"). The run
 * report's orders by end are `ledger summary`'s (src/ledger/order-ends.ts) and the venue's.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { HeldRequest } from '../../src/sim/http-server.ts';
import type { Bytes32 } from '../../src/model/order.ts';
import { ledgerSummary, replayPositions } from '../../src/ledger/books.ts';
import { orderEndsText } from '../../src/ledger/order-ends.ts';
import { formatRunReport } from '../../src/runtime/run-report.ts';
import { allOrders, onLedgerExchange, openOrders, place, quotingForStop, waitFor, yesTerms } from './harness.ts';
import { readLedgerFile } from './ledger-runs.ts';
import { fields, venueView } from './restart-checks.ts';

test("a fill between the stop's list and its cancel: the order ends 'filled' as the venue states it, not 'cancelled'", async () => {
  await onLedgerExchange(async (h, ledger) => {
    // no periodic reconcile (it could meet the filled order first): the cancel-all alone meets it
    const { bot, m0, bid } = await quotingForStop(h, ledger);
    let stopping: Promise<number> | null = null;
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    try {
      // the stop's first cancel call (its feeds are closed by then), held before it runs: its list has run
      const held: HeldRequest[] = [];
      let lists = 0;
      h.ex.holdRequests((r) => {
        if (r.stage !== 'before' || r.trader.toLowerCase() !== h.bot.wallet.toLowerCase()) return undefined;
        if (!bot.stopProgress()?.step.startsWith('cancelling every order')) return undefined;
        if (r.method === 'GET' && r.path === '/orders') lists++;
        if (r.method !== 'POST' || !r.path.startsWith('/orders/') || !r.path.includes('cancel') || held.length > 0) return undefined;
        held.push(r);
        return released;
      });
      stopping = bot.stop();
      await waitFor("the cancel-all's first cancel call is held", () => held.length > 0, 60_000);
      assert.ok(lists >= 1, 'the cancel-all listed the open orders before its cancel');
      assert.ok(
        (await openOrders(h.bot, m0)).some((o) => o.nonce === bid.nonce),
        'the bid is still open at the venue: the list showed it, the cancel has not run',
      );
      // the mover takes the whole bid (10 shares) before the cancel runs
      await place(h.mover, { marketId: m0, outcomeIndex: 1, side: 1, price: yesTerms(bid).price, shares: 10, timeInForce: 1, inventoryMode: 2 });
      h.ex.holdRequests(null);
      release();
      assert.equal(await stopping, 0, 'the stop ends cleanly');
      stopping = null;

      const all = await allOrders(h.bot);
      const f = all.find((v) => v.nonce.toLowerCase() === bid.nonce.toLowerCase());
      assert.equal(f?.status, 'filled', 'the bid filled at the venue');
      assert.equal(all.filter((v) => v.status === 'filled').length, 1, 'one order of the bot filled');
      assert.equal(all.filter((v) => v.status === 'open').length, 0, 'nothing left open at the venue');

      // the store and the health model: no open order, every market halted
      bot.healthModel.evaluate();
      for (const m of bot.markets) {
        assert.equal(bot.store.state.markets.get(m)?.orders.size ?? 0, 0, `market ${m}: the store holds no order after the stop`);
        assert.equal(bot.healthModel.marketState(m), 'halted', `market ${m}: halted after the stop`);
      }

      // the ledger: the fill once, the order ended as the venue states it, the others cancelled, none unfinished
      const rec = readLedgerFile(ledger, (l) => ({
        fills: l.db.prepare('SELECT SUM(size) AS s, COUNT(*) AS n FROM fills WHERE lower(nonce) = lower(?)').get(f!.nonce) as { s: number; n: number },
        order: l.db.prepare('SELECT status FROM orders WHERE lower(nonce) = lower(?)').get(f!.nonce) as { status: string },
        cancels: (l.db.prepare('SELECT result FROM cancels WHERE lower(nonce) = lower(?) ORDER BY id').all(f!.nonce) as { result: string }[]).map(
          (r) => r.result,
        ),
        answers: (l.db.prepare("SELECT COUNT(*) AS n FROM cancels WHERE result != 'sent'").get() as { n: number }).n,
        summary: ledgerSummary(l),
        ends: l.db.prepare('SELECT status, COUNT(*) AS n FROM orders GROUP BY status ORDER BY status').all() as { status: string; n: number }[],
        unended: l.unendedOrders().length,
        replay: replayPositions(l),
      }));
      assert.deepEqual({ n: rec.fills.n, s: rec.fills.s }, { n: 1, s: 10_000_000 }, 'the ledger has the 10-share fill, once');
      assert.equal(rec.order.status, 'filled', "the ledger ends the order as the venue states it (not 'cancelled' on our word)");
      assert.deepEqual(rec.cancels, ['sent', 'already-cancelled'], "the stop's cancel of it and the venue's answer, as they were");
      assert.equal(rec.summary.orders.cancels, rec.answers, "`ledger summary` cancelsSent counts every cancel sent (the stop's too), each answered");
      assert.equal(rec.unended, 0, 'no order left unfinished in the ledger');
      const venueEnds = new Map<string, number>();
      for (const v of all) venueEnds.set(v.status, (venueEnds.get(v.status) ?? 0) + 1);
      assert.deepEqual(
        rec.ends.map((e) => [e.status, e.n]),
        [...venueEnds.entries()].sort(),
        "the ledger's orders by end state = the venue's",
      );
      // the run report's orders by end state and `ledger summary`'s: one count (src/ledger/order-ends.ts), this run the whole ledger
      const report = bot.report('stop', 0);
      assert.deepEqual(report.orders, rec.summary.orderEnds, "the run report's orders by end = `ledger summary`'s");
      assert.deepEqual(
        report.orders,
        {
          orders: all.length,
          adopted: 0,
          ended: Object.fromEntries(venueEnds),
          rejected: 0,
          unended: 0,
          strangers: { orders: 0, cancelsSent: 0, cancelled: 0 },
        },
        '= the venue',
      );
      assert.ok(
        formatRunReport(report).includes(`  orders: ${orderEndsText(rec.summary.orderEnds)}`),
        'the printed report shows the line `ledger summary` shows',
      );

      // the books, a replay of the ledger and the venue, to the unit
      const venue = await venueView(h);
      const books = bot.kernel.account;
      const baseline = readLedgerFile(ledger, (l) => l.baseline());
      assert.ok(baseline);
      assert.equal(baseline.collateral + books.figures().cash, venue.collateral, "the books' collateral = the venue's");
      assert.deepEqual(fields(books.positionOf(m0)), fields(rec.replay.get(m0)), "market 0: the books' position = the ledger's replay");
      assert.equal(books.holdingsOf(m0).net, 10_000_000);
    } finally {
      h.ex.holdRequests(null);
      release();
      // a failed assertion before the stop still stops the bot (once stopped, stop() is the same stop)
      await (stopping ?? bot.stop());
    }
  });
});

test("outside the stop: a pause's cancel that meets an order filled meanwhile (alreadyCancelled) leaves its end to the venue's word, 'filled'", async () => {
  await onLedgerExchange(async (h, ledger) => {
    const { bot, m0, bid } = await quotingForStop(h, ledger);
    let releaseCancels!: () => void;
    const cancelsHeld = new Promise<void>((r) => (releaseCancels = r));
    let releaseReads!: () => void;
    const readsHeld = new Promise<void>((r) => (releaseReads = r));
    try {
      const stored = (): { state: string } | undefined => bot.store.state.markets.get(m0)?.orders.get(bid.nonce.toLowerCase() as Bytes32);
      assert.ok(stored(), 'the store holds the bid');
      // from here: the bot's cancel calls are held before they run; once the fill is in, its reads of
      // orders too, so the own-orders feed learns of the fill only after the cancel's answer is in
      let cancels = 0;
      let holdReads = false;
      h.ex.holdRequests((r) => {
        if (r.stage !== 'before' || r.trader.toLowerCase() !== h.bot.wallet.toLowerCase()) return undefined;
        if (r.method === 'POST' && r.path.startsWith('/orders/') && (r.path.includes('cancel') || r.path === '/orders/bulk')) {
          cancels++;
          return cancelsHeld;
        }
        if (holdReads && r.method === 'GET' && r.path.startsWith('/orders')) return readsHeld;
        return undefined;
      });
      bot.control.pause(m0, 'test');
      await waitFor("the pause's cancel of the bid is sent and held", () => cancels > 0 && stored()?.state === 'cancelling', 60_000);
      holdReads = true;
      // the mover takes the whole bid (10 shares) before the cancel runs
      await place(h.mover, { marketId: m0, outcomeIndex: 1, side: 1, price: yesTerms(bid).price, shares: 10, timeInForce: 1, inventoryMode: 2 });
      releaseCancels();
      // the cancel answered alreadyCancelled: the order is parked (counted until its fills are known)
      await waitFor('the bid parked after its cancel was answered', () => bot.orderManager.parkedCount > 0, 60_000);
      holdReads = false;
      h.ex.holdRequests(null);
      releaseReads();
      // the feed reads the fill and the end; the store lets the order go
      await waitFor('the store lets the bid go', () => stored() === undefined, 60_000);
      await waitFor('the books have the fill', () => bot.kernel.account.holdingsOf(m0).net === 10_000_000, 60_000);
      await waitFor(
        'the ledger ends the bid',
        () =>
          readLedgerFile(
            ledger,
            (l) => (l.db.prepare('SELECT ended_at AS e FROM orders WHERE lower(nonce) = lower(?)').get(bid.nonce) as { e: number | null }).e !== null,
          ),
        60_000,
      );
      // while the bot runs (the feeds, not the stop's sweep): the venue's end, and the cancel's answer kept as it was
      const rec = readLedgerFile(ledger, (l) => ({
        status: (l.db.prepare('SELECT status FROM orders WHERE lower(nonce) = lower(?)').get(bid.nonce) as { status: string }).status,
        cancels: (l.db.prepare('SELECT result FROM cancels WHERE lower(nonce) = lower(?) ORDER BY rowid').all(bid.nonce) as { result: string }[]).map(
          (r) => r.result,
        ),
        fills: l.db.prepare('SELECT SUM(size) AS s, COUNT(*) AS n FROM fills WHERE lower(nonce) = lower(?)').get(bid.nonce) as { s: number; n: number },
      }));
      const venue = await h.bot.client.orders.get(bid.nonce);
      assert.equal(venue.status, 'filled', 'the bid filled at the venue');
      assert.equal(rec.status, 'filled', "the ledger ends the bid as the venue states it (not 'cancelled' on the cancel's answer)");
      assert.deepEqual(rec.cancels, ['sent', 'already-cancelled'], "the cancel and the venue's answer are recorded as they were");
      assert.deepEqual({ n: rec.fills.n, s: rec.fills.s }, { n: 1, s: 10_000_000 }, 'the 10-share fill, once');
    } finally {
      h.ex.holdRequests(null);
      releaseCancels();
      releaseReads();
      await bot.stop();
    }
  });
});
