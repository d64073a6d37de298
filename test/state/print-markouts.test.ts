/**
 * The market's print markouts (src/state/edge-state.ts `prints`, src/state/pending-prints.ts): the
 * passive side of every trade marked out at the toxicity horizon and folded into decayed sums, the
 * view's `prints` (src/state/edge-view.ts printView), and the guard weighing them in
 * (src/strategy/edge-adjust.ts `prints`): on a scripted toxic tape the gate opens before the bot has
 * a fill; on a benign one it stays shut. Event scripts through the real reducer and view.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Bytes32 } from '../../src/model/order.ts';
import { DEFAULT_EDGE } from '../../src/state/edge-settings.ts';
import { emptyEdge, onTradeEdge, settleMarkouts } from '../../src/state/edge-state.ts';
import { printView } from '../../src/state/edge-view.ts';
import type { StateEvent } from '../../src/state/events.ts';
import { emptyState, type StoreState } from '../../src/state/market-state.ts';
import { selectMarketView } from '../../src/state/market-view.ts';
import { PrintBuffer, printPrice, printTs, pushPrint } from '../../src/state/pending-prints.ts';
import { DEFAULT_LIMITS, reduce } from '../../src/state/reduce.ts';
import { edgeAdjust, markoutsAdverse, parseEdgeGuard } from '../../src/strategy/edge-adjust.ts';
import { topOfBook } from '../support/quoting.ts';

const M = ('0x' + 'c3'.repeat(32)) as Bytes32;
const S = 1_000_000;
const C = 10_000;

describe('print markouts: the passive side of each trade at the toxicity horizon', () => {
  it('a taker buy marks out the passive seller, a taker sale the passive buyer; none before the horizon', () => {
    let e = emptyEdge(DEFAULT_EDGE);
    // taker buys 10 at 52¢ (the passive side sold), taker sells 30 at 48¢ (the passive side bought)
    e = onTradeEdge(e, 1_000, 10 * S, true, 52 * C);
    e = onTradeEdge(e, 2_000, 30 * S, false, 48 * C);
    assert.equal(e.printTail - e.printHead, 2);
    assert.equal(e.printDue, 11_000);
    assert.equal(e.nextDue, 11_000);
    // not due yet: nothing settles
    assert.equal(settleMarkouts(e, 10_999, 110 * C), e);
    // at 11 s the mid is 55¢: the seller at 52¢ lost 3¢; the buyer's print waits for 12 s
    e = settleMarkouts(e, 11_000, 110 * C);
    assert.equal(e.prints.count, 1);
    assert.ok(Math.abs(e.prints.num / e.prints.den - -3 * C) < 1e-6);
    assert.equal(e.printDue, 12_000);
    // at 12 s the mid is 50¢: the buyer at 48¢ earned 2¢; size-weighted (10 × −3 + 30 × 2) / 40 = 0.75¢
    e = settleMarkouts(e, 12_000, 100 * C);
    assert.equal(e.printTail - e.printHead, 0);
    assert.equal(e.printDue, Infinity);
    assert.equal(e.nextDue, Infinity);
    const decay = Math.pow(0.5, 1_000 / DEFAULT_EDGE.printHalfLifeMs);
    assert.ok(Math.abs(e.prints.num - (-3 * C * 10 * decay + 2 * C * 30)) < 1e-6);
    assert.ok(Math.abs(e.prints.den - (10 * decay + 30)) < 1e-9);
    assert.equal(e.prints.pden, 0, 'a 3¢ loss is not a pick-off (5¢)');
    // the view: the same average, the prints' decayed count and a standard error
    const v = printView(e, 12_000);
    assert.ok(Math.abs(v.toxicity! - e.prints.num / e.prints.den) < 1e-9);
    assert.ok(Math.abs(v.weight - (decay + 1)) < 1e-9);
    assert.equal(v.stdErr, null, 'under two prints’ worth of weight');
    // the fills' markouts are untouched
    assert.equal(e.toxDen, 0);
    assert.equal(e.markouts[0]!.n, 0);
  });

  it('a pick-off among the prints is summed apart, as for fills', () => {
    let e = emptyEdge(DEFAULT_EDGE);
    e = onTradeEdge(e, 0, 5 * S, false, 60 * C);
    e = settleMarkouts(e, 10_000, 100 * C);
    assert.equal(e.prints.pden, 5);
    assert.ok(Math.abs(e.prints.pnum / e.prints.pden - -10 * C) < 1e-6);
  });

  it('beyond maxPending the oldest print is dropped, counted; an earlier state keeps its own prints', () => {
    const edge = { ...DEFAULT_EDGE, maxPending: 3 };
    let e = emptyEdge(edge);
    for (let i = 0; i < 5; i++) e = onTradeEdge(e, i, S, true, (40 + i) * C);
    assert.equal(e.printTail - e.printHead, 3);
    assert.equal(e.droppedPrints, 2);
    assert.equal(e.printDue, 2 + DEFAULT_EDGE.toxicityHorizonMs);
    assert.deepEqual(
      [0, 1, 2].map((k) => printPrice(e.printBuf, e.printHead + k) / C),
      [42, 43, 44],
    );
    // a fork: two prints pushed from the same earlier state do not see each other
    const before = e;
    const a = onTradeEdge(before, 10, S, true, 70 * C);
    const b = onTradeEdge(before, 10, S, true, 80 * C);
    assert.equal(printPrice(a.printBuf, a.printTail - 1), 70 * C);
    assert.equal(printPrice(b.printBuf, b.printTail - 1), 80 * C);
    assert.deepEqual(
      [0, 1, 2].map((k) => printPrice(before.printBuf, before.printHead + k) / C),
      [42, 43, 44],
    );
  });

  it('the buffer grows in place and copies only the pending window', () => {
    let buf = PrintBuffer.EMPTY;
    let head = 0;
    let tail = 0;
    for (let i = 0; i < 100; i++) {
      const w = pushPrint(buf, head, tail, i, 1, i, 1, 1_000);
      buf = w.buf;
      tail = w.tail;
      head = Math.max(w.head, tail - 2); // two pending at most, as if settled
    }
    assert.equal(tail - head, 2);
    assert.deepEqual([printPrice(buf, head), printPrice(buf, head + 1)], [98, 99]);
    assert.ok(buf.capacity <= 16, `capacity ${buf.capacity}`);
  });

  it('buffers come in a few lengths, powers of two of slots, whatever the pending window (one array template each)', () => {
    // a window that grows to hundreds and shrinks again, copied at every length it passes through
    const lengths = new Set<number>();
    let buf = PrintBuffer.EMPTY;
    let head = 0;
    let tail = 0;
    for (let i = 0; i < 6_000; i++) {
      const w = pushPrint(buf, head, tail, i, 1, i, 1, 1_000);
      if (w.buf !== buf) lengths.add(w.buf.capacity);
      buf = w.buf;
      tail = w.tail;
      const pending = i < 3_000 ? Math.floor(i / 6) : Math.floor((6_000 - i) / 7);
      head = Math.max(w.head, tail - pending);
    }
    assert.ok(lengths.size <= 8, `${lengths.size} lengths: ${[...lengths].join(', ')}`);
    for (const c of lengths) assert.ok(c >= 16 && (c & (c - 1)) === 0, `capacity ${c} is no power of two`);
    assert.deepEqual([printPrice(buf, tail - 1), printTs(buf, tail - 1)], [5_999, 5_999], 'the newest print as pushed');
  });
});

/** a YES book one cent either side of `midCents` */
const book = (ts: number, midCents: number): StateEvent => topOfBook(M, (midCents - 1) * C, (midCents + 1) * C, ts);
const trade = (ts: number, takerSide: 'buy' | 'sell', cents: number, shares = 10): StateEvent => ({
  type: 'BookEventReceived',
  event: { type: 'trade', marketId: M, outcomeIndex: 1, seq: ts, price: cents * C, size: shares * S, takerSide, venueTs: ts, localTs: ts },
  ts,
});

/**
 * `n` prints 2.5 s apart (24 a minute) against a book at 50¢ ± 1¢, in time order. Toxic: every
 * fourth is an informed buy at the ask before the mid jumps to 64¢ (the passive seller loses 13¢),
 * the others noise that earns the touch's 1¢ as the book comes back (−2.5¢ a print on average);
 * benign: every print earns about 1¢.
 */
function tape(n: number, toxic: boolean): StateEvent[] {
  const ev: StateEvent[] = [book(0, 50)];
  for (let i = 0; i < n; i++) {
    const t = 1_000 + i * 2_500;
    const informed = toxic && i % 4 === 0;
    ev.push(trade(t, i % 2 === 0 ? 'buy' : 'sell', i % 2 === 0 ? 51 : 49));
    // the mid at the print's 10 s markout: 64¢ after an informed buy, else back at 50¢ (49.8 by turns)
    ev.push(book(t + 9_000, informed ? 64 : i % 3 === 0 ? 49.8 : 50), book(t + 10_500, 50));
  }
  return ev.sort((a, b) => a.ts - b.ts);
}

function run(events: StateEvent[]): StoreState {
  let s = emptyState();
  for (const e of events) s = reduce(s, e, DEFAULT_LIMITS);
  return s;
}

describe('the guard weighs the prints in: the gate before the first fill', () => {
  const WITH = parseEdgeGuard({ prints: true, printSpread: 0.02 }, 'p.toxicity');
  const WITHOUT = parseEdgeGuard(true, 'p.toxicity');
  const at = 1_000 + 30 * 2_500; // a little over a minute of prints
  it('a toxic tape opens the gate within a minute, with no fill of the bot’s own', () => {
    const s = run(tape(30, true));
    const e = selectMarketView(s, M, at)!.edge!;
    assert.equal(e.toxicity, null, 'no own fills');
    assert.ok(e.prints !== undefined && e.prints.toxicity !== null);
    // a quarter of the prints at −13¢, the rest about +1¢
    assert.ok(e.prints.toxicity < -2 * C, `prints ${e.prints.toxicity / C}¢`);
    assert.ok(e.prints.weight > 20);
    assert.equal(markoutsAdverse(e, WITH), true);
    assert.deepEqual(edgeAdjust(selectMarketView(s, M, at)!, WITH).reasons.slice(0, 1), ['adverse']);
    // without the prints (the gate before): no evidence, shut
    assert.equal(markoutsAdverse(e, WITHOUT), false);
    // and it is the prints that open it: the same tape a few prints in is not enough (minPrints)
    const early = selectMarketView(run(tape(6, true)), M, 1_000 + 6 * 2_500 + 10_500)!.edge!;
    assert.ok(early.prints!.weight < 10);
    assert.equal(markoutsAdverse(early, WITH), false);
  });

  it('a benign tape leaves it shut', () => {
    const s = run(tape(30, false));
    const e = selectMarketView(s, M, at)!.edge!;
    assert.ok(e.prints!.toxicity! > 0.5 * C);
    assert.equal(markoutsAdverse(e, WITH), false);
    assert.deepEqual(edgeAdjust(selectMarketView(s, M, at)!, WITH).reasons, []);
  });
});
