/**
 * Observation 4: signals and --duration during start-up retries. The venue is unreachable
 * (nothing listens on the port), so market selection retries with growing pauses for up to two
 * minutes. SIGTERM and --duration must stop the bot at once (exit 0, long before that schedule
 * would end), and every retry warning must carry the error itself (code, endpoint, message).
 * Assertions are on outcomes; the 20 s bound is a generous "not the two-minute schedule".
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { cli, waitFor, withTimeout } from './harness.ts';
import { freePort } from './sim-process.ts';

let dir: string;
let file: string;
const KEY = '0x' + '11'.repeat(32);

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'bookmaker-startup-'));
  file = join(dir, 'bot.yaml');
  // a port that was free a moment ago: connections are refused (a venue that is down)
  const dead = await freePort();
  writeFileSync(
    file,
    `venue:
  chain: testnet
  baseUrl: http://127.0.0.1:${dead}/v2
defaults:
  strategy: { name: bands, params: { fair: mid, bands: [{ minMargin: 0.01, targetMargin: 0.02, maxMargin: 0.03, size: 10 }] } }
  risk: { maxPosition: 100, maxNotional: 100 }
markets: all
metrics:
  port: 0
`,
  );
});
after(() => rmSync(dir, { recursive: true, force: true }));

const args = (): string[] => ['run', '-c', file, '--api-key', 'k-startup-test', '--log-level', 'warn', '--summary-seconds', '0'];
const retryLine = /start-up step failed transiently; retrying/;

test('SIGTERM during start-up retries stops the bot at once with exit 0; the warning names the error', async () => {
  const c = cli(args(), { BOOKMAKER_PRIVATE_KEY: KEY });
  try {
    await waitFor('a start-up retry warning', () => retryLine.test(c.out()), 30_000);
    const warn = c
      .out()
      .split('\n')
      .find((l) => retryLine.test(l))!;
    const rec = JSON.parse(warn) as Record<string, unknown>;
    assert.equal(rec.step, 'select markets');
    assert.equal(rec.code, 'ECONNREFUSED', warn);
    assert.equal(rec.endpoint, 'GET /markets', warn);
    assert.match(String(rec.message), /ECONNREFUSED|network error/, warn);
    c.proc.kill('SIGTERM');
    const code = await withTimeout(c.exit, 20_000, `SIGTERM ignored during start-up retries:\n${c.out()}`);
    assert.equal(code, 0, c.out());
    assert.match(c.out(), /stopped during start-up \(SIGTERM\), exit 0/);
    assert.ok(!c.out().includes(KEY.slice(2)), 'the key never appears');
  } finally {
    c.proc.kill('SIGKILL');
  }
});

test('--duration counts from the start: it ends start-up retries too', async () => {
  const c = cli([...args(), '--duration', '3'], { BOOKMAKER_PRIVATE_KEY: KEY });
  try {
    const code = await withTimeout(c.exit, 25_000, `--duration ignored during start-up retries:\n${c.out()}`);
    assert.equal(code, 0, c.out());
    assert.match(c.out(), /stopped during start-up \(duration\), exit 0/);
  } finally {
    c.proc.kill('SIGKILL');
  }
});
