/**
 * What every feed emits: a state event (src/state/events.ts) stamped with the venue's time and ours,
 * and the name of the source it came from. Feeds never throw into the pipeline: failures are counted
 * in the source's health record and the Observable keeps going.
 */
import type { StateEvent } from '../state/events.ts';

export interface FeedEvent {
  readonly source: string;
  readonly event: StateEvent;
  /** the venue's timestamp for the fact, ms (0 when the venue gave none) */
  readonly venueTs: number;
  /** our injected clock when it was received, ms */
  readonly localTs: number;
}

export function feedEvent(source: string, event: StateEvent, venueTs: number, localTs: number): FeedEvent {
  return { source, event, venueTs, localTs };
}

/** ISO string / ms / null → ms (0 when unknown or unparseable). */
export function venueMs(ts: string | number | null | undefined): number {
  if (ts === null || ts === undefined) return 0;
  if (typeof ts === 'number') return Number.isFinite(ts) ? ts : 0;
  const n = Date.parse(ts);
  return Number.isFinite(n) ? n : 0;
}
