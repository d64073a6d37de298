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
