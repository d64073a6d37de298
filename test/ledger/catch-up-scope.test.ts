/**
 * The ledger's catch-up on a wallet shared with other instances (shards, reconcileScope markets):
 * the books hold what the venue holds, so another instance's fills are recorded too, as
 * `origin` 'foreign', and every open order of the wallet seeds the fills feed (which reads them all);
 * an order this ledger placed is 'own' whatever its market. (The first ledger left them out: the books
 * then differed from the venue's holdings by the other shard's 7 shares.)
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { listFills } from '../../src/ledger/books.ts';
import { catchUpFills } from '../../src/ledger/catch-up.ts';
import { ShardSiblings, shardTag } from '../../src/runtime/shard-tags.ts';
import { openLedger } from '../../src/ledger/ledger.ts';
import type { Bytes32, VenueOrder } from '../../src/model/order.ts';
import { MARKET as MINE, T0, TRADER, hex32 as n, ordersSource as source, settableClock, venueOrder } from '../support/venue-order.ts';

const THEIRS = ('0x' + '22'.repeat(32)) as Bytes32;
const clock = settableClock();

const order = (nonce: Bytes32, marketId: Bytes32, filledSize: number, status: VenueOrder['status']): VenueOrder =>
  venueOrder({ nonce, marketId, filledSize, status, sv2OrderKind: null, sv2TimeInForce: null });

test("catch-up with owns: only this instance's markets are recorded and seeded; its own orders are caught up in any market", async () => {
  const l = openLedger({ path: ':memory:', clock });
  // a first start (fresh: baselines only), then this instance placed an order in THEIRS before the scope moved
  await catchUpFills({ client: source([]), trader: TRADER, ledger: l, clock, owns: (id) => id === MINE });
  l.startup({ configHash: 'h', configFile: 'f', venue: 'v', trader: TRADER, markets: 1, latched: null }, 0);
  l.orderSubmitted({ nonce: n('d'), marketId: THEIRS, slot: 's', outcomeIndex: 1, side: 1, price: 600_000, size: 10_000_000, ts: T0 }, false);
  l.flush();
  clock.t = T0 + 60_000;
  const venue = [
    order(n('a'), MINE, 2_000_000, 'open'), // ours, open, 2 filled while down
    order(n('b'), THEIRS, 7_000_000, 'filled'), // the other shard's
    order(n('c'), THEIRS, 1_000_000, 'open'), // the other shard's, open
    order(n('d'), THEIRS, 4_000_000, 'cancelled'), // ours (the books placed it), in the other market
  ];
  const r = await catchUpFills({ client: source(venue), trader: TRADER, ledger: l, clock, owns: (id) => id === MINE });
  assert.deepEqual(
    listFills(l)
      .map((f) => [f.fillId, f.size, f.origin, f.feeSource])
      .sort(),
    [
      [`${n('a')}:2000000`, 2, 'own', 'model'],
      [`${n('b')}:7000000`, 7, 'foreign', 'model'],
      [`${n('c')}:1000000`, 1, 'foreign', 'model'],
      [`${n('d')}:4000000`, 4, 'own', 'model'],
    ],
  );
  assert.deepEqual(r.openOrders.map((o) => o.nonce).sort(), [n('a'), n('c')], 'every open order of the wallet seeds the fills feed');
  // without the scope (reconcileScope wallet): an order the ledger never saw placed is foreign
  const l2 = openLedger({ path: ':memory:', clock });
  clock.t = T0; // begun before the orders were placed (an order placed before a ledger began is history)
  await catchUpFills({ client: source([]), trader: TRADER, ledger: l2, clock });
  l2.startup({ configHash: 'h', configFile: 'f', venue: 'v', trader: TRADER, markets: 1, latched: null }, 0);
  l2.flush();
  clock.t = T0 + 60_000;
  await catchUpFills({ client: source(venue), trader: TRADER, ledger: l2, clock });
  assert.equal(listFills(l2).find((f) => f.fillId === `${n('b')}:7000000`)?.origin, 'foreign');
  l.close();
  l2.close();
});

test("catch-up on a shard: a sibling shard's order in a market this shard now owns is the sibling's ('foreign'), not this shard's", async () => {
  const siblings = new ShardSiblings(TRADER, 0);
  // shard 1's order, left resting in MINE when a re-split moved MINE to shard 0; it filled while shard 0 was down
  const theirs = `0x${shardTag(TRADER, 1)}${'33'.repeat(24)}` as Bytes32;
  const lost = n('e'); // shard 0's own order whose record a crash lost (no tag: an older ledger's nonce)
  const run = async (sibling?: (nonce: Bytes32) => boolean) => {
    const l = openLedger({ path: ':memory:', clock });
    clock.t = T0;
    await catchUpFills({ client: source([]), trader: TRADER, ledger: l, clock, owns: (id) => id === MINE });
    l.startup({ configHash: 'h', configFile: 'f', venue: 'v', trader: TRADER, markets: 1, latched: null }, 0);
    l.flush();
    clock.t = T0 + 60_000;
    const venue = [order(theirs, MINE, 3_000_000, 'filled'), order(lost, MINE, 2_000_000, 'filled')];
    await catchUpFills({ client: source(venue), trader: TRADER, ledger: l, clock, owns: (id) => id === MINE, ...(sibling ? { sibling } : {}) });
    const origins = Object.fromEntries(listFills(l).map((f) => [f.nonce, f.origin]));
    l.close();
    return origins;
  };
  assert.deepEqual(await run((nonce) => siblings.siblingOf(nonce) !== null), { [theirs]: 'foreign', [lost]: 'own' });
  // without the sibling test, the market alone decides: the sibling's order would count as this shard's
  assert.deepEqual(await run(), { [theirs]: 'own', [lost]: 'own' });
});
