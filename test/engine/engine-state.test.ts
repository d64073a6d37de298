/**
 * exportState / fromState: an engine rebuilt from its serialised state (v8, as the local
 * exchange's snapshots store it) is indistinguishable from the original: same books, balances,
 * positions, open orders and ids, and the same answers and events to every later command.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { deserialize, serialize } from 'node:v8';
import { MatchingEngine, type EngineStateData } from '../../src/engine/matching-engine.ts';
import type { EngineCommand, EngineEvent } from '../../src/engine/types.ts';
import { CENT, SHARE, limit } from './helpers.ts';
import { createRng } from '../../src/sim/rng.ts';

function randomCommands(seed: number, markets: number, traders: number, openIds: () => number[]): () => EngineCommand {
  const rng = createRng(seed);
  let now = 1_000_000;
  return () => {
    now += 7;
    const r = rng.next();
    const m = Math.floor(rng.next() * markets);
    const t = Math.floor(rng.next() * traders);
    if (r < 0.2) {
      const ids = openIds();
      if (ids.length) return { type: 'cancel', id: ids[Math.floor(rng.next() * ids.length)]!, nowMs: now };
    }
    if (r < 0.23) return { type: 'mintSets', trader: t, market: m, amount: BigInt(SHARE * (1 + Math.floor(rng.next() * 5))) };
    if (r < 0.25) return { type: 'expire', nowMs: now };
    const outcome = rng.next() < 0.5 ? 'yes' : 'no';
    const side = rng.next() < 0.6 ? 'buy' : 'sell';
    const price = (20 + Math.floor(rng.next() * 60)) * CENT;
    const size = (1 + Math.floor(rng.next() * 8)) * SHARE;
    const tif = rng.next() < 0.15 ? 1 : 0;
    const expiry = rng.next() < 0.1 ? Math.floor(now / 1000) + 2 : 0;
    return { type: 'submit', order: limit(m, t, outcome, side, price, size, { mode: rng.next() < 0.5 ? 'mint' : 'inventory', tif, expiry, nowMs: now }) };
  };
}

function build(): { e: MatchingEngine; open: Set<number>; events: EngineEvent[] } {
  const events: EngineEvent[] = [];
  const e = new MatchingEngine({ sink: (ev) => events.push(ev) });
  for (let m = 0; m < 3; m++) e.addMarket({ tick: m === 2 ? 1_000 : 10_000 });
  for (let t = 0; t < 6; t++) {
    e.addTrader();
    e.deposit(t, 1_000_000_000n);
  }
  return { e, open: new Set(), events };
}

function track(e: MatchingEngine, open: Set<number>): void {
  open.clear();
  for (const o of e.openOrders()) open.add(o.id);
}

test('an engine restored from v8-serialised exportState answers every later command exactly as the original', () => {
  const a = build();
  const gen = randomCommands(7, 3, 6, () => [...a.open]);
  for (let i = 0; i < 6_000; i++) {
    a.e.apply(gen());
    if (i % 50 === 0) track(a.e, a.open);
  }
  track(a.e, a.open);
  assert.ok(a.open.size > 20, 'resting orders to carry over');
  const bytes = serialize(a.e.exportState());
  const bEvents: EngineEvent[] = [];
  const b = MatchingEngine.fromState(deserialize(bytes) as EngineStateData, { sink: (ev) => bEvents.push(ev) });
  assert.deepEqual(b.checkInvariants(), []);
  for (let m = 0; m < 3; m++) assert.deepEqual(b.book(m), a.e.book(m));
  for (let t = 0; t < 6; t++) {
    assert.deepEqual(b.balance(t), a.e.balance(t));
    assert.deepEqual(b.positions(t), a.e.positions(t));
  }
  assert.deepEqual(b.openOrders(), a.e.openOrders());
  assert.equal(b.feeBalance(), a.e.feeBalance());
  // the same later commands give the same results and events on both
  a.events.length = 0;
  for (let i = 0; i < 3_000; i++) {
    const cmd = gen();
    assert.deepEqual(b.apply(cmd), a.e.apply(cmd), `command ${i}`);
    if (i % 50 === 0) track(a.e, a.open);
  }
  assert.deepEqual(bEvents, a.events);
  assert.deepEqual(b.checkInvariants(), []);
  // a new trader and market after the restore get the next indices on both
  assert.equal(b.addTrader(), a.e.addTrader());
  assert.equal(b.addMarket({}), a.e.addMarket({}));
});

test('fromState refuses data of another version or with inconsistent arrays', () => {
  const { e } = build();
  const d = e.exportState();
  assert.throws(() => MatchingEngine.fromState({ ...d, version: 99 }), /version/);
  assert.throws(() => MatchingEngine.fromState({ ...d, pool: { ...d.pool, capacity: d.pool.capacity + 1 } }), /capacity/);
  assert.throws(() => MatchingEngine.fromState({ ...d, ledger: { ...d.ledger, traders: d.ledger.traders + 5 } }), /trader count/);
});
