/**
 * `bookmaker ctl pause|resume MARKET` takes the market as the logs and /metrics print it: the 0x id, the
 * slug, or the start of the id (`0x64ed…`), resolved against the markets the bot answers with; an
 * ambiguous or unknown one is refused (exit 2) naming the candidates, and nothing is sent. Before: only a
 * full 0x id was taken (a slug was refused as "a 0x market id (64 hex digits)").
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createServer } from 'node:http';
import { test } from 'node:test';
import { Account } from '../../src/account/account.ts';
import { AccountRisk } from '../../src/account/account-risk.ts';
import { marketsOfStatus, resolveMarketRef } from '../../src/cli/market-ref.ts';
import { BotControl } from '../../src/control/bot-control.ts';
import { silentLogger } from '../../src/core/logger.ts';
import type { QuotingKernel } from '../../src/kernel/quoting-kernel.ts';
import type { Bytes32 } from '../../src/model/order.ts';
import { cliArgs } from '../support/cli.ts';

const A = `0x64ed1${'1'.repeat(59)}` as Bytes32;
const B = `0x64ed2${'2'.repeat(59)}` as Bytes32;
const C = `0x9473${'3'.repeat(60)}` as Bytes32;
const KNOWN = [{ id: A, slug: 'gas-below-3-00-this-quarter' }, { id: B, slug: 'bike-lane-budget-approved-by-march' }, { id: C }];

test('a market named by its id, slug or the start of its id resolves to one id', () => {
  assert.deepEqual(resolveMarketRef(A, KNOWN), { id: A });
  assert.deepEqual(resolveMarketRef(A.toUpperCase().replace('0X', '0x'), KNOWN), { id: A });
  assert.deepEqual(resolveMarketRef('gas-below-3-00-this-quarter', KNOWN), { id: A });
  assert.deepEqual(resolveMarketRef('Bike-Lane-Budget-Approved-By-March', KNOWN), { id: B });
  assert.deepEqual(resolveMarketRef('0x64ed1…', KNOWN), { id: A });
  assert.deepEqual(resolveMarketRef('0x64ed2...', KNOWN), { id: B });
  assert.deepEqual(resolveMarketRef('0x9473', KNOWN), { id: C });
});

test('an ambiguous or unknown market is refused, naming the candidates', () => {
  const amb = resolveMarketRef('0x64ed…', KNOWN);
  assert.ok('error' in amb);
  assert.match(amb.error, /ambiguous: 2 markets of this bot start with it/);
  assert.ok(amb.error.includes(`${A} (gas-below-3-00-this-quarter)`) && amb.error.includes(`${B} (bike-lane-budget-approved-by-march)`), amb.error);
  const unknown = resolveMarketRef('gas-above-5', KNOWN);
  assert.ok('error' in unknown);
  assert.match(unknown.error, /is not a market of this bot .*its markets: /);
  assert.ok(unknown.error.includes(C), unknown.error);
  const short = resolveMarketRef('0x6', KNOWN);
  assert.ok('error' in short && /at least 4 hex digits/.test(short.error));
  const none = resolveMarketRef('gas', []);
  assert.ok('error' in none && /quotes no market now/.test(none.error));
});

test("the bot's status lists its markets' slugs, and ctl reads them with the paused and booked markets", () => {
  const kernel = {
    account: new Account(),
    accountRisk: new AccountRisk(),
    killed: null,
    halted: false,
    held: new Map(),
    pausedList: () => [C],
    marketIds: () => [A, B, C],
    retiring: () => [],
    hasMarket: () => true,
  } as unknown as QuotingKernel;
  const control = new BotControl({
    kernel,
    ledger: null,
    logger: silentLogger,
    config: { file: '' } as never,
    loadConfig: async () => ({}) as never,
    selectMarkets: async () => [],
    applyMarkets: async () => ({ started: [], retired: [], waiting: [], changed: [] }),
    slugOf: (id) => KNOWN.find((k) => k.id === id)?.slug,
  });
  const status = control.status();
  assert.deepEqual(status.slugs, { [A]: KNOWN[0]!.slug, [B]: KNOWN[1]!.slug });
  assert.deepEqual(marketsOfStatus(JSON.parse(JSON.stringify(status))), KNOWN);
});

/** `bookmaker ctl ARGS` (a child process) against a fake admin endpoint; what it printed and what the bot got. */
async function runCtl(argv: string[]): Promise<{ code: number; err: string; posted: { path: string; body: Record<string, unknown> }[] }> {
  const posted: { path: string; body: Record<string, unknown> }[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      res.setHeader('content-type', 'application/json');
      if (req.method === 'GET') {
        res.end(
          JSON.stringify({
            identity: { pid: 4242, configFile: '', ledger: ':memory:', account: '0xabc', chain: 'testnet' },
            paused: [],
            slugs: { [A]: KNOWN[0]!.slug, [B]: KNOWN[1]!.slug },
            books: { markets: [{ market: A }, { market: B }, { market: C }] },
          }),
        );
        return;
      }
      posted.push({ path: req.url ?? '', body: JSON.parse(body || '{}') as Record<string, unknown> });
      res.end(JSON.stringify({ paused: (JSON.parse(body) as { market?: string }).market, persisted: true }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  try {
    const r = await new Promise<{ code: number; err: string }>((resolve) => {
      execFile(
        process.execPath,
        cliArgs(['ctl', ...argv, '--port', String(port)]),
        { env: { ...process.env, BOOKMAKER_PRIVATE_KEY: '', BOOKMAKER_ADMIN_TOKEN: 'a-test-admin-token-long-enough-0123456789' }, timeout: 120_000 },
        (e, _out, err) => resolve({ code: e ? Number((e as { code?: unknown }).code ?? 1) : 0, err: String(err) }),
      );
    });
    return { ...r, posted };
  } finally {
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  }
}

test('ctl pause SLUG and ctl pause 0xSTART… send the full id; an ambiguous one sends nothing (exit 2)', async () => {
  const bySlug = await runCtl(['pause', 'gas-below-3-00-this-quarter', '--reason', 'news']);
  assert.equal(bySlug.code, 0, bySlug.err);
  assert.deepEqual(bySlug.posted, [{ path: '/admin/pause', body: { reason: 'news', market: A } }]);
  assert.match(bySlug.err, new RegExp(`market gas-below-3-00-this-quarter is ${A}`));
  const byPrefix = await runCtl(['resume', '0x64ed2…']);
  assert.equal(byPrefix.code, 0, byPrefix.err);
  assert.deepEqual(byPrefix.posted, [{ path: '/admin/resume', body: { market: B } }]);
  const ambiguous = await runCtl(['pause', '0x64ed…']);
  assert.equal(ambiguous.code, 2);
  assert.deepEqual(ambiguous.posted, []);
  assert.match(
    ambiguous.err,
    /ambiguous: 2 markets of this bot start with it: .*gas-below-3-00-this-quarter.*bike-lane-budget-approved-by-march.*nothing was sent/,
  );
});
