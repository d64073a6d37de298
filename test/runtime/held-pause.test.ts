/**
 * an operator's pause outlives a market's slot. A market that rotation releases and brings
 * back while the ledger still holds its pause starts paused (QuotingKernelOptions.heldPause): no quote
 * until `ctl resume MARKET`.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import bands from '../../strategies/bands/index.ts';
import { DEFAULT_RISK } from '../../src/config/parse-risk.ts';
import type { Bytes32 } from '../../src/model/order.ts';
import type { StateEvent } from '../../src/state/events.ts';
import { StateStore } from '../../src/state/store.ts';
import { QuotingKernel, type KernelMarket } from '../../src/kernel/quoting-kernel.ts';
import { ManualClock } from '../exchange/stream/manual-clock.ts';
import { FakeVenue, M1, M2 } from '../orders/fake-venue.ts';
import { ONE_BAND, topOfBook } from '../support/quoting.ts';

const params = bands.parseConfig(ONE_BAND, 'strategy');
const market = (id: Bytes32): KernelMarket => ({
  marketId: id,
  strategy: bands,
  params,
  risk: { ...DEFAULT_RISK, maxBookAgeMs: 5_000, maxStreamSilenceMs: 5_000 },
});
const book = (marketId: Bytes32, ts: number): StateEvent => topOfBook(marketId, 480_000, 520_000, ts);

test('a market that (re)starts under a held pause starts paused; resume lets it quote', async () => {
  const clock = new ManualClock(1_800_000_000_000);
  const venue = new FakeVenue();
  const held = new Set([M2.toLowerCase()]);
  const kernel = new QuotingKernel({
    clock,
    venue,
    store: new StateStore(),
    markets: [market(M1)],
    requoteIntervalMs: 250,
    housekeepingMs: 1000,
    heldPause: (id) => held.has(id.toLowerCase()),
  });
  try {
    assert.equal(kernel.addMarket(market(M2)), true);
    assert.equal(kernel.isPaused(M2), true, 'it starts paused');
    assert.equal(kernel.isPaused(M1), false);
    kernel.onEvent(book(M2, clock.now()));
    kernel.onEvent(book(M1, clock.now()));
    await kernel.flush();
    const sent = venue.calls.flatMap((c) => (c.kind === 'batch' ? c.creates : c.kind === 'cancel-replace' ? [c.create] : []));
    assert.ok(sent.length > 0 && sent.every((o) => o.marketId === M1), 'only the market not paused quotes');
    held.delete(M2.toLowerCase());
    kernel.resume(M2);
    assert.equal(kernel.isPaused(M2), false);
  } finally {
    kernel.stop();
  }
});
