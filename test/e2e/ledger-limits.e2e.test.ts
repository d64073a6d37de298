/**
 * Limits that survive a restart: a kill switch that fired stays latched in the ledger; a
 * restarted bot places no order, says why (log, readiness, exit code 3 when stopped) until an
 * operator runs `bookmaker ctl clear-kill --reason TEXT`, over the admin endpoint or, with no bot
 * running, on the ledger file. Once for the drawdown limit, once for the daily loss limit.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { systemClock } from '../../src/core/clock.ts';
import { openLedger } from '../../src/ledger/ledger.ts';
import { EXIT_KILL_SWITCH } from '../../src/runtime/bot.ts';
import type { Bot } from '../../src/runtime/bot.ts';
import {
  cli,
  ledgerConfig,
  LOSS_RISK,
  onLedgerExchange,
  openOrders,
  setBook,
  startTestBot,
  waitFor,
  withTimeout,
  type Harness,
  loseTwoDollars,
} from './harness.ts';
import { freePort } from '../support/net.ts';

const TOKEN = 'e2e-admin-token-not-a-secret';

function ledgerRows(file: string, sql: string): Record<string, unknown>[] {
  const l = openLedger({ path: file, clock: systemClock, mustExist: true, readonly: true });
  try {
    return l.db.prepare(sql).all() as Record<string, unknown>[];
  } finally {
    l.close();
  }
}

async function readyGauge(bot: Bot): Promise<number> {
  const text = await bot.metrics.registry.metrics();
  return Number(/^bookmaker_ready (\d)$/m.exec(text)?.[1]);
}

/** A latched bot: it runs, reconciles, places nothing, and is not ready. */
async function assertHeld(h: Harness, bot: Bot, file: string, reason: string): Promise<void> {
  // a latched start holds with the original reason, not a generic KILL_LATCHED
  assert.equal(bot.kernel.killed, reason);
  const sent = ledgerRows(file, 'SELECT COUNT(*) AS n FROM orders')[0]!.n;
  // several housekeeping rounds and a periodic reconcile go by: still nothing placed
  for (let i = 0; i < 6; i++) {
    assert.equal((await openOrders(h.bot)).length, 0, 'a latched bot has no order at the venue');
    await new Promise((r) => setTimeout(r, 250));
  }
  assert.equal(ledgerRows(file, 'SELECT COUNT(*) AS n FROM orders')[0]!.n, sent, 'a latched bot sends no order');
  assert.equal(await readyGauge(bot), 0, 'a latched bot is not ready');
  assert.match(await bot.metrics.registry.metrics(), /^bookmaker_kill_switch_latched 1$/m);
  const status = bot.control.status() as { latched: boolean; killSwitch: { detail: string } };
  assert.equal(status.latched, true);
  assert.ok(bot.ledger.latch?.reason === reason, `latched for ${reason}, got ${bot.ledger.latch?.reason}`);
}

test('a drawdown kill stays latched across a restart until ctl clear-kill (admin endpoint)', async () => {
  await onLedgerExchange(async (h, file) => {
    const cfg = await ledgerConfig(h, file, { risk: LOSS_RISK, account: '  maxDrawdown: 0.5' });
    const bot1 = await startTestBot(h, cfg);
    try {
      await loseTwoDollars(h, bot1);
      assert.equal(await withTimeout(bot1.exit, 20_000, 'no kill within 20 s'), EXIT_KILL_SWITCH);
    } finally {
      await bot1.stop();
    }
    const risk = ledgerRows(file, 'SELECT latch_reason FROM risk_state')[0]!;
    assert.equal(risk.latch_reason, 'KILL_DRAWDOWN');

    // the restart: held
    const port = await freePort();
    let code2 = -1;
    const bot2 = await startTestBot(h, cfg, { adminPort: port, env: { BOOKMAKER_PRIVATE_KEY: h.bot.privateKey, BOOKMAKER_ADMIN_TOKEN: TOKEN } });
    try {
      assert.ok(bot2.adminUrl, 'the admin endpoint runs');
      await assertHeld(h, bot2, file, 'KILL_DRAWDOWN');
      // a wrong token is refused, and changes nothing
      const bad = cli(['ctl', 'clear-kill', '--port', String(port), '--reason', 'nope'], { BOOKMAKER_ADMIN_TOKEN: 'wrong-but-long-enough-token' });
      assert.equal(await withTimeout(bad.exit, 30_000, 'ctl did not exit'), 1);
      assert.equal(bot2.kernel.killed, 'KILL_DRAWDOWN');
      const ok = cli(['ctl', 'clear-kill', '--port', String(port), '--reason', 'loss reviewed by the desk'], { BOOKMAKER_ADMIN_TOKEN: TOKEN });
      assert.equal(await withTimeout(ok.exit, 30_000, 'ctl did not exit'), 0, ok.out());
      assert.match(ok.out(), /"cleared":true/);
      assert.ok(!ok.out().includes(TOKEN), 'the token is never printed');
      // quoting resumes without a restart, measured from where it stands (no instant re-kill)
      await waitFor('quotes again', async () => (await openOrders(h.bot, h.markets[1]!)).length >= 2, 20_000);
      assert.equal(bot2.kernel.killed, null);
      assert.equal(await readyGauge(bot2), 1);
    } finally {
      code2 = await bot2.stop();
    }
    assert.equal(code2, 0);
    const actions = ledgerRows(file, "SELECT action, reason, source FROM operator_actions WHERE action = 'clear-kill'");
    assert.deepEqual(actions, [{ action: 'clear-kill', reason: 'loss reviewed by the desk', source: 'admin' }]);
    const events = ledgerRows(file, "SELECT kind, reason FROM risk_events WHERE kind IN ('kill', 'clear') ORDER BY id");
    assert.deepEqual(events, [
      { kind: 'kill', reason: 'KILL_DRAWDOWN' },
      { kind: 'clear', reason: 'KILL_DRAWDOWN' },
    ]);
    assert.deepEqual(ledgerRows(file, 'SELECT latched FROM startups ORDER BY id'), [{ latched: null }, { latched: 'KILL_DRAWDOWN' }]);
  });
});

test('a daily loss kill stays latched: a held bot stops with exit 3; clear-kill works on the file with no bot running', async () => {
  await onLedgerExchange(async (h, file) => {
    const cfg = await ledgerConfig(h, file, { risk: LOSS_RISK, account: '  maxDrawdown: 0\n  maxDailyLoss: 0.5' });
    const bot1 = await startTestBot(h, cfg);
    try {
      await loseTwoDollars(h, bot1);
      assert.equal(await withTimeout(bot1.exit, 20_000, 'no kill within 20 s'), EXIT_KILL_SWITCH);
      assert.equal(bot1.kernel.killed, 'KILL_DAILY_LOSS');
    } finally {
      await bot1.stop();
    }
    let code2 = -1;
    const bot2 = await startTestBot(h, cfg);
    try {
      await assertHeld(h, bot2, file, 'KILL_DAILY_LOSS');
    } finally {
      code2 = await bot2.stop();
    }
    assert.equal(code2, EXIT_KILL_SWITCH, 'a bot held by the latch stops with the kill-switch code');
    // no bot running: the CLI clears the file itself
    const c = cli(['ctl', 'clear-kill', '--offline', '--ledger', file, '--reason', 'new day budget approved'], { BOOKMAKER_ADMIN_TOKEN: TOKEN });
    assert.equal(await withTimeout(c.exit, 30_000, 'ctl did not exit'), 0, c.out());
    assert.match(c.out(), /"cleared":true,"was":"KILL_DAILY_LOSS"/);
    let code3 = -1;
    const bot3 = await startTestBot(h, cfg);
    try {
      assert.equal(bot3.kernel.killed, null);
      await waitFor('quotes after the clear', async () => (await openOrders(h.bot, h.markets[1]!)).length >= 2, 20_000);
      // the books carried on: the loss of the first run is in the account PnL of the third
      assert.ok((bot3.store.state.markets.get(h.markets[0]!.toLowerCase())?.position.net ?? 0) === 10_000_000);
    } finally {
      code3 = await bot3.stop();
    }
    assert.equal(code3, 0);
    assert.deepEqual(ledgerRows(file, 'SELECT action, reason, source FROM operator_actions'), [
      { action: 'clear-kill', reason: 'new day budget approved', source: 'cli' },
    ]);
  });
});

test("the day's loss carries across a restart: two runs that each lose less than maxDailyLoss trip it together", async () => {
  await onLedgerExchange(async (h, file) => {
    const cfg = await ledgerConfig(h, file, { risk: LOSS_RISK, account: '  maxDrawdown: 0\n  maxDailyLoss: 3' });
    const bot1 = await startTestBot(h, cfg);
    let code1 = -1;
    try {
      await loseTwoDollars(h, bot1); // 10 YES bought at 0.48, marked at 0.28: −2 USDC today
      await waitFor('the loss is marked', () => Math.abs(bot1.store.state.markets.get(h.markets[0]!.toLowerCase())!.lastMid2! - 560_000) < 1);
      assert.equal(bot1.kernel.killed, null, '2 lost of 3 allowed');
    } finally {
      code1 = await bot1.stop();
    }
    assert.equal(code1, 0);
    const bot2 = await startTestBot(h, cfg);
    let code2 = -1;
    try {
      assert.equal(bot2.kernel.killed, null);
      // no more fills: market 0 paused (its quotes pulled), so only the mark moves
      bot2.control.pause(h.markets[0]!, 'test');
      await waitFor('market 0 pulled', async () => (await openOrders(h.bot, h.markets[0]!)).length === 0);
      const held = bot2.store.state.markets.get(h.markets[0]!.toLowerCase())!.position;
      assert.deepEqual([held.net, held.basis], [10_000_000, 4_800_000n * 1_000_000n], 'run 2 holds what run 1 bought, at its cost');
      // the market falls to 0.10: −1.8 in this run alone (under the limit), −3.8 today (over it);
      // market 1 still quotes, and its ticks read the account PnL
      await setBook(h, h.markets[0]!, 80_000, 120_000);
      code2 = await withTimeout(bot2.exit, 20_000, 'no kill within 20 s');
      assert.equal(bot2.kernel.killed, 'KILL_DAILY_LOSS');
    } finally {
      await bot2.stop();
    }
    assert.equal(code2, EXIT_KILL_SWITCH);
    assert.equal(ledgerRows(file, 'SELECT latch_reason FROM risk_state')[0]!.latch_reason, 'KILL_DAILY_LOSS');
  });
});
