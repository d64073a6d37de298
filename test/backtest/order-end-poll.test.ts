/**
 * With `fillPollMs` the replayed bot learns an order's end as the live bot does: at the next poll of
 * its own orders (src/feeds/own-orders-feed.ts reports it closed). Until then a cancelled order stays
 * parked and counted (OrderManager settleMs, as the live core phase, src/runtime/phases/core.ts,
 * sets it), so its sells keep their inventory out of the next desired set, live and in the replay alike.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { RecordingWriter } from '../../src/backtest/recording/writer.ts';
import { loadReplaySource } from '../../src/backtest/replay-source.ts';
import { runBacktest } from '../../src/backtest/run-backtest.ts';
import type { MarketView, StrategyModule } from '../../src/strategy/types.ts';
import bands from '../../strategies/bands/index.ts';
import { bandsBacktest, M, onRecording } from './helpers.ts';

const S = 1_000_000;
const T0 = 1_780_000_000_000;

test('fillPollMs: a cancelled order leaves the bot’s view at the next poll, not at the cancel’s answer', async () => {
  const moves = (w: RecordingWriter) => {
    // the others' book moves up 4¢ at +3.5 s: bands (fair 50 → 54) cancels both quotes and replaces them
    w.write({
      t: 'xbook',
      m: M,
      vts: T0 + 3500,
      lts: T0 + 3500,
      b: [
        [400_000, 0],
        [440_000, 100 * S],
      ],
      a: [
        [600_000, 0],
        [640_000, 100 * S],
      ],
    });
    w.write({ t: 'xbook', m: M, vts: T0 + 9000, lts: T0 + 9000, b: [[430_000, 5 * S]], a: [] });
  };
  await onRecording(T0, moves, async (dir) => {
    const seen = async (poll: number): Promise<{ at: number; cancelling: number }[]> => {
      const bt = await bandsBacktest('poll.yaml', `fillPollMs: ${poll}`);
      const ticks: { at: number; cancelling: number }[] = [];
      const logged: StrategyModule<unknown> = {
        name: 'bands-seen',
        parseConfig: (raw, path) => bands.parseConfig(raw, path),
        quote: (view: MarketView, cfg) => {
          ticks.push({ at: view.now - T0, cancelling: view.quotes.filter((q) => q.state === 'cancelling').length });
          return bands.quote(view, cfg as Parameters<typeof bands.quote>[1]);
        },
      };
      const config = { ...bt.bot, markets: bt.bot.markets.map((m) => ({ ...m, strategy: { ...m.strategy, module: logged } })) };
      const run = await runBacktest({ source: loadReplaySource(dir), config, settings: bt.settings });
      assert.ok(run.exchange.placed >= 4, 'placed, then replaced both quotes');
      return ticks;
    };
    const polled = await seen(1000);
    // cancels answered at ~3.504 s; the next poll is at 4 s (+2 ms response)
    const before = polled.filter((t) => t.at > 3510 && t.at < 4000);
    assert.ok(
      before.length > 0 && before.every((t) => t.cancelling === 2),
      `until the poll the two cancelled quotes are still counted: ${JSON.stringify(before)}`,
    );
    const after = polled.filter((t) => t.at > 4010 && t.at < 9000);
    assert.ok(after.length > 0 && after.every((t) => t.cancelling === 0), `after the poll they are gone: ${JSON.stringify(after)}`);
    // without polling (the venue's answer carries everything at once) they leave at the cancel's answer
    const direct = (await seen(0)).filter((t) => t.at > 3510 && t.at < 9000);
    assert.ok(direct.length > 0 && direct.every((t) => t.cancelling === 0), JSON.stringify(direct));
  });
});
