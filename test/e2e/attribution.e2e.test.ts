/**
 * Live attribution on the local exchange: the bot quotes two markets against the simulated
 * counterparties (noise and informed takers) for a few seconds; for every market it traded in, the
 * attribution of its fills (spread capture + inventory + fees + resolution) sums exactly, to 1e-6
 * USDC, to the PnL the store reports for the market, and the edge view carries markouts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseConfigText } from '../../src/config/load-config.ts';
import { silentLogger } from '../../src/core/logger.ts';
import { startBot } from '../../src/runtime/bot.ts';
import { marketAttribution } from '../../src/state/edge-view.ts';
import { marketPnl, selectMarketView } from '../../src/state/market-view.ts';
import type { Bytes32 } from '../../src/model/order.ts';
import { embeddedYaml } from '../support/bot-yaml.ts';

const CONFIG = embeddedYaml({
  local: '{ seed: 11, markets: 2, tick: 0.01, agents: { noiseTakers: 3, informedTakers: 2, makers: 1, takerRatePerSecond: 6 } }',
  strategy: '{ name: bands, params: { fair: microprice, bands: [ { minMargin: 0.005, targetMargin: 0.01, maxMargin: 0.02, size: 10 } ] } }',
  risk: '{ maxPosition: 300, maxNotional: 250 }',
  more: 'orders: { requoteIntervalSeconds: 0.25 }\nedge: { markoutHorizonsSeconds: [0.5, 1], toxicityHorizonSeconds: 1 }\nlogging: { level: warn }\n',
});

test('live on the local exchange: per market, the attribution sums exactly to the PnL', async () => {
  const cfg = await parseConfigText(CONFIG, 'attribution.yaml', { env: {} });
  const bot = await startBot({ config: cfg, logger: silentLogger, metricsPort: 0, env: {} });
  // quote until a handful of fills have happened (bounded wait; not a timing assertion)
  const deadline = Date.now() + 15_000;
  const fills = () => [...bot.store.state.markets.values()].reduce((n, m) => n + m.position.fills, 0);
  while (fills() < 3 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 250));
  // the markets with fills by now: their markouts have 1.5 s to be measured (a fill after, or one only the
  // stop's final sweep finds, may have none)
  const settling = new Set([...bot.store.state.markets.values()].filter((m) => m.edge.attribution.fills > 0).map((m) => m.marketId));
  await new Promise((r) => setTimeout(r, 1_500)); // let the markouts of the last fills settle
  const code = await bot.stop();
  assert.equal(code, 0);
  const traded = [...bot.store.state.markets.values()].filter((m) => m.edge.attribution.fills > 0);
  assert.ok(traded.length >= 1, `the bot traded (fills: ${fills()})`);
  assert.ok(settling.size >= 1, 'a market had fills before the markouts settled');
  for (const m of traded) {
    const a = marketAttribution(m);
    const pnl = marketPnl(m);
    assert.equal(a.spreadCapture + a.inventory + a.fees + a.resolution, a.total, m.marketId);
    // the fills the edge saw are the position's fills, so the total is the store's PnL exactly
    assert.equal(m.edge.attribution.fills, m.position.fills);
    const books = bot.kernel.account;
    // A fill that raced the stop's cancels and that the stop's final sweep found goes to the store too, as
    // the feeds' fills do (src/ledger/bot-ledger.ts finalSweep, src/runtime/phases/control.ts): the store
    // holds every fill the books hold, so its own identity holds after any stop. (Before, the sweep's fills
    // reached the ledger and the books alone; seen once in CI under load: attribution 375000 against a store
    // PnL of 420454. test/e2e/stop-swept-fill.e2e.test.ts makes that case deterministically.)
    assert.equal(m.position.fills, books.market(m.marketId)!.fills, `${m.marketId}: the store holds every fill of the books`);
    assert.equal(a.total, pnl.realised + pnl.unrealised, `${m.marketId}: attribution vs PnL`);
    assert.equal(-a.fees, m.position.fees);
    // with the account's books (what /metrics, the summary and the report show): to the books' PnL
    const b = marketAttribution(m, books);
    const bp = books.marketPnl(m.marketId);
    assert.equal(b.spreadCapture + b.inventory + b.fees + b.resolution, bp.realised + bp.unrealised, `${m.marketId}: attribution vs the books`);
    assert.equal(-b.fees, books.market(m.marketId)!.fees);
    const v = selectMarketView(bot.store.state, m.marketId as Bytes32, Date.now())!;
    if (settling.has(m.marketId))
      assert.ok(
        v.edge!.markouts.some((k) => k.n > 0),
        'markouts measured live',
      );
  }
});
