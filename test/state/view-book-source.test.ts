/**
 * A view's book (src/state/market-view.ts bookOf) comes from the market's YES book as it is, else the
 * mirrored NO book, and says `withoutOwn` exactly when the book it came from does (a replay without
 * the drop copy: src/strategy/others-book.ts). bookOf reads the YES book's levels directly (no
 * yesTermsLevels object a tick), so both sources are pinned here against yesTermsLevels and viewBook.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { BookSnapshot } from '../../src/model/book.ts';
import type { Bytes32 } from '../../src/model/order.ts';
import { yesTermsLevels } from '../../src/state/book-state.ts';
import { selectMarketView } from '../../src/state/market-view.ts';
import { StateStore } from '../../src/state/store.ts';
import { viewBook } from '../../src/strategy/view-book.ts';

const S = 1_000_000;
const M = ('0x' + 'ab'.repeat(32)) as Bytes32;

function snapshot(outcomeIndex: 0 | 1, withoutOwn: boolean | undefined): BookSnapshot {
  const b: BookSnapshot = {
    marketId: M,
    outcomeIndex,
    bids: [
      { price: 490_000, size: 40 * S },
      { price: 480_000, size: 5 * S },
    ],
    asks: [{ price: 510_000, size: 30 * S }],
    venueTs: 1000,
  };
  if (withoutOwn !== undefined) b.withoutOwn = withoutOwn;
  return b;
}

for (const outcomeIndex of [1, 0] as const) {
  for (const withoutOwn of [undefined, false, true]) {
    test(`the view's book from a ${outcomeIndex === 1 ? 'YES' : 'NO-only'} snapshot (withoutOwn ${withoutOwn}) is viewBook of its YES-terms levels`, () => {
      const store = new StateStore();
      store.dispatch({
        type: 'BookEventReceived',
        event: { type: 'snapshot', book: snapshot(outcomeIndex, withoutOwn), seq: 1, localTs: 1500, source: 'stream' },
        ts: 1500,
      });
      const m = store.state.markets.get(M)!;
      const y = yesTermsLevels(m.books)!;
      const v = selectMarketView(store.state, M, 2000)!;
      assert.deepEqual(v.book, viewBook(y.bids, y.asks, y.venueTs, m.bookUpdatedAt, withoutOwn === true));
      assert.equal(v.book!.withoutOwn, withoutOwn === true ? true : undefined);
      if (outcomeIndex === 1) assert.equal(v.book!.bids, m.books.yes!.bids, "the YES book's levels, not a copy");
      else assert.deepEqual(v.book!.bestBid, 490_000, 'the NO ask at 510,000 mirrored');
      // the same book object for the next view of the same books (the market's memo)
      assert.equal(selectMarketView(store.state, M, 2100)!.book, v.book);
    });
  }
}
