/**
 * `npm run bench -- l2-book`: L2 book updates per second (each update followed by a best bid/ask read),
 * tick-indexed typed arrays (src/core/l2-book.ts) against a Map + sort baseline, on the same pre-generated
 * stream of updates clustered near the top of the book (the shape of real delta streams).
 */
import { L2Book } from '../../src/core/l2-book.ts';
import { opsPerSecond, report } from './lib.ts';

const TICK = 100;
const N = 1 << 16;

/** Deterministic LCG so both books see exactly the same updates run after run. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

interface Update {
  bid: boolean;
  price: number;
  size: number;
}

/**
 * A valid book evolution: the mid walks, most updates land within a few ticks of it, and when the mid
 * moves the levels that would cross it or drift beyond WINDOW ticks are removed, so the book stays
 * uncrossed and bounded (like a real venue's top 20-50 levels) however long the stream is replayed.
 */
function makeUpdates(): Update[] {
  const WINDOW = 50;
  const r = rng(7);
  const out: Update[] = [];
  const live = { bid: new Set<number>(), ask: new Set<number>() };
  const set = (bid: boolean, price: number, size: number): void => {
    out.push({ bid, price, size });
    const s = bid ? live.bid : live.ask;
    if (size === 0) s.delete(price);
    else s.add(price);
  };
  let mid = 500_000;
  while (out.length < N) {
    if (r() < 0.05) {
      mid = Math.min(900_000, Math.max(100_000, mid + Math.round((r() - 0.5) * 6) * TICK));
      for (const p of [...live.bid]) if (p >= mid || p < mid - WINDOW * TICK) set(true, p, 0);
      for (const p of [...live.ask]) if (p <= mid || p > mid + WINDOW * TICK) set(false, p, 0);
    }
    const bid = r() < 0.5;
    // geometric distance from the mid: most updates touch the first few levels
    const dist = Math.min(WINDOW, 1 + Math.floor(-Math.log(1 - r()) * 4));
    const price = bid ? mid - dist * TICK : mid + dist * TICK;
    set(bid, price, r() < 0.3 ? 0 : 1 + Math.floor(r() * 1e9));
  }
  out.length = N;
  return out;
}

/** The baseline: a Map per side, best price found by sorting the keys whenever they changed. */
class MapSortBook {
  bids = new Map<number, number>();
  asks = new Map<number, number>();
  private bidKeys: number[] = [];
  private askKeys: number[] = [];
  private bidDirty = false;
  private askDirty = false;
  apply(bid: boolean, price: number, size: number): void {
    const m = bid ? this.bids : this.asks;
    const had = m.has(price);
    if (size === 0) {
      if (had) m.delete(price);
      else return;
    } else {
      m.set(price, size);
      if (had) return;
    }
    if (bid) this.bidDirty = true;
    else this.askDirty = true;
  }
  bestBid(): number {
    if (this.bidDirty) {
      this.bidKeys = [...this.bids.keys()].sort((a, b) => b - a);
      this.bidDirty = false;
    }
    return this.bidKeys[0] ?? -1;
  }
  bestAsk(): number {
    if (this.askDirty) {
      this.askKeys = [...this.asks.keys()].sort((a, b) => a - b);
      this.askDirty = false;
    }
    return this.askKeys[0] ?? -1;
  }
}

const updates = makeUpdates();
const bids = Uint8Array.from(updates, (u) => (u.bid ? 1 : 0));
const prices = Float64Array.from(updates, (u) => u.price);
const sizes = Float64Array.from(updates, (u) => u.size);

const fast = new L2Book({ tick: TICK });
const base = new MapSortBook();
let sink = 0;
let i = 0;
let j = 0;

// Check both books agree on the whole stream before timing anything.
{
  const a = new L2Book({ tick: TICK });
  const b = new MapSortBook();
  for (let k = 0; k < N; k++) {
    if (bids[k]) a.applyBid(prices[k]!, sizes[k]!);
    else a.applyAsk(prices[k]!, sizes[k]!);
    b.apply(bids[k] === 1, prices[k]!, sizes[k]!);
    if (a.bestBid() !== b.bestBid() || a.bestAsk() !== b.bestAsk()) throw new Error(`books disagree at update ${k}`);
  }
}

// BATCH updates per timed call, so the harness's per-call overhead does not dominate a ~10 ns operation.
const BATCH = 256;
const fastOps =
  BATCH *
  opsPerSecond(() => {
    for (let n = 0; n < BATCH; n++) {
      const k = i++ & (N - 1);
      if (bids[k]) fast.applyBid(prices[k]!, sizes[k]!);
      else fast.applyAsk(prices[k]!, sizes[k]!);
      sink += fast.bestBid() + fast.bestAsk();
    }
  }, 1500);

// The update alone (no best-price read), for the per-update cost the design budgets (~5-20 ns).
const updateOnly = new L2Book({ tick: TICK });
let u = 0;
const updateOnlyOps =
  BATCH *
  opsPerSecond(() => {
    for (let n = 0; n < BATCH; n++) {
      const k = u++ & (N - 1);
      if (bids[k]) updateOnly.applyBid(prices[k]!, sizes[k]!);
      else updateOnly.applyAsk(prices[k]!, sizes[k]!);
    }
  }, 1000);

const baseOps =
  BATCH *
  opsPerSecond(() => {
    for (let n = 0; n < BATCH; n++) {
      const k = j++ & (N - 1);
      base.apply(bids[k] === 1, prices[k]!, sizes[k]!);
      sink += base.bestBid() + base.bestAsk();
    }
  }, 1500);

if (sink === 0.5) process.stdout.write('');
const nsPerUpdate = 1e9 / fastOps;
report(
  [
    ['updates (+ best bid/ask read)', `${N} near-top updates, 30 % removals, tick ${TICK}`],
    ['L2Book updates/s', fastOps],
    ['L2Book ns/update', nsPerUpdate],
    ['L2Book ns/update, no read', 1e9 / updateOnlyOps],
    ['Map+sort updates/s', baseOps],
    ['Map+sort ns/update', 1e9 / baseOps],
    ['ratio', fastOps / baseOps],
  ],
  {
    name: 'l2-book',
    unit: 'updates/s',
    value: Math.round(fastOps),
    baseline: 'Map + sort',
    baselineValue: Math.round(baseOps),
    ratio: Number((fastOps / baseOps).toFixed(1)),
    nsPerUpdate: Number(nsPerUpdate.toFixed(1)),
    nsPerUpdateNoRead: Number((1e9 / updateOnlyOps).toFixed(1)),
  },
);
