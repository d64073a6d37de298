/**
 * Alerting with the real thing: a real Prometheus (the `prometheus` binary on loopback, a temp dir,
 * 1 s scrape and evaluation) loads the shipped rules and scrapes a bot quoting the local exchange;
 * no alert is firing while it quotes; once its strategy starts throwing, BookmakerMarketNotQuoting
 * fires for its markets. The rules are used as shipped except that their `for:` waits are set to 0s
 * (the expressions are untouched; the bot's grace is 1 s here, exported as
 * bookmaker_not_quoting_grace_seconds). Skipped, with the reason, when prometheus is not installed.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { config, openOrders, setBook, startExchange, startTestBot, waitFor } from '../e2e/harness.ts';
import { RULES_DIR, SKIP_PROMETHEUS } from './promtool.ts';
import { freePort } from '../support/net.ts';
import { withFailingStrategy } from '../support/failing-strategy.ts';

interface Alert {
  labels: Record<string, string>;
  state: 'pending' | 'firing';
}

test('a real Prometheus fires BookmakerMarketNotQuoting once the bot stops quoting', { skip: SKIP_PROMETHEUS, timeout: 120_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'bookmaker-prom-'));
  const h = await startExchange({ markets: 2 });
  let prom: ChildProcess | null = null;
  let out = '';
  try {
    for (const m of h.markets) await setBook(h, m, 480_000, 520_000);
    const base = await config(h);
    const { cfg, failing } = withFailingStrategy(base, 1_000);
    const botPort = await freePort();
    const bot = await startTestBot(h, cfg, { metricsPort: botPort });
    try {
      await waitFor('quoting at the venue', async () => (await openOrders(h.bot)).length >= 4, 20_000);

      const rules = readFileSync(join(RULES_DIR, 'bookmaker-alerts.yml'), 'utf8').replace(/^(\s+)for: \S+$/gm, '$1for: 0s');
      writeFileSync(join(dir, 'rules.yml'), rules);
      writeFileSync(
        join(dir, 'prometheus.yml'),
        `global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\nrule_files:\n  - rules.yml\nscrape_configs:\n  - job_name: bookmaker\n    static_configs:\n      - targets: ['127.0.0.1:${botPort}']\n`,
      );
      const promPort = await freePort();
      prom = spawn(
        'prometheus',
        [
          `--config.file=${join(dir, 'prometheus.yml')}`,
          `--storage.tsdb.path=${join(dir, 'data')}`,
          `--web.listen-address=127.0.0.1:${promPort}`,
          '--log.level=warn',
        ],
        { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] },
      );
      prom.stdout!.on('data', (b: Buffer) => (out += b.toString()));
      prom.stderr!.on('data', (b: Buffer) => (out += b.toString()));
      const api = `http://127.0.0.1:${promPort}/api/v1`;
      const query = async (q: string): Promise<unknown[]> => {
        const r = await fetch(`${api}/query?query=${encodeURIComponent(q)}`).catch(() => null);
        if (!r || !r.ok) return [];
        return ((await r.json()) as { data: { result: unknown[] } }).data.result;
      };
      const alerts = async (): Promise<Alert[]> => {
        const r = await fetch(`${api}/alerts`).catch(() => null);
        if (!r || !r.ok) return [];
        return ((await r.json()) as { data: { alerts: Alert[] } }).data.alerts;
      };

      await waitFor('Prometheus scraped the quoting bot', async () => (await query('bookmaker_market_state{state="quoting"} == 1')).length === 2, 40_000);
      // a few evaluations on the quoting bot: nothing fires
      await waitFor(
        'rules evaluated',
        async () =>
          (await query('ALERTS')).length === 0 &&
          (await query('count_over_time(bookmaker_ready[10s])')).length > 0 &&
          (await query('count_over_time(up[10s]) >= 3')).length > 0,
        20_000,
      );
      assert.deepEqual(
        (await alerts()).filter((a) => a.labels.alertname === 'BookmakerMarketNotQuoting'),
        [],
        'no not-quoting alert while quoting',
      );

      failing.on = true;
      for (const m of h.markets) await setBook(h, m, 470_000, 530_000);
      await waitFor(
        'BookmakerMarketNotQuoting firing for both markets',
        async () => (await alerts()).filter((a) => a.labels.alertname === 'BookmakerMarketNotQuoting' && a.state === 'firing').length === 2,
        40_000,
      );
      const firing = (await alerts()).filter((a) => a.labels.alertname === 'BookmakerMarketNotQuoting');
      assert.deepEqual(firing.map((a) => a.labels.market).sort(), h.markets.map((m) => m.toLowerCase()).sort());
      const states = (await query('bookmaker_market_state{state="strategy-error"} == 1')).length;
      assert.equal(states, 2, 'the reason is in bookmaker_market_state');
    } finally {
      await bot.stop();
    }
  } catch (e) {
    throw new Error(`${(e as Error).message}\nprometheus output:\n${out.slice(-2000)}`, { cause: e });
  } finally {
    prom?.kill('SIGTERM');
    if (prom && prom.exitCode === null) await new Promise((r) => prom!.once('exit', r));
    await h.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
