/**
 * A bot restarted into a venue that rate-limits: its start-up reads (the ledger's catch-up, GET /orders)
 * get 429 with Retry-After. The bot keeps trying with growing pauses, says on /readyz (503) and in its log
 * what it waits for, and quotes once the venue answers; a venue that still rate-limits at the start-up
 * deadline ends it with exit 8 (venue unreachable), not 2 (config) nor 1 (unexpected). Before: the catch-up
 * gave up after the client's few retries and `run` exited 1 with the raw 429 within seconds.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { EXIT_VENUE_UNREACHABLE } from '../../src/runtime/exit-codes.ts';
import { freePort } from '../support/net.ts';
import { rateLimitProxy, type RateLimitProxy } from '../support/rate-limit-proxy.ts';
import { bandsDefaultsYaml, venueYaml } from '../support/bot-yaml.ts';
import { cli, waitFor, withTimeout, type Child } from './harness.ts';
import { startSimProcess, type SimProcess } from './sim-process.ts';

let sim: SimProcess;
let dir: string;
before(async () => {
  sim = await startSimProcess(23);
  dir = mkdtempSync(join(tmpdir(), 'bookmaker-e2e-'));
});
after(async () => {
  await sim?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** A bot config on the venue at `baseUrl`, metrics on `metricsPort`, a ledger file of its own. */
function botConfig(name: string, baseUrl: string, metricsPort: number): string {
  const file = join(dir, `${name}.yaml`);
  writeFileSync(
    file,
    `${venueYaml(baseUrl)}${bandsDefaultsYaml([{ minMargin: 0.01, targetMargin: 0.02, maxMargin: 0.03, size: 10 }], 'mid')}  risk: { maxPosition: 100, maxNotional: 100, maxBookAgeSeconds: 60, maxStreamSilenceSeconds: 30 }
markets: all
metrics:
  port: ${metricsPort}
ledger:
  path: ${join(dir, `${name}.sqlite`)}
`,
  );
  return file;
}

const ordersRead = (r: { method: string; path: string }): boolean => r.method === 'GET' && /\/orders(\?|$)/.test(r.path);

test('restarted into a 429 burst: not ready with the reason meanwhile, quotes once the venue answers', { timeout: 150_000 }, async () => {
  let limiting = true;
  const proxy: RateLimitProxy = await rateLimitProxy(sim.baseUrl, (r) => limiting && ordersRead(r));
  const port = await freePort();
  const file = botConfig('burst', proxy.baseUrl, port);
  const bot: Child = cli(['run', '-c', file, '--summary-seconds', '0', '--log-level', 'info'], {
    BOOKMAKER_API_KEY: sim.key,
    BOOKMAKER_PRIVATE_KEY: sim.privateKey,
  });
  try {
    // /readyz while it waits: 503, starting, with the 429 it waits out (the watchdog's thread owns the port)
    let ready: { status: number; body: Record<string, unknown> } | null = null;
    await waitFor(
      '/readyz names the 429 start-up waits for',
      async () => {
        if (bot.proc.exitCode !== null) throw new Error(`the bot exited ${bot.proc.exitCode} while the venue rate-limited:\n${bot.out().slice(-3000)}`);
        const r = await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => null);
        if (!r) return false;
        ready = { status: r.status, body: (await r.json()) as Record<string, unknown> };
        return (ready.body.waitingFor as { status?: number } | undefined)?.status === 429;
      },
      90_000,
    );
    const seen = ready as unknown as {
      status: number;
      body: { starting: boolean; phase: string; waitingFor: Record<string, unknown>; givesUpInSeconds: number };
    };
    assert.equal(seen.status, 503);
    assert.equal(seen.body.starting, true);
    assert.equal(seen.body.phase, 'ledger');
    assert.equal(seen.body.waitingFor.endpoint, 'GET /orders');
    assert.equal(seen.body.waitingFor.reason, 'rate-limited');
    assert.ok(seen.body.givesUpInSeconds > 0 && seen.body.givesUpInSeconds <= 300, JSON.stringify(seen.body));
    assert.match(
      bot.out(),
      /start-up step failed transiently; retrying: waiting for the venue \(ledger catch-up \(the venue's orders\): rate-limited 429 GET \/orders\)/,
    );
    // the venue answers again: the bot quotes
    limiting = false;
    await waitFor('the bot quotes', () => /"msg":"quoting"/.test(bot.out()), 60_000);
    assert.match(bot.out(), /start-up step passed: the venue answers again/);
    assert.ok(proxy.limited >= 2, `429s answered: ${proxy.limited}`);
    bot.proc.kill('SIGTERM');
    assert.equal(await withTimeout(bot.exit, 60_000, 'no exit after SIGTERM'), 0, bot.out().slice(-3000));
  } finally {
    bot.proc.kill('SIGKILL');
    await proxy.close();
  }
});

test('a venue that rate-limits past the start-up deadline: exit 8 with the reason, never 2', { timeout: 150_000 }, async () => {
  const proxy = await rateLimitProxy(sim.baseUrl, ordersRead);
  const port = await freePort();
  const file = botConfig('deadline', proxy.baseUrl, port);
  const bot = cli(['run', '-c', file, '--summary-seconds', '0', '--startup-deadline', '8s'], {
    BOOKMAKER_API_KEY: sim.key,
    BOOKMAKER_PRIVATE_KEY: sim.privateKey,
  });
  try {
    const code = await withTimeout(bot.exit, 120_000, 'the bot did not give up by itself');
    const out = bot.out();
    assert.equal(code, EXIT_VENUE_UNREACHABLE, out.slice(-3000));
    assert.equal(EXIT_VENUE_UNREACHABLE, 8);
    assert.match(out, /giving up at start-up, nothing quoted: the venue kept failing transiently until the start-up deadline \(8 s, --startup-deadline\)/);
    assert.match(out, /last: rate-limited: GET \/orders: HTTP 429 rate_limited/);
    assert.match(out, /Exit 8/);
    assert.doesNotMatch(out, /"msg":"quoting"/);
    assert.ok(!out.includes(sim.privateKey.slice(2)), 'no private key in the output');
  } finally {
    bot.proc.kill('SIGKILL');
    await proxy.close();
  }
});
