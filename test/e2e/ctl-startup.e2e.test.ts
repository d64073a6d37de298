/**
 * The operator's controls while the bot starts, as an operator runs them: `bookmaker run`
 * against `bookmaker sim` (behind a port that is down at first, so the start-up waits in market
 * selection), and `bookmaker ctl`:
 *   - `ctl status` says the bot is starting, and in which phase (it answered 503 before);
 *   - `ctl halt` is accepted while starting and written to the ledger file at once, so a start-up
 *     stopped before it reached the ledger (SIGTERM here; a crash alike) leaves it for the next start;
 *   - the next start, with the venue up, runs halted: nothing is quoted, `ctl status` and /readyz say
 *     halted; `ctl resume` lets it quote.
 * Other actions answer 503 naming the phase until the bot runs.
 */
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { connect, createServer, type Server } from 'node:net';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { cli, waitFor, withTimeout, type Child } from './harness.ts';
import { bandsDefaultsYaml, venueYaml } from '../support/bot-yaml.ts';
import { freePort, simForFile, type SimProcess } from './sim-process.ts';

const TOKEN = 'e2e-startup-token-0123456789';
let sim: SimProcess;
let dir: string;

simForFile(17, [], (s, d) => ((sim = s), (dir = d)));

/** A TCP relay from `port` to the sim: the venue "comes up" when it starts. */
function relay(port: number): Promise<Server> {
  const target = new URL(sim.baseUrl);
  const server = createServer((sock) => {
    const up = connect(Number(target.port), target.hostname);
    sock.pipe(up).pipe(sock);
    sock.on('error', () => up.destroy());
    up.on('error', () => sock.destroy());
  });
  return new Promise((resolve) => server.listen(port, '127.0.0.1', () => resolve(server)));
}

const env = (): NodeJS.ProcessEnv => ({ BOOKMAKER_PRIVATE_KEY: sim.privateKey, BOOKMAKER_API_KEY: sim.key, BOOKMAKER_ADMIN_TOKEN: TOKEN });
async function ctl(args: string[]): Promise<{ code: number | null; out: string; json: Record<string, unknown> | null }> {
  const c = cli(['ctl', ...args], env());
  const code = await withTimeout(c.exit, 60_000, `ctl ${args.join(' ')} did not exit`);
  const line = c
    .out()
    .split('\n')
    .find((l) => l.startsWith('{'));
  return { code, out: c.out(), json: line ? (JSON.parse(line) as Record<string, unknown>) : null };
}
/** the admin status as the endpoint answers it (the bearer token; ctl sends a one-time proof of it) */
async function status(port: number): Promise<Record<string, unknown>> {
  const r = await fetch(`http://127.0.0.1:${port}/admin/status`, { headers: { authorization: `Bearer ${TOKEN}` } });
  return (await r.json()) as Record<string, unknown>;
}

test('while the bot starts: ctl status names the phase, ctl halt is written at once and holds the next start before its first quote; ctl resume lets it quote', async () => {
  const venuePort = await freePort();
  const adminPort = await freePort();
  const metricsPort = await freePort();
  const ledger = join(dir, 'books.sqlite');
  const file = join(dir, 'bot.yaml');
  const base = new URL(sim.baseUrl);
  writeFileSync(
    file,
    `${venueYaml(`http://127.0.0.1:${venuePort}${base.pathname}`)}${bandsDefaultsYaml([{ minMargin: 0.01, targetMargin: 0.02, maxMargin: 0.03, size: 10 }], 'mid')}  risk: { maxPosition: 100, maxNotional: 100, maxBookAgeSeconds: 60, maxStreamSilenceSeconds: 30 }
markets: all
orders:
  requoteIntervalSeconds: 0.1
feeds:
  balancePollSeconds: 0.5
metrics:
  port: ${metricsPort}
ledger:
  path: ${ledger}
admin:
  port: ${adminPort}
`,
  );
  let up: Server | null = null;
  const first: Child = cli(['run', '-c', file, '--summary-seconds', '0', '--log-level', 'info'], env());
  let bot: Child = first;
  try {
    await waitFor('the start-up waits for the venue', () => /start-up step failed transiently; retrying/.test(bot.out()), 60_000);

    // 1. status while starting: which phase, and which bot (ctl checked the identity before printing)
    const st = await ctl(['status', '-c', file, '--json']);
    assert.equal(st.code, 0, st.out);
    assert.equal(st.json?.starting, true, st.out);
    assert.equal(st.json?.phase, 'select markets', st.out);
    assert.equal(st.json?.halted, false, st.out);

    // 2. a halt while starting is accepted and written to the ledger file at once; other actions wait
    const halt = await ctl(['halt', '-c', file, '--reason', 'halt before it quotes']);
    assert.equal(halt.code, 0, halt.out);
    assert.deepEqual(halt.json, { halted: true, starting: true, phase: 'select markets', persisted: true });
    assert.match(first.out(), /halt received while starting: written to the ledger/);
    const resumeEarly = await ctl(['resume', '-c', file]);
    assert.equal(resumeEarly.code, 1, resumeEarly.out);
    assert.match(resumeEarly.out, /the bot is starting \(select markets\)/);
    const again = await ctl(['status', '-c', file, '--json']);
    assert.equal(again.json?.halted, true, again.out);
    assert.equal((again.json?.halt as { reason?: string } | null)?.reason, 'halt before it quotes');

    // 3. the start-up is stopped before it reached the ledger; the venue comes up; the next start runs
    //    halted (the halt is in the ledger file); nothing is quoted
    first.proc.kill('SIGTERM');
    assert.equal(await withTimeout(first.exit, 60_000, 'no exit after SIGTERM while starting'), 0, first.out().slice(-2000));
    up = await relay(venuePort);
    bot = cli(['run', '-c', file, '--summary-seconds', '0', '--log-level', 'info'], env());
    // (the new process binds the admin port in a moment: until then the fetch fails)
    await waitFor('the bot runs', async () => (await status(adminPort).catch(() => ({ starting: true }))).starting === undefined, 90_000);
    const running = await status(adminPort);
    assert.equal(running.halted, true, JSON.stringify(running));
    assert.match(bot.out(), /held from an earlier run: halted by the operator since [^"]*: halt before it quotes/);
    assert.equal((running.halt as { reason?: string }).reason, 'halt before it quotes');
    await waitFor(
      '/readyz says halted',
      async () => {
        const r = await fetch(`http://127.0.0.1:${metricsPort}/readyz`);
        const b = (await r.json()) as { reasons: string[] };
        return r.status === 503 && b.reasons.some((x) => /halted by the operator/.test(x));
      },
      30_000,
    );
    for (let i = 0; i < 4; i++) {
      assert.equal((await sim.openOrders()).length, 0, 'nothing quoted while halted');
      await new Promise((r) => setTimeout(r, 250));
    }
    const db = new Database(ledger, { readonly: true });
    try {
      const rows = db.prepare("SELECT reason, source FROM operator_actions WHERE action = 'halt'").all() as { reason: string; source: string }[];
      assert.deepEqual(rows[0], { reason: 'halt before it quotes', source: 'admin' });
    } finally {
      db.close();
    }

    // 4. resume: it quotes
    const resume = await ctl(['resume', '-c', file, '--reason', 'go']);
    assert.equal(resume.code, 0, resume.out);
    await waitFor('quotes after resume', async () => (await sim.openOrders()).length >= 2, 60_000);
    bot.proc.kill('SIGTERM');
    assert.equal(await withTimeout(bot.exit, 60_000, 'no exit after SIGTERM'), 0, bot.out().slice(-2000));
  } finally {
    for (const b of [first, bot]) if (b.proc.exitCode === null) b.proc.kill('SIGKILL');
    await new Promise<void>((r) => (up ? up.close(() => r()) : r()));
  }
});
