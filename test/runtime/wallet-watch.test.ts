import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Registry } from 'prom-client';
import type { Bytes32, VenueOrder } from '../../src/model/order.ts';
import { describeForeign, foreignText, WalletWatch, type ForeignOrders } from '../../src/runtime/wallet-watch.ts';
import { ownOrder, watchWallet, WALLET_HALT_SOURCE } from '../../src/runtime/phases/wallet.ts';
import type { StartContext } from '../../src/runtime/phases/start-context.ts';
import { venueOrder } from '../support/venue-order.ts';

const OURS = '1111111111111111';
const OTHER = '2222222222222222';
const M1 = ('0x' + 'a1'.repeat(32)) as Bytes32;
const M2 = ('0x' + 'b2'.repeat(32)) as Bytes32;
const M3 = ('0x' + 'c3'.repeat(32)) as Bytes32;
let n = 0;
const nonce = (tag: string): Bytes32 => ('0x' + tag + (++n).toString(16).padStart(48, '0')) as Bytes32;
const order = (tag: string, marketId: Bytes32, more: Partial<VenueOrder> = {}): VenueOrder =>
  venueOrder({ nonce: nonce(tag), marketId, status: 'open', insertedAt: '2026-11-29T10:00:00.000Z', ...more });

function watch(o: { cancelAtStart?: boolean; scope?: Bytes32[] | null; recorded?: Set<string> } = {}): { w: WalletWatch; told: ForeignOrders[] } {
  const told: ForeignOrders[] = [];
  const w = new WalletWatch({
    ours: (k) => k.slice(2, 18) === OURS || (o.recorded?.has(k) ?? false),
    scope: () => o.scope ?? null,
    cancelAtStart: o.cancelAtStart ?? false,
    onAppeared: (f) => void told.push(f),
  });
  return { w, told };
}

test("at start-up another trader's open orders in the bot's markets are kept from the order manager and refuse the start", () => {
  const recorded = order('9999999999999999', M1);
  const mine = order(OURS, M1);
  const theirs = [order(OTHER, M1), order(OTHER, M2, { insertedAt: '2026-11-29T09:00:00.000Z' })];
  const elsewhere = order(OTHER, M3); // another instance's market (reconcileScope markets)
  const closed = order(OTHER, M1, { status: 'filled' });
  const { w, told } = watch({ scope: [M1, M2], recorded: new Set([recorded.nonce]) });
  const seen = w.observe([mine, recorded, ...theirs, elsewhere, closed]);
  assert.deepEqual(
    seen.map((v) => v.nonce),
    [mine.nonce, recorded.nonce, elsewhere.nonce, closed.nonce],
    'neither adopted nor cancelled: the order manager does not see them',
  );
  const found = w.foundAtStart();
  assert.ok(found);
  assert.equal(found.orders, 2);
  assert.deepEqual(found.tags, [{ tag: OTHER, orders: 2, markets: [M1, M2].sort(), oldest: '2026-11-29T09:00:00.000Z' }]);
  assert.match(foreignText(found), new RegExp(`^2 orders with nonce tag ${OTHER} in 2 markets, oldest placed 2026-11-29T09:00:00.000Z$`));
  assert.equal(told.length, 0, 'a start-up find is not a live writer');
  assert.equal(w.seen, 2);
});

test('a listing with no foreign order is handed on as it is', () => {
  const { w } = watch();
  const open = [order(OURS, M1), order(OURS, M2)];
  assert.equal(w.observe(open), open);
  assert.equal(w.foundAtStart(), null);
  assert.equal(w.listed, true);
});

test('--cancel-foreign-orders: what the start-up finds passes through (the reconcile cancels it), then a new one is a live writer', () => {
  const { w, told } = watch({ cancelAtStart: true });
  const left = order(OTHER, M1);
  assert.deepEqual(
    w.observe([left]).map((v) => v.nonce),
    [left.nonce],
  );
  w.running();
  assert.deepEqual(
    w.observe([left]).map((v) => v.nonce),
    [left.nonce],
    'a leftover whose cancel has not landed yet is cancelled again',
  );
  assert.equal(told.length, 0);
  const fresh = order(OTHER, M2);
  assert.deepEqual(
    w.observe([left, fresh]).map((v) => v.nonce),
    [left.nonce],
  );
  assert.equal(told.length, 1);
  assert.equal(told[0]!.orders, 1);
  assert.deepEqual(told[0]!.tags[0]!.markets, [M2]);
});

test('while running, a foreign order that appears is told once and kept from the order manager every time', () => {
  const { w, told } = watch();
  w.observe([order(OURS, M1)]);
  w.running();
  const a = order(OTHER, M1);
  const b = order('3333333333333333', M1);
  assert.equal(w.observe([a, b]).length, 0);
  assert.equal(told.length, 1);
  assert.equal(told[0]!.orders, 2);
  assert.equal(told[0]!.tags.length, 2);
  assert.equal(w.observe([a, b]).length, 0, 'still kept from the order manager');
  assert.equal(told.length, 1, 'told once per order');
  assert.equal(w.seen, 2);
});

test('describeForeign groups by nonce tag, most orders first; foreignText caps the tags it names', () => {
  const f = describeForeign([order(OTHER, M1), order('4444444444444444', M1), order(OTHER, M2), order('5555555555555555', M1)]);
  assert.deepEqual(
    f.tags.map((t) => [t.tag, t.orders]),
    [
      [OTHER, 2],
      ['4444444444444444', 1],
      ['5555555555555555', 1],
    ],
  );
  assert.match(foreignText(f, 1), /; and 2 more tags$/);
});

test('a foreign order while running halts the bot once through the control, with the wallet as its source; the metrics say so', async () => {
  const logs: string[] = [];
  const log = { warn: (_o: unknown, m: string) => void logs.push(`warn ${m}`), error: (_o: unknown, m: string) => void logs.push(`error ${m}`) };
  let now = 0;
  const c = { log, clock: { now: () => now } } as unknown as StartContext;
  const halts: { reason: string | null; source: string }[] = [];
  let held: { source: string } | null = null;
  const control = {
    halt: (reason: string | null, source = 'admin') => {
      halts.push({ reason, source });
      held = { source };
      return { status: 200, body: { halted: true, persisted: true } };
    },
    haltHeld: () => held as never,
  };
  let appeared: (f: ForeignOrders) => void = () => undefined;
  const { w } = watch();
  const registry = new Registry();
  watchWallet(c, { watch: w, bind: (f) => (appeared = f) }, control, registry);
  const metric = async (name: string): Promise<number> => (await registry.getSingleMetric(name)!.get()).values[0]!.value;
  assert.equal(await metric('bookmaker_wallet_shared'), 0);
  appeared(describeForeign([order(OTHER, M1)]));
  assert.equal(halts.length, 1);
  assert.equal(halts[0]!.source, WALLET_HALT_SOURCE);
  assert.match(halts[0]!.reason!, new RegExp(`^another trader on this wallet: 1 order with nonce tag ${OTHER} in 1 market \\(${M1}\\)`));
  assert.match(logs.at(-1)!, /^error another trader is placing orders on this wallet .*holds until bookmaker ctl resume\. Fix: stop the other bot/);
  assert.equal(await metric('bookmaker_wallet_shared'), 1);
  appeared(describeForeign([order(OTHER, M1)]));
  now += 1_000;
  appeared(describeForeign([order(OTHER, M1)]));
  assert.equal(halts.length, 1, 'halted and recorded once, not again for every order the other trader places');
  assert.equal(logs.filter((l) => l.startsWith('warn another trader is still placing')).length, 1, 'logged at most once a minute');
  // an operator halt in force is replaced by the wallet's, which names the new cause
  held = { source: 'admin' };
  appeared(describeForeign([order(OTHER, M2)]));
  assert.equal(halts.length, 2);
});

test("an order with this ledger's own tag: a crash's at start-up, but while running one this process did not sign is a copy of the ledger at work", () => {
  const crash = order(OURS, M1);
  const signed = order(OURS, M1);
  const recorded = order(OURS, M1);
  const restoredOrder = order('6666666666666666', M1);
  const twin = order(OURS, M2);
  const issued = new Set([signed.nonce]);
  const ours = ownOrder({ isTagged: (k) => k.slice(2, 18) === OURS, hasOrder: (k) => k === recorded.nonce }, new Set([restoredOrder.nonce]), (k) =>
    issued.has(k),
  );
  assert.equal(ours(crash.nonce, true), true, "at start-up a tagged order without a record is a crash's");
  assert.equal(ours(signed.nonce, false), true);
  assert.equal(ours(recorded.nonce, false), true);
  assert.equal(ours(restoredOrder.nonce, false), true);
  assert.equal(ours(twin.nonce, false), false);
  const told: ForeignOrders[] = [];
  const w = new WalletWatch({ ours, scope: () => null, cancelAtStart: false, onAppeared: (f) => void told.push(f) });
  assert.equal(w.observe([crash, signed]).length, 2);
  assert.equal(w.foundAtStart(), null);
  w.running();
  issued.add(crash.nonce); // the start-up reconcile adopted or cancelled it (the nonce memory has it)
  assert.deepEqual(
    w.observe([crash, signed, twin]).map((v) => v.nonce),
    [crash.nonce, signed.nonce],
  );
  assert.equal(told.length, 1);
  assert.match(foreignText(told[0]!, 5, OURS), /nonce tag 1{16} \(this ledger's own tag, not signed by this process: a copy of this ledger runs elsewhere\)/);
});
