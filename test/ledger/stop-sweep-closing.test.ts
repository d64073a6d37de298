/**
 * The stop's sweep and the orders the cancel-all found gone without seeing their end
 * (OrderManager.endedAtStop, `closing`): each is looked up at the venue before the sweep's bound on
 * lookups can leave it out, its racing fill recorded, its end recorded as the venue states it, and
 * its status handed back (`read`) for the store. An order placed 20 minutes before the stop, behind
 * 101 other unfinished ones: without `closing` the sweep's 100 lookups would not reach it.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import type { VenueOrderStatus } from '../../src/ledger/catch-up.ts';
import type { Bytes32, VenueOrder } from '../../src/model/order.ts';
import { openBotLedger } from '../support/bot-ledger.ts';
import { MARKET as M, T0, TRADER, ordersSource, settableClock, venueOrder } from '../support/venue-order.ts';
import { withTmpLedger } from './tmp-ledger.ts';

const clock = settableClock();
const nonce = (i: number): Bytes32 => `0x${i.toString(16).padStart(64, '0')}` as Bytes32;

function submitted(bl: Awaited<ReturnType<typeof openBotLedger>>, n: Bytes32): void {
  bl.onEvent({
    type: 'OrderSubmitted',
    marketId: M,
    nonce: n,
    slot: 'bid:0',
    order: { nonce: n, outcomeIndex: 1, side: 0, price: 400_000, size: 10_000_000 } as never,
    retry: false,
    ts: clock.t,
  });
}

test("the stop's sweep looks up the orders the cancel-all found gone first, records their fill and real end, and hands their status back", async () => {
  await withTmpLedger(async ({ dir }) => {
    clock.t = T0;
    const bl = await openBotLedger({ path: join(dir, 'l.sqlite'), clock, trader: TRADER });
    // 101 orders the ledger saw placed and never saw end (cancelled at the venue), then the one that filled
    const others = Array.from({ length: 101 }, (_, i) => nonce(i + 1));
    const x = nonce(1_000);
    for (const n of others) submitted(bl, n);
    submitted(bl, x);
    bl.ledger.flush();
    const venue: VenueOrder[] = [
      ...others.map((n) => venueOrder({ nonce: n, side: 0, price: 400_000, status: 'cancelled' })),
      venueOrder({ nonce: x, side: 0, price: 400_000, filledSize: 10_000_000, status: 'filled' }),
    ];
    // the stop, 20 minutes on: the sweep's window of recent orders no longer lists them
    clock.t = T0 + 20 * 60_000;
    let read: readonly VenueOrderStatus[] | null = null;
    const swept = await bl.finalSweep(ordersSource(venue), TRADER, undefined, { nonces: [x], read: (r) => (read = r) });
    assert.equal(swept, 1, 'the racing fill is recorded');
    assert.deepEqual(read, [{ nonce: x, marketId: M, status: 'filled' }], "the order's status at the venue is handed back");
    bl.ledger.flush();
    const row = bl.ledger.db.prepare('SELECT status, ended_at AS endedAt FROM orders WHERE nonce = ?').get(x) as { status: string; endedAt: number | null };
    assert.equal(row.status, 'filled', 'ended as the venue states it');
    const fills = bl.ledger.db.prepare('SELECT SUM(size) AS s FROM fills WHERE nonce = ?').get(x) as { s: number };
    assert.equal(fills.s, 10_000_000);
    bl.close();
  });
});

test('a sweep that fails hands back nothing (the store then drops the orders alone; the ledger keeps them for the next start)', async () => {
  await withTmpLedger(async ({ dir }) => {
    clock.t = T0;
    const bl = await openBotLedger({ path: join(dir, 'l.sqlite'), clock, trader: TRADER });
    const x = nonce(7);
    submitted(bl, x);
    bl.ledger.flush();
    clock.t = T0 + 60_000;
    let told = false;
    const failing = {
      orders: {
        // biome-ignore lint/correctness/useYield: a venue that fails before its first page
        async *iterate(): AsyncGenerator<VenueOrder> {
          throw new Error('venue down');
        },
      },
    };
    assert.equal(await bl.finalSweep(failing, TRADER, undefined, { nonces: [x], read: () => (told = true) }), 0);
    assert.equal(told, false);
    assert.deepEqual(
      bl.ledger.unendedOrders().map((u) => u.nonce),
      [x],
      'still unfinished in the ledger: the next start reads its end',
    );
    bl.close();
  });
});
