/**
 * The memos a market's views derive live with the market's state (src/state/market-memo.ts): carried
 * by every copy the reducer makes, gone when the market leaves the store, never shared between
 * markets or stores, and never part of the state's value.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { BookSnapshot } from '../../src/model/book.ts';
import type { Bytes32 } from '../../src/model/order.ts';
import type { PlannedOrder } from '../../src/model/venue.ts';
import { edgeView } from '../../src/state/edge-view.ts';
import type { StateEvent } from '../../src/state/events.ts';
import { selectMarketView } from '../../src/state/market-view.ts';
import { StateStore } from '../../src/state/store.ts';
import { othersBook } from '../../src/strategy/others-book.ts';

const S = 1_000_000;
const M = ('0x' + 'ab'.repeat(32)) as Bytes32;
const M2 = ('0x' + 'cd'.repeat(32)) as Bytes32;

function bookOf(marketId: Bytes32, bid = 490_000): BookSnapshot {
  return {
    marketId,
    outcomeIndex: 1,
    bids: [
      { price: bid, size: 40 * S },
      { price: 480_000, size: 5 * S },
    ],
    asks: [{ price: 510_000, size: 30 * S }],
    venueTs: 1000,
  };
}

function quoted(store: StateStore, marketId: Bytes32, ts: number): PlannedOrder {
  const bid: PlannedOrder = { marketId, outcomeIndex: 1, side: 0, price: 490_000, size: 15 * S, nonce: ('0x' + '01'.repeat(32)) as Bytes32, inventoryMode: 0 };
  const events: StateEvent[] = [
    { type: 'BookEventReceived', event: { type: 'snapshot', book: bookOf(marketId), seq: 1, localTs: ts, source: 'stream' }, ts },
    { type: 'OrderSubmitted', marketId, slot: `${marketId}:bid:0`, nonce: bid.nonce, order: bid, retry: false, ts: ts + 1 },
    { type: 'OrderAccepted', marketId, nonce: bid.nonce, duplicate: false, ts: ts + 2 },
  ];
  store.dispatchAll(events);
  return bid;
}

/** Everything a tick and a scrape read of a market: its view, the others' book, the edge view. */
function readAll(store: StateStore, marketId: Bytes32, now: number) {
  const v = selectMarketView(store.state, marketId, now)!;
  othersBook(v);
  edgeView(store.state.markets.get(marketId)!, now);
  return v;
}

test('the memo is the market state’s: carried across book and order events, filled by views, one per market', () => {
  const store = new StateStore();
  quoted(store, M, 1000);
  quoted(store, M2, 1000);
  const m = store.state.markets.get(M)!;
  const v = readAll(store, M, 1010);
  assert.equal(v.memo, m.memo, 'the view carries its market’s memo');
  assert.equal(m.memo.book, v.book);
  assert.equal(m.memo.quotes, v.quotes);
  assert.equal(v.quotes[0]!.level, 0, 'the slot’s level, parsed once per slot name');
  assert.ok(m.memo.others !== null && m.memo.markoutSums !== null);
  assert.notEqual(store.state.markets.get(M2)!.memo, m.memo, 'each market its own');
  // a new book and a new order map are new states of the same market: the memo stays and follows
  store.dispatch({ type: 'BookEventReceived', event: { type: 'snapshot', book: bookOf(M, 495_000), seq: 2, localTs: 1020, source: 'stream' }, ts: 1020 });
  store.dispatch({ type: 'OrderCancelled', marketId: M, nonce: ('0x' + '01'.repeat(32)) as Bytes32, alreadyCancelled: false, ts: 1021 });
  const m2 = store.state.markets.get(M)!;
  assert.notEqual(m2, m);
  assert.equal(m2.memo, m.memo);
  const v2 = readAll(store, M, 1030);
  assert.equal(v2.book!.bestBid, 495_000, 'recomputed from the new book');
  assert.equal(readAll(store, M, 1040).book, v2.book, 'unchanged books: the remembered one');
  // not part of the market's value
  assert.equal(JSON.stringify(m2, (_k, x: unknown) => (typeof x === 'bigint' ? String(x) : x)).includes('"memo"'), false);
});

test('a market released with a position keeps a slim record with a fresh memo; released flat, none', () => {
  const store = new StateStore();
  const bid = quoted(store, M, 1000);
  quoted(store, M2, 1000);
  store.dispatch({
    type: 'OrderFilled',
    marketId: M,
    nonce: bid.nonce,
    outcomeIndex: 1,
    side: 0,
    price: 490_000,
    size: 15 * S,
    fee: 0,
    fillId: 'f1',
    ts: 1005,
  });
  readAll(store, M, 1010);
  readAll(store, M2, 1010);
  const old = store.state.markets.get(M)!.memo;
  assert.ok(old.book !== null);
  store.dispatch({ type: 'MarketReleased', marketId: M, keepPosition: true, ts: 1020 });
  const slim = store.state.markets.get(M)!;
  assert.ok(slim.position.yes > 0, 'the position record stays');
  assert.notEqual(slim.memo, old, 'what the released market derived is not carried into its record');
  assert.equal(slim.memo.book, null);
  assert.equal(slim.memo.others, null);
  store.dispatch({ type: 'MarketReleased', marketId: M2, keepPosition: false, ts: 1020 });
  assert.equal(store.state.markets.has(M2), false);
});

/** A store of n markets read as a run reads them, then dropped: weak references to what the reads derived. */
function readAndDrop(n: number): WeakRef<object>[] {
  const store = new StateStore();
  const refs: WeakRef<object>[] = [];
  for (let i = 0; i < n; i++) {
    const id = ('0x' + (i + 1).toString(16).padStart(64, '0')) as Bytes32;
    quoted(store, id, 1000);
    const v = readAll(store, id, 1010);
    refs.push(new WeakRef(v.book!), new WeakRef(othersBook(v)!), new WeakRef(v.quotes), new WeakRef(v.edge!.markouts));
  }
  // the account totals summed over the store's states, and the last state they were summed for
  refs.push(new WeakRef(store.state), new WeakRef(store.state.memo.counted));
  return refs;
}

test('what a dropped store’s markets and states derived is held by nothing else (no process-wide table, no module-level totals)', async () => {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  // a backtest's store of many markets, read as a run reads them, then dropped
  const refs = readAndDrop(50);
  // WeakRef targets stay alive until the current job ends
  await new Promise((res) => setImmediate(res));
  gc();
  gc();
  assert.equal(
    refs.filter((r) => r.deref() !== undefined).length,
    0,
    'every derived book, quote list, markout list and the account totals collected with the store',
  );
});
