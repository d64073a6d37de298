/**
 * Properties of the gate over random views, own orders and desired quotes:
 *  - it never throws;
 *  - the worst case after applying the gate (every live own order + every output quote filled)
 *    never exceeds maxPosition / maxNotional, unless the live orders alone already did (then no
 *    new exposure on that side is added);
 *  - what stays (the output quotes, matched live orders included) fits the caps by itself: live
 *    orders left past a cap by a moved position are pulled;
 *  - every output quote is on the grid, inside [tick, 1e6 − tick], not crossing, not above
 *    maxOrderSize, and at least the market minimum.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { applyRisk } from '../../src/risk/apply-risk.ts';
import { exposureOf } from '../../src/risk/exposure.ts';
import { isOnGrid } from '../../src/strategy/snap-price.ts';
import type { Bytes32 } from '../../src/model/order.ts';
import type { DesiredQuote, WorkingQuote } from '../../src/strategy/types.ts';
import { makeView, NOW } from '../strategy/make-view.ts';
import { limits, S } from './limits.ts';

const tickIdx = fc.integer({ min: 1, max: 99 });
const size = fc.integer({ min: 1, max: 200 }).map((n) => n * S);
const side = fc.constantFrom<'bid' | 'ask'>('bid', 'ask');
const desired = fc.record({ side, price: tickIdx.map((t) => t * 10_000), size, level: fc.integer({ min: 0, max: 4 }) });
const working = fc.record({
  side,
  price: tickIdx.map((t) => t * 10_000),
  size,
  level: fc.integer({ min: 0, max: 4 }),
  state: fc.constantFrom<WorkingQuote['state']>('working', 'in-flight', 'cancelling'),
});

test('property: limits hold at worst case and outputs are valid', () => {
  fc.assert(
    fc.property(
      fc.integer({ min: -300, max: 300 }).map((n) => n * S),
      fc.array(working, { maxLength: 6 }),
      fc.array(desired, { maxLength: 8 }),
      fc.integer({ min: 1, max: 98 }),
      fc.integer({ min: 1, max: 20 }),
      fc.record({
        maxPosition: fc.integer({ min: 1, max: 400 }),
        maxNotional: fc.integer({ min: 1, max: 200 }),
        maxOrderSize: fc.integer({ min: 1, max: 100 }),
        reduceOnly: fc.boolean(),
      }),
      fc.array(fc.boolean(), { minLength: 6, maxLength: 6 }),
      (net, own, fresh0, bidTick, spreadTicks, l, keep) => {
        // some desired quotes repeat live orders exactly (the strategy wants them to stay)
        const want = [...own.filter((_, i) => keep[i]).map(({ side, price, size, level }) => ({ side, price, size, level })), ...fresh0];
        const bestBid = bidTick * 10_000;
        const bestAsk = Math.min(990_000, bestBid + spreadTicks * 10_000);
        const quotes: WorkingQuote[] = own.map((w, i) => ({
          ...w,
          nonce: `0x${(i + 1).toString(16).padStart(64, '0')}` as Bytes32,
          outcomeIndex: 1,
          venueSide: w.side === 'bid' ? 'buy' : 'sell',
          placedAt: NOW - 1,
        }));
        const view = makeView({ net, quotes, bids: [{ price: bestBid, size: S }], asks: bestAsk > bestBid ? [{ price: bestAsk, size: S }] : [] });
        const lim = limits({ maxPosition: l.maxPosition * S, maxNotional: l.maxNotional * S, maxOrderSize: l.maxOrderSize * S, reduceOnly: l.reduceOnly });
        const r = applyRisk(view, want as DesiredQuote[], lim);
        if (r.action !== 'quote') return;
        const before = exposureOf(net, quotes);
        // an output that keeps a live order is that order (identical, same slot, each order once),
        // not new exposure; every other output is a create and counts on top of every live order
        assert.equal(r.keeps.length, r.quotes.length);
        const used = new Set<string>();
        const fresh = r.quotes.filter((q, i) => {
          const k = r.keeps[i];
          if (k === null) return true;
          const w = quotes.find((x) => x.nonce === k);
          assert.ok(w && w.state !== 'cancelling', `kept ${k} is a live order`);
          assert.deepEqual([w.side, w.price, w.size, w.level], [q.side, q.price, q.size, q.level], 'kept order is identical, in the same slot');
          assert.ok(!used.has(k), `${k} kept once`);
          used.add(k);
          return false;
        });
        const after = exposureOf(net, [...quotes, ...fresh]);
        const mark = view.book!.mid ?? 500_000;
        const capLong = Math.min(lim.maxPosition, Math.floor((lim.maxNotional * 1e6) / mark), l.reduceOnly ? Math.max(0, net) : Infinity);
        const capShort = Math.min(lim.maxPosition, Math.floor((lim.maxNotional * 1e6) / (1e6 - mark)), l.reduceOnly ? Math.max(0, -net) : Infinity);
        assert.ok(after.long <= Math.max(capLong, before.long), `long ${after.long} cap ${capLong} before ${before.long}`);
        assert.ok(after.short <= Math.max(capShort, before.short), `short ${after.short} cap ${capShort} before ${before.short}`);
        // what stays once the diff has run (the output quotes: matched orders and new ones) fits the
        // caps on its own, unless the net alone is past them (then nothing stays on that side)
        const staying = exposureOf(net, r.quotes);
        assert.ok(staying.long <= Math.max(capLong, net), `staying long ${staying.long} cap ${capLong} net ${net}`);
        assert.ok(staying.short <= Math.max(capShort, -net), `staying short ${staying.short} cap ${capShort} net ${net}`);
        for (const q of fresh) {
          assert.ok(isOnGrid(q.price, 10_000));
          assert.ok(q.size <= lim.maxOrderSize && q.size >= view.minSize);
          if (q.side === 'bid' && view.book!.bestAsk !== null) assert.ok(q.price < view.book!.bestAsk);
          if (q.side === 'ask' && view.book!.bestBid !== null) assert.ok(q.price > view.book!.bestBid);
        }
        assert.equal(r.decisions.length, want.length);
        assert.equal(r.denied.length, r.decisions.filter((d) => d.kind === 'deny').length);
      },
    ),
    { numRuns: 3000, seed: 42 },
  );
});
