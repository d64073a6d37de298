/**
 * The log line of the stop's fills sweep says what happened: fills that landed while the stop cancelled
 * the orders (after the feeds closed), read from the venue. The start-up catch-up's line (fills made
 * while the bot was down) stays the start's; before this change the sweep logged the start's words.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { createLogger } from '../../src/core/logger.ts';
import { BotLedger } from '../../src/ledger/bot-ledger.ts';
import { ledgerConfig } from '../support/bot-ledger.ts';
import { TRADER, hex32 as n, ordersSource, settableClock, T0, venueOrder } from '../support/venue-order.ts';
import { withTmpLedger } from './tmp-ledger.ts';

test("the stop's sweep logs fills that raced the cancels, not fills made while the bot was down", async () => {
  await withTmpLedger(async ({ dir }) => {
    const clock = settableClock(T0);
    const lines: { msg: string; fills?: number }[] = [];
    const logger = createLogger({ level: 'info', destination: { write: (s: string) => void lines.push(JSON.parse(s) as { msg: string }) } });
    const bl = await BotLedger.open({
      config: ledgerConfig(join(dir, 'l.sqlite')),
      clock,
      logger,
      trader: TRADER,
      venue: 'http://x/v2',
      chain: 'testnet',
      client: ordersSource([]),
      embedded: false,
      markets: 1,
      paper: false,
    });
    try {
      const a = n('a');
      clock.t = T0 + 2_000;
      bl.onEvent({
        type: 'OrderSubmitted',
        marketId: venueOrder().marketId,
        nonce: a,
        slot: 'bid:0',
        order: { nonce: a, outcomeIndex: 1, side: 0, price: 400_000, size: 10_000_000 } as never,
        retry: false,
        ts: clock.t,
      });
      bl.ledger.flush();
      // the stop: the cancel of `a` raced a fill of all 10 shares, seen only by the sweep
      clock.t = T0 + 5_000;
      const swept = await bl.finalSweep(ordersSource([venueOrder({ nonce: a, side: 0, price: 400_000, filledSize: 10_000_000, status: 'filled' })]), TRADER);
      assert.equal(swept, 1);
      const sweep = lines.filter((l) => l.fills === 1).map((l) => l.msg);
      assert.equal(sweep.length, 1, JSON.stringify(lines.map((l) => l.msg)));
      assert.doesNotMatch(sweep[0]!, /while the bot was down/);
      assert.match(sweep[0]!, /^stop: fills that landed while the orders were being cancelled/);
    } finally {
      bl.close();
    }
  });
});
