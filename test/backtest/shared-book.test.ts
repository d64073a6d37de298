/**
 * One book of the recorded rows per market (src/backtest/book-rewind.ts): the bot's feed shows the
 * exchange's book rewound to its own cursor instead of a copy written row by row. A window of the
 * Polymarket capture replayed so and with two books (`twoBooks`) must publish the same books at
 * the same times, every one of them, and give the same fills, mids, report and summary; the
 * rewind itself must give the book of the rows before the cursor, taken levels at their recorded
 * sizes, and put the exchange's book back level for level.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadBacktestConfig, type BacktestSettings } from '../../src/backtest/backtest-config.ts';
import { loadReplaySource } from '../../src/backtest/replay-source.ts';
import { runBacktest } from '../../src/backtest/run-backtest.ts';
import { buildSummary, summaryJson } from '../../src/backtest/report-summary.ts';
import { buildHtml } from '../../src/backtest/report-html.ts';
import { ReplayFeed } from '../../src/backtest/replay-feed.ts';
import { BookRewind, sharedMarkets } from '../../src/backtest/book-rewind.ts';
import { allocColumns, appendRow, KIND_CLEAR, KIND_LEVEL, KIND_TRADE, KIND_XLEVEL } from '../../src/backtest/recording/columns.ts';
import { L2Book } from '../../src/core/l2-book.ts';
import { mulberry32 } from '../../src/sim/rng.ts';
import type { BookLevel } from '../../src/model/book.ts';
import { polymarketRecording } from '../bench/fixtures.ts';

const dir = await polymarketRecording();
const cfg = await loadBacktestConfig('config/backtest.yaml', {}, {});
const probe = loadReplaySource(dir);
const start = probe.cols.lts[probe.rows[0]!]!;
// a window with fills of every cause, takes among them (a take lowers a level of the shared book)
const window = { from: start + 250_000, to: start + 400_000 };

interface Publication {
  m: number;
  at: number;
  venueTs: number;
  bids: string;
  asks: string;
}

type FeedInside = { o: { clock: { now(): number } }; lastBids: BookLevel[][]; lastAsks: BookLevel[][]; venueTs(m: number): number; books: unknown[] };

/** Every publication of the feed during `f` (market, time, venue time, the levels it showed), and the feeds made. */
async function publications<T>(f: () => Promise<T>): Promise<{ value: T; pubs: Publication[]; feeds: FeedInside[] }> {
  const proto = ReplayFeed.prototype as unknown as { publish(m: number): void };
  const publish = proto.publish;
  const pubs: Publication[] = [];
  const feeds = new Set<FeedInside>();
  proto.publish = function (this: FeedInside, m: number) {
    publish.call(this, m);
    feeds.add(this);
    const show = (ls: readonly BookLevel[]) => ls.map((l) => `${l.price}:${l.size}`).join(' ');
    pubs.push({ m, at: this.o.clock.now(), venueTs: this.venueTs(m), bids: show(this.lastBids[m]!), asks: show(this.lastAsks[m]!) });
  };
  try {
    return { value: await f(), pubs, feeds: [...feeds] };
  } finally {
    proto.publish = publish;
  }
}

async function compare(settings: BacktestSettings, opts: { fast?: boolean; rowByRow?: boolean } = {}): Promise<{ publications: number; takes: number }> {
  const one = async (twoBooks: boolean) => {
    const run = await runBacktest({ source: loadReplaySource(dir, window), config: cfg.bot, settings, twoBooks, ...opts });
    const s = buildSummary(run);
    return { run, json: summaryJson(s), html: buildHtml(run, s) };
  };
  const shared = await publications(() => one(false));
  const two = await publications(() => one(true));
  // the shared run's feed reads the exchange's books (every market of the capture is quoted, none has a CLEAR row)
  const x = shared.value.run.exchange;
  assert.equal(shared.feeds.length, 1);
  assert.ok(
    x.books.every((b, m) => shared.feeds[0]!.books[m] === b),
    'the shared run: the feed shows the exchange book of every market',
  );
  assert.ok(
    two.value.run.exchange.books.every((b, m) => two.feeds[0]!.books[m] !== b),
    'twoBooks: a copy of its own',
  );
  assert.ok(shared.pubs.length > 500, `publications: ${shared.pubs.length}`);
  // every publication the same, in the same order, at the same virtual time
  assert.equal(shared.pubs.length, two.pubs.length);
  for (let k = 0; k < shared.pubs.length; k++) assert.deepEqual(shared.pubs[k], two.pubs[k], `publication ${k}`);
  const [a, b] = [shared.value, two.value];
  assert.deepEqual(a.run.collector.fills, b.run.collector.fills);
  assert.deepEqual(a.run.collector.midT, b.run.collector.midT);
  assert.deepEqual(a.run.collector.midV, b.run.collector.midV);
  assert.equal(a.run.kernelTicks, b.run.kernelTicks);
  assert.equal(a.run.drains, b.run.drains);
  assert.equal(a.run.venueCalls, b.run.venueCalls);
  assert.equal(a.json, b.json);
  assert.equal(a.html, b.html);
  // the exchange's books end as the two-book run's (each restore put back what its rewind changed)
  for (let m = 0; m < x.books.length; m++) {
    for (const side of ['bid', 'ask'] as const) assert.deepEqual(x.books[m]!.levels(side), b.run.exchange.books[m]!.levels(side), `market ${m} ${side}`);
  }
  return { publications: shared.pubs.length, takes: a.run.collector.fills.filter((f) => f.cause === 'take').length };
}

test('one shared book publishes what two books did, every publication (the shipped config, takes in the window)', async () => {
  const { takes } = await compare(cfg.settings);
  assert.ok(takes > 0, 'the window has fills that took recorded levels');
});

test('one shared book publishes what two books did (row by row: every row through applyRow and row)', async () => {
  await compare(cfg.settings, { rowByRow: true });
});

test('one shared book publishes what two books did (a feed delay of 40 ms, samples every 250 ms, fast mode)', async () => {
  await compare({ ...cfg.settings, sampleMs: 250, latency: { ...cfg.settings.latency, feedMs: 40 } }, { fast: true });
});

test('one shared book publishes what two books did (sampled feed latency: the bot cursor one row at a time)', async () => {
  await compare({ ...cfg.settings, latency: { ...cfg.settings.latency, feedMs: { samples: [0, 30, 5, 120] } } });
});

const levelsOf = (b: L2Book) => ({ bids: b.levels('bid'), asks: b.levels('ask'), bb: b.bestBid(), ba: b.bestAsk(), depth: [b.depth('bid'), b.depth('ask')] });

test('rewind: the book of the rows before the cursor, taken levels at their recorded size; restore: the book as it was', () => {
  for (let seed = 1; seed <= 40; seed++) {
    const next = mulberry32(seed);
    const n = 300;
    const c = allocColumns(n, ['a', 'b']);
    for (let r = 0; r < n; r++) {
      // two markets, a few prices a side, sizes that often empty a level, now and then a trade or an off-grid price
      const kind = next() < 0.1 ? KIND_TRADE : KIND_LEVEL;
      const price = (1 + Math.floor(next() * 8)) * 10_000 + (next() < 0.03 ? 5 : 0);
      const size = next() < 0.3 ? 0 : Math.floor(next() * 5) * 1_000_000;
      appendRow(c, r, r, next() < 0.5 ? 0 : 1, kind, next() < 0.5 ? 0 : 1, price, size);
    }
    const rows = Uint32Array.from({ length: c.rows }, (_, i) => i);
    const u = new BookRewind(c, rows, 2);
    const books = [new L2Book({ tick: 10_000 }), new L2Book({ tick: 10_000 })];
    // the recorded book after each row (the reference), and the exchange's book with takes in it
    const recorded: ReturnType<typeof levelsOf>[][] = [[levelsOf(new L2Book({ tick: 10_000 })), levelsOf(new L2Book({ tick: 10_000 }))]];
    const ref = [new L2Book({ tick: 10_000 }), new L2Book({ tick: 10_000 })];
    // the feed's cursor trails the exchange's by a few rows, as in a replay
    for (let p = 0; p < c.rows; p++) {
      const m = c.market[p]!;
      if (c.kind[p] === KIND_LEVEL) {
        const prev = c.side[p] === 0 ? books[m]!.setBid(c.price[p]!, c.size[p]!) : books[m]!.setAsk(c.price[p]!, c.size[p]!);
        u.log(m, p, c.side[p]!, c.price[p]!, prev);
        if (c.side[p] === 0) ref[m]!.setBid(c.price[p]!, c.size[p]!);
        else ref[m]!.setAsk(c.price[p]!, c.size[p]!);
      }
      u.applied = p + 1;
      recorded.push([levelsOf(ref[0]!), levelsOf(ref[1]!)]);
      // now and then a take lowers a level of the exchange's book (not a row)
      if (next() < 0.15) {
        const tm = next() < 0.5 ? 0 : 1;
        const side = next() < 0.5 ? 0 : 1;
        const ls = books[tm]!.levels(side === 0 ? 'bid' : 'ask', 3);
        if (ls.length > 0) {
          const l = ls[Math.floor(next() * ls.length)]!;
          u.take(tm, side, l.price, l.size);
          const left = Math.max(0, l.size - 1_000_000);
          if (side === 0) books[tm]!.setBid(l.price, left);
          else books[tm]!.setAsk(l.price, left);
        }
      }
      // the feed: its cursor moves on by a few rows at a time, never past the exchange's
      if (next() < 0.4) u.floor = Math.min(p + 1, u.floor + Math.floor(next() * 6));
      if (next() < 0.3) {
        const rm = next() < 0.5 ? 0 : 1;
        const before = levelsOf(books[rm]!);
        u.rewind(rm, books[rm]!);
        assert.deepEqual(levelsOf(books[rm]!), recorded[u.floor]![rm], `seed ${seed} row ${p}: market ${rm} rewound to ${u.floor}`);
        u.restore();
        assert.deepEqual(levelsOf(books[rm]!), before, `seed ${seed} row ${p}: restored`);
      }
    }
  }
});

test('rewind: a log that runs thousands of rows ahead of the cursor grows and keeps every row', () => {
  const n = 5_000;
  const c = allocColumns(n, ['a']);
  for (let r = 0; r < n; r++) appendRow(c, r, r, 0, KIND_LEVEL, r % 2, (1 + (r % 50)) * 10_000, r % 7 === 0 ? 0 : (1 + (r % 5)) * 1_000_000);
  const rows = Uint32Array.from({ length: n }, (_, i) => i);
  const u = new BookRewind(c, rows, 1);
  const book = new L2Book({ tick: 10_000 });
  const ref = new L2Book({ tick: 10_000 });
  u.floor = 10;
  for (let p = 0; p < n; p++) {
    if (p === 10) for (const side of ['bid', 'ask'] as const) assert.ok(book.levels(side).length > 0);
    if (p < 10) c.side[p] === 0 ? ref.setBid(c.price[p]!, c.size[p]!) : ref.setAsk(c.price[p]!, c.size[p]!);
    u.log(0, p, c.side[p]!, c.price[p]!, c.side[p] === 0 ? book.setBid(c.price[p]!, c.size[p]!) : book.setAsk(c.price[p]!, c.size[p]!));
    u.applied = p + 1;
  }
  const after = levelsOf(book);
  u.rewind(0, book);
  assert.deepEqual(levelsOf(book), levelsOf(ref));
  u.restore();
  assert.deepEqual(levelsOf(book), after);
});

test('sharedMarkets: only a quoted market of the public stream without a CLEAR row', () => {
  const c = allocColumns(8, ['q', 'clear', 'exact', 'unquoted']);
  appendRow(c, 0, 0, 0, KIND_LEVEL, 0, 10_000, 1);
  appendRow(c, 0, 0, 1, KIND_CLEAR, 0, 0, 0);
  appendRow(c, 0, 0, 2, KIND_XLEVEL, 0, 10_000, 1);
  appendRow(c, 0, 0, 3, KIND_LEVEL, 0, 10_000, 1);
  const rows = Uint32Array.from({ length: c.rows }, (_, i) => i);
  const exact = Uint8Array.of(0, 0, 1, 0);
  assert.deepEqual([...sharedMarkets(c, rows, new Set([0, 1, 2]), exact, null)], [1, 0, 0, 0]);
});
