/**
 * The figures doctor shows and the bot shows come from one function each and agree: the wallet's free
 * collateral (freeCollateral: doctor's collateral check and the bot's state/summary) and the markets
 * inside the deadline guard (insideDeadlineGuard: doctor's markets check and the bot's market-paused
 * state). In-process local exchange over real HTTP (test/e2e/harness.ts).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { usdcText } from '../../src/doctor/check.ts';
import { runDoctor } from '../../src/doctor/run-doctor.ts';
import { BOT_KEY, config, setBook, startExchange, startTestBot, waitFor } from '../e2e/harness.ts';

test('doctor and the bot agree on the free collateral and on the markets inside the deadline guard', { timeout: 90_000 }, async () => {
  const h = await startExchange({ markets: 2 });
  try {
    await setBook(h, h.markets[0]!, 480_000, 520_000);
    // the generated markets end in 30 days: a 40-day guard puts the first one inside it
    const risk = '    maxPosition: 100\n    maxNotional: 100\n    maxOrderSize: 50\n    maxBookAgeSeconds: 30\n    maxStreamSilenceSeconds: 3';
    const cfg = await config(h, {
      markets: `  - id: "${h.markets[0]}"\n    risk:\n      pauseBeforeDeadlineSeconds: 3456000\n  - id: "${h.markets[1]}"`,
      risk,
    });
    const env = { BOOKMAKER_PRIVATE_KEY: h.bot.privateKey, BOOKMAKER_API_KEY: BOT_KEY };
    const r = await runDoctor({ config: { ...cfg, ledger: { ...cfg.ledger, path: ':memory:' } }, env, metricsPort: 0 });
    const by = new Map(r.checks.map((c) => [c.name, c]));
    assert.match(by.get('markets')!.detail, /^2 selected: 1 active and quotable, 1 inside the deadline guard/);

    const bot = await startTestBot(h, cfg);
    try {
      await waitFor('the bot read its balance', () => bot.store.state.collateral !== null, 20_000);
      const collateral = bot.store.state.collateral!;
      assert.match(by.get('collateral')!.detail, new RegExp(`^${usdcText(collateral).replace('.', '\\.')} USDC free;`));
      await waitFor(
        'the first market paused before its deadline',
        () => {
          bot.healthModel.evaluate();
          return bot.healthModel.marketState(h.markets[0]!) === 'market-paused';
        },
        20_000,
      );
      bot.healthModel.evaluate();
      assert.notEqual(bot.healthModel.marketState(h.markets[1]!), 'market-paused');
    } finally {
      await bot.stop();
    }
  } finally {
    await h.close();
  }
});
