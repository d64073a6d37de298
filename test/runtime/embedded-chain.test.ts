/**
 * The embedded local exchange verifies the chain of `venue.chain` (mainnet unless the config says
 * testnet), and the bot signs for it: both chains quote, and the markets report that chain's id.
 * (Before: the embedded exchange was testnet whatever the config said, while `bookmaker sim` and
 * `bookmaker sign` default to mainnet.)
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { silentLogger } from '../../src/core/logger.ts';
import { parseConfigText } from '../../src/config/load-config.ts';
import { MAINNET, TESTNET } from '../../src/exchange/chains.ts';
import { startBot } from '../../src/runtime/bot.ts';
import { embeddedYaml } from '../support/bot-yaml.ts';
import { waitFor } from '../e2e/harness.ts';

for (const [name, chain] of [
  ['mainnet', MAINNET],
  ['testnet', TESTNET],
] as const) {
  test(`venue.chain ${name} with venue.local: the embedded exchange verifies ${name} and the bot's orders are accepted`, { timeout: 60_000 }, async () => {
    const cfg = await parseConfigText(embeddedYaml({ local: '{ seed: 7, markets: 1, tick: 0.01 }', ...(name === 'testnet' ? { chain: 'testnet' } : {}) }), '', {
      env: {},
    });
    assert.equal(cfg.venue.chain, name);
    const bot = await startBot({ config: cfg, logger: silentLogger, metricsPort: 0, warmupMs: 3_000 });
    try {
      await waitFor('an order of the bot resting at the embedded exchange', () => bot.healthModel.markets().some((m) => m.state === 'quoting'), 30_000);
      const markets = (await (await fetch(`${bot.baseUrl}/markets`)).json()) as { markets: { chainId: string }[] };
      assert.ok(markets.markets.length > 0);
      for (const m of markets.markets) assert.equal(m.chainId, String(chain.chainId));
    } finally {
      assert.equal(await bot.stop(), 0);
    }
  });
}
