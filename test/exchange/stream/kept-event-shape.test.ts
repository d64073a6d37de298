/**
 * src/exchange/stream/parse-book-event.ts keeps the data (JSON.parse) of the last well-formed event of each kind
 * (snapshot, delta, trade, status) so that V8 keeps those objects' maps across full GCs, and the optimised code
 * that read events with them (docs/performance/reoptimisation.md). The kept data is useful only while it has the
 * map of the next event's of its kind, nested objects too: checked with V8's %HaveSameMap (natives syntax,
 * switched on for one function made here). A malformed event replaces nothing.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { BookEventParser, keptEventData } from '../../../src/exchange/stream/parse-book-event.ts';

setFlagsFromString('--allow-natives-syntax');
const haveSameMap = new Function('a', 'b', 'return %HaveSameMap(a, b);') as (a: object, b: object) => boolean;

const M = '0x' + '12'.repeat(32);
const snapshot = (seq: number) => ({
  marketId: M,
  outcomeIndex: 1,
  bids: [{ price: 44, size: 1 }],
  asks: [{ price: 46, size: 2 }],
  timestamp: 1_790_000_000,
  seq,
});
const delta = (seq: number) => ({ marketId: M, outcomeIndex: 1, seq, changes: [{ side: 'bid', price: 45, size: seq }], timestamp: 1_790_000_000 });
const trade = (seq: number) => ({ marketId: M, outcomeIndex: 1, seq, price: 45, size: 1, takerSide: 'buy', timestamp: 1_790_000_000 });
const status = (seq: number) => ({ marketId: M, outcomeIndex: 1, seq, status: 'closed', outcome: null, timestamp: 1_790_000_000 });

test('the kept event data has the map of the next event of its kind, nested objects too; a malformed event replaces nothing', () => {
  const p = new BookEventParser({ marketId: M, outcomeIndex: 1 });
  const parse = (type: string, data: object): void => {
    const r = p.parse(type, JSON.stringify(data), '', 0);
    assert.ok(r.ok, r.ok ? '' : r.error.message);
  };
  parse('snapshot', snapshot(1));
  parse('delta', delta(2));
  parse('trade', trade(3));
  parse('status', status(4));
  // the next events' data, as the parser gets them (JSON.parse of the wire data)
  const next = {
    snapshot: JSON.parse(JSON.stringify(snapshot(5))) as { bids: object[]; asks: object[] },
    delta: JSON.parse(JSON.stringify(delta(6))) as { changes: object[] },
    trade: JSON.parse(JSON.stringify(trade(7))) as object,
    status: JSON.parse(JSON.stringify(status(8))) as object,
  };
  for (const kind of ['snapshot', 'delta', 'trade', 'status'] as const) {
    const k = keptEventData(kind);
    assert.ok(k !== null, kind);
    assert.ok(haveSameMap(k, next[kind]), kind);
  }
  assert.ok(haveSameMap((keptEventData('snapshot') as { bids: object[] }).bids[0]!, next.snapshot.asks[0]!), 'a book level');
  assert.ok(haveSameMap((keptEventData('delta') as { changes: object[] }).changes[0]!, next.delta.changes[0]!), 'a change');
  // a malformed delta is dropped and leaves the kept one
  const before = keptEventData('delta');
  const r = p.parse('delta', JSON.stringify({ seq: -1, changes: [] }), '', 0);
  assert.equal(r.ok, false);
  assert.equal(keptEventData('delta'), before);
  // the check itself tells maps apart
  assert.equal(haveSameMap(keptEventData('delta')!, next.trade), false);
});
