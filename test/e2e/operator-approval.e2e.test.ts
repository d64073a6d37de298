/**
 * A wallet without Settlement V2 operator approval, over real HTTP against the local exchange: the
 * venue accepts its creates and voids each on arrival (MISSING_OPERATOR_APPROVAL), so they never rest
 * nor fill. The bot must not churn creates that every one meet that void: it halts with exit 4, a
 * fatal line naming the cause and the fix, and /readyz not ready. Before, the local exchange let such
 * orders rest and fill, and the bot kept quoting.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createLogger } from '../../src/core/logger.ts';
import { allOrders, config, openOrders, place, setBook, startExchange, startTestBot, withTimeout, type Harness } from './harness.ts';

let h: Harness;

before(async () => {
  h = await startExchange({ markets: 2 });
  for (const m of h.markets) await setBook(h, m, 480_000, 520_000);
  // the bot's wallet revokes Settlement V2 as operator of its new Holdings (nonce 0: never set before)
  await h.bot.client.gasless.setOperator(h.bot.signer.signOperatorApproval({ nonce: '0', approved: false }));
});

after(async () => {
  await h?.close();
});

test('the local exchange accepts a create of a wallet without operator approval and voids it on arrival', async () => {
  const before = await h.bot.client.balance.summary(h.bot.wallet);
  const answer = await place(h.bot, { marketId: h.markets[0]!, outcomeIndex: 1, side: 0, price: 470_000, shares: 10 });
  assert.equal(answer?.status, 'voided', 'the create answer already says voided');
  const [o] = await allOrders(h.bot);
  assert.ok(o, 'the order was accepted');
  assert.equal(o.status, 'voided');
  assert.equal(o.voidReason, 'MISSING_OPERATOR_APPROVAL');
  assert.equal((await openOrders(h.bot)).length, 0, 'it never rests');
  const afterRead = await h.bot.client.balance.summary(h.bot.wallet);
  assert.equal(afterRead.usdc.balance, before.usdc.balance, 'it reserves nothing');
});

test('the bot halts with exit 4, the cause and the fix, instead of re-placing voided quotes', { timeout: 60_000 }, async () => {
  const lines: Record<string, unknown>[] = [];
  const logger = createLogger({ level: 'info', destination: { write: (s: string) => void lines.push(JSON.parse(s) as Record<string, unknown>) } });
  const voidedBefore = (await allOrders(h.bot)).length;
  const bot = await startTestBot(h, await config(h), { logger });
  let code: number;
  try {
    code = await withTimeout(bot.exit, 40_000, 'the bot did not halt by itself');
  } finally {
    await bot.stop();
  }
  assert.equal(code, 4);
  const fatal = lines.find((l) => l.level === 60 && typeof l.fix === 'string');
  assert.ok(fatal, 'a fatal line names the fix');
  assert.match(String(fatal.cause), /MISSING_OPERATOR_APPROVAL/);
  assert.match(String(fatal.fix), /operator/);
  const r = bot.readyz();
  assert.equal(r.status, 503);
  assert.match(JSON.stringify(r.body.reasons), /process halted: .*operator/);
  // one round of quotes at most went out before the first void was read: no churn
  const placed = (await allOrders(h.bot)).length - voidedBefore;
  assert.ok(placed > 0, 'the bot did quote');
  assert.ok(placed <= 4 * h.markets.length * 2, `creates stopped at the first void: ${placed}`);
  assert.equal((await openOrders(h.bot)).length, 0);
});
