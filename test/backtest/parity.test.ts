/**
 * Parity, end to end: the bot trades live on the in-process local exchange (src/runtime/bot.ts, bands
 * strategy, two markets, simulated counterparties) while the recorder captures the same markets —
 * the public stream and the venue's drop copy (src/sim/flow-tap.ts: the others' book, the taker
 * orders, the bot's own quotes and fills) — then the recording is backtested with the same config,
 * from the drop copy and, for comparison, from the stream alone. Prints the gaps and how many live
 * fills the backtest reproduced (the long-run figures: scripts/parity-eval.ts).
 *
 * No gap is asserted (an 8 s run has a handful of fills, and the counterparties react to the live
 * bot, not to the replayed one). The assertions check the pipeline: the drop copy's own fills are
 * exactly the position the venue booked for the bot; both replays ran on the same data and quoted
 * the same markets; every drop-copy fill was made by a recorded taker order that reached its price,
 * every stream fill by a recorded trade or crossing level.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseDocument } from 'yaml';
import { parseConfigText } from '../../src/config/load-config.ts';
import { silentLogger } from '../../src/core/logger.ts';
import { startRecorder } from '../../src/backtest/recorder.ts';
import { buildBacktestConfig } from '../../src/backtest/backtest-config.ts';
import { loadReplaySource } from '../../src/backtest/replay-source.ts';
import { runBacktest } from '../../src/backtest/run-backtest.ts';
import { buildSummary } from '../../src/backtest/report-summary.ts';
import { KIND_LEVEL, KIND_TAKER, KIND_TRADE } from '../../src/backtest/recording/columns.ts';
import { readEvents } from '../../src/backtest/recording/reader.ts';
import { marketPnl } from '../../src/state/market-view.ts';
import { parityBacktestYaml, parityBotYaml } from './parity-configs.ts';

const CONFIG = parityBotYaml('seed: 5, markets: 2, tick: 0.01, agents: { noiseTakers: 3, informedTakers: 1, makers: 1, takerRatePerSecond: 4 }');
const BACKTEST = parityBacktestYaml(1000);

let startBot: typeof import('../../src/runtime/bot.ts').startBot | null = null;
try {
  ({ startBot } = await import('../../src/runtime/bot.ts'));
} catch {
  startBot = null;
}

test('parity: live on the local exchange vs the backtest of its recording', { skip: startBot ? false : 'src/runtime/bot.ts not available' }, async () => {
  const out = mkdtempSync(join(tmpdir(), 'bookmaker-parity-'));
  try {
    const cfg = await parseConfigText(CONFIG, 'parity.yaml', { env: {} });
    const bot = await startBot!({ config: cfg, logger: silentLogger, metricsPort: 0, env: {} });
    const rec = await startRecorder({
      baseUrl: bot.baseUrl,
      markets: bot.markets,
      out,
      oraclePollMs: 60_000,
      flow: { tap: bot.localExchange!.tapFlow, exclude: bot.trader },
    });
    await new Promise((r) => setTimeout(r, 8000));
    const code = await bot.stop();
    await rec.stop();
    assert.equal(code, 0, 'the live bot stopped cleanly (no order left)');
    const liveFills = bot.runTrades().fills;

    // the drop copy's fills of the bot add up to exactly the position the venue booked for it
    const net = new Map<string, number>();
    const venueFills: { t: number; m: string; bid: boolean; p: number }[] = [];
    for (const e of readEvents(out)) {
      if (e.t !== 'ownfill') continue;
      net.set(e.m.toLowerCase(), (net.get(e.m.toLowerCase()) ?? 0) + (e.side === 'buy' ? e.s : -e.s));
      venueFills.push({ t: e.vts, m: e.m.toLowerCase(), bid: e.side === 'buy', p: e.p });
    }
    for (const id of bot.markets) {
      const p = bot.localExchange!.state.engine.position(bot.trader, id)!;
      assert.equal(net.get(id.toLowerCase()) ?? 0, Number(p.yes - p.no), `market ${id}: drop-copy fills = the venue's position`);
    }

    const bt = await buildBacktestConfig('parity.yaml', parseDocument(CONFIG + BACKTEST).toJS() as Record<string, unknown>, {}, {});
    const source = loadReplaySource(out);
    const { cols } = source;
    const runs = {
      dropCopy: await runBacktest({ source, config: bt.bot, settings: bt.settings }),
      streamOnly: await runBacktest({ source, config: bt.bot, settings: bt.settings, ignoreDropCopy: true }),
    };
    const lines: string[] = [];
    for (const [name, run] of Object.entries(runs)) {
      assert.ok(run.rowsReplayed > 0, 'the recording replayed');
      assert.deepEqual([...run.quoted].sort(), [...bot.markets].map((m) => m.toLowerCase()).sort(), 'the same markets quoted');
      for (const f of run.collector.fills) {
        if (f.cause === 'trade') assert.equal(cols.kind[f.row], KIND_TRADE);
        if (f.cause === 'cross') assert.equal(cols.kind[f.row], KIND_LEVEL);
        if (f.cause === 'taker') {
          assert.equal(name, 'dropCopy', 'taker fills only from the drop copy');
          assert.equal(cols.kind[f.row], KIND_TAKER);
          // the recorded taker order was on the other side and its limit reached our price
          assert.equal(cols.side[f.row], f.yesSide === 'ask' ? 0 : 1);
          assert.ok(f.yesSide === 'ask' ? cols.price[f.row]! >= f.yesPrice : cols.price[f.row]! <= f.yesPrice);
        }
      }
      if (name === 'dropCopy')
        assert.ok(
          run.collector.fills.every((f) => f.cause !== 'trade'),
          'no recorded trade fills a drop-copy replay',
        );
      const s = buildSummary(run);
      const used = new Set<number>();
      let reproduced = 0;
      for (const l of venueFills) {
        const k = run.collector.fills.findIndex(
          (f, i) => !used.has(i) && f.marketId.toLowerCase() === l.m && (f.yesSide === 'bid') === l.bid && f.yesPrice === l.p && Math.abs(f.at - l.t) <= 300,
        );
        if (k >= 0) used.add(k), reproduced++;
      }
      lines.push(`${name}: ${s.fills} fills, PnL ${s.pnl.total.toFixed(4)} USDC, ${reproduced}/${venueFills.length} live fills reproduced`);
    }
    let livePnl = 0n;
    for (const m of bot.store.state.markets.values()) {
      const p = marketPnl(m);
      livePnl += p.realised + p.unrealised;
    }
    process.stdout.write(
      `parity: live ${liveFills} fills, PnL ${(Number(livePnl) / 1e6).toFixed(4)} USDC | ${lines.join(' | ')} (${cols.rows} rows recorded)\n`,
    );
    assert.ok(liveFills > 0, 'the live bot traded');
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});
