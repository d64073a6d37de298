import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseFeeds } from '../../src/config/parse-settings.ts';
import type { Bytes32 } from '../../src/model/order.ts';
import { storeLimits } from '../../src/kernel/trading-core.ts';
import { StateStore } from '../../src/state/store.ts';
import { NONCE_MEMORY, NonceSource } from '../../src/orders/nonces.ts';

const M = ('0x' + 'ab'.repeat(32)) as Bytes32;

test("the live store keeps the config's mid and trade history sizes, not the reducer's defaults", () => {
  const feeds = parseFeeds({ midHistorySize: 7, tradeHistorySize: 3 }, 'feeds');
  const store = new StateStore(storeLimits({ feeds }));
  const S = 1_000_000;
  // one book change a second for 30 s, moving the mid, and a trade each time
  for (let i = 0; i < 30; i++) {
    const ts = 1_000 + i * 1_000;
    const p = 400_000 + (i % 5) * 10_000;
    store.dispatch({
      type: 'BookEventReceived',
      event: {
        type: 'snapshot',
        book: { marketId: M, outcomeIndex: 1, bids: [{ price: p, size: S }], asks: [{ price: p + 20_000, size: S }], venueTs: ts },
        seq: i + 1,
        localTs: ts,
        source: 'stream',
      },
      ts,
    });
    store.dispatch({
      type: 'BookEventReceived',
      event: { type: 'trade', marketId: M, outcomeIndex: 1, seq: i + 1, price: p, size: S, takerSide: 'sell', venueTs: ts, localTs: ts },
      ts,
    });
  }
  const m = store.state.markets.get(M)!;
  assert.equal(m.midHistory.length, 7);
  assert.equal(m.midHistory.at(-1)!.ts, 30_000, 'the newest samples are the ones kept');
  assert.equal(m.trades.length, 3);
  // the default config (120 mids) is what a bot without the setting gets
  assert.equal(storeLimits({ feeds: parseFeeds(undefined, 'feeds') }).midSamples, 120);
});

test('the nonce memory window forgets the oldest nonces and still refuses a recent reuse', () => {
  assert.ok(NONCE_MEMORY >= 1_000 && NONCE_MEMORY <= 20_000, `window ${NONCE_MEMORY}`);
  const src = new NonceSource(NONCE_MEMORY);
  const first = src.next();
  for (let i = 0; i < NONCE_MEMORY; i++) src.next();
  assert.equal(src.has(first), false, 'the oldest has left the window');
  const recent = src.next();
  assert.throws(() => src.remember(recent), /nonce reused/);
});
