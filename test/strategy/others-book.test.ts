/** The others' book: the view's book less the bot's own quotes (src/strategy/others-book.ts). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { BookSnapshot } from '../../src/model/book.ts';
import type { Bytes32, OutcomeIndex } from '../../src/model/order.ts';
import type { PlannedOrder } from '../../src/model/venue.ts';
import type { StateEvent } from '../../src/state/events.ts';
import { MarketMemo } from '../../src/state/market-memo.ts';
import { selectMarketView } from '../../src/state/market-view.ts';
import { StateStore } from '../../src/state/store.ts';
import { RunDiagnostics } from '../../src/backtest/run-diagnostics.ts';
import type { KernelTick } from '../../src/kernel/quoting-kernel.ts';
import { bookExcluding, fairBook, othersBook } from '../../src/strategy/others-book.ts';
import type { ViewLevel, WorkingQuote } from '../../src/strategy/types.ts';
import { viewBook } from '../../src/strategy/view-book.ts';
import { makeView, MARKET, NOW, S } from './make-view.ts';

const q = (side: 'bid' | 'ask', price: number, size: number, state: WorkingQuote['state'] = 'working', outcomeIndex: OutcomeIndex = 1): WorkingQuote => ({
  side,
  price,
  size,
  state,
  outcomeIndex,
  venueSide: side === 'bid' ? 'buy' : 'sell',
  placedAt: NOW - 1000,
});
const lv = (pairs: [number, number][]): ViewLevel[] => pairs.map(([price, size]) => ({ price, size }));

test('othersBook: own remaining size subtracted at its level, exact, clamped at 0, emptied levels removed', () => {
  // the book's levels; a row that leaves a side as it is names it BIDS or ASKS
  const BIDS: [number, number][] = [
    [490_000, 40 * S],
    [480_000, 25 * S],
    [470_000, 5 * S],
  ];
  const ASKS: [number, number][] = [
    [510_000, 30 * S],
    [520_000, 1_234_567],
  ];
  const bids = lv(BIDS);
  const asks = lv(ASKS);
  /** `levels` with the size at `price` set to `size` (0: the level is gone). */
  const set = (levels: [number, number][], price: number, size: number): [number, number][] =>
    levels.flatMap(([p, sz]): [number, number][] => (p !== price ? [[p, sz]] : size > 0 ? [[p, size]] : []));
  const rows: { name: string; quotes: WorkingQuote[]; bids: [number, number][]; asks: [number, number][] }[] = [
    { name: 'no own quote', quotes: [], bids: BIDS, asks: ASKS },
    { name: 'part of the best bid is ours', quotes: [q('bid', 490_000, 10 * S)], bids: set(BIDS, 490_000, 30 * S), asks: ASKS },
    { name: 'the whole best bid is ours: the next level is the touch', quotes: [q('bid', 490_000, 40 * S)], bids: set(BIDS, 490_000, 0), asks: ASKS },
    {
      name: 'more than the level holds (its fill not heard yet): clamped, removed',
      quotes: [q('bid', 470_000, 9 * S)],
      bids: set(BIDS, 470_000, 0),
      asks: ASKS,
    },
    {
      name: 'two own quotes at one price',
      quotes: [q('ask', 510_000, 10 * S), q('ask', 510_000, 15 * S, 'in-flight')],
      bids: BIDS,
      asks: set(ASKS, 510_000, 5 * S),
    },
    { name: 'exact units: 1.234567 − 0.234567 shares', quotes: [q('ask', 520_000, 234_567)], bids: BIDS, asks: set(ASKS, 520_000, S) },
    { name: 'a NO buy rests as a YES ask', quotes: [q('ask', 510_000, 30 * S, 'working', 0)], bids: BIDS, asks: [[520_000, 1_234_567]] },
    {
      name: 'in flight and cancelling count too',
      quotes: [q('bid', 490_000, S, 'in-flight'), q('bid', 480_000, 5 * S, 'cancelling')],
      bids: set(set(BIDS, 490_000, 39 * S), 480_000, 20 * S),
      asks: ASKS,
    },
    {
      name: 'own quotes at prices the book does not hold change nothing',
      quotes: [q('bid', 500_000, S), q('ask', 600_000, S), q('bid', 480_000, 0)],
      bids: BIDS,
      asks: ASKS,
    },
    { name: 'a bid quote never touches an ask level at the same price', quotes: [q('bid', 510_000, 30 * S)], bids: BIDS, asks: ASKS },
  ];
  for (const r of rows) {
    const book = viewBook(bids, asks, NOW - 100, NOW - 50);
    const got = othersBook(makeView({ book, quotes: r.quotes }))!;
    const want = viewBook(lv(r.bids), lv(r.asks), NOW - 100, NOW - 50);
    assert.deepEqual(got, want, r.name);
    assert.deepEqual(book.bids, bids, `${r.name}: the view's book is not mutated`);
    assert.deepEqual(book.asks, asks, `${r.name}: the view's book is not mutated`);
  }
});

test('othersBook: unchanged books come back as the same object; results are remembered per (book, quotes)', () => {
  const book = viewBook(lv([[490_000, 40 * S]]), lv([[510_000, 30 * S]]), 1, 2);
  assert.equal(othersBook(makeView({ book })), book, 'no quotes');
  assert.equal(othersBook(makeView({ book, quotes: [q('bid', 400_000, S)] })), book, 'no quote at a book price');
  assert.equal(othersBook(makeView({ book: null, quotes: [q('bid', 490_000, S)] })), null);
  const quotes = [q('bid', 490_000, S)];
  // remembered in the view's memo (the market's, src/state/market-memo.ts); a view without one recomputes
  const memo = new MarketMemo();
  const a = othersBook(makeView({ book, quotes, memo }));
  assert.equal(othersBook(makeView({ book, quotes, memo })), a, 'same book and quotes: the remembered result');
  assert.notEqual(othersBook(makeView({ book, quotes })), a, 'no memo: computed afresh');
  assert.deepEqual(othersBook(makeView({ book, quotes })), a);
  const b = othersBook(makeView({ book, quotes: [q('bid', 490_000, 2 * S)], memo }))!;
  assert.equal(b.bids[0]!.size, 38 * S, 'new quotes: recomputed');
  assert.equal(bookExcluding(book, []), book);
  assert.equal(fairBook(makeView({ book, quotes }), 'book'), book);
  assert.equal(fairBook(makeView({ book, quotes }), 'others')!.bids[0]!.size, 39 * S);
});

test('microprice: own quotes at the touch move the whole book’s, not the others’', () => {
  // others: bid 48¢ × 10, ask 52¢ × 30
  const others: { bids: [number, number][]; asks: [number, number][] } = { bids: [[480_000, 10 * S]], asks: [[520_000, 30 * S]] };
  const rows: { name: string; quotes: WorkingQuote[]; bids: [number, number][]; asks: [number, number][] }[] = [
    { name: 'own bid joins the best bid', quotes: [q('bid', 480_000, 20 * S)], bids: [[480_000, 30 * S]], asks: [[520_000, 30 * S]] },
    {
      name: 'own bid improves the touch',
      quotes: [q('bid', 490_000, 20 * S)],
      bids: [
        [490_000, 20 * S],
        [480_000, 10 * S],
      ],
      asks: [[520_000, 30 * S]],
    },
    {
      name: 'own ask improves the touch',
      quotes: [q('ask', 510_000, 10 * S)],
      bids: [[480_000, 10 * S]],
      asks: [
        [510_000, 10 * S],
        [520_000, 30 * S],
      ],
    },
    {
      name: 'own quotes on both sides',
      quotes: [q('bid', 490_000, 10 * S), q('ask', 520_000, 10 * S)],
      bids: [
        [490_000, 10 * S],
        [480_000, 10 * S],
      ],
      asks: [[520_000, 40 * S]],
    },
  ];
  const ref = viewBook(lv(others.bids), lv(others.asks), 1, 2);
  for (const r of rows) {
    const whole = viewBook(lv(r.bids), lv(r.asks), 1, 2);
    assert.notEqual(whole.microprice, ref.microprice, `${r.name}: the whole book's microprice moved`);
    const got = othersBook(makeView({ book: whole, quotes: r.quotes }))!;
    assert.equal(got.microprice, ref.microprice, r.name);
    assert.equal(got.mid, ref.mid, r.name);
  }
});

test('othersBook on the store-built view: the venue book less the orders the store tracks', () => {
  const store = new StateStore();
  const book: BookSnapshot = {
    marketId: MARKET,
    outcomeIndex: 1,
    bids: lv([
      [490_000, 40 * S],
      [480_000, 5 * S],
    ]),
    asks: lv([[510_000, 30 * S]]),
    venueTs: 1000,
  };
  const order = (i: number, outcomeIndex: OutcomeIndex, side: 0 | 1, price: number, size: number): PlannedOrder => ({
    marketId: MARKET,
    outcomeIndex,
    side,
    price,
    size,
    nonce: ('0x' + i.toString(16).padStart(64, '0')) as Bytes32,
    inventoryMode: 0,
  });
  const bid = order(1, 1, 0, 490_000, 15 * S);
  const noBuy = order(2, 0, 0, 490_000, 30 * S); // a NO buy at 49¢ is a YES ask at 51¢
  const events: StateEvent[] = [
    { type: 'BookEventReceived', event: { type: 'snapshot', book, seq: 1, localTs: 1000, source: 'stream' }, ts: 1000 },
    { type: 'OrderSubmitted', marketId: MARKET, slot: `${MARKET}:bid:0`, nonce: bid.nonce, order: bid, retry: false, ts: 1001 },
    { type: 'OrderAccepted', marketId: MARKET, nonce: bid.nonce, duplicate: false, ts: 1002 },
    { type: 'OrderSubmitted', marketId: MARKET, slot: `${MARKET}:ask:0`, nonce: noBuy.nonce, order: noBuy, retry: false, ts: 1003 },
  ];
  store.dispatchAll(events);
  const v = selectMarketView(store.state, MARKET, 1004)!;
  const got = othersBook(v)!;
  assert.deepEqual(
    got.bids,
    lv([
      [490_000, 25 * S],
      [480_000, 5 * S],
    ]),
  );
  assert.deepEqual(got.asks, []);
  assert.equal(got.mid, null, 'the bot alone on the ask side: no two-sided others’ book');
  assert.equal(v.book!.bestAsk, 510_000, 'the view’s own book is untouched');
  // a later tick with nothing changed reuses the remembered result
  assert.equal(othersBook(selectMarketView(store.state, MARKET, 1500)!), got);
});

test('backtest diagnostics name a book two-sided only thanks to own quotes', () => {
  const d = new RunDiagnostics();
  const tick: KernelTick = { at: NOW, action: 'pull', desired: [], denied: 0, strategyError: null, returned: null };
  const book = viewBook(lv([[480_000, 10 * S]]), lv([[520_000, 10 * S]]), 1, 2);
  d.onTick(tick, makeView({ book, quotes: [q('ask', 520_000, 10 * S)] }));
  d.onTick(tick, makeView({ book, quotes: [q('ask', 530_000, 10 * S)] }));
  assert.deepEqual(d.counts.returnedNothingBecause, { 'two-sided only with own quotes': 1, 'two-sided book, no oracle price': 1 });
});

test('othersBook: a book marked withoutOwn (a replay without the drop copy) is the others’ book as it is', () => {
  const book = viewBook(lv([[490_000, 40 * S]]), lv([[510_000, 30 * S]]), 1, 2, true);
  const v = makeView({ book, quotes: [q('bid', 490_000, 40 * S)] });
  assert.equal(othersBook(v), book);
  assert.equal(viewBook(lv([[490_000, 40 * S]]), lv([[510_000, 30 * S]]), 1, 2).withoutOwn, undefined, 'a venue book holds our orders');
});
