// The importers against the real files in data/ (the repository's copy): counts must match the data READMEs.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { importPolymarket } from '../../../src/backtest/importers/polymarket.ts';
import { importKalshi } from '../../../src/backtest/importers/kalshi.ts';
import { importBinance } from '../../../src/backtest/importers/binance.ts';
import { readEvents, readManifest, type ReadStats } from '../../../src/backtest/recording/reader.ts';
import type { RecordedEvent } from '../../../src/backtest/recording/format.ts';

const DATA = fileURLToPath(new URL('../../../data/', import.meta.url));
const tmp = () => mkdtempSync(join(tmpdir(), 'bm-import-'));

/**
 * The polymarket data set imported once for this file (its two tests only read the recording): the import is the
 * costliest step of the file. Removed when the file ends.
 */
let polymarket: Promise<{ dir: string; r: Awaited<ReturnType<typeof importPolymarket>> }> | undefined;
const importedPolymarket = () => {
  polymarket ??= (async () => {
    const dir = tmp();
    return { dir, r: await importPolymarket(join(DATA, 'polymarket-tickscope', 'events.jsonl.gz'), dir) };
  })();
  return polymarket;
};
after(async () => {
  if (polymarket) rmSync((await polymarket.catch(() => ({ dir: '' }))).dir, { recursive: true, force: true });
});

test('polymarket: 358,112 rows, mirrored pairs de-duplicated into 6 YES-terms markets, sorted by time, top of book from the reported best', async () => {
  const { dir, r } = await importedPolymarket();
  assert.equal(r.stats.inputRows, 358_112);
  assert.equal(r.stats.trades, 838);
  assert.equal(r.stats.tokens, 12);
  assert.equal(r.markets.length, 6);
  assert.equal(r.stats.backwardSteps, 2_925); // README caveat 4
  // README caveat 3: ~178.7k mirrored adjacent pairs; each pair leaves exactly one change.
  assert.ok(r.stats.mirroredDropped! > 178_000 && r.stats.mirroredDropped! < 179_000, `mirrored ${r.stats.mirroredDropped}`);
  assert.equal(r.stats.priceChanges! + r.stats.mirroredDropped!, 357_274);
  const m = readManifest(dir);
  assert.equal(m.markets.length, 6);
  for (const mk of m.markets) {
    assert.match(mk.id, /^0x[0-9a-f]{64}$/);
    assert.ok(BigInt(mk.origin!.yesToken as string) < BigInt(mk.origin!.noToken as string));
  }
  assert.ok(
    m.markets.some((x) => x.tick === 1_000),
    'one market trades on a 0.001 tick',
  );
  const st: ReadStats = { files: 0, lines: 0, events: 0, dropped: 0, dropReasons: [], truncatedFiles: 0 };
  let last = 0;
  let trades = 0;
  const bestBid = new Map<string, number>();
  // README caveat 2: the book rebuilt from the deltas goes stale at the top; the importer takes the
  // reported best_bid/best_ask as ground truth. Rebuild every market's book from the recording and
  // compare its top with each reported best (`bbo`): it must never show a better price.
  const books = new Map<string, { b: Map<number, number>; a: Map<number, number> }>();
  let bboChecks = 0;
  let betterThanReported = 0;
  let agree = 0;
  for (const e of readEvents(dir, st)) {
    assert.ok(e.lts >= last, 'monotone time');
    last = e.lts;
    if (e.t === 'trade') trades++;
    let bk = books.get(e.m);
    if (!bk) books.set(e.m, (bk = { b: new Map(), a: new Map() }));
    if (e.t === 'book') {
      for (const [p] of [...e.b, ...e.a]) assert.ok(p > 0 && p < 1_000_000);
      for (const [p, s] of e.b) s ? bk.b.set(p, s) : bk.b.delete(p);
      for (const [p, s] of e.a) s ? bk.a.set(p, s) : bk.a.delete(p);
    }
    if (e.t === 'bbo') {
      bestBid.set(e.m, e.bid);
      bboChecks++;
      const bid = Math.max(0, ...bk.b.keys());
      const ask = bk.a.size > 0 ? Math.min(...bk.a.keys()) : 0;
      if (bid > e.bid || (e.ask > 0 && ask > 0 && ask < e.ask)) betterThanReported++;
      if (bid === e.bid && ask === e.ask) agree++;
    }
  }
  assert.equal(st.dropped, 0);
  assert.equal(st.events, r.events);
  assert.equal(trades, 838);
  assert.equal(bestBid.size, 6);
  assert.equal(bboChecks, r.stats.bboEvents);
  assert.ok(r.stats.topCorrections! > 0, 'stale top levels were removed');
  assert.equal(betterThanReported, 0, 'the rebuilt top is never better than the reported best');
  assert.ok(agree / bboChecks > 0.99, `rebuilt top agrees with the reported best at ${agree} of ${bboChecks} changes`);
});

test('polymarket: YES/NO complement — the first mirrored pair becomes one YES-terms change', async () => {
  const { dir } = await importedPolymarket();
  const first = readEvents(dir).next().value as RecordedEvent;
  // Row 0: token 5795… BID 0.31 × 198; row 1: token 9606… ASK 0.69 × 198 (its mirror). 5795… < 9606…,
  // so 5795… is YES and the pair is one YES bid at 0.31 for 198 shares.
  assert.equal(first.t, 'book');
  if (first.t === 'book') {
    assert.deepEqual(first.b, [[310_000, 198_000_000]]);
    assert.deepEqual(first.a, []);
    assert.equal(first.vts, 1780795851472);
  }
});

test('kalshi: 56,805 prints, 423 tickers, taker direction and cents', async () => {
  const dir = tmp();
  try {
    const r = await importKalshi(join(DATA, 'kalshi-kxinx-trades', 'trades.csv.gz'), dir);
    assert.equal(r.stats.trades, 56_805);
    assert.equal(r.stats.tickers, 423);
    assert.equal(r.stats.group_1_2, 13_617);
    assert.equal(r.stats.group_1_4, 43_188);
    assert.equal(r.stats.yesTaker, 8_071 + 22_498);
    assert.equal(r.stats.noTaker, 5_546 + 20_690);
    const first = readEvents(dir).next().value as RecordedEvent;
    // First print: KXINX-26JAN02H1600-B6912 at 40¢, 1 contract, yes_taker.
    assert.deepEqual(first, {
      t: 'trade',
      m: r.markets.find((m) => m.name === 'KXINX-26JAN02H1600-B6912')!.id,
      vts: 1767313178676,
      lts: 1767313178676,
      p: 400_000,
      s: 1_000_000,
      side: 'buy',
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('binance: snapshot + sequenced diffs rebuild a book that matches bookTicker, no gaps', async () => {
  const dir = tmp();
  try {
    const r = await importBinance(join(DATA, 'binance-hftbacktest'), dir);
    assert.equal(r.stats.spotLines, 41_249);
    assert.equal(r.stats.usdmLines, 93_954);
    assert.equal(r.stats.spotDiffsApplied! + r.stats.spotDiffsDropped!, 3_451);
    assert.equal(r.stats.usdmDiffsApplied! + r.stats.usdmDiffsDropped!, 6_551);
    assert.equal(r.stats.spotTrades, 9_757);
    assert.equal(r.stats.usdmTrades, 21_313);
    assert.equal(r.stats.spotTickers, 28_040);
    assert.equal(r.stats.usdmTickers, 66_089);
    assert.equal(r.stats.spotGaps, 0);
    assert.equal(r.stats.usdmGaps, 0);
    assert.ok(r.stats.usdmTickerChecks! > 50);
    assert.equal(r.stats.usdmTickerMismatches, 0);
    assert.equal(readManifest(dir).genericPrices, true);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('bad input: a missing file and a non-gzip file are clear errors', async () => {
  const dir = tmp();
  try {
    await assert.rejects(() => importKalshi(join(dir, 'nope.csv.gz'), join(dir, 'o')), /PATH: expected a readable file/);
    await assert.rejects(() => importKalshi(join(DATA, 'kalshi-kxinx-trades', 'README.md'), join(dir, 'o')), /PATH: expected a gzip-compressed file/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
