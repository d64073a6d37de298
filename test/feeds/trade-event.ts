import type { Bytes32 } from '../../src/model/order.ts';
import type { BookEvent } from '../../src/model/stream.ts';

/** A trade print of a market's book stream: one share at `price` (micro-units), taken by a `takerSide` taker. */
export const tradeEvent = (marketId: Bytes32, price: number, takerSide: 'buy' | 'sell', outcomeIndex: 0 | 1 = 1): BookEvent => ({
  type: 'trade',
  marketId,
  outcomeIndex,
  seq: 1,
  price,
  size: 1_000_000,
  takerSide,
  venueTs: 0,
  localTs: 0,
});
