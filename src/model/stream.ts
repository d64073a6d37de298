/**
 * Order-book streaming: the wire format (our design, design.md §3; the venue publishes none)
 * and the typed events the streaming client emits.
 *
 * Wire (GET /markets/:id/orderbook, Accept: text/event-stream, query depth & outcomeIndex):
 *   event: snapshot   id: <seq>   data: {"marketId","outcomeIndex","bids":[{price,size}],"asks":[…],"timestamp","seq"}
 *   event: delta      id: <seq>   data: {"marketId","outcomeIndex","seq","timestamp","changes":[{"side":"bid"|"ask","price","size"}]}
 *   event: trade      id: <seq>   data: {"marketId","outcomeIndex","seq","timestamp","price","size","takerSide":"buy"|"sell"}
 *   : heartbeat <ms>  (comment line, every few seconds)
 * Prices and sizes use the same units as the JSON order book of the same server (cents and shares on
 * the local exchange). A delta's size is the new absolute size at that level, 0 = removed.
 * Any event whose data has both `bids` and `asks` is treated as a full snapshot, whatever its name.
 * `seq` increases by exactly 1 per event of a (market, outcome) stream; a gap means resync.
 * Reconnecting with `Last-Event-ID: <seq>` resumes after that event when the server still has it,
 * otherwise the server starts with a fresh snapshot.
 */
import type { BookLevel, BookSnapshot } from './book.ts';
import type { Bytes32, OutcomeIndex } from './order.ts';

export interface WireLevel {
  price: number;
  size: number;
}
export interface WireSnapshot {
  marketId: string;
  outcomeIndex?: number;
  bids: WireLevel[];
  asks: WireLevel[];
  timestamp: string;
  seq?: number;
}
export interface WireDelta {
  marketId: string;
  outcomeIndex?: number;
  seq: number;
  timestamp: string;
  changes: { side: 'bid' | 'ask'; price: number; size: number }[];
}
export interface WireTrade {
  marketId: string;
  outcomeIndex?: number;
  seq: number;
  timestamp: string;
  price: number;
  size: number;
  takerSide: 'buy' | 'sell';
}

/** Typed events out of the streaming client; all in integer units. */
export type BookEvent =
  | { type: 'snapshot'; book: BookSnapshot; seq: number; localTs: number; source: 'stream' | 'poll' | 'resync' }
  | {
      type: 'delta';
      marketId: Bytes32;
      outcomeIndex: OutcomeIndex;
      seq: number;
      bids: BookLevel[]; // changed bid levels, absolute size, 0 = removed
      asks: BookLevel[];
      venueTs: number;
      localTs: number;
    }
  | {
      type: 'trade';
      marketId: Bytes32;
      outcomeIndex: OutcomeIndex;
      seq: number;
      price: number;
      size: number;
      takerSide: 'buy' | 'sell';
      venueTs: number;
      localTs: number;
    }
  | {
      type: 'status';
      marketId: Bytes32;
      outcomeIndex: OutcomeIndex;
      state: 'connecting' | 'live' | 'polling' | 'reconnecting' | 'stale' | 'closed';
      reason?: string;
      localTs: number;
    };
