/**
 * Properties shared by every built-in strategy over random views: pure (same view → same output,
 * view not mutated), never throws, and every quote is on the tick grid inside [tick, 1e6 − tick],
 * with a positive integer size, and no bid at or above an ask of the same set.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { BUILTIN_STRATEGIES, loadStrategy } from '../../src/strategy/registry.ts';
import { isOnGrid } from '../../src/strategy/snap-price.ts';
import { makeView, NOW, S } from '../strategy/make-view.ts';

const TICKS = [1_000, 5_000, 10_000];

test('property: built-in strategies give valid, non-crossing quotes and are pure', async () => {
  const mods = await Promise.all(BUILTIN_STRATEGIES.map((n) => loadStrategy(n)));
  const params: Record<string, object> = { bands: { inventorySkew: 0.001 }, avellaneda: { levels: 3 }, 'oracle-anchored': { levels: 3, inventorySkew: 0.001 } };
  const configs = mods.map((m) => m.parseConfig(params[m.name] ?? {}, 'p'));
  fc.assert(
    fc.property(
      fc.integer({ min: 0, max: mods.length - 1 }),
      fc.constantFrom(...TICKS),
      fc.integer({ min: 1, max: 998 }),
      fc.integer({ min: 1, max: 50 }),
      fc.integer({ min: -500, max: 500 }),
      fc.option(
        fc.record({
          probability: fc.double({ min: 0, max: 1, noNaN: true }),
          confidence: fc.double({ min: 0, max: 1, noNaN: true }),
          ageMs: fc.integer({ min: 0, max: 1_000_000 }),
        }),
      ),
      fc.array(fc.integer({ min: 1, max: 999 }), { maxLength: 30 }),
      fc.option(fc.integer({ min: -86_400_000, max: 86_400_000 * 30 })),
      (mi, tick, bidMilli, spreadMilli, netShares, oracle, mids, deadlineOffset) => {
        const bid = Math.floor((bidMilli * 1000) / tick) * tick || tick;
        const ask = Math.min(1_000_000 - tick, bid + Math.max(tick, Math.floor((spreadMilli * 1000) / tick) * tick));
        const view = makeView({
          tick,
          bids: [{ price: bid, size: 5 * S }],
          asks: ask > bid ? [{ price: ask, size: 3 * S }] : [],
          net: netShares * S,
          oracle: oracle ? { ...oracle, updatedAt: NOW - oracle.ageMs } : null,
          midHistory: mids.map((m, i) => ({ ts: NOW - (mids.length - i) * 1000, mid: m * 1000 })),
          deadline: deadlineOffset === null ? null : NOW + deadlineOffset,
        });
        const frozen = JSON.stringify(view, (_k, v) => (typeof v === 'bigint' ? String(v) : v));
        const m = mods[mi]!;
        const a = m.quote(view, configs[mi]);
        const b = m.quote(view, configs[mi]);
        assert.deepEqual(a, b, 'deterministic');
        assert.equal(
          JSON.stringify(view, (_k, v) => (typeof v === 'bigint' ? String(v) : v)),
          frozen,
          'view untouched',
        );
        if (a === null) return;
        for (const q of a) {
          assert.ok(isOnGrid(q.price, tick), `${m.name} ${q.side} ${q.price} tick ${tick}`);
          assert.ok(Number.isSafeInteger(q.size) && q.size > 0);
        }
        const bids = a.filter((q) => q.side === 'bid').map((q) => q.price);
        const asks = a.filter((q) => q.side === 'ask').map((q) => q.price);
        if (bids.length && asks.length) assert.ok(Math.max(...bids) < Math.min(...asks), `${m.name} crosses itself`);
      },
    ),
    { numRuns: 3000, seed: 11 },
  );
});
