/**
 * What the alerting tests with the real binaries share (prometheus-alert.e2e.test.ts, alertmanager.e2e.test.ts): a
 * bot quoting the harness's local exchange whose strategy can be made to throw, and a real Prometheus on loopback
 * (1 s scrape and evaluation) loading the shipped rules, their `for:` waits set to 0s, and scraping that bot.
 *
 *   const { bot, failing, botPort } = await quotingFailingBot(h);
 *   const prom = await startPrometheus(dir, { botPort }, log);   ...   failing.on = true;   ...   await stopProcess(prom.proc);
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Bot } from '../../src/runtime/bot.ts';
import { config, openOrders, setBook, startTestBot, waitFor, type Harness } from '../e2e/harness.ts';
import { withFailingStrategy } from '../support/failing-strategy.ts';
import { freePort } from '../support/net.ts';
import { RULES_DIR } from './promtool.ts';

/** Every book at 0.48/0.52 and a bot quoting it (its four orders at the venue), metrics on a free port, not-quoting grace 1 s. */
export async function quotingFailingBot(h: Harness): Promise<{ bot: Bot; failing: { on: boolean }; botPort: number }> {
  for (const m of h.markets) await setBook(h, m, 480_000, 520_000);
  const { cfg, failing } = withFailingStrategy(await config(h), 1_000);
  const botPort = await freePort();
  const bot = await startTestBot(h, cfg, { metricsPort: botPort });
  try {
    await waitFor('quoting at the venue', async () => (await openOrders(h.bot)).length >= 4, 20_000);
  } catch (e) {
    await bot.stop();
    throw e;
  }
  return { bot, failing, botPort };
}

/** `bin ARGS` in `cwd`, its stdout and stderr appended to `log.out`. */
export function spawnLogged(bin: string, args: string[], cwd: string, log: { out: string }): ChildProcess {
  const p = spawn(bin, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  p.stdout!.on('data', (b: Buffer) => (log.out += b.toString()));
  p.stderr!.on('data', (b: Buffer) => (log.out += b.toString()));
  return p;
}

/** SIGTERM, then SIGKILL if it has not exited within 5 s. */
export async function stopProcess(p: ChildProcess | null): Promise<void> {
  if (!p || p.exitCode !== null) return;
  p.kill('SIGTERM');
  let t: NodeJS.Timeout | undefined;
  await Promise.race([new Promise((r) => p.once('exit', r)), new Promise((r) => (t = setTimeout(r, 5_000)))]);
  clearTimeout(t); // a live timer would keep the test file's process up 5 s after its last test
  if (p.exitCode === null) p.kill('SIGKILL');
}

export interface Prometheus {
  proc: ChildProcess;
  /** its HTTP API, http://127.0.0.1:PORT/api/v1 */
  api: string;
  /** an instant query's result vector; empty while Prometheus does not answer */
  query(q: string): Promise<unknown[]>;
}

/**
 * Prometheus in `dir` on a free port: the shipped rules with `for: 0s`, scraping the bot on `botPort` every second,
 * sending its alerts to the Alertmanager on `amPort` when one is given.
 */
export async function startPrometheus(dir: string, o: { botPort: number; amPort?: number }, log: { out: string }): Promise<Prometheus> {
  const rules = readFileSync(join(RULES_DIR, 'bookmaker-alerts.yml'), 'utf8').replace(/^(\s+)for: \S+$/gm, '$1for: 0s');
  writeFileSync(join(dir, 'rules.yml'), rules);
  const alerting = o.amPort === undefined ? '' : `alerting:\n  alertmanagers:\n    - static_configs:\n        - targets: ['127.0.0.1:${o.amPort}']\n`;
  writeFileSync(
    join(dir, 'prometheus.yml'),
    `global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\nrule_files:\n  - rules.yml\n${alerting}scrape_configs:\n  - job_name: bookmaker\n    static_configs:\n      - targets: ['127.0.0.1:${o.botPort}']\n`,
  );
  const port = await freePort();
  const proc = spawnLogged(
    'prometheus',
    [`--config.file=${join(dir, 'prometheus.yml')}`, `--storage.tsdb.path=${join(dir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`, '--log.level=warn'],
    dir,
    log,
  );
  const api = `http://127.0.0.1:${port}/api/v1`;
  const query = async (q: string): Promise<unknown[]> => {
    const r = await fetch(`${api}/query?query=${encodeURIComponent(q)}`).catch(() => null);
    if (!r || !r.ok) return [];
    return ((await r.json()) as { data: { result: unknown[] } }).data.result;
  };
  return { proc, api, query };
}
