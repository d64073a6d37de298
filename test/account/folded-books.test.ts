/**
 * A released market's folded book is kept as a compact record (src/account/account.ts FoldedBook: its
 * base state, figures and last 32 fill ids packed by IdMemory.pack) and re-inflated into a MarketBook by
 * a later fill. The figures must be those of a book never folded, to the unit; its recent fill ids still
 * recognised; the books checkpoint carries it; and it costs a few hundred bytes a market, not the ~2.4-4 KB
 * of the whole MarketBook it kept before (rotation-soak's second half grows by it for ~2 hours).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Account, type AccountFill } from '../../src/account/account.ts';
import { restoreAccount, snapshotAccount } from '../../src/account/account-snapshot.ts';
import { IdMemory } from '../../src/account/kept-fills.ts';
import type { Bytes32 } from '../../src/model/order.ts';
import { mulberry32 } from '../../src/sim/rng.ts';
import { liveHeap } from '../support/retained-heap.ts';
import { M } from './random-fills.ts';

const hex = (n: number) => n.toString(16).padStart(64, '0');
const T0 = 1_800_000_000_000;

/**
 * `n` fills of market m: random terms, ids in the feeds' form (or another form every fifth), the last one
 * a sale that leaves nothing held (so a release folds the book), in time order.
 */
function marketFills(seed: number, m: number, n: number, t: number): AccountFill[] {
  const r = mulberry32(seed);
  const out: AccountFill[] = [];
  let yes = 0;
  for (let k = 0; k < n; k++) {
    const side: 0 | 1 = k === n - 1 || (yes > 0 && r() < 0.4) ? 1 : 0;
    const size = side === 1 ? yes : 1 + Math.floor(r() * 20_000_000);
    if (size === 0) continue;
    yes += side === 0 ? size : -size;
    out.push({
      fillId: k % 5 === 4 ? `sim-${m}-${k}` : `0x${hex(seed * 1_000 + k)}:${size}`,
      marketId: M(m),
      outcomeIndex: 1,
      side,
      price: 1_000 + Math.floor(r() * 998_000),
      size,
      fee: Math.floor(r() * 20_000),
      feeSource: r() < 0.5 ? 'venue' : 'model',
      ts: t + k * 1_000,
      origin: r() < 0.2 ? 'foreign' : 'own',
    });
  }
  return out;
}

/** a later fill of market m (a buy: the book holds again) */
const lateFill = (m: number, k: number, t: number): AccountFill => ({
  fillId: `0x${hex(9_000_000 + m * 100 + k)}:${777_777 + k}`,
  marketId: M(m),
  outcomeIndex: (k % 2) as 0 | 1,
  side: 0,
  price: 123_457 + k,
  size: 777_777 + k,
  fee: 13,
  feeSource: 'venue',
  ts: t,
  origin: 'own',
});

test('a late fill re-inflates a folded book: every figure equals the book never folded, to the unit, and its recent ids are still duplicates', () => {
  const MARKETS = 40;
  const folded = new Account();
  const never = new Account();
  const all: AccountFill[][] = [];
  for (let m = 0; m < MARKETS; m++) {
    const fills = marketFills(100 + m, m, 4 + (m % 45), T0 + m * 30_000);
    all.push(fills);
    for (const f of fills) {
      folded.applyFill(f);
      never.applyFill(f);
    }
    folded.mark(M(m), 2 * fills.at(-1)!.price, fills.at(-1)!.ts);
    never.mark(M(m), 2 * fills.at(-1)!.price, fills.at(-1)!.ts);
    // half resolved before their release (a folded book with a payout), half not
    if (m % 2 === 0) {
      folded.resolve(M(m), 1_000_000, fills.at(-1)!.ts + 1);
      never.resolve(M(m), 1_000_000, fills.at(-1)!.ts + 1);
    }
    folded.release(M(m));
    assert.equal(folded.market(M(m)), null, `market ${m} folded`);
    // as kept, the record reads the figures the book had
    assert.deepEqual(folded.keptMarket(M(m)), never.keptMarket(M(m)));
  }
  assert.deepEqual(folded.figures(), never.figures());
  for (let m = 0; m < MARKETS; m++) {
    const fills = all[m]!;
    // the newest 32 ids are recognised while folded (the record's packed ids) ...
    for (const f of fills.slice(-32).filter((_, i) => i % 3 === 0)) assert.equal(folded.applyFill(f), false, `duplicate ${f.fillId}`);
    assert.equal(folded.market(M(m)), null, 'a duplicate does not unfold the book');
    // ... and after a new fill re-inflated the book
    const late = lateFill(m, 1, fills.at(-1)!.ts + 60_000);
    assert.equal(folded.applyFill(late), true);
    never.applyFill(late);
    assert.equal(folded.applyFill(fills.at(-1)!), false);
    assert.equal(folded.applyFill(late), false);
    const more = lateFill(m, 2, late.ts + 1_000);
    folded.applyFill(more);
    never.applyFill(more);
    assert.deepEqual(folded.market(M(m)), never.market(M(m)), `market ${m} after its late fills`);
  }
  assert.deepEqual(folded.figures(), never.figures());
  assert.equal(folded.late, never.late);
});

test('a market whose later fill re-inflated its book folds again: the second record reads the same figures as a book never folded', () => {
  const a = new Account();
  const b = new Account();
  const fills = marketFills(7, 3, 12, T0);
  for (const f of fills) {
    a.applyFill(f);
    b.applyFill(f);
  }
  a.release(M(3));
  const buy = lateFill(3, 1, T0 + 100_000);
  const sell: AccountFill = { ...buy, fillId: 'sell-back', side: 1, price: 200_001, ts: buy.ts + 1 };
  for (const f of [buy, sell]) {
    a.applyFill(f);
    b.applyFill(f);
  }
  a.release(M(3));
  assert.equal(a.market(M(3)), null);
  assert.deepEqual(a.keptMarket(M(3)), b.market(M(3)));
  assert.deepEqual(a.figures(), b.figures());
  assert.equal(a.applyFill(sell), false);
  assert.equal(a.applyFill(buy), false);
});

test('a packed id memory holds its ids and their times exactly: canonical ids, other strings, the newest n', () => {
  const m = new IdMemory(64);
  const ids = [
    `0x${hex(1)}:0`,
    `0x${'f'.repeat(64)}:${Number.MAX_SAFE_INTEGER}`,
    'sim-1',
    '',
    'x'.repeat(70_000),
    `0x${hex(2)}:12`,
    '\ud800 lone',
    `0X${hex(3)}:1`,
  ];
  ids.forEach((id, i) => m.add(id, i === 3 ? 0 : T0 + i * 1.5));
  const packed = m.pack();
  assert.deepEqual(IdMemory.unpack(64, packed).toRows(), m.toRows());
  for (const id of ids) assert.equal(IdMemory.packedHas(packed, id), true, id.slice(0, 20));
  for (const id of [`0x${hex(1)}:00`, `0x${hex(1)}:1`, 'sim-2', `0x${hex(3)}:1`, 'x'.repeat(69_999)])
    assert.equal(IdMemory.packedHas(packed, id), false, id.slice(0, 20));
  // the newest 3, and a memory that takes at most 2 of them
  const three = m.pack(3);
  assert.deepEqual(IdMemory.unpack(64, three).toRows().ids, ids.slice(-3));
  assert.deepEqual(IdMemory.unpack(2, three).toRows().ids, ids.slice(-2));
  assert.equal(IdMemory.unpack(8, '').size, 0);
  assert.throws(() => IdMemory.unpack(8, packed.slice(0, -1)), /damaged fill ids/);
});

test('the books checkpoint carries folded records: a restored account continues a folded book as the original does', () => {
  const a = new Account();
  for (let m = 0; m < 5; m++) {
    for (const f of marketFills(40 + m, m, 6 + m, T0 + m * 30_000)) a.applyFill(f);
    a.release(M(m));
  }
  const r = restoreAccount(JSON.parse(JSON.stringify(snapshotAccount(a))));
  assert.deepEqual(r.figures(), a.figures());
  for (let m = 0; m < 5; m++) {
    assert.deepEqual(r.keptMarket(M(m)), a.keptMarket(M(m)));
    const f = lateFill(m, 1, T0 + 10 * 60_000);
    assert.equal(r.applyFill(f), a.applyFill(f));
    assert.deepEqual(r.market(M(m)), a.market(M(m)));
  }
  assert.deepEqual(r.figures(), a.figures());
});

test('a folded market costs a few hundred bytes, not the ~2.4 KB of the whole book it kept before', () => {
  // rotation-soak's markets: a few fills each, released flat; within the window of kept folded books (256)
  const a = new Account();
  const rotate = (from: number, to: number): void => {
    for (let m = from; m < to; m++) {
      for (let k = 0; k < 4; k++)
        a.applyFill({
          // each its own string, as a feed's JSON gives it
          fillId: Buffer.from(`0x${hex(m * 10 + k)}:${1_000_000 * (1 + (k % 3))}`, 'latin1').toString('latin1'),
          marketId: Buffer.from(M(m), 'latin1').toString('latin1') as Bytes32,
          outcomeIndex: 1,
          side: (k % 2) as 0 | 1,
          price: 400_000 + k * 10_000 + (m % 3),
          size: 1_000_000,
          fee: 0,
          feeSource: 'model',
          ts: T0 + m * 30_000 + k * 1_000,
          origin: 'own',
        });
      a.mark(M(m), 1_000_000, T0 + m * 30_000 + 300_000);
      a.release(M(m));
    }
  };
  rotate(0, 8);
  const start = liveHeap();
  const N = 240;
  rotate(8, 8 + N);
  const perMarket = (liveHeap() - start) / N;
  assert.equal(a.marketIds().length, 0);
  assert.notEqual(a.keptMarket(M(8)), null);
  // measured: 0.7-1.0 KB (a heap snapshot: ~800 bytes of objects: the record, its base state and bigints, the
  // packed ids, the market id's string), where the whole MarketBook with its id memory and empty fill columns
  // kept 2.4-2.9 KB
  assert.ok(perMarket < 1_500, `a folded market retains ${perMarket.toFixed(0)} bytes`);
});

/** markets [from, to) of `fills` fills each (buys, a sale every fourth: each ends holding YES), released, resolved */
function unclaimed(a: Account, from: number, to: number, fills: number): AccountFill[] {
  const out: AccountFill[] = [];
  for (let m = from; m < to; m++) {
    const t = T0 + m * 30_000;
    for (let k = 0; k < fills; k++) {
      const f: AccountFill = {
        fillId: Buffer.from(`0x${hex(m * 100 + k)}:${1_000_000 * (1 + (k % 3))}`, 'latin1').toString('latin1'),
        marketId: M(m),
        outcomeIndex: 1,
        side: (k % 4 === 3 ? 1 : 0) as 0 | 1,
        price: 400_000 + (k % 7) * 10_000 + (m % 3),
        size: 1_000_000 + (k % 5) * 333_333,
        fee: 0,
        feeSource: 'model',
        ts: t + k * 1_000,
        origin: 'own',
      };
      out.push(f);
      a.applyFill(f);
    }
    a.mark(M(m), 1_000_000, t + 300_000);
    a.release(M(m));
    a.resolve(M(m), m % 2 === 0 ? 1_000_000 : 0, t + 330_000);
  }
  return out;
}

test('a resolved market waiting for its claim keeps its ids packed: duplicates recognised, a later fill and the claim as on a book that kept them', () => {
  const a = new Account();
  const b = new Account({ idMemory: 100_000 });
  const fills = unclaimed(a, 1, 2, 40);
  for (const f of fills) b.applyFill(f);
  // (as unclaimed() marks and resolves market 1, without the release: its book keeps its fills and every id)
  b.mark(M(1), 1_000_000, T0 + 30_000 + 300_000);
  b.resolve(M(1), 0, T0 + 30_000 + 330_000);
  assert.deepEqual(a.kept(M(1)), { fills: 0, ids: 32 });
  for (const f of fills.slice(-32)) assert.equal(a.applyFill(f), false, f.fillId);
  assert.deepEqual(a.market(M(1)), b.market(M(1)));
  const late = lateFill(1, 1, T0 + 400_000);
  assert.equal(a.applyFill(late), true);
  b.applyFill(late);
  assert.equal(a.applyFill(late), false);
  assert.equal(a.applyFill(fills.at(-1)!), false);
  assert.deepEqual(a.market(M(1)), b.market(M(1)));
  a.claimed(M(1));
  b.claimed(M(1));
  assert.deepEqual(a.keptMarket(M(1)), b.market(M(1)));
  assert.deepEqual(a.figures(), b.figures());
  // the books checkpoint carries a packed book
  const c = new Account();
  unclaimed(c, 1, 3, 6);
  const r = restoreAccount(JSON.parse(JSON.stringify(snapshotAccount(c))));
  assert.deepEqual(r.kept(M(2)), c.kept(M(2)));
  assert.equal(r.applyFill({ ...lateFill(2, 1, T0 + 400_000) }), c.applyFill({ ...lateFill(2, 1, T0 + 400_000) }));
  assert.deepEqual(r.market(M(2)), c.market(M(2)));
});

test('a resolved market waiting for its claim costs ~1.5 KB with a few fills, not the ~2.9 KB of its book with its id memory', () => {
  const a = new Account();
  unclaimed(a, 0, 10, 4);
  const start = liveHeap();
  const N = 1_000;
  unclaimed(a, 10, 10 + N, 4);
  const perMarket = (liveHeap() - start) / N;
  assert.equal(a.marketIds().length, 10 + N);
  // measured: ~1.5 KB (its MarketBook, base state, packed ids, market id), where its memory of 32 ids kept ~2.9 KB
  assert.ok(perMarket < 2_200, `a market waiting for its claim retains ${perMarket.toFixed(0)} bytes`);
});

test("the books checkpoint's copy of a market idle for an hour (foldKept, one id) costs ~1.3 KB, not the ~2.7 KB of its book with its id memory", () => {
  // that copy never sees a release (src/ledger/books-checkpoint.ts foldIdle): it keeps such a book for every market traded
  const a = new Account();
  const run = (from: number, to: number): void => {
    for (let m = from; m < to; m++) {
      for (let k = 0; k < 4; k++) a.applyFill({ ...lateFill(m, k, T0 + m * 30_000 + k * 1_000), side: (k % 2) as 0 | 1 });
      assert.equal(a.foldKept(M(m), 1), true);
    }
  };
  run(0, 10);
  const start = liveHeap();
  const N = 1_000;
  run(10, 10 + N);
  const perMarket = (liveHeap() - start) / N;
  assert.deepEqual(a.kept(M(10)), { fills: 0, ids: 1 });
  // a later fill goes on from the folded book, its one id still a duplicate
  assert.equal(a.applyFill({ ...lateFill(10, 3, T0 + 10 * 30_000 + 3_000), side: 1 }), false);
  assert.equal(a.applyFill(lateFill(10, 9, T0 + 10 * 30_000 + 9_000)), true);
  assert.deepEqual(a.kept(M(10)), { fills: 1, ids: 2 });
  // measured: ~1.3 KB (its MarketBook, base state, one packed id), where its memory of one id kept ~2.7 KB
  assert.ok(perMarket < 2_000, `a market folded by foldKept retains ${perMarket.toFixed(0)} bytes`);
});
