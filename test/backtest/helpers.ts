/** Test helpers: synthetic recorded columns and a sim exchange over them. */
import { toColumns, type Columns } from '../../src/backtest/recording/columns.ts';
import type { RecordedEvent } from '../../src/backtest/recording/format.ts';
import type { PlannedOrder } from '../../src/model/venue.ts';
import type { Bytes32 } from '../../src/model/order.ts';

export const M = ('0x' + 'ab'.repeat(32)) as Bytes32;

export function cols(events: RecordedEvent[]): Columns {
  return toColumns(events, [M]);
}

export const book = (t: number, b: [number, number][], a: [number, number][], snap = false): RecordedEvent => ({
  t: 'book',
  m: M,
  vts: t,
  lts: t,
  b,
  a,
  ...(snap ? { snap: true as const } : {}),
});
export const trade = (t: number, p: number, s: number, side: 'buy' | 'sell'): RecordedEvent => ({ t: 'trade', m: M, vts: t, lts: t, p, s, side });

let n = 0;
export function order(o: Partial<PlannedOrder> & Pick<PlannedOrder, 'side' | 'price' | 'size'>): PlannedOrder {
  n++;
  return { marketId: M, outcomeIndex: 1, nonce: ('0x' + n.toString(16).padStart(64, '0')) as Bytes32, ...o };
}
