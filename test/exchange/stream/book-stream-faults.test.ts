/**
 * Property: whatever mix of duplicated, swapped (out-of-order) and lost events the transport delivers, once
 * a clean event gets through, the book rebuilt from the stream's output equals the server's true book.
 * Runs over real SSE against the fixture server; the JSON snapshot (no seq, like the local exchange's)
 * is the true book at request time.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { createBookStream } from '../../../src/exchange/stream/book-stream.ts';
import { L2Book } from '../../../src/core/l2-book.ts';
import type { BookLevel, BookSnapshot } from '../../../src/model/book.ts';
import type { BookEvent } from '../../../src/model/stream.ts';
import { SseFixtureServer } from './sse-fixture-server.ts';
import { EventCollector } from './event-collector.ts';
import type { Bytes32 } from '../../../src/model/order.ts';

const M = ('0x' + '77'.repeat(32)) as Bytes32;
type Fault = 'ok' | 'dup' | 'swap' | 'drop';

interface Step {
  side: 'bid' | 'ask';
  cents: number;
  shares: number;
  fault: Fault;
}

const stepArb: fc.Arbitrary<Step> = fc.record({
  side: fc.constantFrom('bid' as const, 'ask' as const),
  cents: fc.integer({ min: 1, max: 20 }),
  shares: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 50 })),
  fault: fc.constantFrom<Fault>('ok', 'ok', 'ok', 'ok', 'ok', 'dup', 'swap', 'drop'),
});

function levels(m: Map<number, number>, desc: boolean): BookLevel[] {
  return [...m.entries()].sort((a, b) => (desc ? b[0] - a[0] : a[0] - b[0])).map(([c, s]) => ({ price: c * 10_000, size: s * 1_000_000 }));
}

test('property: faults in transport never leave a wrong book once a clean event arrives', { timeout: 60_000 }, async () => {
  const server = new SseFixtureServer({ marketId: M, bids: [], asks: [], timestamp: '' });
  const baseUrl = await server.start();
  const seen = { resyncs: 0, duplicates: 0, gaps: 0 };
  try {
    await fc.assert(
      fc.asyncProperty(fc.array(stepArb, { minLength: 1, maxLength: 40 }), async (steps) => {
        // bids live at 1..20¢, asks at 51..70¢ so the true book never crosses
        const truth = { bid: new Map<number, number>(), ask: new Map<number, number>() };
        const trueBook = (): BookSnapshot => ({ marketId: M, outcomeIndex: 1, bids: levels(truth.bid, true), asks: levels(truth.ask, false), venueTs: 0 });
        const stream = createBookStream({
          baseUrl,
          marketId: M,
          outcomeIndex: 1,
          idleTimeoutMs: 60_000,
          fetchSnapshot: async () => {
            const book = trueBook(); // taken at request time, answered a moment later
            await new Promise((r) => setImmediate(r));
            return { status: 200, book };
          },
        });
        const connNo = server.conns.length + 1;
        const col = new EventCollector(stream.events$);
        try {
          const c = await server.waitForConn(connNo);
          let seq = 1;
          c.send('snapshot', { marketId: M, bids: [], asks: [], timestamp: '', seq });
          let held: unknown;
          for (let i = 0; i < steps.length; i++) {
            const s = steps[i]!;
            const cents = s.side === 'bid' ? s.cents : 50 + s.cents;
            if (s.shares === 0) truth[s.side].delete(cents);
            else truth[s.side].set(cents, s.shares);
            const ev = { marketId: M, seq: ++seq, timestamp: '', changes: [{ side: s.side, price: cents, size: s.shares }] };
            if (s.fault === 'ok') c.send('delta', ev);
            else if (s.fault === 'dup') {
              c.send('delta', ev);
              c.send('delta', ev);
            } else if (s.fault === 'swap') {
              if (held) c.send('delta', held);
              held = ev;
              continue;
            }
            // 'drop': never sent
            if (held) {
              c.send('delta', held);
              held = undefined;
            }
            if (i % 5 === 4) await new Promise((r) => setImmediate(r));
          }
          if (held) c.send('delta', held);
          // the clean event that lets any remaining gap be seen
          const finalSeq = ++seq;
          c.send('delta', { marketId: M, seq: finalSeq, timestamp: '', changes: [] });
          await col.waitFor((e) => e.type === 'delta' && e.seq === finalSeq, `final delta ${finalSeq}`);
          const book = new L2Book({ tick: 10_000 });
          for (const e of col.data() as Exclude<BookEvent, { type: 'status' }>[]) {
            if (e.type === 'snapshot') book.applySnapshot(e.book);
            else if (e.type === 'delta') {
              for (const l of e.bids) book.applyLevel('bid', l.price, l.size);
              for (const l of e.asks) book.applyLevel('ask', l.price, l.size);
            }
          }
          const want = trueBook();
          assert.deepEqual(book.levels('bid'), want.bids);
          assert.deepEqual(book.levels('ask'), want.asks);
          // every emitted event moves forward in seq, apart from resync snapshots placed before a replay
          const seqs = col.data().map((e) => (e as { seq: number }).seq);
          for (let k = 1; k < seqs.length; k++) assert.ok(seqs[k]! >= seqs[k - 1]!, `seq went back: ${seqs.join(',')}`);
        } finally {
          col.stop();
          seen.resyncs += stream.stats.resyncs;
          seen.duplicates += stream.stats.duplicates;
          seen.gaps += stream.stats.gaps;
        }
      }),
      { numRuns: 40, seed: 2026 },
    );
    // the generated runs really went through the recovery paths
    assert.ok(seen.resyncs > 10 && seen.duplicates > 10 && seen.gaps > 10, JSON.stringify(seen));
  } finally {
    await server.close();
  }
});
