/**
 * Order-book streaming: the wire format (our design, docs/venue.md#order-book-streaming; the venue publishes none)
 * and the typed events the streaming client emits.
 *
 * Wire (GET /markets/:id/orderbook, Accept: text/event-stream, query depth & outcomeIndex):
 *   event: snapshot   id: <seq>   data: {"marketId","outcomeIndex","bids":[{price,size}],"asks":[…],"timestamp","seq"}
 *   event: delta      id: <seq>   data: {"marketId","outcomeIndex","seq","timestamp","changes":[{"side":"bid"|"ask","price","size"}]}
 *   event: trade      id: <seq>   data: {"marketId","outcomeIndex","seq","timestamp","price","size","takerSide":"buy"|"sell"}
 *   event: status     id: <seq>   data: {"marketId","outcomeIndex","seq","timestamp","status":"active"|"pending"|"resolved"|"closed",
 *                                        "resolutionStatus"?, "outcome"?: 1|0|null, "payoutPcts"?: [NO %, YES %]|null, "resolvedAt"?}
 *                     the market's venue status changed (the local exchange sends it when a market closes, and
 *                     when it resolves, just before the stream ends); a fresh connection to a market that is no
 *                     longer active gets it right after the snapshot, with the snapshot's seq
 *   : heartbeat <ms>  (comment line, every few seconds: the venue's clock read before it is written, after
 *                      every event before it; a quiet market's cancelled orders are released by it,
 *                      src/feeds/parked-cancels.ts)
 * Prices and sizes use the same units as the JSON order book of the same server (cents and shares on
 * the local exchange). A delta's size is the new absolute size at that level, 0 = removed.
 * Any event whose data has both `bids` and `asks` is treated as a full snapshot, whatever its name.
 * `seq` increases by exactly 1 per event of a (market, outcome) stream; a gap means resync.
 * `timestamp` is the venue's clock read no later than the event is sent; an order's `insertedAt` is
 * the same clock read after its create arrived (src/feeds/parked-cancels.ts relies on both).
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

/** A market's venue status as the stream reports it (openapi Market.status). */
export type StreamMarketStatus = 'active' | 'pending' | 'resolved' | 'closed';
export const STREAM_MARKET_STATUSES: readonly StreamMarketStatus[] = ['active', 'pending', 'resolved', 'closed'];

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
      /** wire deltas this one stands for, when the stream client coalesced a read's backlog (absent: 1) */
      merged?: number;
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
      /** the market's venue status, from the stream's `event: status` (emitted when it changes) */
      type: 'market-status';
      marketId: Bytes32;
      outcomeIndex: OutcomeIndex;
      seq: number;
      status: StreamMarketStatus;
      /** on resolution: what one YES share pays, 1e-6 USDC (1e6 = YES won, 0 = NO won); null otherwise or for a split */
      payoutYes: number | null;
      venueTs: number;
      localTs: number;
    }
  | {
      /** the connection's own state (not the market's) */
      type: 'status';
      marketId: Bytes32;
      outcomeIndex: OutcomeIndex;
      state: 'connecting' | 'live' | 'polling' | 'reconnecting' | 'stale' | 'closed';
      reason?: string;
      localTs: number;
    };
