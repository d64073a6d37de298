/**
 * The shards of one wallet know each other's orders (src/runtime/shard-tags.ts, phases/siblings.ts): a
 * sibling's order in this shard's markets (a re-split moved the market) is neither another trader's (no
 * exit 7, no wallet halt) nor this ledger's (never handed to the order manager to adopt); found at start
 * it is cancelled, and while running a lower-index sibling keeps a contested market until its orders go.
 * Before, such an order was foreign: the start refused (exit 7) and a running shard halted.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Bytes32, VenueOrder } from '../../src/model/order.ts';
import type { BatchResult, VenuePort } from '../../src/model/venue.ts';
import { cancelSiblingsAtStart, SIBLING_GONE_LISTINGS, siblingHandler } from '../../src/runtime/phases/siblings.ts';
import type { StartContext } from '../../src/runtime/phases/start-context.ts';
import { ShardSiblings, shardTag } from '../../src/runtime/shard-tags.ts';
import { WalletSharedError, WalletWatch, type ForeignOrders, type SiblingOrders } from '../../src/runtime/wallet-watch.ts';
import { venueOrder } from '../support/venue-order.ts';

const WALLET = '0x595261f255aCdeEe992EE054EA4EdD6A06De96dE';
const M1 = ('0x' + 'a1'.repeat(32)) as Bytes32;
const M2 = ('0x' + 'b2'.repeat(32)) as Bytes32;
const OTHER = '2222222222222222';
let n = 0;
const order = (tag: string, marketId: Bytes32): VenueOrder =>
  venueOrder({ nonce: ('0x' + tag + (++n).toString(16).padStart(48, '0')) as Bytes32, marketId, status: 'open', insertedAt: '2026-11-29T10:00:00.000Z' });

const silent = { log: { warn: () => undefined, info: () => undefined, error: () => undefined } } as unknown as StartContext;

test('a shard tag is fixed by the wallet and the index (not the count), and each sibling is known by it', () => {
  assert.match(shardTag(WALLET, 0), /^[0-9a-f]{16}$/);
  assert.equal(shardTag(WALLET, 2), shardTag(WALLET.toLowerCase(), 2), 'the wallet in any case');
  assert.notEqual(shardTag(WALLET, 0), shardTag(WALLET, 1));
  assert.notEqual(shardTag(WALLET, 0), shardTag('0x' + '11'.repeat(20), 0), 'another wallet, other tags');
  const s = new ShardSiblings(WALLET, 2);
  assert.equal(s.siblingOf(order(shardTag(WALLET, 0), M1).nonce), 0);
  assert.equal(s.siblingOf(order(shardTag(WALLET, 9_999), M1).nonce), 9_999);
  assert.equal(s.siblingOf(order(shardTag(WALLET, 2), M1).nonce), null, 'its own tag is not a sibling');
  assert.equal(s.siblingOf(order(OTHER, M1).nonce), null, "another trader's");
});

function watch(own: string): { w: WalletWatch; told: ForeignOrders[]; heard: [ReadonlyMap<Bytes32, SiblingOrders>, readonly Bytes32[] | null][] } {
  const told: ForeignOrders[] = [];
  const heard: [ReadonlyMap<Bytes32, SiblingOrders>, readonly Bytes32[] | null][] = [];
  const s = new ShardSiblings(WALLET, 2);
  const w = new WalletWatch({
    ours: (k) => k.slice(2, 18) === own,
    scope: () => [M1, M2],
    cancelAtStart: false,
    onAppeared: (f) => void told.push(f),
    sibling: (k) => s.siblingOf(k),
    onSiblings: (f, covered) => void heard.push([f, covered]),
  });
  return { w, told, heard };
}

test("at start a sibling's orders are kept from the order manager, do not refuse the start, and are named for the cancel", () => {
  const own = shardTag(WALLET, 2);
  const { w, told, heard } = watch(own);
  const mine = order(own, M1);
  const sib0 = order(shardTag(WALLET, 0), M1);
  const sib1 = order(shardTag(WALLET, 1), M2);
  const seen = w.observe([mine, sib0, sib1]);
  assert.deepEqual(
    seen.map((v) => v.nonce),
    [mine.nonce],
    'not adopted: the order manager never sees them',
  );
  assert.equal(w.foundAtStart(), null, 'no exit 7: they are not another trader');
  assert.equal(w.seen, 0);
  assert.deepEqual(
    w
      .siblingsAtStart()
      .map((f) => [f.order.nonce, f.shard])
      .sort(),
    [
      [sib0.nonce, 0],
      [sib1.nonce, 1],
    ].sort(),
  );
  assert.equal(told.length + heard.length, 0);
  // another trader beside them is still another trader
  const { w: w2 } = watch(own);
  w2.observe([sib0, order(OTHER, M2)]);
  assert.equal(w2.foundAtStart()?.orders, 1);
});

test('while running a sibling order is reported to onSiblings at every listing, never as a live writer (no halt)', () => {
  const own = shardTag(WALLET, 2);
  const { w, told, heard } = watch(own);
  w.observe([]);
  w.running();
  const sib0 = order(shardTag(WALLET, 0), M1);
  const seen = w.observe([order(own, M1), sib0], M1);
  assert.equal(seen.length, 1);
  assert.equal(told.length, 0, 'no halt for a sibling');
  assert.deepEqual([...heard.at(-1)![0].keys()], [M1]);
  assert.equal(heard.at(-1)![0].get(M1)!.shard, 0);
  assert.deepEqual(heard.at(-1)![1], [M1], 'the listing covered that market');
  w.observe([]);
  assert.deepEqual([heard.at(-1)![0].size, heard.at(-1)![1]], [0, [M1, M2]], 'a wallet listing covers the scope');
});

function fakeKernel(): { k: Parameters<typeof siblingHandler>[2]; paused: Set<string>; held: Set<string> } {
  const paused = new Set<string>();
  const held = new Set<string>();
  return {
    paused,
    held,
    k: {
      pause: (m) => (m !== null && paused.add(m), true),
      resume: (m) => (m !== null && paused.delete(m), true),
      isPaused: (m) => paused.has(m),
      isHeldPause: (m) => held.has(m),
    },
  };
}
const found = (m: Bytes32, shard: number): Map<Bytes32, SiblingOrders> => new Map([[m, { shard, orders: [order(shardTag(WALLET, shard), m)] }]]);

test('a lower-index sibling keeps a contested market until its orders are gone; a higher one is left to step back', () => {
  const { k, paused, held } = fakeKernel();
  const h = siblingHandler(silent, 2, k);
  h.onSiblings(found(M1, 0), [M1, M2]);
  assert.deepEqual([...paused], [M1], 'shard 2 pulls its quotes where shard 0 still quotes');
  assert.equal(h.contested.get(M1), 0);
  // the operator's `ctl resume` lifted the pause: the next listing pauses it again
  paused.clear();
  h.onSiblings(found(M1, 0), [M1]);
  assert.deepEqual([...paused], [M1]);
  // a listing of another market says nothing about M1
  h.onSiblings(new Map(), [M2]);
  assert.deepEqual([...paused], [M1]);
  // shard 0's orders missing from one or two listings (between its quotes): still shard 0's
  h.onSiblings(new Map(), [M1]);
  h.onSiblings(new Map(), [M1]);
  assert.deepEqual([...paused], [M1], 'one or two listings without them: shard 0 may be requoting');
  // back in the next: the count starts again
  h.onSiblings(found(M1, 0), [M1]);
  for (let i = 1; i < SIBLING_GONE_LISTINGS; i++) h.onSiblings(new Map(), [M1]);
  assert.deepEqual([...paused], [M1]);
  // gone from SIBLING_GONE_LISTINGS listings in a row: quoting M1 again
  h.onSiblings(new Map(), [M1]);
  assert.deepEqual([...paused], []);
  assert.equal(h.contested.size, 0);
  // a higher-index sibling (3) in M2: this shard keeps quoting
  h.onSiblings(found(M2, 3), null);
  assert.deepEqual([...paused], []);
  // the operator's own pause stays when the sibling goes
  h.onSiblings(found(M1, 1), null);
  held.add(M1);
  for (let i = 0; i < SIBLING_GONE_LISTINGS; i++) h.onSiblings(new Map(), null);
  assert.equal(h.contested.size, 0, 'the sibling is gone');
  assert.deepEqual([...paused], [M1], "the operator's pause is not lifted");
});

function venue(fail: ReadonlySet<string> = new Set()): VenuePort & { cancelled: Bytes32[][] } {
  const cancelled: Bytes32[][] = [];
  return {
    trader: WALLET as never,
    batchLimit: 2,
    cancelled,
    openOrders: async () => [],
    cancelReplace: async () => {
      throw new Error('unused');
    },
    batch: async (_c, cancels): Promise<BatchResult> => {
      cancelled.push(cancels);
      return {
        creates: [],
        cancels: cancels.map((nonce) =>
          fail.has(nonce) ? { ok: false, nonce, code: 'unknown', message: 'no', retryable: false } : { ok: true, nonce, alreadyCancelled: false },
        ),
      };
    },
  };
}

test("the start cancels the siblings' orders it found (in batches within the venue's limit); one it cannot cancel refuses the start (exit 7)", async () => {
  const own = shardTag(WALLET, 2);
  const { w } = watch(own);
  const sibs = [order(shardTag(WALLET, 0), M1), order(shardTag(WALLET, 0), M1), order(shardTag(WALLET, 0), M1), order(shardTag(WALLET, 1), M2)];
  w.observe(sibs);
  const v = venue();
  await cancelSiblingsAtStart(silent, w, v);
  assert.deepEqual(v.cancelled.flat().sort(), sibs.map((s) => s.nonce).sort());
  assert.ok(v.cancelled.every((c) => c.length <= 2));

  const { w: w2 } = watch(own);
  w2.observe(sibs);
  await assert.rejects(cancelSiblingsAtStart(silent, w2, venue(new Set([sibs[3]!.nonce]))), (e: Error) => {
    assert.ok(e instanceof WalletSharedError);
    assert.match(e.message, new RegExp(`could not be cancelled: 1 order with nonce tag ${shardTag(WALLET, 1)}`));
    return true;
  });
  // nothing found: nothing sent
  const { w: w3 } = watch(own);
  w3.observe([]);
  const v3 = venue();
  await cancelSiblingsAtStart(silent, w3, v3);
  assert.equal(v3.cancelled.length, 0);
});
