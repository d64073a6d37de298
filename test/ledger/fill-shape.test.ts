/**
 * Fills replayed from the ledger (accountFillOf) share one hidden class per shape, as the live
 * books' fills do: built with spreads, each fill without an order kind but with a notional got a
 * hidden class of its own (~500 bytes more a fill, kept as long as the books keep it: the run's books
 * checkpoint copy held ~600 bytes a fill in soak-memory's heap snapshots). The same keys in the same
 * order either way (the books checkpoint's text is unchanged).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { accountFillOf, type FillRow } from '../../src/ledger/books-checkpoint.ts';

setFlagsFromString('--allow-natives-syntax');
const sameMap = new Function('a', 'b', 'return %HaveSameMap(a, b)') as (a: object, b: object) => boolean;

const row = (i: number, kind: number | null, notional: number | null): FillRow =>
  ({
    seq: i,
    fill_id: `f${i}`,
    market_id: `0x${'ab'.repeat(32)}`,
    outcome: i % 2,
    side: (i >> 1) % 2,
    price: 500_000 + i,
    size: 1_000_000,
    fee: i % 7 === 0 ? 12.5 : 0,
    ts: 1_800_000_000_000 + i,
    fee_source: i % 3 === 0 ? 'model' : 'venue',
    origin: 'own',
    order_kind: kind,
    notional,
  }) as unknown as FillRow;

test('replayed fills of one shape share a hidden class, and keep their keys in order', () => {
  for (const [kind, notional] of [
    [null, null],
    [null, 1.5],
    [1, null],
    [2, 7.25],
  ] as const) {
    const fills = Array.from({ length: 200 }, (_, i) => accountFillOf(row(i, kind, notional === null ? null : notional * i)));
    const apart = fills.filter((f) => !sameMap(f, fills[0]!)).length;
    assert.equal(apart, 0, `kind ${kind}, notional ${notional}: ${apart} of 200 fills with a hidden class of their own`);
    const keys = ['fillId', 'marketId', 'outcomeIndex', 'side', 'price', 'size', 'fee', 'feeSource', 'ts', 'origin'];
    if (kind !== null) keys.push('orderKind');
    if (notional !== null) keys.push('notional');
    assert.deepEqual(Object.keys(fills[7]!), keys);
  }
});
