/**
 * A month of market rotation through the books, in simulated time (the fills', marks' and resolutions'
 * times, not the wall clock): a market every 30 s (rotation-soak's pace, 86,400 markets in 30 days), a few
 * fills each, then its release, its resolution and (in the first test) its claim. What the books keep of
 * the markets they are done with must stay within its bounds (src/account/account.ts: the newest
 * FOLDED_KEPT = 256 folded books, REMAINDERS_KEPT = 16,384 remainders) and stop growing once they are full.
 * Bytes the collector could not free, not a timing.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Account, type AccountFill } from '../../src/account/account.ts';
import type { Bytes32 } from '../../src/model/order.ts';
import { liveHeap } from '../support/retained-heap.ts';

const hex = (n: number) => n.toString(16).padStart(64, '0');
const marketId = (m: number) => `0x${hex(m)}` as Bytes32;
const T0 = 1_764_000_000_000;
const EVERY_MS = 30_000;
const LIFETIME_MS = 300_000;
const PER_DAY = 86_400_000 / EVERY_MS;

/** the books' records of markets they are done with (private fields: what this test bounds) */
function held(a: Account): { books: number; folded: number; remainders: number } {
  const x = a as unknown as { books: Map<string, unknown>; foldedKept: Map<string, unknown>; remainders: Map<string, unknown> };
  return { books: x.books.size, folded: x.foldedKept.size, remainders: x.remainders.size };
}

/**
 * Markets [from, to) through the books: `fills` fills each (buys, and a sale every fourth: each ends with YES
 * shares held), marked, released at its deadline, resolved 30 s later, claimed when `claim`.
 */
function rotate(a: Account, from: number, to: number, fills: number, claim: boolean, nonce: { n: number }): void {
  for (let i = from; i < to; i++) {
    const m = marketId(i + 1);
    const t = T0 + i * EVERY_MS;
    for (let k = 0; k < fills; k++) {
      const f: AccountFill = {
        // the feeds' form: an order's nonce and its filled size
        fillId: `0x${hex(nonce.n++)}:${1_000_000 * (1 + (k % 3))}`,
        marketId: m,
        outcomeIndex: 1,
        side: (k % 4 === 3 ? 1 : 0) as 0 | 1,
        // prices and sizes whose products leave parts below 1e-6 USDC (remainders to keep)
        price: 400_000 + (k % 7) * 10_000 + (i % 3),
        size: 1_000_000 + (k % 5) * 333_333,
        fee: 0,
        feeSource: 'model',
        ts: t + 60_000 + k * 1_000,
        origin: 'own',
      };
      a.applyFill(f);
    }
    a.mark(m, 1_000_000, t + LIFETIME_MS);
    a.release(m);
    a.resolve(m, i % 2 === 0 ? 1_000_000 : 0, t + LIFETIME_MS + 30_000);
    if (claim) a.claimed(m);
  }
}

test('a month of rotation with every market claimed: the folded books and remainders stay at their bounds, the heap flat once they are full', () => {
  const a = new Account();
  const nonce = { n: 1 };
  const FILLS = 2;
  rotate(a, 0, 10, FILLS, true, nonce);
  const start = liveHeap();
  // 16,384 remainders at 2,880 markets a day: full on day 6
  rotate(a, 10, 7 * PER_DAY, FILLS, true, nonce);
  const week = liveHeap();
  assert.deepEqual(held(a), { books: 0, folded: 256, remainders: 16_384 });
  rotate(a, 7 * PER_DAY, 30 * PER_DAY, FILLS, true, nonce);
  const month = liveHeap();
  assert.deepEqual(held(a), { books: 0, folded: 256, remainders: 16_384 });
  assert.equal(a.figures().fills, 30 * PER_DAY * FILLS);
  const mb = (x: number) => (x / 2 ** 20).toFixed(2);
  // measured: +6.3 MB in the first week (the 256 folded books, 16,384 remainders of ~300 bytes), +0.01 MB after
  assert.ok(week - start < 8 * 2 ** 20, `the first week retained ${mb(week - start)} MB`);
  assert.ok(Math.abs(month - week) < 0.5 * 2 ** 20, `days 7-30 retained ${mb(month - week)} MB (the first week ${mb(week - start)} MB)`);
});

test('a released, resolved market nobody claimed keeps a folded book, not its fills: what each costs while it waits for the claim', () => {
  // the bot does not claim (the venue's auto-claim or an operator does; the local exchange never does): every
  // market that ended with a position stays in the books until then, one a market
  const a = new Account();
  const nonce = { n: 1 };
  const FILLS = 60;
  const MARKETS = 1_000;
  rotate(a, 0, 10, FILLS, false, nonce);
  const start = liveHeap();
  rotate(a, 10, 10 + MARKETS, FILLS, false, nonce);
  const perMarket = (liveHeap() - start) / MARKETS;
  assert.equal(held(a).books, 10 + MARKETS);
  assert.equal(held(a).folded, 0);
  // each book's position and figures stay whole: the claim pays its holdings at the payout
  const m = marketId(11);
  const before = a.keptMarket(m)!;
  assert.ok(before.yes > 0);
  assert.equal(a.kept(m).fills, 0, 'no kept fills once released and resolved');
  assert.ok(a.kept(m).ids <= 32);
  a.claimed(m);
  assert.equal(a.market(m), null, 'folded once claimed');
  assert.equal(a.keptMarket(m)!.yes, 0);
  // measured: 9.3 KB a market when it kept its 60 fills and their ids, 4.3 KB folded (32 ids, the book's figures),
  // 2.9 KB with the 32 ids packed (test/account/folded-books.test.ts)
  assert.ok(perMarket < 6_000, `retained ${perMarket.toFixed(0)} bytes a market waiting for its claim`);
});

test('a fill after a market was released and resolved goes on from its folded book: the same figures as a book that kept its fills', () => {
  const nonce = { n: 1 };
  const a = new Account();
  rotate(a, 0, 1, 8, false, nonce);
  const late: AccountFill = {
    fillId: `0x${hex(nonce.n++)}:1000000`,
    marketId: marketId(1),
    outcomeIndex: 1,
    side: 1,
    price: 430_001,
    size: 1_000_000,
    fee: 0,
    feeSource: 'model',
    ts: T0 + 60_000 + 9_000,
    origin: 'own',
  };
  assert.equal(a.applyFill(late), true);
  // the same fills to a book that never compacted: its market neither released nor resolved until the end
  const nonce2 = { n: 1 };
  const b = new Account();
  const keep = b.release.bind(b);
  const resolve = b.resolve.bind(b);
  const calls: (() => void)[] = [];
  b.release = (id) => void calls.push(() => keep(id));
  b.resolve = (id, p, at) => void calls.push(() => resolve(id, p, at));
  rotate(b, 0, 1, 8, false, nonce2);
  b.applyFill(late);
  for (const c of calls) c();
  assert.deepEqual(a.keptMarket(marketId(1)), b.keptMarket(marketId(1)));
  assert.deepEqual(a.figures(), b.figures());
  // a duplicate of one of its recent fills is still recognised
  assert.equal(a.applyFill(late), false);
});
