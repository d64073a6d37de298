/**
 * End to end on real data: the Polymarket capture (imported once into a cached temp recording),
 * a six-minute window, the shipped config/backtest.yaml (avellaneda). Fills must happen, and each one
 * must be explained by the recorded row it names: a trade on our side at or through our price, or a
 * level on the other side at or through our price; a fill on arrival ('take') must find that price
 * in the recorded book. The bot's orders live in the matching engine: its ledger must equal the bot's
 * store and the fills' cash, and hold its invariants. Runs twice: the JSON summary, the fills and the
 * HTML must be byte-identical.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadBacktestConfig } from '../../src/backtest/backtest-config.ts';
import { loadReplaySource } from '../../src/backtest/replay-source.ts';
import { runBacktest, type BacktestRun } from '../../src/backtest/run-backtest.ts';
import { buildSummary, summaryJson } from '../../src/backtest/report-summary.ts';
import { buildHtml } from '../../src/backtest/report-html.ts';
import { KIND_LEVEL, KIND_TRADE, KIND_CLEAR } from '../../src/backtest/recording/columns.ts';
import { L2Book } from '../../src/core/l2-book.ts';
import { orderKindOf } from '../../src/exchange/signing/orderMapping.ts';
import { notionalCeil, notionalFloor, ONE } from '../../src/model/units.ts';
import { polymarketRecording } from '../bench/fixtures.ts';

const dir = await polymarketRecording();
const cfg = await loadBacktestConfig('config/backtest.yaml', {}, {});
const probe = loadReplaySource(dir);
const start = probe.cols.lts[probe.rows[0]!]!;
const window = { from: start, to: start + 6 * 60_000 };

async function once(): Promise<BacktestRun> {
  return runBacktest({ source: loadReplaySource(dir, window), config: cfg.bot, settings: cfg.settings });
}

const first = await once();

test('fills happen on the real capture, and every fill is explained by a recorded trade or book crossing', () => {
  const { cols } = first.source;
  const fills = first.collector.fills;
  assert.ok(fills.length >= 5, `expected fills, got ${fills.length}`);
  const books = cols.markets.map(() => new L2Book({ tick: 1_000 }));
  const rows = first.source.rows;
  let k = 0;
  for (const f of fills) {
    // book-only replay of the recording up to the fill's time (for 'take')
    while (k < rows.length && cols.lts[rows[k]!]! <= f.at) {
      const r = rows[k++]!;
      const b = books[cols.market[r]!]!;
      if (cols.kind[r] === KIND_LEVEL) cols.side[r] === 0 ? b.applyBid(cols.price[r]!, cols.size[r]!) : b.applyAsk(cols.price[r]!, cols.size[r]!);
      else if (cols.kind[r] === KIND_CLEAR) b.clear();
    }
    const bid = f.yesSide === 'bid';
    const order = first.exchange.get(f.nonce)!;
    assert.ok(order, 'the fill names an order of ours');
    if (f.cause === 'trade') {
      const r = f.row;
      assert.equal(cols.kind[r], KIND_TRADE, 'a trade row');
      assert.equal(cols.market[r], f.market);
      assert.equal(cols.lts[r], f.at, 'at the trade time');
      assert.equal(cols.side[r], bid ? 1 : 0, 'a taker on the other side');
      assert.ok(bid ? cols.price[r]! <= order.yesPrice : cols.price[r]! >= order.yesPrice, 'at or through our price');
      assert.ok(f.size <= cols.size[r]!, 'no more than the trade size');
      assert.equal(f.yesPrice, order.yesPrice, 'at our price (maker)');
    } else if (f.cause === 'cross') {
      const r = f.row;
      assert.equal(cols.kind[r], KIND_LEVEL, 'a level row');
      assert.equal(cols.market[r], f.market);
      assert.equal(cols.lts[r], f.at);
      assert.equal(cols.side[r], bid ? 1 : 0, 'liquidity on the other side');
      assert.ok(bid ? cols.price[r]! <= order.yesPrice : cols.price[r]! >= order.yesPrice, 'at or through our price');
      assert.ok(f.maker);
    } else {
      assert.equal(f.cause, 'take');
      assert.equal(f.maker, false);
      const size = books[f.market]!.sizeAt(bid ? 'ask' : 'bid', f.yesPrice);
      assert.ok(size > 0, `the recorded book had liquidity at ${f.yesPrice} when we took it`);
      assert.ok(bid ? f.yesPrice <= order.yesPrice : f.yesPrice >= order.yesPrice, 'within our limit');
    }
  }
  const s = buildSummary(first);
  assert.equal(s.fills, fills.length);
  assert.equal(s.maker.fills + s.taker.fills, s.fills);
  assert.ok(s.quoteUptime.twoSided > 0.5, `quoted most of the time (${s.quoteUptime.twoSided})`);
  assert.equal(s.markouts['1s'].n > 0, true);
  // nothing left open at the venue after the end-of-data shutdown
  assert.equal(first.exchange.openOrders().length, 0);
  // every fill report reached the bot: its store holds the same positions as the exchange model
  for (const [m, id] of first.source.cols.markets.entries()) {
    const mine = first.store.state.markets.get(id.toLowerCase());
    const truth = first.collector.positions[m]!;
    assert.equal(mine?.position.net ?? 0, truth.net, `net position of ${id}`);
    assert.equal(mine?.position.fills ?? 0, truth.fills, `fills of ${id}`);
    assert.equal(mine?.position.realised ?? 0n, truth.realised, `realised PnL of ${id}`);
  }
});

test('the JSON summary has every field the issue names, each consistent with the fills and samples', () => {
  const s = buildSummary(first);
  const c = first.collector;
  const fills = c.fills;
  // realised / unrealised PnL, and their total
  assert.equal(typeof s.pnl.realised, 'number');
  assert.equal(typeof s.pnl.unrealised, 'number');
  assert.ok(Math.abs(s.pnl.total - (s.pnl.realised + s.pnl.unrealised)) < 1e-6);
  // volume, fills, maker/taker split (count and volume), fees paid
  const micro = (x: bigint) => Number(x / 1_000_000n) / 1e6;
  const vol = (fs: typeof fills) => micro(fs.reduce((a, f) => a + BigInt(f.price) * BigInt(f.size), 0n));
  assert.equal(s.fills, fills.length);
  assert.ok(Math.abs(s.volume - vol(fills)) <= 1e-6 * s.markets.length, `volume ${s.volume} vs ${vol(fills)}`);
  assert.equal(s.maker.fills, fills.filter((f) => f.maker).length);
  assert.equal(s.taker.fills, fills.filter((f) => !f.maker).length);
  assert.ok(s.maker.fills > 0 && s.taker.fills > 0, 'both maker and taker fills in this window');
  assert.equal(s.maker.volume, vol(fills.filter((f) => f.maker)));
  assert.equal(s.taker.volume, vol(fills.filter((f) => !f.maker)));
  assert.equal(s.feesPaid, fills.reduce((a, f) => a + f.fee, 0) / 1e6);
  assert.equal(
    s.markets.reduce((a, m) => a + m.fills, 0),
    s.fills,
  );
  // inventory statistics from the sampled net positions
  const nets = c.series.flatMap((m) => m.net);
  assert.equal(s.inventory.maxLong, Math.max(0, ...nets) / 1e6);
  assert.equal(s.inventory.maxShort, Math.min(0, ...nets) / 1e6);
  assert.ok(s.inventory.meanAbs >= 0 && s.inventory.meanAbs <= Math.max(s.inventory.maxLong, -s.inventory.maxShort));
  // max drawdown: the largest fall of total PnL below an earlier sample
  let worst = 0;
  for (let i = 0; i < c.totalPnl.length; i++) for (let j = i + 1; j < c.totalPnl.length; j++) worst = Math.max(worst, c.totalPnl[i]! - c.totalPnl[j]!);
  assert.ok(Math.abs(s.maxDrawdown - worst / 1e6) < 1e-6, `max drawdown ${s.maxDrawdown} vs ${worst / 1e6}`);
  // Sharpe of the PnL change per minute (the window is minutes long: no hour or day, never annualised)
  assert.equal(s.sharpe.sampleSeconds, cfg.settings.sampleMs / 1000);
  assert.equal(s.sharpe.period, 'minute');
  assert.equal(s.sharpe.periods, Math.floor((c.sampleT.at(-1)! - c.sampleT[0]!) / 60_000));
  assert.ok(s.sharpe.value !== null && Number.isFinite(s.sharpe.value));
  assert.ok(!('annualised' in s.sharpe));
  // markouts at the three horizons: fills whose horizon passes the end are left out
  const end = Date.parse(s.recording.to);
  for (const [k, h] of [
    ['1s', 1_000],
    ['10s', 10_000],
    ['60s', 60_000],
  ] as const) {
    assert.equal(s.markouts[k].n, fills.filter((f) => f.at + h <= end).length, `markout ${k} count`);
    assert.equal(typeof s.markouts[k].centsPerShare, 'number', `markout ${k}`);
  }
  // quote uptime, order-to-fill ratio
  assert.ok(s.quoteUptime.twoSided > 0 && s.quoteUptime.twoSided <= s.quoteUptime.anySide && s.quoteUptime.anySide <= 1);
  assert.ok(s.orders.placed > 0);
  assert.equal(s.orderToFill, Number((s.orders.placed / s.fills).toFixed(3)));
});

test('positions and collateral of the bot equal the matching engine ledger; conservation holds', () => {
  const x = first.exchange;
  assert.deepEqual(x.engine.checkInvariants(), [], 'engine invariants (conservation, reservations)');
  assert.deepEqual(x.checkInvariants(), [], 'reported fill deltas vs the ledger');
  const { balance } = x.account();
  assert.equal(balance.reserved, 0n, 'nothing reserved after the end-of-data cancel-all');
  assert.equal(x.engine.openOrders({ trader: x.bot }).length, 0);
  assert.equal(first.store.state.collateral, balance.collateral, 'the store holds the engine collateral');
  // collateral = start + each fill's cash in its own terms (payers round up, receivers down, fees paid)
  let cash = 0n;
  for (const f of first.collector.fills) {
    const p = x.get(f.nonce)!.planned;
    const kind = orderKindOf(p.side, p.inventoryMode ?? 0);
    if (kind === 0) cash -= BigInt(notionalCeil(f.price, f.size) + f.fee);
    else if (kind === 1) cash += BigInt(notionalFloor(f.price, f.size) - f.fee);
    else cash -= BigInt(notionalCeil(ONE - f.price, f.size) + f.fee);
  }
  assert.equal(balance.collateral, cfg.settings.startingCollateral + cash, 'collateral moved by exactly the fills');
  assert.ok(
    first.collector.fills.some((f) => f.fee > 0),
    'fees were charged',
  );
  for (const [m, id] of first.source.cols.markets.entries()) {
    const p = x.engine.position(x.bot, m);
    const mine = first.store.state.markets.get(id.toLowerCase());
    assert.equal(BigInt(mine?.position.yes ?? 0), p.yes, `YES held in ${id}`);
    assert.equal(BigInt(mine?.position.no ?? 0), p.no, `NO held in ${id}`);
    assert.equal(BigInt(first.collector.positions[m]!.net), p.yes - p.no, `net position of ${id}`);
  }
  const kinds = new Set(first.collector.fills.map((f) => f.match));
  assert.ok(kinds.has('mint') && kinds.has('merge'), `match kinds seen: ${[...kinds].join(', ')}`);
});

test('a bot short of collateral has its orders refused UNDER_COLLATERALIZED and never overdraws', async () => {
  const poor = await runBacktest({ source: loadReplaySource(dir, window), config: cfg.bot, settings: { ...cfg.settings, startingCollateral: 15_000_000n } });
  const s = buildSummary(poor);
  assert.ok((poor.exchange.rejectedBy.get('UNDER_COLLATERALIZED') ?? 0) > 0, `refusals: ${JSON.stringify([...poor.exchange.rejectedBy])}`);
  assert.equal(
    s.orders.rejected,
    [...poor.exchange.rejectedBy.values()].reduce((a, b) => a + b, 0),
  );
  const { balance } = poor.exchange.account();
  assert.ok(balance.collateral >= 0n);
  assert.deepEqual(poor.exchange.checkInvariants(), []);
  assert.ok(s.orders.placed < buildSummary(first).orders.placed, 'fewer orders rest than with the full budget');
});

test('dead-man orders the bot is too slow to refresh expire in the engine and never fill after their expiry', async () => {
  const slow = await runBacktest({
    source: loadReplaySource(dir, window),
    config: { ...cfg.bot, orders: { ...cfg.bot.orders, deadManExpiryMs: 10_000 } },
    settings: { ...cfg.settings, latency: { ...cfg.settings.latency, entryMs: 4_000, responseMs: 4_000 } },
  });
  const x = slow.exchange;
  assert.ok(x.expired > 0, 'orders expired at the venue');
  for (const f of slow.collector.fills) {
    const expiry = x.get(f.nonce)!.planned.expiry;
    assert.ok(expiry !== undefined && expiry > 0, 'every order carries a dead-man expiry');
    assert.ok(f.at < expiry * 1000, `fill at ${f.at} before the expiry ${expiry * 1000}`);
  }
  assert.ok(x.placed > x.expired, 'the bot re-quoted after its orders expired');
  assert.equal(x.openOrders().length, 0);
  assert.deepEqual(x.checkInvariants(), []);
});

test('determinism: a second run gives byte-identical fills, JSON summary and HTML report', async () => {
  const second = await once();
  assert.equal(JSON.stringify(second.collector.fills), JSON.stringify(first.collector.fills));
  const a = summaryJson(buildSummary(first));
  const b = summaryJson(buildSummary(second));
  assert.equal(a, b);
  assert.equal(buildHtml(second, buildSummary(second)), buildHtml(first, buildSummary(first)));
});

test('a tick whose set already rests asks for no drain: the replay drains far less often than it ticks', () => {
  // before, every tick and every timer asked for one (more drains than ticks); now only a sync still
  // to run, a timer other than the feed's trailing publication, or a kill does
  assert.ok(first.kernelTicks > 1000);
  assert.ok(first.drains < 0.75 * first.kernelTicks, `${first.drains} drains for ${first.kernelTicks} ticks`);
});

test('a timer that leaves no promise asks for no drain: a venue call reaching the exchange, a throttled tick whose set rests', () => {
  // the six-minute window: 2,160 ticks; 825 drains while those timers drained too, 603 since
  assert.ok(first.drains < 0.32 * first.kernelTicks, `${first.drains} drains for ${first.kernelTicks} ticks`);
});

/** the shipped config with every market's strategy quoting nothing */
const quotesNothing = {
  ...cfg.bot,
  markets: cfg.bot.markets.map((m) => ({ ...m, strategy: { ...m.strategy, module: { ...m.strategy.module, quote: () => null } } })),
};

test('a housekeeping round whose ticks start no sync asks for no drain: a bot that quotes nothing drains only for its reconciles', async () => {
  // every round of the kernel's housekeeping (one a virtual second) used to drain; the periodic
  // reconcile's timer and its answer still do (two drains a reconcile)
  const run = await runBacktest({ source: loadReplaySource(dir, window), config: quotesNothing, settings: cfg.settings });
  assert.ok(run.kernelTicks > 1000);
  assert.ok(run.venueCalls > 0, 'the periodic reconcile calls the venue');
  assert.ok(run.drains <= 2 * run.venueCalls + 2, `${run.drains} drains for ${run.venueCalls} venue calls and ${run.kernelTicks} ticks`);
});

test('a stop asked from outside is seen within ~16k rows, however rarely the bot drains (the replay yields to the event loop)', async () => {
  const ac = new AbortController();
  // a macrotask: it runs only when the replay gives the event loop a turn (as a Ctrl-C handler does)
  setImmediate(() => ac.abort());
  const run = await runBacktest({ source: loadReplaySource(dir, window), config: quotesNothing, settings: cfg.settings, signal: ac.signal });
  assert.ok(run.incomplete !== null, `the run was not stopped (${run.drains} drains over ${run.rowsReplayed} rows)`);
  assert.ok(run.rowsReplayed <= 20_000, `${run.rowsReplayed} rows replayed before the stop was seen`);
});

test('the HTML report is self-contained: no network URL, no external script or stylesheet, charts present', () => {
  const html = buildHtml(first, buildSummary(first));
  assert.doesNotMatch(html, /https?:\/\//i);
  // one inline script (the zoom control), nothing loaded: no src, no link, no import, only in-file url(#…) references
  assert.equal(html.match(/<script/g)?.length, 1);
  assert.doesNotMatch(html, /<script[^>]*src|<link|@import|url\((?!#)/i);
  assert.equal(
    html.match(/<svg /g)?.length,
    4 + first.quoted.length,
    'PnL, attribution, inventory, markout curve, and best bid/ask with quotes for every quoted market',
  );
  assert.ok((html.match(/<path d="M/g)?.length ?? 0) >= 4, 'charts have lines');
  assert.ok((html.match(/class="fill-marker"/g)?.length ?? 0) >= 1, 'fills are marked on the price chart');
  assert.match(html, /<table class="summary">/);
  for (const k of ['total PnL', 'max drawdown', 'Sharpe', 'markouts', 'quote uptime', 'order-to-fill', 'fees paid', 'maker / taker'])
    assert.ok(html.includes(k), k);
});

test('fast mode (no queue model) fills at least as often as the queue model', async () => {
  const fast = await runBacktest({ source: loadReplaySource(dir, window), config: cfg.bot, settings: cfg.settings, fast: true });
  assert.equal(buildSummary(fast).settings.mode, 'fast');
  const tradeFills = (r: BacktestRun) => r.collector.fills.filter((f) => f.cause === 'trade').length;
  assert.ok(tradeFills(fast) >= tradeFills(first), `fast ${tradeFills(fast)} vs queue ${tradeFills(first)}`);
});
