/**
 * Generated venue behaviour against the order manager: whatever the venue answers (accepts, 5xx
 * that did or did not land, 429, refusals, slow answers settled by reconciliation), the venue never
 * holds an order we do not track or two open orders for one slot, never sees a nonce reused for a different order, and a final
 * reconcile + cancelAll leaves nothing open.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import type { Bytes32 } from '../../src/model/order.ts';
import type { CreateOutcome } from '../../src/model/venue.ts';
import type { DesiredOrder } from '../../src/orders/diff.ts';
import { OrderManager } from '../../src/orders/order-manager.ts';
import { FakeVenue, M1, ManualClock, venueOrder } from './fake-venue.ts';

type Behaviour = 'ok' | 'lost-landed' | 'lost' | 'rate' | 'refuse';
const behaviours: Behaviour[] = ['ok', 'ok', 'ok', 'lost-landed', 'lost', 'rate', 'refuse'];

function desired(mid: number, levels: number): DesiredOrder[] {
  const out: DesiredOrder[] = [];
  for (let i = 0; i < levels; i++) {
    out.push({ slot: `bid:${i}`, order: { marketId: M1, outcomeIndex: 1, side: 0, price: mid - 10_000 * (i + 1), size: 5_000_000 } });
    out.push({ slot: `ask:${i}`, order: { marketId: M1, outcomeIndex: 1, side: 1, price: mid + 10_000 * (i + 1), size: 5_000_000 } });
  }
  return out;
}

describe('OrderManager under generated venue behaviour', () => {
  it('never two open orders per slot, nonces never reused, nothing left after cancelAll', async () => {
    const step = fc.record({
      mid: fc.integer({ min: 100_000, max: 900_000 }),
      levels: fc.integer({ min: 0, max: 3 }),
      behaviour: fc.array(fc.constantFrom(...behaviours), { minLength: 8, maxLength: 8 }),
      advanceMs: fc.integer({ min: 0, max: 3_000 }),
      reconcile: fc.boolean(),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 25 }), fc.integer({ min: 2, max: 6 }), async (steps, batchLimit) => {
        const venue = new FakeVenue(batchLimit);
        const clock = new ManualClock();
        const om = new OrderManager({
          venue,
          clock,
          tolerances: { price: 2_000, sizeFraction: 0.1 },
          inFlightTimeoutMs: 2_000,
          maxRetries: 2,
          backoffBaseMs: 500,
          cancelAllDelayMs: 0,
        });
        const bodies = new Map<Bytes32, string>();
        for (const s of steps) {
          let i = 0;
          venue.createScript = (p): CreateOutcome | undefined => {
            const b = s.behaviour[i++ % s.behaviour.length]!;
            const body = JSON.stringify(p);
            const seen = bodies.get(p.nonce);
            assert.ok(seen === undefined || seen === body, 'a nonce was reused for a different order');
            bodies.set(p.nonce, body);
            if (b === 'ok') return undefined;
            if (b === 'lost-landed') {
              if (!venue.open.has(p.nonce)) venue.open.set(p.nonce, venueOrder(p));
              return { ok: false, nonce: p.nonce, code: 'server-error', message: '502', retryable: true };
            }
            if (b === 'lost') return { ok: false, nonce: p.nonce, code: 'server-error', message: '503', retryable: true };
            if (b === 'rate') return { ok: false, nonce: p.nonce, code: 'rate-limited', message: '429', retryable: true };
            return { ok: false, nonce: p.nonce, code: 'bad-request', message: '400', retryable: false };
          };
          clock.t += s.advanceMs;
          if (s.reconcile) await om.reconcile(M1);
          await om.sync(M1, desired(s.mid, s.levels));
          // invariant: at most one open venue order per slot
          const slotOf = new Map(om.tracked().map((t) => [t.planned.nonce, t.slot]));
          const perSlot = new Map<string, number>();
          for (const o of venue.open.values()) {
            const slot = slotOf.get(o.nonce);
            assert.ok(slot !== undefined, `open order ${o.nonce} is not tracked: it could be quoted twice`);
            perSlot.set(slot, (perSlot.get(slot) ?? 0) + 1);
          }
          for (const [slot, n] of perSlot) assert.ok(n <= 1, `slot ${slot} has ${n} open orders`);
        }
        venue.createScript = () => undefined;
        await om.reconcile(M1);
        for (const o of venue.open.values())
          assert.ok(
            om.tracked().some((t) => t.planned.nonce === o.nonce),
            'after reconcile every open order is tracked',
          );
        const r = await om.cancelAll();
        assert.equal(r.ok, true);
        assert.equal(venue.open.size, 0);
      }),
      { numRuns: 300 },
    );
  });
});
