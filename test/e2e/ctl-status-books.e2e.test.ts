/**
 * `bookmaker ctl status` answers "how am I doing": the books' money figures (account and per market:
 * position, realised and unrealised PnL, fills, volume, fees) and the kill switch's (PnL, peak,
 * drawdown, limit), read from the functions /metrics reads. At a quiet moment (a halt) they equal
 * `/metrics`, `ledger summary` and `ledger pnl` to the micro-unit: ctl as a process over the admin
 * endpoint, /metrics over HTTP, the ledger file through the functions the ledger commands print.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { decimalToScaled } from '../../src/model/units.ts';
import { statusText } from '../../src/control/status-text.ts';
import type { KillSwitchFigures, StatusBooks } from '../../src/control/status-books.ts';
import { cli, ledgerConfig, LOSS_RISK, loseTwoDollars, onLedgerExchange, openOrders, scrapeMetrics, startTestBot, waitFor, withTimeout } from './harness.ts';
import { ledgerFigures, readLedgerFile } from './ledger-runs.ts';
import { freePort } from '../support/net.ts';

const TOKEN = 'e2e-ctl-status-token-0123456789';

/** an exact decimal string → 1e-6 units */
const units = (s: string): bigint => (s.startsWith('-') ? -decimalToScaled(s.slice(1), 6, 'figure') : decimalToScaled(s, 6, 'figure'));
/** a figure printed as a JS number with at most six decimals (/metrics, the ledger's JSON) → 1e-6 units */
const fromNumber = (x: number): bigint => BigInt(Math.round(x * 1e6));

async function run(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number | null; out: string }> {
  const c = cli(args, env);
  const code = await withTimeout(c.exit, 60_000, `${args.join(' ')} did not exit`);
  return { code, out: c.out() };
}
const jsonLine = <T>(out: string): T => JSON.parse(out.split('\n').find((l) => l.startsWith('{') || l.startsWith('['))!) as T;

function series(text: string, name: string, labels: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${name}{`) && labels.split(',').every((x) => l.includes(x)));
  assert.ok(line, `${name}{${labels}} in /metrics`);
  return Number(line.slice(line.lastIndexOf(' ') + 1));
}

test('ctl status shows the books and the kill switch: equal to /metrics, ledger summary and ledger pnl to the micro-unit', async () => {
  await onLedgerExchange(async (h, file) => {
    const adminPort = await freePort();
    const env = { BOOKMAKER_ADMIN_TOKEN: TOKEN };
    const cfg = await ledgerConfig(h, file, { risk: LOSS_RISK });
    const bot = await startTestBot(h, cfg, {
      adminPort,
      metricsPort: await freePort(),
      env: { BOOKMAKER_PRIVATE_KEY: h.bot.privateKey, BOOKMAKER_ADMIN_TOKEN: TOKEN },
    });
    try {
      // a fill in market 0, then its mid moves down: realised fees, an unrealised loss, a drawdown
      await loseTwoDollars(h, bot);
      const m0 = h.markets[0]!.toLowerCase();
      await waitFor('the loss is marked', () => bot.kernel.account.figures().unrealised < 0n);
      // a quiet moment: halted, nothing at the venue, a ledger mark taken after it
      const halt = await fetch(`http://127.0.0.1:${adminPort}/admin/halt`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}` },
        body: JSON.stringify({ reason: 'read the books' }),
      });
      assert.equal(halt.status, 200);
      await waitFor('no order left', async () => (await openOrders(h.bot)).length === 0);
      const quietAt = Date.now();
      await waitFor('a ledger mark after the halt', () =>
        readLedgerFile(file, (l) => (l.db.prepare('SELECT MAX(ts) AS ts FROM marks WHERE market_id IS NULL').get() as { ts: number | null }).ts! > quietAt),
      );

      // read at one quiet moment: ctl (a process, over the admin endpoint), /metrics over HTTP, and the
      // ledger file through the functions `ledger summary` and `ledger pnl` print (src/ledger/books.ts)
      const [st, metrics] = await Promise.all([run(['ctl', 'status', '--port', String(adminPort), '--json'], env), scrapeMetrics(bot)]);
      assert.equal(st.code, 0, st.out);
      const s = jsonLine<{ halted: boolean; books: StatusBooks; killSwitchFigures: KillSwitchFigures }>(st.out);
      const { summary: sum, perMarket: rows } = ledgerFigures(file);

      assert.equal(s.halted, true);
      const a = s.books.account;
      // the account: ctl = /metrics = ledger summary
      assert.ok(a.fills > 0 && units(a.unrealised) < 0n, JSON.stringify(a));
      const acct = (kind: string): bigint => fromNumber(series(metrics, 'bookmaker_account_pnl_usdc', `kind="${kind}"`));
      assert.equal(units(a.pnl), acct('total'));
      assert.equal(units(a.realised), acct('realised'));
      assert.equal(units(a.unrealised), acct('unrealised'));
      assert.equal(units(a.fees), acct('fees'));
      assert.equal(a.fills, Number(/^bookmaker_account_fills (\S+)$/m.exec(metrics)?.[1]));
      assert.equal(units(a.volume), fromNumber(Number(/^bookmaker_account_volume_usdc (\S+)$/m.exec(metrics)?.[1])));
      assert.equal(a.fills, sum.fills);
      assert.equal(units(a.volume), fromNumber(sum.volume));
      assert.equal(units(a.fees), fromNumber(sum.fees));
      assert.equal(units(a.realised), fromNumber(sum.realisedPnl));
      assert.equal(units(a.pnl), fromNumber(sum.pnl.total));
      assert.equal(units(a.unrealised), fromNumber(sum.pnl.unrealised));

      // the traded market: ctl = /metrics = ledger pnl
      const m = s.books.markets.find((x) => x.market === m0);
      assert.ok(m, JSON.stringify(s.books.markets));
      assert.equal(m.quoted, true);
      const row = rows.find((r) => r.marketId.toLowerCase() === m0);
      assert.ok(row, JSON.stringify(rows));
      assert.equal(units(m.realised), fromNumber(series(metrics, 'bookmaker_pnl_usdc', `market="${m0}",kind="realised"`)));
      assert.equal(units(m.unrealised), fromNumber(series(metrics, 'bookmaker_pnl_usdc', `market="${m0}",kind="unrealised"`)));
      assert.equal(units(m.position), fromNumber(series(metrics, 'bookmaker_position_shares', `market="${m0}"`)));
      assert.equal(m.fills, row.fills);
      assert.equal(units(m.volume), fromNumber(row.volume));
      assert.equal(units(m.fees), fromNumber(row.fees));
      assert.equal(units(m.realised), fromNumber(row.realisedPnl));
      assert.equal(units(m.unrealised), fromNumber(row.unrealisedPnl ?? 0));
      assert.equal(units(m.position), fromNumber(row.position));
      assert.ok(units(m.position) > 0n);
      // the market rows add up to the account
      const total = (k: 'realised' | 'unrealised' | 'fees' | 'volume'): bigint => s.books.markets.reduce((t, x) => t + units(x[k]), 0n);
      for (const k of ['realised', 'unrealised', 'fees', 'volume'] as const) assert.equal(total(k), units(a[k]), k);

      // the kill switch: the account PnL it acts on, its peak and drawdown, the configured limit
      const k = s.killSwitchFigures;
      assert.equal(units(k.pnl), units(a.pnl));
      assert.equal(units(k.peak) - units(k.drawdown), units(k.pnl));
      assert.ok(units(k.drawdown) > 0n, JSON.stringify(k));
      assert.equal(k.maxDrawdown, '100.000000');

      // the text `ctl status` prints from this answer carries the same strings
      const text = statusText(s);
      assert.match(text, new RegExp(`pnl ${a.pnl.replace('.', '\\.')} USDC`));
      assert.match(text, new RegExp(`drawdown ${k.drawdown.replace('.', '\\.')} of 100\\.000000 max`));
      assert.match(text, /HALTED by the operator/);
    } finally {
      await bot.stop();
    }
  });
});
