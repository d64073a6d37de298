/**
 * A stranger cancelled, end to end against the local exchange over real HTTP: an open order on the bot's
 * wallet in one of its markets that the bot did not place (another trader's: its nonce carries no tag of
 * this ledger), let through by `--cancel-foreign-orders`, is cancelled by the start-up reconcile. The
 * ledger records it as a stranger (`stranger_at`, `cancels.stranger`, schema version 6), and the run
 * report's orders line, `ledger summary` and /metrics count it apart from the bot's own orders, the same
 * figures in all three (src/orders/orphan-slot.ts isStrangerCancel, src/ledger/order-ends.ts). Before,
 * its row and its cancel were counted as the bot's: an order of this run ended 'cancelled', a cancel sent,
 * bookmaker_orders_cancelled_total.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Bytes32 } from '../../src/model/order.ts';
import { orderEndsText } from '../../src/ledger/order-ends.ts';
import { formatRunReport, type RunReport } from '../../src/runtime/run-report.ts';
import { ledgerConfig, onLedgerExchange, openOrders, place, startTestBot, waitFor, waitQuoting } from './harness.ts';
import { ledgerFigures, readLedgerFile } from './ledger-runs.ts';

/** Σ of a counter's series whose labels include `match` (e.g. `action="cancel"`), 0 when none. */
function total(text: string, name: string, match = ''): number {
  let n = 0;
  for (const l of text.split('\n')) if (l.startsWith(`${name}{`) && l.includes(match)) n += Number(l.slice(l.lastIndexOf(' ') + 1));
  return n;
}

test("a stranger the start-up reconcile cancels: the run report, `ledger summary` and /metrics count it as a stranger, not as the bot's order", async () => {
  await onLedgerExchange(async (h, file) => {
    const m0 = h.markets[0]!.toLowerCase() as Bytes32;
    // another trader on the wallet: a bid far from the bot's quotes, so no quote slot can adopt it (its history makes
    // the new ledger a --new-ledger one)
    const theirs = await place(h.bot, { marketId: m0, outcomeIndex: 1, side: 0, price: 100_000, shares: 5 });
    assert.ok(theirs, 'the stranger is placed');
    const stranger = theirs.nonce.toLowerCase() as Bytes32;
    const bot = await startTestBot(h, await ledgerConfig(h, file), { cancelForeignOrders: true, newLedger: true });
    let report: RunReport;
    try {
      await waitFor('the stranger cancelled at the venue', async () => !(await openOrders(h.bot, m0)).some((o) => o.nonce.toLowerCase() === stranger), 60_000);
      await waitQuoting(h, 60_000);
    } finally {
      report = bot.report('test', await bot.stop('test'));
    }
    const text = await bot.metrics.registry.metrics();
    const { summary } = ledgerFigures(file);
    const ends = summary.orderEnds;

    // the ledger's record: a stranger's row, its cancels marked
    const row = readLedgerFile(file, (l) => l.db.prepare('SELECT slot, status, stranger_at FROM orders WHERE nonce = ?').get(stranger)) as
      | { slot: string; status: string; stranger_at: number | null }
      | undefined;
    assert.ok(row, 'the ledger holds a row of the stranger');
    assert.equal(row.status, 'cancelled');
    assert.ok(row.stranger_at !== null, "the row is a stranger's (stranger_at)");
    const cancels = readLedgerFile(file, (l) => l.db.prepare('SELECT result, stranger FROM cancels WHERE nonce = ? ORDER BY id').all(stranger)) as {
      result: string;
      stranger: number | null;
    }[];
    assert.deepEqual(cancels, [
      { result: 'sent', stranger: 1 },
      { result: 'cancelled', stranger: 1 },
    ]);

    // one count in three places: the ledger, the run report (this run is the whole ledger) and /metrics
    assert.deepEqual(ends.strangers, { orders: 1, cancelsSent: 1, cancelled: 1 }, '`ledger summary` strangers');
    assert.deepEqual(report.orders, ends, 'the run report counts the orders as `ledger summary` does');
    assert.ok(formatRunReport(report).includes(`  orders: ${orderEndsText(ends)}`));
    assert.match(orderEndsText(ends), /; strangers cancelled 1 \(cancels sent 1, found with no record 1\)$/);
    assert.equal(total(text, 'bookmaker_strangers_cancelled_total'), ends.strangers.cancelled, '/metrics strangers cancelled');
    assert.equal(total(text, 'bookmaker_orders_sent_total', 'action="cancel-stranger"'), ends.strangers.cancelsSent, '/metrics stranger cancels sent');

    // and none counts it as the bot's own
    const own = readLedgerFile(file, (l) => ({
      rows: (l.db.prepare('SELECT COUNT(*) AS n FROM orders WHERE stranger_at IS NULL').get() as { n: number }).n,
      cancelled: (l.db.prepare("SELECT COUNT(*) AS n FROM cancels WHERE result = 'cancelled' AND stranger IS NULL").get() as { n: number }).n,
    }));
    assert.equal(ends.orders, own.rows, "orderEnds counts the bot's orders alone");
    assert.equal(summary.orders.cancels, total(text, 'bookmaker_orders_sent_total', 'action="cancel"'), "cancelsSent = /metrics' own cancels sent");
    assert.equal(total(text, 'bookmaker_orders_cancelled_total'), own.cancelled, "/metrics orders cancelled: the bot's own alone");
    assert.ok(ends.orders > 0 && summary.orders.sent === ends.orders, 'the bot placed orders of its own, each counted once');
  });
});
