/**
 * The bot child keeps the bot's exit codes at start-up (src/runtime/startup-exit.ts): a venue that stays
 * unreachable past the start-up deadline exits 8, as `bookmaker run` does (docs/reference/exit-codes.md),
 * not 2 (bad input), which stays for a config the bot cannot load.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { spawnBot, type BotProcess } from '../../src/chaos/bot-process.ts';
import { chaosConfigYaml } from '../../src/chaos/chaos-config.ts';
import type { ChildMessage } from '../../src/chaos/child-messages.ts';
import { startupExitCode } from '../../src/runtime/startup-exit.ts';
import { chaosKeys } from '../../src/chaos/run-chaos.ts';
import { VenueError } from '../../src/exchange/client/errors.ts';
import { BadInputError, ConfigError } from '../../src/model/errors.ts';
import { StartupAbortedError, VenueUnreachableError } from '../../src/runtime/startup-retry.ts';
import { WalletSharedError } from '../../src/runtime/wallet-watch.ts';

/**
 * A venue that is down: every request answered 503. (A port bound and closed again raced the suite's other
 * servers: in CI a sim took the port meanwhile and answered 404, and the child exited 1.)
 */
async function downVenue(): Promise<{ url: string; close: () => Promise<void> }> {
  const s = createServer((_req, res) => {
    res.writeHead(503, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: { code: 'UNAVAILABLE', message: 'down for the test' } }));
  });
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((r) => {
        s.closeAllConnections();
        s.close(() => r());
      }),
  };
}

/** the child run against a base URL and config, until it exits before ready (or is ready: then stopped) */
async function childExit(
  dir: string,
  config: string,
  baseUrl: string,
  env: NodeJS.ProcessEnv,
): Promise<{ code: number | null; stopped: number[]; error: string }> {
  const configPath = join(dir, 'bot.yaml');
  writeFileSync(configPath, config);
  const stopped: number[] = [];
  const onMessage = (m: ChildMessage): void => {
    if (m.type === 'stopped') stopped.push(m.code);
  };
  let p: BotProcess | null = null;
  try {
    // a hang guard only: the child's ready timeout SIGKILLs it
    p = await spawnBot({ configPath, baseUrl, env: { ...process.env, ...env }, logFile: join(dir, 'bot.log'), onMessage, readyTimeoutMs: 240_000 });
    return { code: null, stopped, error: 'the bot became ready' };
  } catch (e) {
    const msg = (e as Error).message;
    const m = /exited before ready \(code (\d+|null)/.exec(msg);
    return { code: m && m[1] !== 'null' ? Number(m[1]) : null, stopped, error: msg };
  } finally {
    if (p) {
      p.kill9();
      await p.exited;
    }
  }
}

test('a venue unreachable past the start-up deadline: the child exits 8 and reports it, as bookmaker run', { timeout: 300_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'bm-bot-child-'));
  const venue = await downVenue();
  try {
    const keys = chaosKeys(11);
    const timing = { maxSilenceSeconds: 4, streamIdleSeconds: 10, reconcileSeconds: 5 };
    const r = await childExit(dir, chaosConfigYaml(timing), venue.url, {
      BOOKMAKER_PRIVATE_KEY: keys.privateKey,
      BOOKMAKER_API_KEY: keys.apiKey,
      BOOKMAKER_CHAOS_STARTUP_DEADLINE_MS: '2000',
      BOOKMAKER_LOG_LEVEL: 'warn',
    });
    assert.equal(r.code, 8, r.error);
    assert.deepEqual(r.stopped, [8], r.error);
    assert.match(r.error, /did not answer/);
    // a config the bot cannot load is still bad input: 2
    const bad = await childExit(dir, 'venue: [not, a, map]\n', 'http://127.0.0.1:1', {});
    assert.equal(bad.code, 2, bad.error);
    assert.deepEqual(bad.stopped, [2], bad.error);
  } finally {
    await venue.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test("start-up errors map to bookmaker run's exit codes", () => {
  assert.equal(startupExitCode(new VenueUnreachableError('markets', 3, 2_000, new Error('ECONNREFUSED'), 'network')), 8);
  assert.equal(startupExitCode(new StartupAbortedError('SIGTERM')), 0);
  assert.equal(startupExitCode(new ConfigError('bad config')), 2);
  assert.equal(startupExitCode(new BadInputError('x', 'y', 'z')), 2);
  const venue = (status: number) => new VenueError({ status, venueCode: null, message: 'no', endpoint: 'GET /balance', retryAfterMs: null, body: null });
  assert.equal(startupExitCode(venue(401)), 4);
  assert.equal(startupExitCode(venue(403)), 4);
  assert.equal(startupExitCode(venue(400)), 1);
  assert.equal(startupExitCode(new WalletSharedError('another trader', { orders: 1, markets: 1, tags: [] } as never)), 7);
  assert.equal(startupExitCode(new Error('boom')), 1);
});
