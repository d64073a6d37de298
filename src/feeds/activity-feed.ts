/**
 * Activity by cursor polling, with no duplicates and no gaps across poller restarts.
 *
 * Each poll pages the venue's activity list from the newest item backwards until it reaches what
 * it has already seen (src/feeds/activity-cursor.ts), then hands the new items over oldest first and
 * saves the new position. Restarting with the same PositionStore resumes exactly there: items that
 * arrived while the bot was down are read (up to `maxPages` pages; beyond that the gap is logged and
 * counted, never silently skipped). A fresh start with no saved position records the newest items as
 * the baseline and emits nothing (history is not news).
 *
 * Items map to state events where they mean something to quoting: a `resolution` of a quoted market
 * becomes MarketMetadataUpdated (status resolved, payout); every new item is also passed to
 * `onItem` (the runtime counts trades and oracle updates for the summary). Our own fills are not
 * read here: activity items carry no trader (see own-orders-feed.ts).
 *
 * Two identical items at the same millisecond have the same key and are taken as one.
 *
 * `types` asks the venue for those kinds of item only (the runtime: `resolution`, the only kind that
 * becomes an event). The venue's activity is every market's, not the bot's: at thousands of markets
 * its oracle updates alone fill pages every poll, which the bot would read and drop.
 */
import type { Observable } from 'rxjs';
import type { Clock } from '../core/clock.ts';
import { silentLogger, type Logger } from '../core/logger.ts';
import type { ActivityItem, ActivityPage, ActivityParams, ActivityType } from '../exchange/client/activity.ts';
import { ONE } from '../model/units.ts';
import { START, type ActivityPosition, type PositionStore } from './activity-cursor.ts';
import { feedEvent, venueMs, type FeedEvent } from './feed-event.ts';
import type { FeedHealth } from './feed-health.ts';
import { idsOf, type MarketIds } from './market-ids.ts';
import { pollFeed, pollOf } from './poll-feed.ts';

export interface ActivitySource {
  activity: { list(p?: ActivityParams): Promise<ActivityPage> };
}

export interface ActivityFeedOptions {
  client: ActivitySource;
  clock: Clock;
  intervalMs: number;
  store: PositionStore;
  /** a fixed list, or a getter read at every poll (markets start and retire while the feed runs) */
  marketIds: MarketIds;
  /** the kinds of item to read (default: every kind) */
  types?: ActivityType[];
  /** pages read per poll at most (default 20, 100 items each) */
  maxPages?: number;
  onItem?: (item: ActivityItem) => void;
  /** called with the number of pages that could not be read back to the saved position */
  onGap?: (pagesRead: number) => void;
  health?: FeedHealth;
  logger?: Logger;
}

const SOURCE = 'activity';

export function activityKey(i: ActivityItem): string {
  return `${i.type ?? ''}|${i.marketId ?? ''}|${i.timestamp ?? ''}|${JSON.stringify(i.data)}`;
}

function isSeen(i: ActivityItem, pos: ActivityPosition, seenKeys: ReadonlySet<string>): 'new' | 'seen' | 'older' {
  const ts = venueMs(i.timestamp);
  if (ts > pos.newestTs) return 'new';
  if (ts < pos.newestTs) return 'older';
  return seenKeys.has(activityKey(i)) ? 'seen' : 'new';
}

/** The new position after taking `fresh` (newest first) on top of `pos`. */
export function advance(pos: ActivityPosition, fresh: readonly ActivityItem[]): ActivityPosition {
  if (fresh.length === 0) return pos;
  const newestTs = Math.max(pos.newestTs, ...fresh.map((i) => venueMs(i.timestamp)));
  const keys = fresh.filter((i) => venueMs(i.timestamp) === newestTs).map(activityKey);
  return { newestTs, keysAtNewest: newestTs === pos.newestTs ? [...new Set([...pos.keysAtNewest, ...keys])] : keys };
}

/** Page back from the newest item until the saved position; returns new items oldest first. */
export async function readNew(
  client: ActivitySource,
  pos: ActivityPosition,
  maxPages: number,
  types?: ActivityType[],
): Promise<{ items: ActivityItem[]; complete: boolean; pages: number }> {
  const seenKeys = new Set(pos.keysAtNewest);
  const fresh: ActivityItem[] = [];
  let cursor: string | undefined;
  let pages = 0;
  for (;;) {
    const page = await client.activity.list({ limit: 100, ...(types ? { types } : {}), ...(cursor ? { cursor } : {}) });
    pages++;
    let reached = false;
    for (const i of page.activity) {
      const s = isSeen(i, pos, seenKeys);
      if (s === 'older') {
        reached = true;
        break;
      }
      if (s === 'new') fresh.push(i);
    }
    if (reached || !page.hasMore || !page.cursor || pos.newestTs === 0) return { items: fresh.reverse(), complete: true, pages };
    if (pages >= maxPages) return { items: fresh.reverse(), complete: false, pages };
    cursor = page.cursor;
  }
}

/** A resolution item → the payout of one YES share in 1e-6 USDC, when the item says who won. */
function payoutOf(i: ActivityItem): number | null {
  const d = i.data.data && typeof i.data.data === 'object' ? (i.data.data as Record<string, unknown>) : i.data;
  const o = d.outcome ?? d.winningOutcome ?? d.outcomeIndex;
  if (o === 1 || o === '1' || o === 'yes' || o === 'YES') return ONE;
  if (o === 0 || o === '0' || o === 'no' || o === 'NO') return 0;
  return null;
}

export function itemEvents(i: ActivityItem, quoted: ReadonlySet<string>, now: number): FeedEvent[] {
  if (i.type !== 'resolution' || !i.marketId || !quoted.has(i.marketId)) return [];
  return [
    feedEvent(SOURCE, { type: 'MarketMetadataUpdated', marketId: i.marketId, status: 'resolved', payoutYes: payoutOf(i), ts: now }, venueMs(i.timestamp), now),
  ];
}

export function activityFeed(opts: ActivityFeedOptions): Observable<FeedEvent> {
  const log = (opts.logger ?? silentLogger).child({ feed: SOURCE });
  let pos = opts.store.load() ?? START;
  async function read(): Promise<FeedEvent[]> {
    const r = await readNew(opts.client, pos, opts.maxPages ?? 20, opts.types);
    const baseline = pos.newestTs === 0;
    if (!r.complete) {
      log.warn({ pages: r.pages }, 'activity: could not page back to the saved position; older items skipped');
      opts.onGap?.(r.pages);
    }
    pos = advance(pos, [...r.items].reverse());
    opts.store.save(pos);
    if (baseline) return [];
    const now = opts.clock.now();
    const out: FeedEvent[] = [];
    const quoted = new Set<string>(idsOf(opts.marketIds));
    for (const i of r.items) {
      opts.onItem?.(i);
      out.push(...itemEvents(i, quoted, now));
    }
    return out;
  }
  return pollFeed(pollOf(SOURCE, opts, read));
}
