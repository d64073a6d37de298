import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BookTouches, reaches } from '../../src/feeds/book-touches.ts';
import type { Bytes32 } from '../../src/model/order.ts';
import type { BookEvent } from '../../src/model/stream.ts';
import { tradeEvent } from './trade-event.ts';

const M = ('0x' + 'ab'.repeat(32)) as Bytes32;
const trade = (price: number, takerSide: 'buy' | 'sell', outcomeIndex: 0 | 1 = 1): BookEvent => tradeEvent(M, price, takerSide, outcomeIndex);

test('a taker sale reaches the bids at or above its price, a taker purchase the asks at or below it (YES terms)', () => {
  const t = new BookTouches();
  t.see(trade(450_000, 'sell'));
  const m = t.take().get(M)!;
  assert.equal(reaches(m, { outcomeIndex: 1, side: 0, price: 450_000 }), true, 'a YES bid at the trade price');
  assert.equal(reaches(m, { outcomeIndex: 1, side: 0, price: 460_000 }), true, 'a better bid was taken first');
  assert.equal(reaches(m, { outcomeIndex: 1, side: 0, price: 440_000 }), false, 'a bid below the trade');
  assert.equal(reaches(m, { outcomeIndex: 1, side: 1, price: 460_000 }), false, 'an ask: the other side');
  // a NO sell at 0.55 rests as a YES bid at 0.45; a NO buy at 0.55 as a YES ask at 0.45
  assert.equal(reaches(m, { outcomeIndex: 0, side: 1, price: 550_000 }), true);
  assert.equal(reaches(m, { outcomeIndex: 0, side: 0, price: 550_000 }), false);
  t.see(trade(600_000, 'buy'));
  const a = t.take().get(M)!;
  assert.equal(reaches(a, { outcomeIndex: 1, side: 1, price: 600_000 }), true);
  assert.equal(reaches(a, { outcomeIndex: 1, side: 1, price: 610_000 }), false);
  assert.equal(reaches(a, { outcomeIndex: 0, side: 0, price: 400_000 }), true, 'a NO buy at 0.40 is a YES ask at 0.60');
});

test('a trade of the NO view is mirrored: price 1 − p, the taker on the other side', () => {
  const t = new BookTouches();
  t.see(trade(550_000, 'buy', 0)); // a NO buyer at 0.55 is a YES seller at 0.45
  const m = t.take().get(M)!;
  assert.equal(reaches(m, { outcomeIndex: 1, side: 0, price: 450_000 }), true);
  assert.equal(reaches(m, { outcomeIndex: 1, side: 1, price: 450_000 }), false);
});

test('a snapshot marks the whole market; deltas and statuses mark nothing; a failed read puts its marks back', () => {
  const t = new BookTouches();
  t.see({ type: 'delta', marketId: M, outcomeIndex: 1, seq: 2, bids: [{ price: 450_000, size: 0 }], asks: [], venueTs: 0, localTs: 0 });
  t.see({ type: 'status', marketId: M, outcomeIndex: 1, state: 'reconnecting', localTs: 0 });
  assert.equal(t.size, 0);
  t.see({
    type: 'snapshot',
    book: { marketId: M, outcomeIndex: 1, bids: [], asks: [], venueTs: 0, seq: 3 },
    seq: 3,
    localTs: 0,
    source: 'resync',
  });
  const taken = t.take();
  assert.equal(t.size, 0, 'taken');
  assert.equal(reaches(taken.get(M)!, { outcomeIndex: 1, side: 1, price: 990_000 }), true);
  t.see(trade(300_000, 'sell'));
  t.putBack(taken);
  const again = t.take().get(M)!;
  assert.equal(again.all, true, 'the snapshot mark survives the failed read');
  assert.equal(again.bidLow, 300_000, 'with the trade seen since');
});
