/**
 * After resolution, over real HTTP against the local exchange: the bot buys 10 YES in one
 * market, the exchange resolves it YES (`resolveMarket`), and
 *  - the bot has no open order left in it;
 *  - its books realise the position at the payout (nothing left unrealised);
 *  - the claimable position is read from GET /portfolio/:address/claimable and reported: a log line
 *    with the payout and the amount, bookmaker_claimable_usdc{market} and the total, the run report;
 *  - the market stops counting in the account-wide worst case (maxTotalPosition): while live, the
 *    position trimmed the market's own re-bid; once resolved, the account figure is the other
 *    market's orders alone;
 *  - a bot started later (on the other market only) reports the claimable position at start-up.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createLogger } from '../../src/core/logger.ts';
import { remainingShares } from '../../src/orders/venue-order-shares.ts';
import { selectMarketView } from '../../src/state/market-view.ts';
import { config, openOrders, place, setBook, startExchange, startTestBot, waitFor, yesTerms } from './harness.ts';
import type { Bytes32 } from '../../src/model/order.ts';

const S = 1_000_000;

test('a resolved market: orders gone, claimable position logged, counted and reported, and no longer in the total limits', { timeout: 90_000 }, async () => {
  const h = await startExchange({ markets: 2 });
  const [m1, m2] = h.markets as [Bytes32, Bytes32];
  await setBook(h, m1, 460_000, 540_000);
  await setBook(h, m2, 460_000, 540_000);
  const logs: string[] = [];
  const logger = createLogger({ level: 'info', destination: { write: (s: string) => void logs.push(s) } });
  // each market's worst case is 10 shares (one bid and one ask of 10); the total limit of 25 leaves
  // room for both, until a 10-share position in m1 makes its worst long 20
  const risk =
    '    maxPosition: 100\n    maxNotional: 1000\n    maxOrderSize: 50\n    maxTotalPosition: 25\n    maxBookAgeSeconds: 60\n    maxStreamSilenceSeconds: 60';
  const bot = await startTestBot(h, await config(h, { risk }), { logger });
  let bot2: Awaited<ReturnType<typeof startTestBot>> | null = null;
  try {
    const m1l = m1.toLowerCase();
    await waitFor('both markets quoted', async () => (await openOrders(h.bot, m1)).length === 2 && (await openOrders(h.bot, m2)).length === 2, 20_000);
    // the mover sells 10 YES at 0.48 (the bot's bid; the mover's own bid rests behind at 0.46)
    const bid = (await openOrders(h.bot, m1)).map(yesTerms).find((o) => o.side === 'bid')!;
    await place(h.mover, { marketId: m1, outcomeIndex: 1, side: 1, price: bid.price, shares: 10, timeInForce: 1, inventoryMode: 2 });
    await waitFor('the bot holds 10 YES in m1', () => (bot.store.state.markets.get(m1l)?.position.net ?? 0) === 10 * S, 15_000);
    await waitFor(
      'the total limit counts the live position',
      () => selectMarketView(bot.store.state, m2, Date.now())!.account.worstCasePosition > 20 * S,
      10_000,
    );
    // and bites: m1's new bid fits in 25 − 10 (m2) − 10 (the position) = 5 shares
    await waitFor('m1 re-bids within the total limit', async () => (await openOrders(h.bot, m1)).some((o) => yesTerms(o).side === 'bid'), 10_000);
    for (const o of await openOrders(h.bot, m1))
      if (yesTerms(o).side === 'bid') assert.ok(remainingShares(o) <= 5 * S, `m1 bid of ${remainingShares(o)} under the total limit`);

    h.ex.state.services.resolveMarket(m1, 1_000_000, Date.now(), 'e2e: YES');
    await waitFor('no open order left in the resolved market', async () => (await openOrders(h.bot, m1)).length === 0, 20_000);
    await waitFor(
      'the claimable position is reported',
      () => bot.report('test', 0).claims?.markets.some((m) => m.marketId === m1l && m.state === 'claimable') === true,
      20_000,
    );
    // the books realise the position at the payout: 10 × (1 − the bid it bought at) − fees, nothing unrealised
    await waitFor('the books hold the payout', () => bot.kernel.account.market(m1l as Bytes32)?.payoutYes === 1_000_000, 10_000);
    const books = bot.kernel.account.market(m1l as Bytes32)!;
    assert.deepEqual(
      { realised: books.realised, unrealised: books.unrealised },
      { realised: BigInt(10 * (1_000_000 - bid.price)) - books.fees, unrealised: 0n },
    );
    const claims = bot.report('test', 0).claims!;
    assert.deepEqual(
      claims.markets.find((m) => m.marketId === m1l),
      {
        marketId: m1l,
        state: 'claimable',
        payoutYesUsdc: '1.000000',
        payoutNoUsdc: '0.000000',
        yesShares: '10.000000',
        noShares: '0.000000',
        claimableUsdc: '10.000000',
      },
    );
    assert.equal(claims.totalClaimableUsdc, '10.000000');
    // the log line: market, payout, amount
    const line = logs
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .find((l) => typeof l.msg === 'string' && l.msg.includes(`market ${m1l} resolved: 10.000000 USDC claimable`));
    assert.ok(line, 'a log line for the market');
    assert.equal(line.payoutYes, '1.000000');
    assert.equal(line.claimableUsdc, '10.000000');
    // the metric and its total
    const text = await bot.metrics.registry.metrics();
    assert.match(text, new RegExp(`bookmaker_claimable_usdc\\{market="${m1l}"\\} 10\\b`));
    assert.match(text, /bookmaker_claimable_total_usdc 10\b/);
    // the resolved market no longer counts in the account's worst case: only m2's own orders do
    await waitFor('the account worst case is m2 alone', () => selectMarketView(bot.store.state, m2, Date.now())!.account.worstCasePosition <= 10 * S, 10_000);
    // the end-of-run report carries the block
    assert.equal(await bot.stop(), 0);
    const printed = (await import('../../src/runtime/run-report.ts')).formatRunReport(bot.report('test', 0)).join('\n');
    assert.match(printed, /after resolution: 1 market\(s\) resolved, 10\.00 USDC claimable/);

    // a later run quoting only m2 reports the claimable position of m1 at start-up
    const logs2: string[] = [];
    bot2 = await startTestBot(h, await config(h, { risk, markets: `  - id: "${m2}"` }), {
      logger: createLogger({ level: 'info', destination: { write: (s: string) => void logs2.push(s) } }),
    });
    await waitFor(
      'the start-up read reports m1',
      () => bot2!.report('test', 0).claims?.markets.some((m) => m.marketId === m1l && m.claimableUsdc === '10.000000') === true,
      15_000,
    );
    assert.ok(logs2.some((l) => l.includes(`market ${m1l} resolved: 10.000000 USDC claimable`)));
  } finally {
    await bot.stop();
    await bot2?.stop();
    await h.close();
  }
});
