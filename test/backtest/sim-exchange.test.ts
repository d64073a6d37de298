/** The exchange model: fills by recorded trades, crossing books and taking on arrival; fees; YES/NO terms. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { queueModel } from '../../src/backtest/queue-model.ts';
import { SimExchange, type SimFill } from '../../src/backtest/sim-exchange.ts';
import { L2Book } from '../../src/core/l2-book.ts';
import { VirtualClock } from '../../src/backtest/virtual-clock.ts';
import type { RecordedEvent } from '../../src/backtest/recording/format.ts';
import { book, cols, order, trade } from './helpers.ts';
import type { Bytes32 } from '../../src/model/order.ts';

function setup(events: RecordedEvent[], fees = { makerBps: 0, takerBps: 0 }) {
  const c = cols(events);
  const fills: SimFill[] = [];
  const x = new SimExchange({ cols: c, ticks: [10_000], queue: queueModel('level'), fees, onFill: (f) => fills.push(f) });
  let next = 0;
  /** apply recorded rows up to (not including) the first row after time t */
  const until = (t: number) => {
    while (next < c.rows && c.lts[next]! <= t) x.applyRow(next, c.lts[next]!), next++;
  };
  return { x, fills, until, c };
}

const S = 1_000_000;

test('a trade through our bid fills it (bounded by the trade size), as maker', () => {
  const { x, fills, until } = setup([book(0, [[400_000, 10 * S]], [[600_000, 10 * S]]), trade(10, 380_000, 3 * S, 'sell')]);
  until(0);
  x.place(order({ side: 0, price: 420_000, size: 5 * S }), 0); // improves the bid: nobody in front
  until(10);
  assert.deepEqual(
    fills.map((f) => [f.cause, f.size, f.price, f.maker]),
    [['trade', 3 * S, 420_000, true]],
  );
});

test('a crossing ask fills our bid at our price with the size it added', () => {
  const { x, fills, until } = setup([book(0, [[400_000, 10 * S]], [[600_000, 10 * S]]), book(10, [], [[450_000, 2 * S]])]);
  until(0);
  x.place(order({ side: 0, price: 460_000, size: 5 * S }), 0);
  until(10);
  assert.deepEqual(
    fills.map((f) => [f.cause, f.size, f.price, f.row]),
    [['cross', 2 * S, 460_000, 2]],
  );
});

test('an order that crosses on arrival takes the recorded levels at their prices (taker fee), the rest rests', () => {
  const { x, fills, until } = setup(
    [
      book(
        0,
        [[400_000, 10 * S]],
        [
          [500_000, 2 * S],
          [510_000, 1 * S],
          [600_000, 10 * S],
        ],
      ),
    ],
    { makerBps: 0, takerBps: 100 },
  );
  until(0);
  const o = order({ side: 0, price: 510_000, size: 5 * S });
  x.place(o, 0);
  assert.deepEqual(
    fills.map((f) => [f.cause, f.size, f.price, f.maker, f.fee]),
    [
      ['take', 2 * S, 500_000, false, 10_000], // 1 USDC notional × 1% = 0.01 USDC
      ['take', 1 * S, 510_000, false, 5_100],
    ],
  );
  assert.equal(x.get(o.nonce)!.remaining, 2 * S);
  assert.equal(x.books[0]!.bestAsk(), 600_000); // taken levels are gone until the recording sets them again
  assert.deepEqual(x.ownTop(0), { bid: 510_000, ask: -1 });
});

test('the fee never exceeds the signed maxFee', () => {
  const { x, fills, until } = setup([book(0, [], [[500_000, 10 * S]])], { makerBps: 0, takerBps: 10_000 });
  until(0);
  x.place(order({ side: 0, price: 500_000, size: 4 * S, maxFee: 3 }), 0);
  assert.equal(fills[0]!.fee, 3);
});

test('a NO buy rests as a YES ask at 1 − p and is filled by a YES taker buy', () => {
  const { x, fills, until } = setup([book(0, [[400_000, 10 * S]], [[600_000, 10 * S]]), trade(10, 550_000, 1 * S, 'buy')]);
  until(0);
  x.place(order({ outcomeIndex: 0, side: 0, price: 450_000, size: 2 * S }), 0); // YES ask at 55¢
  assert.deepEqual(x.ownTop(0), { bid: -1, ask: 550_000 });
  until(10);
  assert.deepEqual(
    fills.map((f) => [f.yesSide, f.yesPrice, f.price, f.outcomeIndex, f.size]),
    [['ask', 550_000, 450_000, 0, 1 * S]],
  );
});

test('a snapshot restates the book without crossing or advancing queues', () => {
  const { x, fills, until } = setup([book(0, [[400_000, 10 * S]], [[600_000, 10 * S]]), book(10, [[400_000, 4 * S]], [[600_000, 10 * S]], true)]);
  until(0);
  const o = order({ side: 0, price: 400_000, size: 1 * S });
  x.place(o, 0);
  assert.equal(x.get(o.nonce)!.q.ahead, 10 * S);
  until(10);
  assert.equal(fills.length, 0);
  assert.equal(x.get(o.nonce)!.q.ahead, 4 * S); // capped at the new level size
});

test('bad orders are refused with a code, not thrown', () => {
  const { x } = setup([]);
  assert.deepEqual(x.place(order({ side: 0, price: 455_000, size: S }), 0), {
    ok: false,
    code: 'invalid-price',
    message: 'price 455000 is off the 10000 tick',
  });
  assert.equal(x.place(order({ side: 0, price: 450_000, size: 0 }), 0).ok, false);
  assert.equal(x.place({ ...order({ side: 0, price: 450_000, size: S }), marketId: `0x${'cd'.repeat(32)}` as Bytes32 }, 0).ok, false);
  assert.equal(x.place({ ...order({ side: 0, price: 450_000, size: S }), side: 3 as 0 }, 0).ok, false);
  assert.equal(x.place({ ...order({ side: 0, price: 450_000, size: S }), outcomeIndex: 2 as 1 }, 0).ok, false);
  assert.equal(x.rejected, 5);
  assert.equal(x.engine.openOrders().length, 0);
});

test('virtual clock: timers run in (due time, insertion) order; cancelled ones never run', () => {
  const clock = new VirtualClock(100);
  const seen: string[] = [];
  clock.setTimeout(() => seen.push('b@150'), 50);
  clock.setTimeout(() => seen.push('a@110'), 10);
  clock.setTimeout(() => seen.push('c@150'), 50);
  const cancel = clock.setTimeout(() => seen.push('never'), 20);
  cancel();
  clock.setTimeout(() => {
    seen.push('d@110');
    clock.setTimeout(() => seen.push('e@110'), 0);
  }, 10);
  const times: number[] = [];
  while (clock.runNext()) times.push(clock.now());
  assert.deepEqual(seen, ['a@110', 'd@110', 'e@110', 'b@150', 'c@150']);
  assert.deepEqual(times, [110, 110, 110, 150, 150]);
  clock.advanceTo(120); // never backwards
  assert.equal(clock.now(), 150);
});

test('virtual clock scheduler: RxJS timers run on virtual time', async () => {
  const { timer } = await import('rxjs');
  const clock = new VirtualClock(0);
  const at: number[] = [];
  timer(250, clock.scheduler).subscribe(() => at.push(clock.now()));
  while (clock.runNext());
  assert.deepEqual(at, [250]);
});

// ---- a market recorded with the venue's drop copy (src/sim/flow-tap.ts) ----
const M0 = cols([book(0, [], [])]).markets[0]!;
const xbook = (t: number, b: [number, number][], a: [number, number][], snap = false): RecordedEvent => ({
  t: 'xbook',
  m: M0,
  vts: t,
  lts: t,
  b,
  a,
  ...(snap ? { snap: true as const } : {}),
});
const taker = (t: number, p: number, s: number, side: 'buy' | 'sell'): RecordedEvent => ({ t: 'taker', m: M0, vts: t, lts: t, p, s, side });

test("drop copy: the public stream's book (with the recorded bot's quote in it) and its trades are not what we queue behind or fill from", () => {
  // the stream shows the recorded bot's own 10 at 55 on top of the others' 20; its fill printed as a trade
  const { x, fills, until } = setup([
    book(0, [[400_000, 20 * S]], [[550_000, 30 * S]], true),
    xbook(0, [[400_000, 20 * S]], [[550_000, 20 * S]], true),
    trade(10, 550_000, 25 * S, 'buy'),
  ]);
  until(0);
  const o = order({ outcomeIndex: 0, side: 0, price: 450_000, size: 10 * S }); // YES ask at 55
  x.place(o, 0);
  assert.equal(x.get(o.nonce)!.q.ahead, 20 * S, 'behind the others only, not behind the recorded bot');
  until(10);
  assert.equal(fills.length, 0, 'a recorded trade is no fill of ours here: the taker orders are');
});

test("drop copy: a taker order walks the others' better levels, the queue in front of us, then us, up to its limit", () => {
  const { x, fills, until } = setup([
    xbook(
      0,
      [[400_000, 20 * S]],
      [
        [540_000, 5 * S],
        [550_000, 8 * S],
        [600_000, 50 * S],
      ],
      true,
    ),
    taker(10, 550_000, 20 * S, 'buy'), // 5 @ 54, then at 55: 8 in front of us, then 7 of our 10
    xbook(
      10,
      [],
      [
        [540_000, 0],
        [550_000, 0],
      ],
    ), // the drop copy reports the others it took (credited, not a second advance)
    taker(20, 540_000, 9 * S, 'buy'), // its limit is below our price: it never reaches us
    taker(30, 560_000, 2 * S, 'buy'), // the queue in front of us was consumed by the first: 2 more of ours
  ]);
  until(0);
  const o = order({ outcomeIndex: 0, side: 0, price: 450_000, size: 10 * S }); // YES ask at 55, joins behind 8
  x.place(o, 0);
  until(30);
  assert.deepEqual(
    fills.map((f) => [f.cause, f.at, f.yesPrice, f.size, f.maker, f.row]),
    [
      ['taker', 10, 550_000, 7 * S, true, 5],
      ['taker', 30, 550_000, 2 * S, true, 9],
    ],
  );
  assert.equal(x.get(o.nonce)!.remaining, 1 * S);
});

test('drop copy: our resting size is reported per level, and the observer mid includes our orders', () => {
  const own: [string, number, number][] = [];
  const c = cols([xbook(0, [[400_000, 20 * S]], [[600_000, 20 * S]], true), taker(10, 500_000, 3 * S, 'sell')]);
  /** a fee-free, level-queue exchange over `c` whose fills go nowhere */
  const feeFree = (more: Partial<ConstructorParameters<typeof SimExchange>[0]>) =>
    new SimExchange({ cols: c, ticks: [10_000], queue: queueModel('level'), fees: { makerBps: 0, takerBps: 0 }, onFill: () => undefined, ...more });
  const x = feeFree({ onOwnLevel: (_m, side, price, size) => own.push([side, price, size]) });
  for (let r = 0; r < 3; r++) x.applyRow(r, 0);
  assert.equal(x.mid(0), 500_000);
  const o = order({ side: 0, price: 500_000, size: 5 * S });
  x.place(o, 1);
  assert.equal(x.mid(0), 550_000, 'our bid at 50 is the best bid the venue shows');
  x.applyRow(3, 10); // a taker sells 3 into our bid
  x.cancel(o.nonce, 11);
  assert.deepEqual(own, [
    ['bid', 500_000, 5 * S],
    ['bid', 500_000, 2 * S],
    ['bid', 500_000, 0],
  ]);
  const ignored = feeFree({ ignoreDropCopy: true });
  assert.equal(ignored.exact[0], 0, 'ignoreDropCopy replays from the stream');
});

test("applySilent reads a level's size only for a row that may cross our order: a crossing level that shrinks passes, one that grows stops the pass", (t) => {
  const { x, fills, until, c } = setup([
    book(0, [[400_000, 10 * S]], [[600_000, 10 * S]], true),
    book(10, [[390_000, 5 * S]], []), // our side, another price
    book(11, [], [[650_000, 5 * S]]), // the other side, through nothing
    book(12, [], [[410_000, 0]]), // through our bid, but no size added: no cross
    book(13, [], [[415_000, 1 * S]]), // through our bid with size: the loop's row
  ]);
  until(0);
  x.place(order({ side: 0, price: 420_000, size: 5 * S }), 0);
  const reads: number[] = [];
  const sizeAt = L2Book.prototype.sizeAt;
  t.after(() => {
    L2Book.prototype.sizeAt = sizeAt;
  });
  L2Book.prototype.sizeAt = function (this: L2Book, side, price) {
    reads.push(price);
    return sizeAt.call(this, side, price);
  };
  let first = 0;
  while (c.lts[first]! <= 0) first++;
  const rows = Uint32Array.from({ length: c.rows }, (_, r) => r);
  const stop = x.applySilent(rows, first, c.rows, Infinity, { onMid: () => {} });
  L2Book.prototype.sizeAt = sizeAt;
  assert.equal(c.lts[stop], 13, 'the pass stops at the growing crossing level');
  assert.deepEqual(reads, [410_000, 415_000], 'sizes read for the two rows through our price only');
  assert.deepEqual(fills, []);
});

test("a listed order's insertedAt is made once per order, not per listing", (t) => {
  const { x, until } = setup([book(0, [[400_000, 10 * S]], [[600_000, 10 * S]], true)]);
  until(0);
  x.place(order({ side: 0, price: 420_000, size: 5 * S }), 1_700_000_000_123);
  let made = 0;
  const iso = Date.prototype.toISOString;
  t.after(() => {
    Date.prototype.toISOString = iso;
  });
  Date.prototype.toISOString = function (this: Date) {
    made++;
    return iso.call(this);
  };
  const trader = `0x${'11'.repeat(20)}` as const;
  const a = x.openOrders().map((o) => x.toVenueOrder(o, trader));
  const b = x.openOrders().map((o) => x.toVenueOrder(o, trader));
  Date.prototype.toISOString = iso;
  assert.equal(a.length, 1);
  assert.equal(a[0]!.insertedAt, '2023-11-14T22:13:20.123Z');
  assert.deepEqual(b, a);
  assert.equal(made, 1, 'one ISO time for two listings');
});
