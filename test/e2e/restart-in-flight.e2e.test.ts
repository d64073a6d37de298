/**
 * `kill -9` while a request is in flight, made deterministic: the local exchange holds the bot's
 * requests (src/sim/http-server.ts RequestHold, for tests) either after it ran them, before the bot heard
 * back, or before it ran them; the bot (a `bookmaker run` child on a ledger file) is killed there, and
 * started again in this process on the same ledger. The request is a create, a cancel-replace (one quote
 * moved: `POST /orders/cancel-replace`, whose two legs the venue runs and answers as one, so 'after' is
 * both legs run and 'before' neither: docs/local-exchange.md, "Holding requests") or the stop's bulk
 * cancel. Then:
 *   - accepted: the orders the venue holds are known to the restarted bot (adopted or cancelled by
 *     the start-up reconcile), no quote slot ever holds two orders, a fill on them while the bot was
 *     down and one after the restart reach the ledger exactly once (per order, the ledger's filled
 *     shares are the venue's), and the store, the books and a replay of the ledger agree with the
 *     venue to the unit;
 *   - not accepted: the venue holds nothing of run 1, the ledger records no fill and no live order of
 *     it (a create it recorded is ended as not found), and the new bot quotes once per slot.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { HeldRequest } from '../../src/sim/http-server.ts';
import type { Bytes32 } from '../../src/model/order.ts';
import type { Bot } from '../../src/runtime/bot.ts';
import { filledShares } from '../../src/orders/venue-order-shares.ts';
import {
  allOrders,
  LOPSIDED,
  ledgerConfig,
  moveMoverQuote,
  onLedgerExchange,
  openOrders,
  place,
  setBook,
  startTestBot,
  waitFor,
  withTimeout,
  yesTerms,
} from './harness.ts';
import { readLedgerFile } from './ledger-runs.ts';
import { assertMoneyAgrees, ledgerFillRows, oncePerSlot, runChild, take } from './restart-checks.ts';

/** The ledger's filled shares per order (nonce) and the orders it holds live (never ended). */
function ledgerOrders(file: string): { filled: Map<string, number>; unended: string[] } {
  return readLedgerFile(file, (l) => {
    const filled = new Map<string, number>();
    for (const r of l.db.prepare('SELECT nonce, SUM(size) AS s FROM fills GROUP BY nonce').all() as { nonce: string; s: number }[]) filled.set(r.nonce, r.s);
    return { filled, unended: l.unendedOrders().map((u) => u.nonce.toLowerCase()) };
  });
}

/**
 * What is in flight when run 1 dies: its first create (held from its start), the cancel-replace of one
 * quote (held once it quotes; run 1 and run 2 quote with the lopsided strategy, as
 * crash-in-cancel-replace does: its bid is the others' mid less half a cent rounded down to the tick,
 * its ask rounded up, so when the mover's ask goes from 0.53 to 0.54 in market 0 the mid moves half a cent
 * up and the bid alone moves, one replace, which the order manager sends as one `POST
 * /orders/cancel-replace`: src/orders/plan-calls.ts), or the bulk cancel of its graceful stop (held once
 * it quotes, then SIGTERM); `stage`: held after the venue ran it, or before.
 */
type InFlight = { what: 'create' | 'cancel-replace' | 'stop-cancel'; stage: 'before' | 'after' };

/** the request each case holds first */
const FIRST: Record<InFlight['what'], readonly string[]> = {
  create: ['/orders', '/orders/bulk', '/orders/bulk/create'],
  'cancel-replace': ['/orders/cancel-replace'],
  'stop-cancel': ['/orders/bulk/cancel', '/orders/bulk'],
};

/** the ledger's live orders, none while the file is not there yet */
function ledgerOrdersOrNone(file: string): string[] {
  try {
    return ledgerOrders(file).unended;
  } catch {
    return [];
  }
}

async function crashInFlight(o: InFlight): Promise<void> {
  await onLedgerExchange(async (h, ledger, dir) => {
    const [m0, m1] = h.markets as [Bytes32, Bytes32];
    // once armed, every trading request of run 1 is held at `stage` until the test ends (a held
    // answer goes to a dead client; a request held before it ran is dropped)
    let armed = o.what === 'create';
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    const held: HeldRequest[] = [];
    h.ex.holdRequests((r) => {
      if (!armed || r.trader.toLowerCase() !== h.bot.wallet.toLowerCase() || r.method !== 'POST' || !r.path.startsWith('/orders') || r.stage !== o.stage)
        return undefined;
      held.push(r);
      return released;
    });
    // the replace case: the mover's book a cent wider in market 0 (the bot's quotes, half a cent from
    // the mid, alone at the top), and the lopsided strategy in both runs
    const wide = o.what === 'cancel-replace';
    if (wide) await setBook(h, m0, 470_000, 530_000);
    const strategy = wide ? LOPSIDED : {};
    const { child: run1 } = runChild(h, dir, ledger, '', strategy);
    let bot: Bot | null = null;
    // the replace case: the bid it moves (its nonce), and what it moved to
    let oldBid: string | null = null;
    try {
      if (o.what !== 'create') {
        // a child's start-up alone (tsx, the venue, the warm-up) takes 10 s and more on a loaded machine
        await waitFor('run 1 quotes both markets', async () => (await openOrders(h.bot)).length === 4, 120_000);
        if (wide) {
          const bid = (await openOrders(h.bot, m0)).find((v) => yesTerms(v).side === 'bid');
          assert.ok(
            bid && yesTerms(bid).price === 490_000,
            `run 1 bids 0.49 in market 0 (the mid 0.50 less half a cent, rounded down): ${JSON.stringify(bid && yesTerms(bid))}`,
          );
          oldBid = bid.nonce.toLowerCase();
        }
        armed = true;
        if (wide) {
          // the mid half a cent up: the mover's ask at 0.54 first, then its ask at 0.53 goes (the book never one-sided)
          await moveMoverQuote(h, m0, 'ask', 540_000);
        } else run1.proc.kill('SIGTERM');
      }
      await waitFor(`run 1 sends its ${o.what}`, () => held.length > 0, 120_000);
      assert.ok(FIRST[o.what].includes(held[0]!.path), `the held request is a ${o.what}: ${held.map((r) => r.path).join(', ')}`);
      // the creates recorded in the ledger first (its writes are batched), so the cases below are the
      // ones where the ledger knows the orders it sent (a crash that lost the record too is not made here)
      if (o.what === 'create') await waitFor('run 1 recorded its four creates', () => ledgerOrdersOrNone(ledger).length === 4, 30_000);
      run1.proc.kill('SIGKILL');
      await withTimeout(run1.exit, 30_000, 'run 1 did not die');
      // its connections are closed: a request held before it ran is dropped when let go
      await withTimeout(Promise.all(held.map((r) => r.gone)), 30_000, "the exchange did not see run 1's connections close");
      h.ex.holdRequests(null);
      release();
      const left = (await allOrders(h.bot)).filter((v) => v.status === 'open');
      if (o.what === 'create' && o.stage === 'before') assert.equal(left.length, 0, 'nothing of run 1 reached the venue');
      if (o.what === 'create' && o.stage === 'after') assert.ok(left.length > 0, 'the held creates were accepted');
      if (o.what === 'stop-cancel') assert.equal(left.length, o.stage === 'after' ? 0 : 4, 'the held cancel ran (after) or not (before)');
      if (wide) {
        // both legs ran (after: the old bid cancelled, a new bid at 0.50 open) or neither (before: the old bid open, alone)
        const bids = left.filter((v) => v.marketId.toLowerCase() === m0.toLowerCase() && yesTerms(v).side === 'bid');
        const ran = o.stage === 'after';
        assert.equal(left.length, 4, 'one order per slot at the venue: the cancel-replace is one operation');
        assert.deepEqual(
          bids.map((v) => [v.nonce.toLowerCase() === oldBid, yesTerms(v).price]),
          [ran ? [false, 500_000] : [true, 490_000]],
          ran ? 'both legs ran: the new bid at 0.50 in place of the old' : 'neither leg ran: the old bid at 0.49 still open',
        );
      }
      // a fill on one of run 1's orders while the bot is down (the catch-up records it)
      // (not in market 0 of the replace case, whose book the mover no longer holds at 0.48/0.52)
      const bid = left.find((v) => yesTerms(v).side === 'bid' && !(wide && v.marketId.toLowerCase() === m0.toLowerCase()));
      if (bid) {
        await place(h.mover, { marketId: bid.marketId, outcomeIndex: 1, side: 1, price: yesTerms(bid).price, shares: 3, timeInForce: 1, inventoryMode: 2 });
        await setBook(h, bid.marketId, 480_000, 520_000);
      }
      const downFills = bid ? 1 : 0;
      const atVenue = new Set(left.map((v) => v.nonce.toLowerCase()));
      // the orders run 1 recorded and saw no end of (its ledger writes are batched: some, all or none)
      const recorded = ledgerOrders(ledger).unended;
      if (o.what === 'create') assert.equal(recorded.length, 4, 'the ledger holds the four creates run 1 sent');
      const before = ledgerFillRows(ledger).rows;

      bot = await startTestBot(h, await ledgerConfig(h, ledger, strategy));
      const b = bot;
      // the start-up reconcile is done when startBot returns: every order the venue holds is the bot's
      // (working in a slot) or being cancelled, and none is unknown
      const now = (await openOrders(h.bot)).map((v) => v.nonce.toLowerCase());
      const tracked = new Set(b.orderManager.tracked().map((t) => t.planned.nonce.toLowerCase()));
      for (const n of now) assert.ok(tracked.has(n), `order ${n} at the venue is known to the restarted bot`);
      assert.equal(ledgerFillRows(ledger).rows, before + downFills, 'the catch-up recorded the fill made while down, once');
      // at every look, one order per slot at most; then quoting in every market
      await oncePerSlot(h, 20);
      await waitFor('run 2 quotes both markets', async () => (await openOrders(h.bot)).length === 4, 60_000);
      await oncePerSlot(h, 10);
      // run 1's orders the new bot kept are working in their slots; the others are cancelled
      for (const t of b.orderManager.tracked())
        if (atVenue.has(t.planned.nonce.toLowerCase())) assert.equal(t.state, 'working', `adopted order ${t.planned.nonce}`);
      for (const v of await allOrders(h.bot)) if (atVenue.has(v.nonce.toLowerCase()) && v.status !== 'open') assert.equal(v.status, 'cancelled');
      // a fill in run 2
      await take(h, m1, 'bid', 2);
      await waitFor('run 2 recorded its fill', () => ledgerFillRows(ledger).rows === before + downFills + 1, 30_000);
      await assertMoneyAgrees(h, b, ledger);
      // per order, the ledger's filled shares are the venue's: every fill once
      const orders = ledgerOrders(ledger);
      const venueFilled = new Map<string, number>();
      for (const v of await allOrders(h.bot)) if (filledShares(v) > 0) venueFilled.set(v.nonce.toLowerCase(), filledShares(v));
      assert.deepEqual([...orders.filled.entries()].sort(), [...venueFilled.entries()].sort(), "per order, the ledger's fills = the venue's");
      // an order run 1 recorded and the venue no longer holds open is ended by the catch-up, not left live
      for (const n of recorded) if (!atVenue.has(n)) assert.ok(!orders.unended.includes(n), `order ${n} of run 1 is not left live in the ledger`);
      bot = null;
      assert.equal(await b.stop(), 0);
      assert.equal((await openOrders(h.bot)).length, 0, 'the stop cancelled everything');
      assert.deepEqual(ledgerOrders(ledger).unended, [], 'every order of both runs ended in the ledger');
    } finally {
      h.ex.holdRequests(null);
      release();
      if (run1.proc.exitCode === null && run1.proc.signalCode === null) run1.proc.kill('SIGKILL');
      if (bot) await bot.stop();
    }
  });
}

test('kill -9 after the venue accepted a create, before the bot heard back: the restarted bot knows every order, quotes once per slot, counts each fill once', async () => {
  await crashInFlight({ what: 'create', stage: 'after' });
});

test('kill -9 before the venue ran a create: nothing held, nothing recorded, one quote per slot after the restart', async () => {
  await crashInFlight({ what: 'create', stage: 'before' });
});

test('kill -9 mid cancel-replace (after the venue ran both legs, and before it ran either): the restarted bot knows every order and quotes once per slot', async () => {
  await crashInFlight({ what: 'cancel-replace', stage: 'after' });
  await crashInFlight({ what: 'cancel-replace', stage: 'before' });
});

test("kill -9 mid the stop's bulk cancel (after the venue ran it, and before): nothing left live, every fill once", async () => {
  await crashInFlight({ what: 'stop-cancel', stage: 'after' });
  await crashInFlight({ what: 'stop-cancel', stage: 'before' });
});
