/**
 * Secrets never leave their box (docs/architecture.md#habits (habit 10)): a full short bot session with known key
 * material — `bookmaker run` against a local exchange at debug log level, its /metrics, /healthz and
 * /readyz bodies, a `bookmaker record` session and its recording files, and a chaos soak's report and
 * bot logs — then every byte is searched for the private key and the API key, with and without 0x, in
 * lower, upper and the given mixed case.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { createLocalExchange, type LocalExchange } from '../../src/sim/local-exchange.ts';
import { startCounterparties, type Counterparties } from '../../src/sim/counterparties.ts';
import { createSigner } from '../../src/exchange/signing/signer.ts';
import { TESTNET } from '../../src/exchange/chains.ts';
import { chaosKeys, runChaos } from '../../src/chaos/run-chaos.ts';
import { chaosReportJson, formatChaosReport } from '../../src/chaos/chaos-report.ts';
import { freePort } from '../support/net.ts';
import { cliArgs } from '../support/cli.ts';

// known key material: a mixed-case private key given without 0x, and an API key
const KEY_HEX = '5ec0e0' + '0123456789abcdef'.repeat(3) + 'AbCdEf0123';
const API_KEY = 'sk-live-SECRET-api-key-7f3a9c';

let dir: string;
let ex: LocalExchange;
let agents: Counterparties;
let base: string;
/** the chaos soak of the last test, started in before(): it runs alongside the CLI tests (its own exchange and bots) */
let chaos: Promise<Awaited<ReturnType<typeof runChaos>>>;

const VARIANTS = [
  KEY_HEX,
  KEY_HEX.toLowerCase(),
  KEY_HEX.toUpperCase(),
  `0x${KEY_HEX.toLowerCase()}`,
  `0X${KEY_HEX.toUpperCase()}`,
  API_KEY,
  API_KEY.toLowerCase(),
  API_KEY.toUpperCase(),
];

/** Every variant of every secret that occurs in `text`. */
function leaks(text: string): string[] {
  const lower = text.toLowerCase();
  return VARIANTS.filter((v) => lower.includes(v.toLowerCase().replace(/^0x/, '')));
}

/** Deadlines that only stop a hang: a busy machine starts a bot slowly. */
const HANG_MS = 120_000;

/** Waits (no time assertion: only a hang guard) until `cond()`. */
async function until(what: string, cond: () => boolean | Promise<boolean>): Promise<void> {
  for (const giveUp = Date.now() + HANG_MS; !(await cond()); await new Promise((res) => setTimeout(res, 250)))
    if (Date.now() > giveUp) throw new Error(`timed out waiting for ${what}`);
}

/**
 * The CLI in a child process; `whileRunning` gets its stdout so far and a `stop()` that sends it SIGTERM (also sent
 * when `whileRunning` fails, so the child ends and the test reports what was missing).
 */
function runCli(
  args: string[],
  env: NodeJS.ProcessEnv,
  whileRunning?: (stdout: () => string, stop: () => void) => Promise<void>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, cliArgs(args), { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const stop = () => void child.kill('SIGTERM');
    const side = whileRunning ? whileRunning(() => stdout, stop).catch(stop) : Promise.resolve();
    child.on('exit', async (code) => {
      await side;
      resolve({ code, stdout, stderr });
    });
  });
}

/** Every file under `root`, gunzipped when compressed. */
function allFileText(root: string): string {
  let out = '';
  for (const name of readdirSync(root, { recursive: true }) as string[]) {
    const p = join(root, name);
    if (!statSync(p).isFile()) continue;
    const buf = readFileSync(p);
    out += `\n--- ${name}\n` + (name.endsWith('.gz') ? gunzipSync(buf, { finishFlush: 2 }).toString('utf8') : buf.toString('utf8'));
  }
  return out;
}

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'bm-secrets-'));
  const trader = createSigner({ privateKey: `0x${KEY_HEX.toLowerCase()}`, chain: TESTNET }).address;
  ex = createLocalExchange({ seed: 9, markets: 2, apiKeys: [{ key: API_KEY, wallet: trader }], chain: TESTNET, heartbeatMs: 1_000 });
  base = await ex.start(0);
  agents = startCounterparties(ex, { seed: 9, newMarketEveryMs: 0 });
  chaos = runChaos({ durationMs: 15_000, profile: 'flaky', seed: 11, workDir: join(dir, 'chaos') });
  chaos.catch(() => undefined); // awaited (and reported) by its test
  writeFileSync(
    join(dir, 'bot.yaml'),
    [
      'venue:',
      '  chain: testnet',
      '  local: {}',
      'markets:',
      '  - all: true',
      'defaults:',
      '  strategy: { name: bands, params: { bands: [{ minMargin: 0.01, targetMargin: 0.02, maxMargin: 0.03, size: 5 }] } }',
      'logging:',
      '  level: debug',
      '',
    ].join('\n'),
  );
});
after(async () => {
  await chaos?.catch(() => undefined);
  agents.stop();
  await ex.close();
  rmSync(dir, { recursive: true, force: true });
});

test('the search finds every variant (so an empty result means something)', () => {
  assert.equal(leaks(`log line ${KEY_HEX.toUpperCase()} end`).length, VARIANTS.length - 3);
  assert.ok(leaks(`{"k":"0x${KEY_HEX.toLowerCase()}"}`).length > 0);
  assert.ok(leaks(`Bearer ${API_KEY}`).length > 0);
  assert.deepEqual(leaks('nothing secret here'), []);
});

test('bookmaker run at debug level: stdout, stderr, /metrics, /healthz, /readyz carry no key material', { timeout: 5 * HANG_MS }, async () => {
  const port = await freePort();
  const bodies: string[] = [];
  const r = await runCli(
    [
      'run',
      '-c',
      join(dir, 'bot.yaml'),
      '--base-url',
      base,
      '--api-key',
      API_KEY,
      // a hang guard: the test stops the bot once it has quoted and its endpoints were scraped (--duration counts
      // from the first millisecond, so a fixed one could end a busy machine's start-up before the scrape)
      '--duration',
      '600',
      '--metrics-port',
      String(port),
      '--log-level',
      'debug',
      '--summary-seconds',
      '1',
    ],
    { BOOKMAKER_PRIVATE_KEY: KEY_HEX },
    async (stdout, stop) => {
      // scrape while quoting: /metrics answers 503 "starting" until the bot is up, which on a loaded machine may
      // take longer than any fixed wait; so it is asked until it answers 200, then all three
      await until('the metrics line', () => /metrics: http/.test(stdout()));
      await until('/metrics 200', async () => {
        const res = await fetch(`http://127.0.0.1:${port}/metrics`).catch(() => null);
        await res?.text();
        return res?.status === 200;
      });
      // a summary with orders: the bot has quoted (its debug logs include the orders' whole life)
      await until('a summary with orders', () => /\| orders [1-9]\d* fills/.test(stdout()));
      for (const path of ['/metrics', '/healthz', '/readyz']) {
        const res = await fetch(`http://127.0.0.1:${port}${path}`);
        bodies.push(`${path} ${res.status}\n${await res.text()}`);
      }
      stop();
    },
  );
  assert.equal(r.code, 0, r.stderr.slice(-2000));
  assert.match(r.stdout, new RegExp(`metrics: http://127\\.0\\.0\\.1:${port}/metrics`), 'metrics bound to 127.0.0.1');
  assert.equal(bodies.length, 3, 'all three endpoints answered');
  assert.match(bodies[0]!, /^\/metrics 200/);
  assert.ok(r.stderr.length > 1000, 'debug logs were written (the search is not vacuous)');
  assert.deepEqual(leaks(r.stdout), [], 'stdout');
  assert.deepEqual(leaks(r.stderr), [], 'stderr (logs)');
  assert.deepEqual(leaks(bodies.join('\n')), [], 'metrics endpoint bodies');
});

test('bookmaker record: output and every recording file carry no key material', { timeout: 5 * HANG_MS }, async () => {
  const out = join(dir, 'rec');
  const r = await runCli(['record', '-c', join(dir, 'bot.yaml'), '--base-url', base, '--api-key', API_KEY, '--out', out, '--duration', '4'], {
    BOOKMAKER_PRIVATE_KEY: KEY_HEX,
  });
  assert.equal(r.code, 0, r.stderr.slice(-2000));
  const files = allFileText(out);
  assert.ok(files.includes('manifest.json'), 'a recording was written');
  assert.deepEqual(leaks(r.stdout + r.stderr), [], 'record output');
  assert.deepEqual(leaks(files), [], 'recording files');
});

test('a failing start (bad key) names the source, never the value', { timeout: 5 * HANG_MS }, async () => {
  // no metrics port (the default one may be another process's on a shared machine), and a --duration that is a
  // hang guard only: it counts from the first millisecond, so a short one could end a busy machine's start-up first
  const args = ['run', '-c', join(dir, 'bot.yaml'), '--base-url', base, '--api-key', API_KEY, '--metrics-port', '0', '--duration', '120'];
  const r = await runCli(args, {
    BOOKMAKER_PRIVATE_KEY: KEY_HEX.slice(0, 60) + 'zz',
  });
  assert.notEqual(r.code, 0);
  assert.match(r.stderr, /BOOKMAKER_PRIVATE_KEY/);
  assert.deepEqual(leaks(r.stdout + r.stderr), []);
  assert.ok(!r.stderr.includes(KEY_HEX.slice(0, 60).toLowerCase()), 'not even the malformed value');
});

test('chaos soak: report (table and JSON) and both bot logs carry no key material', { timeout: 5 * HANG_MS }, async () => {
  const work = join(dir, 'chaos');
  const report = await chaos;
  const keys = chaosKeys(11);
  const text = formatChaosReport(report) + chaosReportJson(report) + allFileText(work);
  assert.ok(report.logFiles.length === 2 && text.length > 1000);
  for (const v of [keys.privateKey, keys.privateKey.slice(2), keys.privateKey.slice(2).toUpperCase(), keys.apiKey]) {
    assert.ok(!text.toLowerCase().includes(v.toLowerCase()), `chaos outputs contain ${v.slice(0, 6)}…`);
  }
});
