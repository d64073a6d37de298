/**
 * Observations 1 and 2, over real HTTP against the local exchange:
 * 1. a key pair the venue refuses for every create (the private key of one wallet, the API key of
 *    another: 403 "orders may only be placed for this API key's wallet") is loud — a warn line with
 *    status, code and message, an error naming the cause and the fix —, /readyz says not ready, the
 *    metric carries the venue's code, and the bot halts with exit 4 (the CLI process too);
 * 2. a strategy that throws on every tick: its markets show strategy-error, /readyz answers 503
 *    with the reason once the grace has passed, and the log holds one line per market plus
 *    summaries, not one per tick.
 * On the code before the health model (1d73146) each fails: (1) nothing was logged, the label was "bad-request",
 * readiness stayed true and the bot ran on (exit 0 at stop); (2) /readyz stayed 200, there was no
 * health state nor strategy_errors_total, and every tick wrote a warning.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { createLogger } from '../../src/core/logger.ts';
import { cli, config, openOrders, exchangeForFile, setBook, startTestBot, waitFor, withTimeout, type Harness } from './harness.ts';
import { freePort } from '../support/net.ts';
import { withFailingStrategy } from '../support/failing-strategy.ts';

let h: Harness;
/** a wallet the venue has no API key for (like the admin wallet's key next to the maker's API key) */
const otherKey = `0x${randomBytes(32).toString('hex')}`;

exchangeForFile({}, (x) => {
  h = x;
});

/** JSON log lines written by the bot, parsed. */
function capture(): { logger: ReturnType<typeof createLogger>; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const logger = createLogger({ level: 'info', destination: { write: (s: string) => void lines.push(JSON.parse(s) as Record<string, unknown>) } });
  return { logger, lines };
}

test('observation 1: a key pair the venue refuses for every create is loud, not ready, and halts with exit 4', { timeout: 60_000 }, async () => {
  const { logger, lines } = capture();
  // a wallet's private key with the bot's API key: every create is for another wallet than the key's
  const bot = await startTestBot(h, await config(h), { logger, env: { BOOKMAKER_PRIVATE_KEY: otherKey } });
  let code: number;
  try {
    code = await withTimeout(bot.exit, 30_000, 'the bot did not halt by itself');
  } finally {
    await bot.stop();
  }
  assert.equal(code, 4, 'a refusal no create can get past exits 4');

  const warn = lines.find((l) => l.component === 'refusals' && l.level === 40);
  assert.ok(warn, 'the refusal is logged at warn');
  assert.equal(warn.status, 403);
  assert.equal(warn.code, 'FORBIDDEN');
  assert.match(String(warn.message), /only be placed for this API key's wallet/);
  const refusalLines = lines.filter((l) => l.component === 'refusals');
  assert.ok(refusalLines.length <= 2 * h.markets.length, `aggregated per market and code, not one line per order: ${refusalLines.length}`);

  const fatal = lines.find((l) => l.level === 60 && typeof l.fix === 'string');
  assert.ok(fatal, 'a fatal line names the fix');
  assert.match(String(fatal.cause), /another wallet/);
  assert.match(String(fatal.fix), /API key/);

  const r = bot.readyz();
  assert.equal(r.status, 503);
  assert.match(JSON.stringify(r.body.reasons), /process halted: .*another wallet/);
  for (const m of bot.healthModel.markets()) assert.equal(m.state, 'orders-refused');

  const text = await bot.metrics.registry.metrics();
  assert.match(text, /bookmaker_orders_rejected_total\{market="0x[0-9a-f]+",reason="FORBIDDEN"\} [1-9]/);
  assert.match(text, /bookmaker_ready 0/);
  assert.match(text, /bookmaker_halted 1/);
});

test("observation 1 as reported: `bookmaker sim --seed 5`, `run -c config/local.yaml` with the admin wallet's key and the maker's API key → exit 4, cause and fix", {
  timeout: 90_000,
}, async () => {
  const sim = cli(['sim', '--seed', '5', '--port', '0']);
  let bot: ReturnType<typeof cli> | null = null;
  try {
    await waitFor('the sim listening with its demo keys', () => /demo-key sim-demo-5-admin .* private-key 0x[0-9a-f]{64}/.test(sim.out()), 30_000);
    const baseUrl = /listening (\S+)/.exec(sim.out())![1]!;
    const adminKey = /demo-key sim-demo-5-admin .* private-key (0x[0-9a-f]{64})/.exec(sim.out())![1]!;
    bot = cli(['run', '-c', 'config/local.yaml', '--base-url', baseUrl, '--api-key', 'sim-demo-5-maker', '--metrics-port', '0', '--summary-seconds', '0'], {
      BOOKMAKER_PRIVATE_KEY: adminKey,
    });
    const code = await withTimeout(bot.exit, 45_000, 'the bot did not halt by itself');
    const out = bot.out();
    assert.equal(code, 4, out);
    assert.match(out, /"status":403,"code":"FORBIDDEN".*only be placed for this API key's wallet/);
    assert.match(out, /fix: use the API key issued for the signing wallet/);
    assert.match(out, /stopped \(exit\), exit 4/);
    assert.ok(!out.includes(adminKey.slice(2)), 'the private key never appears');
    const refusalLines = out.split('\n').filter((l) => l.includes('"component":"refusals"'));
    assert.ok(refusalLines.length >= 1 && refusalLines.length <= 8, `aggregated, not one line per order: ${refusalLines.length}`);
  } finally {
    bot?.proc.kill('SIGKILL');
    sim.proc.kill('SIGTERM');
    await withTimeout(sim.exit, 10_000, 'sim did not stop').catch(() => sim.proc.kill('SIGKILL'));
  }
});

test('observation 2: a strategy that throws on every tick → strategy-error, 503 after the grace, a few log lines', { timeout: 60_000 }, async () => {
  const { logger, lines } = capture();
  const base = await config(h, { orders: '' });
  const { cfg, failing } = withFailingStrategy(base, 1_500, { name: 'sometimes-throws', message: 'model blew up' });
  const port = await freePort();
  const bot = await startTestBot(h, cfg, { logger, metricsPort: port });
  try {
    await waitFor('quoting at the venue', async () => (await openOrders(h.bot)).length >= 4, 20_000);
    await waitFor('/readyz 200 with both markets quoting', async () => {
      const ok = await fetch(`${bot.metricsUrl}/readyz`);
      const okBody = (await ok.json()) as { markets: { state: string }[] };
      return ok.status === 200 && okBody.markets.every((m) => m.state === 'quoting');
    });

    failing.on = true;
    // book moves make the markets tick many times while the strategy throws
    for (let i = 0; i < 6; i++) {
      for (const m of h.markets) await setBook(h, m, 450_000 + (i % 3) * 10_000, 550_000 - (i % 3) * 10_000);
      await new Promise((r) => setTimeout(r, 150));
    }
    await waitFor('quotes pulled', async () => (await openOrders(h.bot)).length === 0, 15_000);
    let body: { ready: boolean; reasons: string[]; markets: { state: string }[] } | null = null;
    await waitFor('/readyz answers 503 with both markets in strategy-error', async () => {
      const r = await fetch(`${bot.metricsUrl}/readyz`);
      body = (await r.json()) as typeof body;
      return r.status === 503 && body!.markets.every((m) => m.state === 'strategy-error') && body!.reasons.length === 2;
    });
    assert.ok(body);
    const b = body as { ready: boolean; reasons: string[]; markets: { state: string }[] };
    assert.equal(b.ready, false);
    assert.deepEqual(
      b.markets.map((m) => m.state),
      ['strategy-error', 'strategy-error'],
    );
    assert.match(b.reasons.join('\n'), /strategy-error \(model blew up\)/);

    const text = await (await fetch(`${bot.metricsUrl}/metrics`)).text();
    const errors = [...text.matchAll(/^bookmaker_strategy_errors_total\{market="[^"]+"\} (\d+)/gm)].reduce((a, m) => a + Number(m[1]), 0);
    assert.ok(errors >= 8, `the strategy failed many times (${errors})`);
    assert.match(text, /bookmaker_market_state\{market="0x[0-9a-f]+",state="strategy-error"\} 1/);
    assert.match(text, /bookmaker_market_not_quoting_seconds\{market="0x[0-9a-f]+"\} [1-9]/);

    const strategyLines = lines.filter((l) => /strategy (failed|still failing)/.test(String(l.msg)));
    assert.ok(strategyLines.length >= h.markets.length, 'each market says its strategy failed');
    assert.ok(strategyLines.length <= 2 * h.markets.length, `a few lines, not one per tick: ${strategyLines.length} lines for ${errors} failures`);
    const first = strategyLines.find((l) => l.level === 50 && typeof l.stack === 'string');
    assert.ok(first, 'logged once at error with the stack');
    assert.match(String(first.stack), /model blew up/);
  } finally {
    const code = await bot.stop();
    assert.equal(code, 0);
  }
});
