/**
 * Closed-loop synthetic markets (src/backtest/synthetic-source.ts liveSyntheticSource): the
 * counterparties run on the backtest's own clock and act on the book with the bot's quotes in it.
 *   - with nobody quoting, the closed loop generates exactly the open loop's rows (one generator);
 *   - with a bot that quotes inside the others' spread, takers price their orders off the bot's
 *     quotes (limits that cannot reach the others' touch) and those orders fill the bot; in the open
 *     loop every taker's limit reaches the others' touch (they never see the bot);
 *   - deterministic per seed.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadBacktestConfig } from '../../src/backtest/backtest-config.ts';
import { buildSummary } from '../../src/backtest/report-summary.ts';
import { runBacktest, type BacktestRun } from '../../src/backtest/run-backtest.ts';
import { liveSyntheticSource, syntheticSource, type SyntheticOptions } from '../../src/backtest/synthetic-source.ts';
import { KIND_TAKER, KIND_XCLEAR, KIND_XLEVEL, type Columns } from '../../src/backtest/recording/columns.ts';
import type { ReplaySource } from '../../src/backtest/replay-source.ts';
import type { StrategyModule } from '../../src/strategy/types.ts';
import { othersBook } from '../../src/strategy/others-book.ts';

/** benign flow with a wide background maker (6 ticks each side), so a quote can sit well inside it */
const OPTS: SyntheticOptions = { seed: 3, hours: 0.1, markets: 2, flow: 'benign', agents: { maker: { halfSpreadTicks: 6 } } };

/** Quotes an ask one tick above the others' best bid (far inside their spread, below the fair value), 5 shares. */
const insideAsk: StrategyModule<null> = {
  name: 'inside-ask',
  parseConfig: () => null,
  quote: (view) => {
    const book = othersBook(view);
    if (!book || book.bestBid === null || book.bestAsk === null || book.bestAsk - book.bestBid < 3 * view.tick) return [];
    return [{ side: 'ask', price: book.bestBid + view.tick, size: 5_000_000 }];
  },
};

async function runWith(source: ReplaySource): Promise<BacktestRun> {
  const cfg = await loadBacktestConfig('config/backtest.yaml');
  const config = { ...cfg.bot, markets: cfg.bot.markets.map((m) => ({ ...m, strategy: { ...m.strategy, module: insideAsk } })) };
  return runBacktest({ source, ranking: null, config, settings: cfg.settings });
}

/** Taker rows whose limit does not reach the others' touch at that instant (from the drop copy). */
function offTouchTakers(c: Columns, upTo: number): Set<number> {
  const books = c.markets.map(() => ({ bids: new Map<number, number>(), asks: new Map<number, number>() }));
  const out = new Set<number>();
  for (let i = 0; i < upTo; i++) {
    const b = books[c.market[i]!]!;
    const k = c.kind[i]!;
    if (k === KIND_XCLEAR) {
      b.bids.clear();
      b.asks.clear();
    } else if (k === KIND_XLEVEL) {
      const side = c.side[i] === 0 ? b.bids : b.asks;
      if (c.size[i]! > 0) side.set(c.price[i]!, c.size[i]!);
      else side.delete(c.price[i]!);
    } else if (k === KIND_TAKER) {
      if (c.side[i] === 0) {
        const ask = Math.min(...b.asks.keys());
        if (Number.isFinite(ask) && c.price[i]! < ask) out.add(i);
      } else {
        const bid = Math.max(...b.bids.keys());
        if (Number.isFinite(bid) && c.price[i]! > bid) out.add(i);
      }
    }
  }
  return out;
}

test('with nobody quoting, the closed loop generates the open loop rows exactly', async () => {
  const open = await syntheticSource(OPTS);
  const src = await liveSyntheticSource(OPTS);
  src.live.start(() => null);
  while (src.live.clock.nextDue() < src.live.end) src.live.clock.runNext();
  await src.live.stop();
  const a = open.cols;
  const b = src.cols;
  assert.equal(b.rows, open.rows.length);
  for (let i = 0; i < b.rows; i++) {
    const r = open.rows[i]!;
    const same = a.lts[r] === b.lts[i] && a.kind[r] === b.kind[i] && a.side[r] === b.side[i] && a.price[r] === b.price[i] && a.size[r] === b.size[i];
    assert.ok(same, `row ${i} differs`);
  }
});

test('closed loop: takers act on the bot quotes (orders priced off them fill the bot); open loop: they never see them', async () => {
  const open = await runWith(await syntheticSource(OPTS));
  const openOff = offTouchTakers(open.source.cols, open.source.cols.rows);
  assert.equal(openOff.size, 0, 'open loop: every taker limit reaches the others touch');
  assert.ok(open.collector.fills.length > 0, 'the inside ask trades in the open loop too');

  const closed = await runWith(await liveSyntheticSource(OPTS));
  const c = closed.source.cols;
  const off = offTouchTakers(c, c.rows);
  const filledByThem = closed.collector.fills.filter((f) => f.cause === 'taker' && off.has(f.row));
  assert.ok(off.size > 0, 'closed loop: some takers priced off the bot quote');
  assert.ok(filledByThem.length > 0, `and they filled the bot (${off.size} such takers)`);
  assert.ok(closed.rowsReplayed === c.rows && c.rows > 0, 'every generated row replayed');
});

test('closed loop: deterministic per seed', async () => {
  const digest = async (): Promise<string> => {
    const run = await runWith(await liveSyntheticSource({ ...OPTS, hours: 0.05 }));
    const s = buildSummary(run);
    return JSON.stringify([s.fills, s.pnl.total, run.collector.fills.map((f) => [f.at, f.yesPrice, f.size, f.cause])]);
  };
  assert.equal(await digest(), await digest());
});
