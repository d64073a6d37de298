/**
 * Control without restarts: a reload (SIGHUP's path, and `bookmaker ctl reload`) applies a
 * changed risk limit without pulling the quotes that still pass, a changed strategy parameter from
 * the next tick, starts an added market and retires a removed one with no order left; a bad file is
 * refused with the loader's message and the running config stays. Per-market pause/resume and the
 * global halt go through the admin endpoint; every action is in the ledger.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { request } from 'undici';
import { loadConfig } from '../../src/config/load-config.ts';
import type { Bytes32 } from '../../src/model/order.ts';
import { cli, onLedgerExchange, openOrders, startTestBot, waitFor, withTimeout, yaml, type Harness } from './harness.ts';
import { freePort } from '../support/net.ts';

const TOKEN = 'e2e-control-token';

function text(h: Harness, ledger: string, o: { markets: Bytes32[]; size?: number; maxPosition?: number; margins?: string }): string {
  return (
    yaml(h, {
      markets: o.markets.map((m) => `  - id: "${m}"`).join('\n'),
      strategy: `      fair: mid\n      bands:\n        - { ${o.margins ?? 'minMargin: 0.01, targetMargin: 0.02, maxMargin: 0.03'}, size: ${o.size ?? 10} }`,
      risk: `    maxPosition: ${o.maxPosition ?? 100}\n    maxNotional: 100\n    maxOrderSize: 50\n    maxBookAgeSeconds: 60\n    maxStreamSilenceSeconds: 30`,
    }) + `ledger:\n  path: ${ledger}\n`
  );
}

const nonces = async (h: Harness, m: Bytes32): Promise<string[]> => (await openOrders(h.bot, m)).map((o) => o.nonce).sort();

test('reload, pause, resume and halt change a running bot without a restart', async () => {
  await onLedgerExchange(
    async (h, ledger, dir) => {
      const file = join(dir, 'bot.yaml');
      const [m0, m1, m2] = h.markets as [Bytes32, Bytes32, Bytes32];
      writeFileSync(file, text(h, ledger, { markets: [m0, m1] }));
      const port = await freePort();
      const bot = await startTestBot(h, await loadConfig(file, { env: {} }), {
        adminPort: port,
        env: { BOOKMAKER_PRIVATE_KEY: h.bot.privateKey, BOOKMAKER_ADMIN_TOKEN: TOKEN },
      });
      const admin = async (path: string, body: Record<string, string> = {}): Promise<{ status: number; body: Record<string, unknown> }> => {
        const r = await request(`http://127.0.0.1:${port}/admin/${path}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${TOKEN}` },
          body: JSON.stringify(body),
        });
        return { status: r.statusCode, body: (await r.body.json()) as Record<string, unknown> };
      };
      try {
        await waitFor('quotes in m0 and m1', async () => (await openOrders(h.bot, m0)).length === 2 && (await openOrders(h.bot, m1)).length === 2);
        const before = await nonces(h, m0);

        // 1. a risk limit changes, m1 goes, m2 comes: m0's quotes still pass and stay (no pull)
        writeFileSync(file, text(h, ledger, { markets: [m0, m2], maxPosition: 90 }));
        const r1 = await bot.reload('test');
        assert.equal(r1.status, 200, JSON.stringify(r1.body));
        assert.deepEqual(r1.body.removed, [m1]);
        assert.deepEqual(r1.body.added, [m2]);
        assert.deepEqual(r1.body.changed, [m0]);
        await waitFor('m1 retired with no order left', async () => (await openOrders(h.bot, m1)).length === 0 && !bot.kernel.marketIds().includes(m1));
        // a reload's retired market goes through the rotation: its book stream closes (it stayed open until restart)
        await waitFor('m1 book stream closed', () => !bot.health.all().some((s) => s.name === `book:${m1.toLowerCase()}`));
        assert.equal(bot.rotation.totals().retired.reload, 1);
        await waitFor('m2 quoted', async () => (await openOrders(h.bot, m2)).length === 2);
        assert.deepEqual(await nonces(h, m0), before, 'the quotes that still pass were kept, not pulled');

        // 2. a bad file is refused with the loader's message; the running config stays
        const running = bot.control.currentConfig;
        writeFileSync(file, text(h, ledger, { markets: [m0, m2], size: -5 }));
        const bad = cli(['ctl', 'reload', '--port', String(port), '--reason', 'typo'], { BOOKMAKER_ADMIN_TOKEN: TOKEN });
        assert.equal(await withTimeout(bad.exit, 30_000, 'ctl did not exit'), 1);
        assert.match(bad.out(), /size/);
        assert.equal(bot.control.currentConfig, running, 'the running config stays');
        assert.deepEqual(await nonces(h, m0), before, 'nothing changed after a refused reload');
        assert.equal(bot.kernel.marketIds().length, 2);

        // 3. strategy parameters apply from the next tick: the band moves out to 3-5¢ (the 2¢ quotes
        // fall outside it) with 12 shares. (bands keeps an order inside its band as it is, size too:
        // a size change alone waits until the order leaves its band — the strategy's rule, not a pull)
        writeFileSync(file, text(h, ledger, { markets: [m0, m2], size: 12, maxPosition: 90, margins: 'minMargin: 0.03, targetMargin: 0.04, maxMargin: 0.05' }));
        assert.equal((await bot.reload('size 12')).status, 200);
        await waitFor('m0 quotes 12 shares', async () => {
          const os = await openOrders(h.bot, m0);
          return os.length === 2 && os.every((o) => o.size === 12_000_000 || (o.side === 0 && o.sv2MinSharesOut === 12_000_000n));
        });

        // 4. pause one market, then the global halt, then resume
        assert.equal((await admin('pause', { market: m0, reason: 'news' })).status, 200);
        await waitFor('m0 pulled', async () => (await openOrders(h.bot, m0)).length === 0);
        assert.equal((await openOrders(h.bot, m2)).length, 2, 'the other market keeps quoting');
        assert.equal((await admin('pause', { market: `0x${'ab'.repeat(32)}` })).status, 404);
        assert.equal((await admin('resume', { market: m0 })).status, 200);
        await waitFor('m0 back', async () => (await openOrders(h.bot, m0)).length === 2);
        assert.equal((await admin('halt', { reason: 'desk says stop' })).status, 200);
        await waitFor('everything pulled', async () => (await openOrders(h.bot)).length === 0);
        assert.equal((await admin('resume')).status, 200);
        await waitFor('quoting again', async () => (await openOrders(h.bot, m0)).length === 2 && (await openOrders(h.bot, m2)).length === 2);
        const unauth = await request(`http://127.0.0.1:${port}/admin/halt`, { method: 'POST', headers: { authorization: 'Bearer nope' } });
        assert.equal(unauth.statusCode, 401);
        await unauth.body.dump();
        assert.equal((await openOrders(h.bot, m0)).length, 2, 'a refused request changes nothing');

        const actions = (
          bot.ledger.ledger.db.prepare('SELECT action, market, reason FROM operator_actions ORDER BY id').all() as {
            action: string;
            market: string | null;
            reason: string | null;
          }[]
        ).map((a) => `${a.action}:${a.market ?? ''}:${a.reason ?? ''}`);
        assert.deepEqual(actions, ['reload::test', 'reload::typo', 'reload::size 12', `pause:${m0}:news`, `resume:${m0}:`, 'halt::desk says stop', 'resume::']);
      } finally {
        assert.equal(await bot.stop(), 0);
      }
      assert.equal((await openOrders(h.bot)).length, 0);
    },
    { markets: 3 },
  );
});
