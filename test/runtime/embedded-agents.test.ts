/**
 * The embedded local exchange of `npm start` runs the counterparties `venue.local.agents` asks for
 * (before, it took `makers` only and ran the agents' default takers whatever the config said).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { silentLogger } from '../../src/core/logger.ts';
import { parseConfigText } from '../../src/config/load-config.ts';
import { startBot } from '../../src/runtime/bot.ts';
import { embeddedYaml } from '../support/bot-yaml.ts';

test("venue.local.agents reach the embedded exchange's counterparties", { timeout: 60_000 }, async () => {
  const cfg = await parseConfigText(
    embeddedYaml({ local: '{ seed: 7, markets: 1, tick: 0.01, agents: { noiseTakers: 1, informedTakers: 3, makers: 0, takerRatePerSecond: 2 } }' }),
    '',
    { env: {} },
  );
  const bot = await startBot({ config: cfg, logger: silentLogger, metricsPort: 0, warmupMs: 3_000 });
  try {
    assert.deepEqual(bot.localAgents?.settings, { otherMakers: 0, noiseRatePerSec: 0.5, informedRatePerSec: 1.5 });
  } finally {
    assert.equal(await bot.stop(), 0);
  }
});
