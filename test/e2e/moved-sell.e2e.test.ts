/**
 * What a moved sell sends (docs/architecture.md, "The pipeline": the order manager's calls). A one-for-one move
 * is one `POST /orders/cancel-replace` for a sell as for a buy, while the bot holds tokens enough beyond the sell
 * it moves. A sell of the last tokens the bot holds of its outcome is not: while the sell it replaces may still
 * fill unseen (parked until its fills are known), its tokens are not free for the new quote (the sell reserve,
 * src/orders/sell-reserve.ts), so the move goes out as a cancel-replace into a buy of the other outcome; once the
 * old sell's end is known the quote is a sale again, and a change of venue form of the order the risk gate took
 * the quote as is a cancel, then, the next tick, a create (DesiredOrder.keeps, src/orders/order-manager.ts
 * withoutCreateForKept). Both are rules, not an accident of a config: a `bookmaker run` child does the same.
 *
 * The bot quotes with the lopsided strategy (its ask the others' mid plus half a cent, rounded up to the tick,
 * 5 shares), holding YES bought before it starts; the mover's bid goes from 0.47 to 0.46 in market 0, the mid
 * half a cent down, and the ask alone moves from 0.51 to 0.50. The test watches the bot's order calls at the
 * venue (the exchange's request hold, holding nothing) and the venue's orders of the ask's slot.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Bytes32, VenueOrder } from '../../src/model/order.ts';
import type { Bot } from '../../src/runtime/bot.ts';
import {
  allOrders,
  ledgerConfig,
  LOPSIDED,
  moveMoverQuote,
  onLedgerExchange,
  openOrders,
  place,
  setBook,
  startTestBot,
  waitFor,
  withTimeout,
  yesTerms,
  type Harness,
} from './harness.ts';

/** The venue form of an order: 'sell YES' or 'buy NO' (an ask), 'buy YES' or 'sell NO' (a bid). */
const form = (v: VenueOrder): string => `${v.side === 0 ? 'buy' : 'sell'} ${v.outcomeIndex === 1 ? 'YES' : 'NO'}`;

/**
 * The bot holding `held` YES of market 0 moves its ask: the order calls it sent from the move until its ask is a
 * YES sale at 0.50 again, and the forms its ask took at the venue (oldest first) from its ask at 0.51 on.
 */
async function moveAsk(held: number): Promise<{ calls: string[]; asks: string[] }> {
  let out: { calls: string[]; asks: string[] } | null = null;
  await onLedgerExchange(async (h, ledger) => {
    out = await moveAskOn(h, ledger, held);
  });
  return out!;
}

async function moveAskOn(h: Harness, ledger: string, held: number): Promise<{ calls: string[]; asks: string[] }> {
  let bot: Bot | null = null;
  try {
    const [m0] = h.markets as [Bytes32, Bytes32];
    // the bot's YES, bought from the mover before it starts (the books at 0.48/0.52); a new ledger adopts them as its baseline
    await place(h.bot, { marketId: m0, outcomeIndex: 1, side: 0, price: 520_000, shares: held, timeInForce: 1 });
    // market 0 a cent wider: the bot's quotes (half a cent from the mid) alone at the top
    await setBook(h, m0, 470_000, 530_000);
    const calls: string[] = [];
    let watching = false;
    h.ex.holdRequests((r) => {
      if (watching && r.trader.toLowerCase() === h.bot.wallet.toLowerCase() && r.method === 'POST' && r.stage === 'after') calls.push(r.path);
      return undefined;
    });
    bot = await startTestBot(h, await ledgerConfig(h, ledger, LOPSIDED), { newLedger: true });
    const ask0 = async () => (await openOrders(h.bot, m0)).filter((v) => yesTerms(v).side === 'ask');
    await waitFor('the bot quotes both markets', async () => (await openOrders(h.bot)).length === 4, 60_000);
    const [old] = await ask0();
    assert.deepEqual([form(old!), yesTerms(old!).price, old!.size], ['sell YES', 510_000, 5_000_000], 'the ask: a sale of 5 YES at 0.51');
    watching = true;
    // the mid half a cent down: the mover's bid at 0.46 first, then its bid at 0.47 goes (the book never one-sided)
    await moveMoverQuote(h, m0, 'bid', 460_000);
    await waitFor(
      'the ask is a sale of YES at 0.50',
      async () => {
        const now = await ask0();
        return now.length === 1 && form(now[0]!) === 'sell YES' && yesTerms(now[0]!).price === 500_000;
      },
      60_000,
    );
    watching = false;
    h.ex.holdRequests(null);
    // (the venue lists orders newest first: docs/venue.md, "Endpoints")
    const since = (await allOrders(h.bot)).filter((v) => v.marketId.toLowerCase() === m0.toLowerCase() && yesTerms(v).side === 'ask').reverse();
    const asks = since.map((v) => `${form(v)} ${yesTerms(v).price / 1e6} ${v.status}`);
    const b = bot;
    bot = null;
    assert.equal(await withTimeout(b.stop(), 60_000, 'the bot stops'), 0);
    return { calls, asks };
  } finally {
    h.ex.holdRequests(null);
    if (bot) await bot.stop();
  }
}

test('a moved sell with tokens to spare beyond it: one cancel-replace, sale to sale', { timeout: 120_000 }, async () => {
  const { calls, asks } = await moveAsk(10);
  assert.deepEqual(calls, ['/orders/cancel-replace'], 'one call');
  assert.deepEqual(asks, ['sell YES 0.51 cancelled', 'sell YES 0.5 open']);
});

test('a moved sell of the last tokens held: a cancel-replace into a NO buy, then a cancel and a create back to a sale', { timeout: 120_000 }, async () => {
  const { calls, asks } = await moveAsk(5);
  assert.deepEqual(calls, ['/orders/cancel-replace', '/orders/bulk/cancel', '/orders/bulk/create'], 'three calls');
  assert.deepEqual(asks, ['sell YES 0.51 cancelled', 'buy NO 0.5 cancelled', 'sell YES 0.5 open']);
});
