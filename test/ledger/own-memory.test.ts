/**
 * BotLedger's memory of its own nonces (isOwn) is a bounded cache of the ledger: a run that places
 * far more orders than the bound keeps at most OWN_MEMORY of them in memory, and an order older
 * than that is still known as its own (by the nonce tag or the ledger's orders table). It kept
 * 100 000 before: soak-memory's live heap grew with it for over an hour.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { OWN_MEMORY } from '../../src/ledger/bot-ledger.ts';
import type { Bytes32 } from '../../src/model/order.ts';
import { openBotLedger } from '../support/bot-ledger.ts';
import { TRADER, settableClock } from '../support/venue-order.ts';
import { withTmpLedger } from './tmp-ledger.ts';
import { liveHeap } from '../support/retained-heap.ts';

test('isOwn keeps at most OWN_MEMORY nonces in memory, and still knows the older ones', async () => {
  await withTmpLedger(async ({ dir }) => {
    const bl = await openBotLedger({ path: join(dir, 'l.sqlite'), clock: settableClock(), trader: TRADER });
    try {
      const tag = bl.ledger.nonceTag()!;
      const nonce = (i: number) => `0x${tag}${i.toString(16).padStart(48, '0')}` as Bytes32;
      const n = 3 * OWN_MEMORY;
      for (let i = 0; i < n; i++) assert.equal(bl.isOwn(nonce(i)), true);
      assert.ok(bl.ownRemembered <= OWN_MEMORY, `${bl.ownRemembered} nonces in memory after ${n} own orders`);
      assert.ok(OWN_MEMORY <= 10_000);
      // the oldest, long out of the cache, is still this bookmaker's; another's nonce is not
      assert.equal(bl.isOwn(nonce(0)), true);
      assert.equal(bl.isOwn(`0x${'ab'.repeat(32)}` as Bytes32), false);
    } finally {
      bl.close();
    }
  });
});

test('the memory of own nonces is allocated at the start: filling it retains no more', async () => {
  await withTmpLedger(async ({ dir }) => {
    const bl = await openBotLedger({ path: join(dir, 'l.sqlite'), clock: settableClock(), trader: TRADER });
    try {
      const tag = bl.ledger.nonceTag()!;
      const nonce = (i: number) => `0x${tag}${i.toString(16).padStart(48, '0')}` as Bytes32;
      for (let i = 0; i < 10; i++) bl.isOwn(nonce(i));
      const start = liveHeap();
      for (let i = 10; i < 2 * OWN_MEMORY; i++) bl.isOwn(nonce(i));
      const grown = liveHeap() - start;
      assert.equal(bl.ownRemembered, OWN_MEMORY);
      // a Set of the nonces' strings grew by ~1.3 MB while it filled
      assert.ok(grown < 150_000, `retained ${grown} bytes more after ${2 * OWN_MEMORY} own nonces`);
    } finally {
      bl.close();
    }
  });
});
