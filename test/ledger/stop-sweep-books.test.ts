/**
 * The stop's fills sweep: fills that raced the last cancels are recorded in the ledger
 * and given to the running books too, so the stop's last mark, the run report (the running books)
 * and `ledger summary` (the books rebuilt from the ledger) hold the same fills and the same PnL. On
 * the code before this change the sweep reached the ledger only: the report's unrealised PnL then
 * differed from the summary's.
 */
import assert from 'node:assert/strict';
import { withTmpLedger } from './tmp-ledger.ts';
import { join } from 'node:path';
import { test } from 'node:test';
import { accountFromLedger, ledgerSummary } from '../../src/ledger/books.ts';
import type { Bytes32, VenueOrder } from '../../src/model/order.ts';
import { openBotLedger } from '../support/bot-ledger.ts';
import { MARKET as M, T0, TRADER, hex32 as n, ordersSource, settableClock, venueOrder } from '../support/venue-order.ts';

const clock = settableClock();

/** A resting buy of 10 YES at 0.40. */
const order = (nonce: Bytes32, o: Partial<VenueOrder> = {}): VenueOrder => venueOrder({ nonce, side: 0, price: 400_000, ...o });

function client(orders: VenueOrder[]) {
  return {
    ...ordersSource(orders),
    balance: {
      async summary() {
        return { address: TRADER, usdc: { tokenAddress: TRADER, balance: 50_000_000n, settlementBalance: 50_000_000n, walletBalance: 0n }, outcomeTokens: [] };
      },
    },
    markets: {
      async orderbook() {
        return { status: 200 as const, book: { marketId: M, outcomeIndex: 1 as const, bids: [], asks: [], venueTs: 0 } };
      },
    },
  };
}

/** A live bot's ledger in `dir` on an empty venue (taker fee 50 bps). */
const openIn = (dir: string) => openBotLedger({ path: join(dir, 'l.sqlite'), clock, trader: TRADER, client: client([]), fees: { makerBps: 0, takerBps: 50 } });

test('the stop sweep gives its fills to the running books: the last mark, the report and ledger summary agree', async () => {
  await withTmpLedger(async ({ dir }) => {
    clock.t = T0;
    const bl = await openIn(dir);
    const books = bl.books();
    // the run: a quote bought 5 YES @ 0.40 (seen by the feed), the market is marked at 0.50
    const a = n('a');
    const b = n('b');
    clock.t = T0 + 2_000;
    bl.onEvent({
      type: 'OrderSubmitted',
      marketId: M,
      nonce: a,
      slot: 'bid:0',
      order: { nonce: a, outcomeIndex: 1, side: 0, price: 400_000, size: 10_000_000 } as never,
      retry: false,
      ts: clock.t,
    });
    bl.onEvent({
      type: 'OrderSubmitted',
      marketId: M,
      nonce: b,
      slot: 'bid:1',
      order: { nonce: b, outcomeIndex: 1, side: 0, price: 390_000, size: 10_000_000 } as never,
      retry: false,
      ts: clock.t,
    });
    const first = {
      type: 'OrderFilled',
      marketId: M,
      nonce: a,
      outcomeIndex: 1,
      side: 0,
      price: 400_000,
      size: 5_000_000,
      fee: 0,
      fillId: `${a}:5000000`,
      ts: clock.t + 100,
    } as const;
    bl.onEvent(first);
    books.applyFill({
      fillId: first.fillId,
      marketId: M,
      outcomeIndex: 1,
      side: 0,
      price: 400_000,
      size: 5_000_000,
      fee: 0,
      feeSource: 'venue',
      ts: first.ts,
      origin: 'own',
    });
    books.mark(M, 1_000_000, clock.t + 200);
    bl.ledger.flush();
    // the stop: the cancels raced a fill of 10 @ 0.39 on the other quote, which only the sweep sees
    clock.t = T0 + 5_000;
    const venue = [
      order(a, { filledSize: 5_000_000, remainingSize: 5_000_000, status: 'cancelled' }),
      order(b, { price: 390_000, filledSize: 10_000_000, remainingSize: 0, status: 'filled' }),
    ];
    const swept = await bl.finalSweep(client(venue), TRADER, books);
    assert.equal(swept, 1);
    assert.deepEqual(
      books.positions(),
      [{ marketId: M.toLowerCase(), outcomeIndex: 1, shares: 15_000_000 }],
      'the running books hold the swept fill (old code: 5 YES)',
    );
    bl.markNow(books, { peakPnl: null, day: null, dayStartPnl: null });
    const report = books.figures();
    bl.ledger.flush();
    const rebuilt = accountFromLedger(bl.ledger).figures();
    assert.deepEqual({ r: rebuilt.realised, u: rebuilt.unrealised, t: rebuilt.total }, { r: report.realised, u: report.unrealised, t: report.total });
    const s = ledgerSummary(bl.ledger);
    assert.equal(Math.round(s.pnl.total * 1e6), Number(report.total), "ledger summary's total is the report's");
    assert.equal(report.unrealised, (5_000_000n * 100_000n) / 1_000_000n + (10_000_000n * 110_000n) / 1_000_000n);
    bl.close();
  });
});

test("resolutions and claims are in the ledger: a restart's books (and ledger summary) keep the resolution PnL and the claimed payout", async () => {
  await withTmpLedger(async ({ dir }) => {
    clock.t = T0;
    const M2 = ('0x' + '22'.repeat(32)) as Bytes32;
    const bl = await openIn(dir);
    const books = bl.books();
    const fillOf = (marketId: Bytes32, id: string, price: number, size: number) => {
      const e = { type: 'OrderFilled', marketId, nonce: null, outcomeIndex: 1, side: 0, price, size, fee: 0, fillId: id, ts: clock.t, origin: 'own' } as const;
      bl.onEvent(e);
      books.applyFill({ fillId: id, marketId, outcomeIndex: 1, side: 0, price, size, fee: 0, feeSource: 'venue', ts: clock.t, origin: 'own' });
    };
    // 10 YES @ 0.30 in M (resolves YES, claimed), 4 YES @ 0.60 in M2 (resolves NO, not claimed)
    fillOf(M, 'm1', 300_000, 10_000_000);
    fillOf(M2, 'm2', 600_000, 4_000_000);
    clock.t = T0 + 60_000;
    for (const [id, payout] of [
      [M, 1_000_000],
      [M2, 0],
    ] as const) {
      const e = { type: 'MarketMetadataUpdated', marketId: id, status: 'resolved', payoutYes: payout, ts: clock.t } as const;
      bl.onEvent(e);
      bl.onEvent(e); // a metadata poll repeats it
      books.resolve(id, payout, clock.t);
    }
    clock.t = T0 + 90_000;
    books.claimed(M);
    bl.claimed(M, 1_000_000, clock.t);
    bl.markNow(books, { peakPnl: null, day: null, dayStartPnl: null });
    bl.ledger.flush();
    const live = books.figures();
    assert.equal(live.realised, 7_000_000n - 2_400_000n, 'M +7.00 at the payout, M2 −2.40');
    assert.equal(live.cash, -3_000_000n - 2_400_000n + 10_000_000n, 'the claim paid 10');
    const rebuilt = accountFromLedger(bl.ledger);
    const f = rebuilt.figures();
    assert.deepEqual(
      { r: f.realised, u: f.unrealised, c: f.cash },
      { r: live.realised, u: live.unrealised, c: live.cash },
      "the restart's books are the running ones (old code: the resolution PnL and the claimed payout were lost)",
    );
    assert.deepEqual(rebuilt.positions(), books.positions(), 'claimed tokens are gone, unclaimed ones (M2 NO-resolved YES) stay');
    const s = ledgerSummary(bl.ledger);
    assert.equal(Math.round(s.pnl.realised * 1e6), Number(live.realised));
    assert.equal(Math.round(s.cashUsdc * 1e6), Number(live.cash));
    assert.equal(bl.ledger.resolutions().length, 2);
    bl.close();
  });
});
