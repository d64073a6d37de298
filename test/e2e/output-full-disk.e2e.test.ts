/**
 * Logs and summaries on a full disk (`2>>bot.log` on a volume that filled up): a log line that cannot be
 * written is dropped and counted, and the bot goes on and stops as it should (cancel all, its own exit
 * code). Before, the first failed write (ENOSPC) ended the process at once with exit 1, mid-run, its
 * orders left resting. /dev/full stands for the full disk: every write to it fails with ENOSPC, and Node
 * writes it as it writes a file. Run on the `npm start` demo (embedded local exchange).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { closeSync, existsSync, openSync } from 'node:fs';
import { test } from 'node:test';
import { cliArgs } from '../support/cli.ts';
import { freePort } from '../support/net.ts';
import { metricValue, waitFor, withTimeout } from './harness.ts';

const ROOT = new URL('../../', import.meta.url).pathname;
const full = existsSync('/dev/full');

/** The demo with one of its streams on /dev/full and the other on a pipe, read into `text()`. */
function demoWithFull(which: 'stdout' | 'stderr', port: number) {
  const fd = openSync('/dev/full', 'w');
  const args = ['run', '-c', 'config/local.yaml', '--metrics-port', String(port), '--summary-seconds', '0', '--log-level', 'info'];
  const proc = spawn(process.execPath, cliArgs(args), {
    cwd: ROOT,
    env: { ...process.env, BOOKMAKER_PRIVATE_KEY: '', BOOKMAKER_LOG_PRETTY: 'false' },
    stdio: ['ignore', which === 'stdout' ? fd : 'pipe', which === 'stderr' ? fd : 'pipe'],
  });
  closeSync(fd);
  let text = '';
  (which === 'stdout' ? proc.stderr : proc.stdout)!.on('data', (b: Buffer) => (text += b.toString()));
  const exit = new Promise<number | null>((r) => proc.on('exit', (code) => r(code)));
  let exited = false;
  void exit.then(() => (exited = true));
  return { proc, text: () => text, exit, exited: () => exited };
}

for (const which of ['stderr', 'stdout'] as const) {
  test(`${which} on a full disk: the bot quotes, counts the dropped writes, and stops cleanly (exit 0)`, { skip: !full && 'no /dev/full' }, async (t) => {
    const port = await freePort();
    const c = demoWithFull(which, port);
    t.after(() => c.proc.kill('SIGKILL'));
    const quoting = which === 'stderr' ? /^bookmaker: quoting /m : /"msg":"market quoting"/;
    await waitFor('the demo quotes', () => c.exited() || quoting.test(c.text()), 60_000);
    assert.equal(c.exited(), false, `the bot ended on a failed write:\n${c.text()}`);
    const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    assert.ok(metricValue(metrics, `bookmaker_output_write_failures_total{stream="${which}"}`) > 0, metrics);
    // /readyz names the stream and its count, and stays 200 once the bot is ready: the logs fail no check
    let readyz: { status: number; body: { reasons?: string[] } } = { status: 0, body: {} };
    await waitFor(
      `/readyz 200 naming ${which}`,
      async () => {
        const r = await fetch(`http://127.0.0.1:${port}/readyz`, { signal: AbortSignal.timeout(10_000) });
        readyz = { status: r.status, body: (await r.json()) as { reasons?: string[] } };
        return readyz.status === 200 && (readyz.body.reasons ?? []).some((x) => x.startsWith(`logs-unwritable: ${which}: `));
      },
      60_000,
    ).catch((e: Error) => assert.fail(`${e.message}: ${JSON.stringify(readyz)}`));
    assert.match(
      readyz.body.reasons!.join('\n'),
      new RegExp(`logs-unwritable: ${which}: \\d+ write\\(s\\) dropped since the start, failing for \\d+ s \\(ENOSPC\\); quoting goes on`),
    );
    c.proc.kill('SIGTERM');
    assert.equal(await withTimeout(c.exit, 60_000, 'the bot did not stop'), 0, c.text());
    if (which === 'stderr') assert.match(c.text(), /bookmaker: stopped \(SIGTERM\), exit 0/);
    else assert.match(c.text(), /"msg":"stopped"/);
  });
}
