/**
 * `kill -9` inside a cancel-replace, with a real bot process. The venue answers a cancel-replace once, for
 * both legs (docs/venue.md, "Endpoints"), and the local exchange applies it whole or not at all
 * (docs/local-exchange.md, "All-or-nothing operations"): there is no moment between the legs that a
 * crash of the bot could meet, so the hold is the one a crash can meet, after both legs ran and before
 * the answer is sent (src/sim/http-server.ts RequestHold, stage 'after'): the venue has cancelled the old
 * order and placed the new one, and the bot has recorded neither answer.
 *
 *   - run 1, a `bookmaker run` child on a ledger file, quotes with the lopsided strategy (strategies/lopsided:
 *     its bid is the mid less half a cent rounded down to the tick, its ask rounded up); the mover moves
 *     market 0's mid half a cent up (its ask a cent higher): the bid alone moves, a buy, exactly one
 *     replace, one `POST /orders/cancel-replace` (src/orders/plan-calls.ts); the test asserts it is held;
 *   - the exchange holds it after running it, and the test SIGKILLs run 1 from inside the hold (no sleep
 *     stands for a sync); the case is made when, with run 1 dead, the venue shows the old bid cancelled and
 *     the new one open, and the ledger file holds no answer of either (the old order not ended, the new one
 *     not answered, or not recorded at all when the kill came within the ledger's batch);
 *   - restarted (in this process, same ledger): every order the venue holds is known (the new bid adopted
 *     into its slot, its nonce carrying the ledger's tag), one order per slot at every look, the old bid
 *     ended in the ledger as the venue states it (cancelled), a fill after the restart recorded once, no order of
 *     either run left unended after the stop; the store, the books and a replay of the ledger equal the
 *     venue to the unit; and run 2's ledger counts equal its metrics (orders sent, cancels sent, adopted,
 *     cancelled, strangers cancelled).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ledgerSummary } from '../../src/ledger/books.ts';
import type { Bytes32 } from '../../src/model/order.ts';
import type { Bot } from '../../src/runtime/bot.ts';
import type { HeldRequest } from '../../src/sim/http-server.ts';
import { filledShares } from '../../src/orders/venue-order-shares.ts';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseConfigText } from '../../src/config/load-config.ts';
import {
  allOrders,
  BOT_KEY,
  cli,
  LOPSIDED,
  moveMoverQuote,
  onLedgerExchange,
  openOrders,
  place,
  setBook,
  startTestBot,
  waitFor,
  withTimeout,
  yaml,
  yesTerms,
  type Child,
} from './harness.ts';
import { freePort } from '../support/net.ts';
import { readLedgerFile } from './ledger-runs.ts';
import { assertMoneyAgrees, ledgerFillRows, oncePerSlot } from './restart-checks.ts';

/** The ledger's row of an order (lower-case nonce), or undefined. */
function ledgerRow(file: string, nonce: string): { status: string; answer: string | null; endedAt: number | null } | undefined {
  return readLedgerFile(
    file,
    (l) =>
      l.db.prepare('SELECT status, answer, ended_at AS endedAt FROM orders WHERE lower(nonce) = ?').get(nonce) as
        | { status: string; answer: string | null; endedAt: number | null }
        | undefined,
  );
}

/** Σ of a counter's series whose line includes `match`. */
function total(text: string, name: string, match = ''): number {
  let n = 0;
  for (const l of text.split('\n')) if (l.startsWith(`${name}{`) && l.includes(match)) n += Number(l.slice(l.lastIndexOf(' ') + 1));
  return n;
}

test('kill -9 after the venue ran a cancel-replace, before its answer: no order lost or doubled, the books = the venue, the ledger = the metrics', async () => {
  await onLedgerExchange(async (h, ledger, dir) => {
    const [m0, m1] = h.markets.map((m) => m.toLowerCase() as Bytes32) as [Bytes32, Bytes32];
    // market 0's book a cent wider: the bot's quotes (2¢ from the mid) alone at the top
    await setBook(h, m0, 470_000, 530_000);
    // the lopsided strategy, the mid itself as its estimate, positions anywhere (as the harness's bands otherwise)
    const text = yaml(h, LOPSIDED);
    const withLedger = `${text}ledger:\n  path: ${ledger}\n  markSeconds: 1\n`;
    const file = join(dir, 'bot.yaml');
    writeFileSync(file, withLedger);
    let armed = false;
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    const held: HeldRequest[] = [];
    let run1: Child | null = null;
    // once armed: run 1's next cancel-replace is held after the venue ran it, and run 1 dies there (its other
    // calls pass: the cancel of a bid the mover filled may still be on its way)
    const seen: string[] = [];
    h.ex.holdRequests((r) => {
      if (armed && r.trader.toLowerCase() === h.bot.wallet.toLowerCase() && r.method === 'POST' && r.stage === 'after') seen.push(r.path);
      if (!armed || r.trader.toLowerCase() !== h.bot.wallet.toLowerCase() || r.method !== 'POST' || r.path !== '/orders/cancel-replace' || r.stage !== 'after')
        return undefined;
      held.push(r);
      run1?.proc.kill('SIGKILL');
      return released;
    });
    run1 = cli(['run', '-c', file, '--api-key', BOT_KEY, '--metrics-port', '0', '--log-level', 'warn', '--summary-seconds', '0'], {
      BOOKMAKER_PRIVATE_KEY: h.bot.privateKey,
    });
    let bot: Bot | null = null;
    try {
      // a child's start-up alone (tsx, the venue, the warm-up) takes 10 s and more on a loaded machine
      await waitFor('run 1 quotes both markets', async () => (await openOrders(h.bot)).length === 4, 120_000);
      const old = (await openOrders(h.bot, m0)).find((v) => yesTerms(v).side === 'bid');
      assert.ok(old, 'run 1 quotes a bid in market 0');
      assert.equal(yesTerms(old).price, 490_000, 'at the mid less half a cent, rounded down');
      armed = true;
      // the mid half a cent up: the mover's ask at 0.54 first, then its ask at 0.53 goes (the book never one-sided)
      await moveMoverQuote(h, m0, 'ask', 540_000);
      await waitFor('run 1 sends its replace', () => held.length > 0, 60_000).catch(async (e: Error) => {
        const o = (await openOrders(h.bot, m0)).map((v) => [yesTerms(v), v.size]);
        throw new Error(`${e.message}; its order calls since: ${seen.join(', ')}; its orders in market 0: ${JSON.stringify(o)}`);
      });
      assert.equal(held[0]!.path, '/orders/cancel-replace', `the held request is a cancel-replace: ${held.map((r) => r.path).join(', ')}`);
      await withTimeout(run1.exit, 30_000, 'run 1 did not die');
      assert.equal(run1.proc.signalCode, 'SIGKILL');
      await withTimeout(Promise.all(held.map((r) => r.gone)), 30_000, "the exchange did not see run 1's connections close");
      h.ex.holdRequests(null);
      release();

      // the case is made: both legs ran at the venue, the ledger (final: run 1 is dead) has neither answer
      const venue1 = await allOrders(h.bot);
      const oldNow = venue1.find((v) => v.nonce.toLowerCase() === old.nonce.toLowerCase())!;
      assert.equal(oldNow.status, 'cancelled', 'the cancel leg ran: the old bid is cancelled at the venue');
      const bidsNow = venue1.filter((v) => v.status === 'open' && v.marketId.toLowerCase() === m0 && yesTerms(v).side === 'bid');
      assert.equal(bidsNow.length, 1, 'the create leg ran: one new bid open in market 0');
      assert.equal(yesTerms(bidsNow[0]!).price, 500_000, 'at the moved price');
      const replacement = bidsNow[0]!.nonce.toLowerCase();
      const oldRow = ledgerRow(ledger, old.nonce.toLowerCase());
      assert.ok(oldRow && oldRow.endedAt === null, `the ledger has not ended the old bid (its cancel's answer never came): ${JSON.stringify(oldRow)}`);
      const newRow = ledgerRow(ledger, replacement);
      assert.ok(newRow === undefined || newRow.answer === null, `the ledger holds no answer of the new bid: ${JSON.stringify(newRow)}`);
      const atVenue = new Set(venue1.filter((v) => v.status === 'open').map((v) => v.nonce.toLowerCase()));

      // run 2: this process, the same ledger
      const since = Date.now();
      bot = await startTestBot(h, await parseConfigText(withLedger, '', { env: {} }), { metricsPort: await freePort(), warmupMs: 60_000 });
      const b = bot;
      const tracked = new Map(b.orderManager.tracked().map((t) => [t.planned.nonce.toLowerCase(), t] as const));
      for (const n of atVenue) assert.ok(tracked.has(n), `order ${n} at the venue is known to the restarted bot`);
      await oncePerSlot(h, 20);
      await waitFor('run 2 quotes both markets', async () => (await openOrders(h.bot)).length === 4, 60_000);
      await oncePerSlot(h, 10);
      // a fill in run 2: the mover sells 2 YES into its bid in market 1
      const bid1 = (await openOrders(h.bot, m1)).find((v) => yesTerms(v).side === 'bid');
      assert.ok(bid1, 'run 2 quotes a bid in market 1');
      await place(h.mover, { marketId: m1, outcomeIndex: 1, side: 1, price: yesTerms(bid1).price, shares: 2, timeInForce: 1, inventoryMode: 2 });
      await waitFor('run 2 recorded the fill', () => ledgerFillRows(ledger).rows === 1, 30_000);
      await assertMoneyAgrees(h, b, ledger);
      // the old bid ended as the venue states it; the new bid is in the ledger (sent or adopted)
      const oldEnd = ledgerRow(ledger, old.nonce.toLowerCase());
      assert.equal(oldEnd?.status, 'cancelled', "the old bid's end in the ledger is the venue's");
      assert.ok(ledgerRow(ledger, replacement), 'the new bid is in the ledger');
      // per order, the ledger's filled shares are the venue's: each bid's fill once, nothing else filled
      const fills = readLedgerFile(
        ledger,
        (l) => l.db.prepare('SELECT nonce, SUM(size) AS s FROM fills GROUP BY nonce').all() as { nonce: string; s: number }[],
      );
      const venueFilled = (await allOrders(h.bot)).filter((v) => filledShares(v) > 0).map((v) => [v.nonce.toLowerCase(), filledShares(v)] as const);
      assert.deepEqual(fills.map((f) => [f.nonce.toLowerCase(), f.s] as const).sort(), [...venueFilled].sort(), "per order, the ledger's fills = the venue's");
      assert.deepEqual(venueFilled, [[bid1.nonce.toLowerCase(), 2_000_000]], "run 2's fill alone");
      bot = null;
      assert.equal(await b.stop(), 0);
      const after = await b.metrics.registry.metrics();
      assert.equal((await openOrders(h.bot)).length, 0, 'the stop cancelled everything');

      // the ledger = the venue: every order of both runs ended, per order the venue's filled shares
      const s = readLedgerFile(ledger, (l) => ({ all: ledgerSummary(l), run: ledgerSummary(l, { since }) }));
      assert.equal(s.all.orderEnds.unended, 0, 'every order of both runs ended in the ledger');
      const venueAll = await allOrders(h.bot);
      const ledgerNonces = readLedgerFile(
        ledger,
        (l) => new Set((l.db.prepare('SELECT nonce FROM orders').all() as { nonce: string }[]).map((r) => r.nonce.toLowerCase())),
      );
      for (const v of venueAll) assert.ok(ledgerNonces.has(v.nonce.toLowerCase()), `order ${v.nonce} of the venue is in the ledger (none lost)`);
      // run 2's counts: the ledger's = the metrics' (read after the stop, its cancels included)
      assert.deepEqual(
        {
          sent: s.run.orders.sent,
          cancels: s.run.orders.cancels,
          adopted: s.run.orders.adopted,
          strangersCancelled: s.run.orderEnds.strangers.cancelled,
          strangerCancels: s.run.orderEnds.strangers.cancelsSent,
        },
        {
          sent: total(after, 'bookmaker_orders_sent_total', 'action="create"') + total(after, 'bookmaker_orders_sent_total', 'action="resend"'),
          cancels: total(after, 'bookmaker_orders_sent_total', 'action="cancel"'),
          adopted: total(after, 'bookmaker_orders_adopted_total'),
          strangersCancelled: total(after, 'bookmaker_strangers_cancelled_total'),
          strangerCancels: total(after, 'bookmaker_orders_sent_total', 'action="cancel-stranger"'),
        },
        "run 2's ledger counts = its metrics",
      );
      assert.ok(s.run.orders.adopted >= 1, "run 1's orders were adopted by run 2");
    } finally {
      h.ex.holdRequests(null);
      release();
      if (run1.proc.exitCode === null && run1.proc.signalCode === null) run1.proc.kill('SIGKILL');
      if (bot) await bot.stop();
    }
  });
});
