/**
 * The store's position through a balance read that lands before the fill it already holds: the store
 * and the account's books agree to the unit once the fill is in (holdings, cost, realised PnL), and
 * the attribution and PnL the store shows are the books'.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Account } from '../../src/account/account.ts';
import { applyToBooks } from '../../src/account/account-fill.ts';
import type { Bytes32 } from '../../src/model/order.ts';
import { marketAttribution } from '../../src/state/edge-view.ts';
import type { StateEvent } from '../../src/state/events.ts';
import { marketPnl } from '../../src/state/market-view.ts';
import type { PositionState } from '../../src/state/position.ts';
import { StateStore } from '../../src/state/store.ts';
import { anyFill, positionRead, topOfBook } from '../support/quoting.ts';
import { join } from 'node:path';
import { accountFromLedger } from '../../src/ledger/books.ts';
import { bindStoreMetrics } from '../../src/metrics/bind-store-metrics.ts';
import { createBotMetrics } from '../../src/metrics/bot-metrics.ts';
import { withTmpLedger } from '../ledger/tmp-ledger.ts';
import { openBotLedger } from '../support/bot-ledger.ts';
import { TRADER, settableClock } from '../support/venue-order.ts';

const M = ('0x' + 'cd'.repeat(32)) as Bytes32;
const S = 1_000_000;

const fill = (outcomeIndex: 0 | 1, side: 0 | 1, price: number, size: number, ts: number, id: string, fee = 0): StateEvent =>
  anyFill(M, outcomeIndex, side, price, size, ts, id, fee);
const read = (yes: number, no: number, ts: number): StateEvent => positionRead(M, yes, no, ts);

function run(events: readonly StateEvent[]): { store: StateStore; books: Account } {
  const store = new StateStore();
  const books = new Account();
  for (const e of events) {
    store.dispatch(e);
    applyToBooks(books, e);
  }
  return { store, books };
}

const figures = (p: PositionState) => ({ yes: p.yes, no: p.no, net: p.net, basis: p.basis, realised: p.realised, fees: p.fees });

function assertAgree(events: readonly StateEvent[], label: string): void {
  const { store, books } = run(events);
  const m = store.state.markets.get(M)!;
  books.mark(M, m.lastMid2!, 2_000);
  assert.deepEqual(figures(m.position), figures(books.positionOf(M)!), `${label}: the store's position is the books'`);
  assert.equal(m.held?.ahead ?? null, null, `${label}: no read left ahead`);
  // the PnL and the attribution the store shows without the books are the books' figures
  const pnl = marketPnl(m);
  assert.deepEqual(pnl, books.marketPnl(M), `${label}: PnL`);
  assert.equal(marketAttribution(m).total, marketAttribution(m, books).total, `${label}: attribution`);
}

test('a read ahead of a buy: once the buy is in, the store holds what the books hold, at the fill price', () => {
  const t = 1_000;
  const events = [
    topOfBook(M, 490_000, 510_000, t),
    read(0, 0, t),
    fill(1, 0, 400_000, 10 * S, t + 1, 'a'),
    read(10 * S, 0, t + 2),
    // the second buy trades between the orders read and the balance read: the read shows it first
    read(15 * S, 0, t + 3),
    fill(1, 0, 600_000, 5 * S, t + 2, 'b', 3_000),
    read(15 * S, 0, t + 4),
  ];
  // old code: 20 YES once the buy arrived (the read's 5 counted again), the basis rescaled
  const { store } = run(events.slice(0, 6));
  assert.equal(store.state.markets.get(M)!.position.yes, 15 * S, 'the buy the read held is not counted again');
  assertAgree(events.slice(0, 6), 'after the fill');
  assertAgree(events, 'after the next read');
});

test('a read ahead of a sale: the realised PnL is the fills', () => {
  const t = 1_000;
  const events = [
    topOfBook(M, 590_000, 610_000, t),
    read(0, 0, t),
    fill(1, 0, 500_000, 10 * S, t + 1, 'a'),
    read(4 * S, 0, t + 2),
    fill(1, 1, 700_000, 6 * S, t + 1, 'b'),
  ];
  assertAgree(events, 'sale');
  const { books } = run(events);
  assert.equal(books.marketPnl(M).realised, 1_200_000n);
});

test('a read ahead of two fills: the holdings stay the read until both are in, then the books', () => {
  const t = 1_000;
  const events = [topOfBook(M, 490_000, 510_000, t), read(0, 0, t), read(0, 9 * S, t + 1), fill(0, 0, 300_000, 4 * S, t, 'a')];
  const { store } = run(events);
  const m = store.state.markets.get(M)!;
  assert.equal(m.position.no, 9 * S, 'the read holds the second fill too');
  assert.equal(m.held?.ahead?.no, 4 * S);
  // the same read again (the second fill a poll late) stays ahead
  assertAgree([...events, read(0, 9 * S, t + 2), fill(0, 0, 320_000, 5 * S, t + 1, 'b', 1_000)], 'both fills');
});

test('a fill the read did not see applies on top; a read the fills never explain is the holdings', () => {
  const t = 1_000;
  const { store } = run([topOfBook(M, 490_000, 510_000, t), read(0, 0, t), read(10 * S, 0, t + 1), fill(1, 0, 400_000, 15 * S, t + 2, 'a')]);
  assert.equal(store.state.markets.get(M)!.position.yes, 25 * S, 'a fill past the read is a new fill');
  // the first read of a market is its starting holdings (inherited), not a read ahead of fills
  const first = run([topOfBook(M, 490_000, 510_000, t), read(10 * S, 0, t), fill(1, 0, 400_000, 5 * S, t + 1, 'a')]);
  assert.equal(first.store.state.markets.get(M)!.position.yes, 15 * S);
});

test("a read behind a fill (the venue not settled yet), then one that has it: the store's position is the fills' own again", () => {
  const t = 1_000;
  const events = [topOfBook(M, 490_000, 510_000, t), read(0, 0, t), fill(1, 0, 333_333, 7 * S, t + 1, 'a', 1_167), read(0, 0, t + 2), read(7 * S, 0, t + 3)];
  const { store } = run(events.slice(0, 4));
  assert.equal(store.state.markets.get(M)!.position.yes, 0, 'the read is the holdings meanwhile');
  // old code: the basis rescaled to 0 at the flat read, so the buy's cost was lost for good
  assertAgree(events, 'after the read that has it');
});

/**
 * Every consumer of a fill, wired as the bot wires them: the store (its position), the books, the
 * ledger (a BotLedger in a file, its books rebuilt from what it recorded) and the fill counters of
 * /metrics. Returns what each counted.
 */
async function everyConsumer(events: readonly StateEvent[]) {
  return withTmpLedger(async ({ dir }) => {
    const clock = settableClock();
    const bl = await openBotLedger({ path: join(dir, 'l.sqlite'), clock, trader: TRADER });
    const store = new StateStore();
    const books = bl.books();
    const metrics = createBotMetrics({ defaultMetrics: false });
    const unbind = bindStoreMetrics(metrics, store);
    const positions: number[] = [];
    for (const e of events) {
      store.dispatch(e);
      applyToBooks(books, e);
      bl.onEvent(e);
      positions.push(store.state.markets.get(M)?.position.yes ?? 0);
    }
    bl.ledger.flush();
    const ledgerBooks = accountFromLedger(bl.ledger);
    const text = await metrics.registry.metrics();
    unbind();
    bl.close();
    const counted = (name: string) =>
      text
        .split('\n')
        .filter((l) => l.startsWith(`bookmaker_${name}{market="${M}"`))
        .reduce((a, l) => a + Number(l.slice(l.lastIndexOf(' ') + 1)), 0);
    return {
      positions,
      books: { fills: books.figures().fills, yes: books.holdingsOf(M).yes, volume: books.figures().volume },
      ledger: { fills: ledgerBooks.figures().fills, yes: ledgerBooks.holdingsOf(M).yes, volume: ledgerBooks.figures().volume },
      metrics: { fills: counted('fills_total'), shares: Math.round(counted('fill_volume_shares_total') * S) },
    };
  });
}

test("a fill found after a market's first read (a resting order's fill from before the start, found by the sweep): once in the books, the ledger and /metrics", async () => {
  const t = 1_000;
  // the first read already holds 4 YES the fill explains; the fill, then a duplicate report of it
  // (a second read of the same order), then a read, a new buy, a read
  const c = fill(1, 0, 400_000, 4 * S, t + 1, 'c');
  const r = await everyConsumer([
    topOfBook(M, 490_000, 510_000, t),
    read(4 * S, 0, t),
    c,
    c,
    read(4 * S, 0, t + 2),
    fill(1, 0, 450_000, 2 * S, t + 3, 'd'),
    read(6 * S, 0, t + 4),
  ]);
  const once = { fills: 2, yes: 6 * S, volume: 2_500_000n };
  assert.deepEqual(r.books, once, 'the books');
  assert.deepEqual(r.ledger, once, 'the ledger');
  assert.deepEqual(r.metrics, { fills: 2, shares: 6 * S }, '/metrics');
  // the store's position: the first read is the market's starting holdings (docs/books-and-pnl.md), so
  // the fill counts on top of it until the next read, which gives the venue's holdings back
  assert.deepEqual(r.positions, [0, 4 * S, 8 * S, 8 * S, 4 * S, 6 * S, 6 * S]);
});

test('a fill in the gap after a lost fill: once in the books, the ledger and /metrics; the store holds what each read says', async () => {
  const t = 1_000;
  // 4 YES bought by a fill the feeds never report (lost); a read has them; then 3 bought, 1 bought
  const r = await everyConsumer([
    topOfBook(M, 490_000, 510_000, t),
    read(0, 0, t),
    read(4 * S, 0, t + 1),
    fill(1, 0, 400_000, 3 * S, t + 2, 'b'),
    read(7 * S, 0, t + 3),
    fill(1, 0, 420_000, 1 * S, t + 4, 'e'),
    read(8 * S, 0, t + 5),
  ]);
  const once = { fills: 2, yes: 4 * S, volume: 1_620_000n };
  assert.deepEqual(r.books, once, 'the books: the fills they got (the lost one shows as a drift)');
  assert.deepEqual(r.ledger, once, 'the ledger');
  assert.deepEqual(r.metrics, { fills: 2, shares: 4 * S }, '/metrics');
  // the store: a fill that moves towards a read it may be in counts as held until the next read
  assert.deepEqual(r.positions, [0, 0, 4 * S, 4 * S, 7 * S, 7 * S, 8 * S]);
});
