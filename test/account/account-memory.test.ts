/**
 * What a market's book retains per fill while its windows fill (fills kept for re-ordering, fill ids
 * for de-duplication): the soak benchmarks' live heap grew with it for the first hours of a run, in
 * the live books and again in the ledger's books checkpoint copy (test/bench/soak-memory.bench.ts).
 * Bytes the collector could not free, not a timing.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Account, type AccountFill } from '../../src/account/account.ts';
import type { Bytes32 } from '../../src/model/order.ts';
import { liveHeap } from '../support/retained-heap.ts';

const MARKETS = 50;
/** below the re-ordering window (256): every fill stays kept */
const PER_MARKET = 200;
const marketId = (m: number) => `0x${m.toString(16).padStart(64, '0')}`;
/** a new copy of the string, as a ledger row or a feed's JSON gives each fill its own */
const copy = (s: string): string => Buffer.from(s, 'latin1').toString('latin1');

test('a kept fill does not keep its own copy of its market id, nor the fill object it came in, nor its id string', () => {
  // the fill ids in the feeds' form (a nonce and a filled size), each its own string, dropped after its fill
  // as the feed's and the ledger's are: what the books keep of it counts
  const count = MARKETS * PER_MARKET;
  const a = new Account();
  const start = liveHeap();
  for (let i = 0; i < count; i++) {
    const f: AccountFill = {
      fillId: copy(`${marketId(1_000_000 + i)}:${1_000_000 * (1 + (i % 5))}`),
      marketId: copy(marketId(i % MARKETS)) as Bytes32,
      outcomeIndex: 1,
      side: (i % 2) as 0 | 1,
      price: 400_000 + (i % 9) * 10_000,
      size: 1_000_000,
      fee: 0,
      feeSource: 'model',
      ts: 1_764_000_000_000 + i,
      origin: 'own',
      ...(i % 3 === 0 ? { notional: 400_000 } : {}),
    };
    a.applyFill(f);
  }
  const perFill = (liveHeap() - start) / count;
  assert.equal(a.kept(marketId(0) as Bytes32).fills, PER_MARKET);
  assert.equal(a.figures().fills, count);
  // the fill object and its market id's copy: ~270 bytes a fill; the book's own record with the id string
  // (~100 bytes) in the kept fills and the ids remembered (a ring and a Set): ~300; the ids as numbers
  assert.ok(perFill < 240, `retained ${perFill.toFixed(0)} bytes a fill`);
});

test('the fill ids remembered stay at the bound, and a folded book keeps its newest ids', () => {
  const m = marketId(7) as Bytes32;
  const a = new Account({ window: 16, idMemory: 64 });
  const fills: AccountFill[] = [];
  for (let i = 0; i < 500; i++) {
    const f: AccountFill = {
      fillId: `f${i}`,
      marketId: m,
      outcomeIndex: 1,
      side: 0,
      price: 500_000,
      size: 1_000_000,
      fee: 0,
      feeSource: 'venue',
      ts: i,
      origin: 'own',
    };
    fills.push(f);
    assert.equal(a.applyFill(f), true);
  }
  assert.deepEqual(a.kept(m), { fills: 8 + ((500 - 17) % 9), ids: 64 });
  // the 64 newest are recognised, the one before them is not any more
  assert.equal(a.applyFill(fills[500 - 64]!), false);
  assert.equal(a.applyFill(fills[499]!), false);
  assert.equal(a.applyFill({ ...fills[500 - 65]!, ts: 1_000 }), true);
  assert.equal(a.kept(m).ids, 64);
  // the re-applied old id took the slot of the oldest: that one is forgotten now
  assert.equal(a.applyFill({ ...fills[500 - 64]!, ts: 1_001 }), true);
  assert.equal(a.applyFill(fills[500 - 62]!), false);
});

test('a released book folded away keeps its 32 newest fill ids, and remembers the whole memory again when its market comes back', () => {
  const m = marketId(9) as Bytes32;
  const a = new Account({ window: 16, idMemory: 64 });
  let i = 0;
  // buys and sells of one share in turn: nothing held after an even number of fills
  const next = (): AccountFill => {
    const k = i++;
    return {
      fillId: `g${k}`,
      marketId: m,
      outcomeIndex: 1,
      side: (k % 2) as 0 | 1,
      price: 500_000,
      size: 1_000_000,
      fee: 0,
      feeSource: 'venue',
      ts: k,
      origin: 'own',
    };
  };
  const first: AccountFill[] = [];
  for (let k = 0; k < 100; k++) {
    const f = next();
    first.push(f);
    a.applyFill(f);
  }
  a.mark(m, 1_000_000, 100);
  a.release(m);
  assert.equal(a.market(m), null, 'folded away');
  assert.equal(a.keptMarket(m)?.fills, 100);
  // a late duplicate of a recent fill is still recognised; one older than the newest 32 is not
  assert.equal(a.applyFill(first[99]!), false);
  for (let k = 0; k < 200; k++) a.applyFill(next());
  assert.deepEqual(a.kept(m).ids, 64);
  assert.equal(a.figures().fills, 300);
});

/** fill `i` of market `m`, ids in the feeds' form, each its own string (dropped after its fill) */
const feedFill = (m: number, i: number, ts: number): AccountFill => ({
  fillId: copy(`${marketId(2_000_000 + i * MARKETS + m)}:${1_000_000 * (1 + (i % 5))}`),
  marketId: marketId(m) as Bytes32,
  outcomeIndex: 1,
  side: (i % 2) as 0 | 1,
  price: 400_000 + (i % 9) * 10_000,
  size: 1_000_000,
  fee: 0,
  feeSource: 'model',
  ts,
  origin: 'own',
});

test("three hours of fills: a book keeps its fills' and ids' last 15 minutes, not the 1,024 ids and 256 fills of its caps", () => {
  // 10 fills a minute a market (soak-memory's busiest): 150 in 15 minutes, 1,800 in the three hours
  const a = new Account();
  const t0 = 1_800_000_000_000;
  const start = liveHeap();
  const perMarket = 3 * 60 * 10;
  for (let i = 0; i < perMarket; i++) for (let m = 0; m < MARKETS; m++) a.applyFill(feedFill(m, i, t0 + i * 6_000 + m));
  const perBook = (liveHeap() - start) / MARKETS;
  // the caps' 1,024 ids and 129-257 fills retained 70.5 KB a book; 150 of each in columns of 256, 34.6 KB
  assert.ok(perBook < 45_000, `retained ${(perBook / 1_000).toFixed(1)} KB a book`);
  const kept = a.kept(marketId(0) as Bytes32);
  assert.equal(a.figures().fills, perMarket * MARKETS);
  // the last 15 minutes (150 fills, ids) and the one fill that ends them
  assert.ok(kept.fills >= 150 && kept.fills <= 152, `${kept.fills} fills kept`);
  assert.ok(kept.ids >= 150 && kept.ids <= 152, `${kept.ids} ids`);
});

test("a repeat within 15 minutes of the fill's time is dropped, whatever the fills between; beyond, past the newest 128, it is a new fill", () => {
  const a = new Account();
  const t0 = 1_800_000_000_000;
  const first = feedFill(3, 0, t0);
  assert.equal(a.applyFill(first), true);
  // 900 fills in 14.9 minutes
  for (let i = 1; i <= 900; i++) a.applyFill(feedFill(3, i, t0 + Math.round((i * 894_000) / 900)));
  assert.equal(a.applyFill({ ...first, ts: t0 + 894_000 }), false, 'a re-read of the feed 14.9 min later');
  assert.equal(a.figures().fills, 901);
  // twenty minutes on: what is older than 15 minutes is forgotten (the ledger's unique fill id is the guard then)
  for (let i = 901; i <= 910; i++) a.applyFill(feedFill(3, i, t0 + 20 * 60_000));
  assert.equal(a.applyFill({ ...first, ts: t0 + 20 * 60_000 }), true);
  assert.equal(a.figures().fills, 912);
});

test("a late fill within the kept fills' last 15 minutes is put in its place; one older than them is applied at the end, counted late", () => {
  const a = new Account();
  const t0 = 1_800_000_000_000;
  // 10 fills a minute for an hour: the fills of the last 15 minutes are kept
  for (let i = 0; i < 600; i++) a.applyFill(feedFill(4, i, t0 + i * 6_000));
  const now = t0 + 599 * 6_000;
  assert.ok(a.kept(marketId(4) as Bytes32).fills <= 152);
  const before = a.figures();
  a.applyFill(feedFill(4, 5_000, now - 14 * 60_000));
  assert.equal(a.late, 0);
  a.applyFill(feedFill(4, 5_001, now - 16 * 60_000));
  assert.equal(a.late, 1);
  assert.equal(a.figures().fills, before.fills + 2);
});
