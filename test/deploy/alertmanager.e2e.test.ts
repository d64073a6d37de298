/**
 * An alert reaches a person, with the real things on loopback: a real Prometheus (1 s scrape and
 * evaluation) loads the shipped rules and scrapes a bot quoting the local exchange; its strategy
 * starts throwing, BookmakerMarketNotQuoting fires, Prometheus sends it to a real Alertmanager
 * running deploy/alertmanager/alertmanager.yml, which delivers it to a local chat webhook (the
 * Slack-format POST a Slack or Discord webhook receives) and a local SMTP sink (the on-call e-mail).
 * Then the inhibition: BookmakerDown for an instance silences that instance's per-market alerts.
 *
 * Changed from the shipped files only where a test must: the rules' `for:` waits and the route's
 * group waits are shortened, the secret files live in a temp dir (the chat URL points at the local
 * webhook), SMTP goes to the local sink without TLS. Skipped, with the reason, when prometheus or
 * alertmanager is not installed.
 */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { setBook, startExchange, waitFor } from '../e2e/harness.ts';
import { SKIP_PROMETHEUS } from './promtool.ts';
import { ALERTMANAGER_BIN, ALERTMANAGER_DIR, SKIP_ALERTMANAGER } from './amtool.ts';
import { freePort } from '../support/net.ts';
import { quotingFailingBot, spawnLogged, startPrometheus, stopProcess, type Prometheus } from './alerting-rig.ts';

interface ChatMessage {
  title: string;
  text: string;
}

/** A local chat webhook: every Slack-format POST's attachments. */
async function chatWebhook(): Promise<{ server: HttpServer; url: string; messages: ChatMessage[] }> {
  const messages: ChatMessage[] = [];
  const server = createHttpServer((req, res) => {
    let body = '';
    req.on('data', (b: Buffer) => (body += b.toString()));
    req.on('end', () => {
      try {
        const j = JSON.parse(body) as { attachments?: ChatMessage[] };
        for (const a of j.attachments ?? []) messages.push({ title: a.title, text: a.text });
      } catch {
        /* not ours */
      }
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, url: `http://127.0.0.1:${(server.address() as { port: number }).port}/services/T0/B0/test`, messages };
}

/** A local SMTP sink: accepts every message (no AUTH offered, no TLS) and keeps its DATA. */
async function smtpSink(): Promise<{ server: Server; port: number; mails: string[] }> {
  const mails: string[] = [];
  const server = createServer((sock) => {
    let buf = '';
    let inData = false;
    sock.write('220 localhost ESMTP sink\r\n');
    sock.on('data', (b: Buffer) => {
      buf += b.toString('utf8');
      for (;;) {
        if (inData) {
          const end = buf.indexOf('\r\n.\r\n');
          if (end < 0) return;
          mails.push(buf.slice(0, end));
          buf = buf.slice(end + 5);
          inData = false;
          sock.write('250 queued\r\n');
          continue;
        }
        const nl = buf.indexOf('\r\n');
        if (nl < 0) return;
        const line = buf.slice(0, nl).toUpperCase();
        buf = buf.slice(nl + 2);
        if (line.startsWith('EHLO') || line.startsWith('HELO')) sock.write('250 localhost\r\n');
        else if (line.startsWith('DATA')) {
          inData = true;
          sock.write('354 end with .\r\n');
        } else if (line.startsWith('QUIT')) {
          sock.end('221 bye\r\n');
          return;
        } else sock.write('250 ok\r\n');
      }
    });
    sock.on('error', () => undefined);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, port: (server.address() as { port: number }).port, mails };
}

test('a fired alert reaches a person: Prometheus scraping a bot → Alertmanager → chat webhook and e-mail; BookmakerDown inhibits per-market alerts', {
  skip: SKIP_PROMETHEUS || SKIP_ALERTMANAGER,
  timeout: 150_000,
}, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'bookmaker-am-'));
  const h = await startExchange({ markets: 2 });
  const chat = await chatWebhook();
  const smtp = await smtpSink();
  let prom: Prometheus | null = null;
  let am: ChildProcess | null = null;
  const log = { out: '' };
  let amPort = 0;
  try {
    const { bot, failing, botPort } = await quotingFailingBot(h);
    try {
      // Alertmanager with the shipped config: secrets from files in the temp dir, waits shortened
      writeFileSync(join(dir, 'chat-webhook-url'), chat.url + '\n', { mode: 0o600 });
      writeFileSync(join(dir, 'smtp-password'), 'not-used-by-the-sink\n', { mode: 0o600 });
      const amConfig = readFileSync(join(ALERTMANAGER_DIR, 'alertmanager.yml'), 'utf8')
        .replaceAll('/etc/alertmanager/secrets/', `${dir}/`)
        .replace(/smtp_smarthost: \S+/, `smtp_smarthost: 127.0.0.1:${smtp.port}`)
        .replace('smtp_require_tls: true', 'smtp_require_tls: false')
        .replace(/group_wait: \S+/g, 'group_wait: 1s')
        .replace(/group_interval: \S+/g, 'group_interval: 1s');
      assert.ok(!amConfig.includes('/etc/alertmanager'), 'every secret path was rewritten');
      writeFileSync(join(dir, 'alertmanager.yml'), amConfig);
      amPort = await freePort();
      am = spawnLogged(
        ALERTMANAGER_BIN!,
        [
          `--config.file=${join(dir, 'alertmanager.yml')}`,
          `--storage.path=${join(dir, 'am-data')}`,
          `--web.listen-address=127.0.0.1:${amPort}`,
          '--cluster.listen-address=',
          '--log.level=warn',
        ],
        dir,
        log,
      );
      const amApi = `http://127.0.0.1:${amPort}/api/v2`;
      await waitFor('Alertmanager answers', async () => (await fetch(`${amApi}/status`).catch(() => null))?.ok === true, 20_000);

      prom = await startPrometheus(dir, { botPort, amPort }, log);
      const { query } = prom;
      await waitFor('Prometheus scraped the quoting bot', async () => (await query('bookmaker_market_state{state="quoting"} == 1')).length === 2, 40_000);
      assert.equal(chat.messages.length, 0, 'nothing delivered while the bot quotes');

      failing.on = true;
      for (const m of h.markets) await setBook(h, m, 470_000, 530_000);
      const notQuoting = (): ChatMessage[] => chat.messages.filter((m) => m.title.startsWith('FIRING: BookmakerMarketNotQuoting'));
      await waitFor('the chat webhook received BookmakerMarketNotQuoting', () => notQuoting().length > 0, 60_000);
      const msg = notQuoting()[0]!;
      assert.match(msg.title, new RegExp(`^FIRING: BookmakerMarketNotQuoting on 127\\.0\\.0\\.1:${botPort}$`));
      // grouped by alertname and instance: both markets in one message, named
      await waitFor('both markets in one grouped message', () => notQuoting().some((m) => h.markets.every((id) => m.text.includes(id.toLowerCase()))), 30_000);
      // critical: the on-call e-mail too
      await waitFor('the on-call e-mail was delivered', () => smtp.mails.some((m) => m.includes('BookmakerMarketNotQuoting')), 30_000);
      assert.match(smtp.mails.find((m) => m.includes('BookmakerMarketNotQuoting'))!, /To: oncall@example\.org/i);
    } finally {
      await bot.stop();
    }

    // inhibition, on the same Alertmanager: a bot that is down silences its per-market alerts
    const amApi = `http://127.0.0.1:${amPort}/api/v2`;
    const instance = 'bot-down-test:9464';
    const endsAt = new Date(Date.now() + 10 * 60_000).toISOString();
    const post = await fetch(`${amApi}/alerts`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify([
        {
          labels: { alertname: 'BookmakerDown', severity: 'critical', instance, job: 'bookmaker' },
          annotations: { summary: `bookmaker ${instance} down` },
          endsAt,
        },
        {
          labels: { alertname: 'BookmakerMarketNotQuoting', severity: 'critical', instance, job: 'bookmaker', market: '0xfeed' },
          annotations: { summary: `bookmaker ${instance}: market 0xfeed not quoting` },
          endsAt,
        },
      ]),
    });
    assert.equal(post.status, 200, await post.text());
    type AmAlert = { labels: Record<string, string>; status: { state: string; inhibitedBy: string[] } };
    const mine = async (): Promise<AmAlert[]> =>
      (await (await fetch(`${amApi}/alerts?filter=instance%3D%22${encodeURIComponent(instance)}%22`)).json()) as AmAlert[];
    await waitFor(
      'Alertmanager suppressed the per-market alert under BookmakerDown',
      async () =>
        (await mine()).some((a) => a.labels.alertname === 'BookmakerMarketNotQuoting' && a.status.state === 'suppressed' && a.status.inhibitedBy.length > 0),
      20_000,
    );
    await waitFor('BookmakerDown delivered', () => chat.messages.some((m) => m.title === `FIRING: BookmakerDown on ${instance}`), 30_000);
    assert.equal((await mine()).find((a) => a.labels.alertname === 'BookmakerDown')!.status.state, 'active');
    assert.ok(!chat.messages.some((m) => m.text.includes('market 0xfeed')), 'the inhibited per-market alert was not delivered');
  } catch (e) {
    throw new Error(`${(e as Error).message}\nprometheus/alertmanager output:\n${log.out.slice(-3000)}`, { cause: e });
  } finally {
    await stopProcess(prom?.proc ?? null);
    await stopProcess(am);
    chat.server.close();
    smtp.server.close();
    await h.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
