/**
 * Alerting with the real thing: a real Prometheus (the `prometheus` binary on loopback, a temp dir,
 * 1 s scrape and evaluation) loads the shipped rules and scrapes a bot quoting the local exchange;
 * no alert is firing while it quotes; once its strategy starts throwing, BookmakerMarketNotQuoting
 * fires for its markets. The rules are used as shipped except that their `for:` waits are set to 0s
 * (the expressions are untouched; the bot's grace is 1 s here, exported as
 * bookmaker_not_quoting_grace_seconds). Skipped, with the reason, when prometheus is not installed.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { setBook, startExchange, waitFor } from '../e2e/harness.ts';
import { SKIP_PROMETHEUS } from './promtool.ts';
import { quotingFailingBot, startPrometheus, stopProcess, type Prometheus } from './alerting-rig.ts';

interface Alert {
  labels: Record<string, string>;
  state: 'pending' | 'firing';
}

test('a real Prometheus fires BookmakerMarketNotQuoting once the bot stops quoting', { skip: SKIP_PROMETHEUS, timeout: 120_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'bookmaker-prom-'));
  const h = await startExchange({ markets: 2 });
  let prom: Prometheus | null = null;
  const log = { out: '' };
  try {
    const { bot, failing, botPort } = await quotingFailingBot(h);
    try {
      prom = await startPrometheus(dir, { botPort }, log);
      const { api, query } = prom;
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
    throw new Error(`${(e as Error).message}\nprometheus output:\n${log.out.slice(-2000)}`, { cause: e });
  } finally {
    await stopProcess(prom?.proc ?? null);
    await h.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
