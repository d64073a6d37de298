import type { Bytes32 } from '../../src/model/order.ts';
import type { BookEvent } from '../../src/model/stream.ts';

/** A trade print of a market's book stream: one share at `price` (micro-units), taken by a `takerSide` taker, stamped `venueTs`. */
export const tradeEvent = (marketId: Bytes32, price: number, takerSide: 'buy' | 'sell', outcomeIndex: 0 | 1 = 1, venueTs = 0): BookEvent => ({
  type: 'trade',
  marketId,
  outcomeIndex,
  seq: 1,
  price,
  size: 1_000_000,
  takerSide,
  venueTs,
  localTs: 0,
});

/** A delta of a market's book stream (one bid level changed) stamped `venueTs`: the stream has come that far. */
export const deltaEvent = (marketId: Bytes32, venueTs: number): BookEvent => ({
  type: 'delta',
  marketId,
  outcomeIndex: 1,
  seq: 1,
  bids: [{ price: 100_000, size: 1_000_000 }],
  asks: [],
  venueTs,
  localTs: 0,
});

/** The connection state of a market's book stream. */
export const streamState = (marketId: Bytes32, state: 'live' | 'reconnecting' | 'polling'): BookEvent => ({
  type: 'status',
  marketId,
  outcomeIndex: 1,
  state,
  localTs: 0,
});
