import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { bindFillsToOrderManager } from '../../src/orders/bind-fills.ts';
import { OrderManager } from '../../src/orders/order-manager.ts';
import { schedulePeriodicReconcile } from '../../src/orders/periodic-reconcile.ts';
import { StateStore } from '../../src/state/store.ts';
import type { Clock } from '../../src/core/clock.ts';
import { asyncScheduler } from 'rxjs';
import { FakeVenue, M1, ManualClock } from './fake-venue.ts';

describe('order manager wiring', () => {
  it('store events flow into the manager and back: fills shrink orders, the store follows', async () => {
    const venue = new FakeVenue();
    const clock = new ManualClock();
    const store = new StateStore();
    const om = new OrderManager({ venue, clock, tolerances: { price: 1000, sizeFraction: 0.1 }, emit: (e) => store.dispatch(e) });
    const unbind = bindFillsToOrderManager(store, om);
    const desired = [{ slot: 'b', order: { marketId: M1, outcomeIndex: 1 as const, side: 0 as const, price: 400_000, size: 10_000_000 } }];
    await om.sync(M1, desired);
    const nonce = om.tracked()[0]!.planned.nonce;
    assert.equal(store.state.markets.get(M1)!.orders.get(nonce)!.state, 'working');
    store.dispatch({ type: 'OrderFilled', marketId: M1, nonce, outcomeIndex: 1, side: 0, price: 400_000, size: 4_000_000, fee: 0, ts: 1 });
    assert.equal(om.tracked()[0]!.remaining, 6_000_000);
    assert.equal(store.state.markets.get(M1)!.orders.get(nonce)!.remaining, 6_000_000);
    await om.sync(M1, desired); // 6 of 10 is outside the 10 % size tolerance: topped up by a replace
    assert.equal(venue.venueCalls().at(-1)!.kind, 'cancel-replace');
    assert.equal(store.state.markets.get(M1)!.orders.size, 1);
    unbind();
  });

  it('refreshAll re-runs the last desired sets (dead-man refresh without a tick)', async () => {
    const venue = new FakeVenue();
    const clock = new ManualClock();
    const om = new OrderManager({ venue, clock, tolerances: { price: 1000, sizeFraction: 0.1 }, deadManSeconds: 20 });
    await om.sync(M1, [{ slot: 'b', order: { marketId: M1, outcomeIndex: 1, side: 0, price: 400_000, size: 10_000_000 } }]);
    clock.t += 15_000;
    await om.refreshAll();
    assert.equal(venue.venueCalls().length, 2);
    assert.equal([...venue.open.values()][0]!.expiry, Math.floor(clock.t / 1000) + 20);
  });

  it('periodic reconcile runs on the injected clock, never overlapping, and stops', async () => {
    const timers: (() => void)[] = [];
    const clock: Clock = { now: () => 0, scheduler: asyncScheduler, setTimeout: (fn) => (timers.push(fn), () => undefined) };
    let runs = 0;
    let active = 0;
    const om = {
      reconcile: async () => {
        active++;
        assert.equal(active, 1);
        runs++;
        await new Promise((r) => setImmediate(r));
        active--;
        return true;
      },
    };
    const stop = schedulePeriodicReconcile(om, clock, 1000);
    for (let i = 0; i < 3; i++) {
      timers.shift()!();
      await new Promise((r) => setImmediate(r));
      await new Promise((r) => setImmediate(r));
    }
    assert.equal(runs, 3);
    stop();
    assert.equal(timers.length, 1, 'one timer armed');
    timers.shift()!(); // a timer firing after stop does nothing
    await new Promise((r) => setImmediate(r));
    assert.equal(runs, 3);
  });
});
