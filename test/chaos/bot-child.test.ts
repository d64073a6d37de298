/**
 * The bot child keeps the bot's exit codes at start-up (src/runtime/startup-exit.ts): a venue that stays
 * unreachable past the start-up deadline exits 8, as `bookmaker run` does (docs/reference/exit-codes.md),
 * not 2 (bad input), which stays for a config the bot cannot load.
 */
import assert from 'node:assert/strict';
import { fork, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { connect, createServer as createTcpServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
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
import { TESTNET } from '../../src/exchange/chains.ts';
import { ledgerLockHolder } from '../../src/ledger/ledger-lock.ts';
import { startCounterparties } from '../../src/sim/counterparties.ts';
import { createLocalExchange } from '../../src/sim/local-exchange.ts';
import { DEMO_MARKETS } from '../../src/sim/market-factory.ts';

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

/** Is the process alive? */
const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** Wait until `done()` or `ms` (a hang guard, not a timing claim); whether it came. */
async function waitFor(done: () => boolean, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (!done() && Date.now() < end) await new Promise((r) => setTimeout(r, 100));
  return done();
}

test('the orchestrator killed -9 during the bot child start-up: the child stops by itself, leaves no order and frees its ledger', {
  timeout: 240_000,
}, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'bm-bot-orphan-'));
  const keys = chaosKeys(12);
  const ex = createLocalExchange({
    seed: 12,
    markets: DEMO_MARKETS.slice(0, 2),
    apiKeys: [{ key: keys.apiKey, wallet: keys.address }],
    heartbeatMs: 1_000,
    chain: TESTNET,
  });
  const agents = startCounterparties(ex, { seed: 12, otherMakers: 1 });
  let orchestrator: ChildProcess | null = null;
  let pid = 0;
  try {
    const baseUrl = await ex.start(0);
    const ledger = join(dir, 'bot.ledger.sqlite');
    const configPath = join(dir, 'bot.yaml');
    writeFileSync(configPath, chaosConfigYaml({ maxSilenceSeconds: 4, streamIdleSeconds: 10, reconcileSeconds: 5 }, ledger));
    const env = { ...process.env, BOOKMAKER_PRIVATE_KEY: keys.privateKey, BOOKMAKER_API_KEY: keys.apiKey, BOOKMAKER_LOG_LEVEL: 'warn' };
    const o = fork(fileURLToPath(new URL('../support/bot-orchestrator.ts', import.meta.url)), [configPath, baseUrl, join(dir, 'bot.log')], {
      execArgv: ['--import', 'tsx'],
      env,
    });
    orchestrator = o;
    o.on('message', (m: { type: string; pid?: number }) => {
      if (m.type === 'pid') pid = m.pid!;
    });
    assert.ok(await waitFor(() => pid > 0, 60_000), 'the orchestrator started the child');
    // the child is loading or starting up: the orchestrator dies (and with it the child's IPC channel)
    o.kill('SIGKILL');
    const gone = await waitFor(() => !alive(pid), 120_000);
    assert.ok(gone, 'the child stopped by itself (old code: it went on starting, then quoted unwatched)');
    const mine = [...ex.state.stores.orders].filter((x) => x.status === 'open' && x.trader.toLowerCase() === keys.address.toLowerCase());
    assert.equal(mine.length, 0, 'no order of the bot left open');
    assert.equal(ledgerLockHolder(ledger), null, 'its ledger is free for the next bot');
  } finally {
    orchestrator?.kill('SIGKILL');
    if (pid > 0 && alive(pid)) process.kill(pid, 'SIGKILL');
    agents.stop();
    await ex.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

/**
 * A TCP proxy in front of a venue that can stop passing bytes (`hold`): every request then waits for
 * an answer that never comes, as from a venue gone silent.
 */
async function holdingProxy(target: string): Promise<{ url: string; hold: () => void; close: () => Promise<void> }> {
  const to = new URL(target);
  const sockets = new Set<Socket>();
  let held = false;
  const server = createTcpServer((down) => {
    const up = connect(Number(to.port), to.hostname);
    for (const s of [down, up]) {
      sockets.add(s);
      s.on('error', () => s.destroy());
      s.on('close', () => sockets.delete(s));
    }
    down.on('data', (b) => void (held || up.write(b)));
    up.on('data', (b) => void (held || down.write(b)));
    down.on('close', () => up.destroy());
    up.on('close', () => down.destroy());
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}${to.pathname === '/' ? '' : to.pathname}`,
    hold: () => void (held = true),
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}

test('the orchestrator killed -9 while the child stops against a venue that no longer answers: the child still exits, within its bound', {
  timeout: 240_000,
}, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'bm-bot-orphan-'));
  const keys = chaosKeys(13);
  const ex = createLocalExchange({
    seed: 13,
    markets: DEMO_MARKETS.slice(0, 2),
    apiKeys: [{ key: keys.apiKey, wallet: keys.address }],
    heartbeatMs: 1_000,
    chain: TESTNET,
  });
  const agents = startCounterparties(ex, { seed: 13, otherMakers: 1 });
  let proxy: Awaited<ReturnType<typeof holdingProxy>> | null = null;
  let orchestrator: ChildProcess | null = null;
  let pid = 0;
  let ready = false;
  try {
    proxy = await holdingProxy(await ex.start(0));
    const configPath = join(dir, 'bot.yaml');
    writeFileSync(configPath, chaosConfigYaml({ maxSilenceSeconds: 4, streamIdleSeconds: 10, reconcileSeconds: 5 }, join(dir, 'bot.ledger.sqlite')));
    const env = { ...process.env, BOOKMAKER_PRIVATE_KEY: keys.privateKey, BOOKMAKER_API_KEY: keys.apiKey, BOOKMAKER_LOG_LEVEL: 'warn' };
    const o = fork(fileURLToPath(new URL('../support/bot-orchestrator.ts', import.meta.url)), [configPath, proxy.url, join(dir, 'bot.log')], {
      execArgv: ['--import', 'tsx'],
      env,
    });
    orchestrator = o;
    o.on('message', (m: { type: string; pid?: number; m?: ChildMessage }) => {
      if (m.type === 'pid') pid = m.pid!;
      if (m.type === 'child' && m.m?.type === 'ready') ready = true;
    });
    assert.ok(await waitFor(() => ready, 180_000), 'the child became ready');
    // the venue goes silent, the orchestrator asks the child to stop and dies: nobody waits for the child now
    proxy.hold();
    o.send({ type: 'term' });
    await new Promise((r) => setTimeout(r, 200));
    o.kill('SIGKILL');
    // a hang guard: the child's own bound is 10 s; its cancel-all alone would wait out 5 rounds of 10 s timeouts
    const gone = await waitFor(() => !alive(pid), 40_000);
    assert.ok(gone, 'the child exited (old code: still retrying its cancel-all against the silent venue)');
  } finally {
    orchestrator?.kill('SIGKILL');
    if (pid > 0 && alive(pid)) process.kill(pid, 'SIGKILL');
    agents.stop();
    await proxy?.close();
    await ex.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
