import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import type { ActivityItem, ActivityPage, ActivityParams } from '../../src/exchange/client/activity.ts';
import { filePositionStore, memoryPositionStore, START, type ActivityPosition } from '../../src/feeds/activity-cursor.ts';
import { activityKey, advance, itemEvents, readNew } from '../../src/feeds/activity-feed.ts';
import type { Bytes32 } from '../../src/model/order.ts';

const M = ('0x' + 'ee'.repeat(32)) as Bytes32;

/** A venue activity list: newest first, pages of `limit`, cursor = index to continue from. */
class Venue {
  items: ActivityItem[] = []; // oldest first
  calls = 0;
  add(ts: number, n = 1, type = 'trade'): void {
    for (let i = 0; i < n; i++) this.items.push({ type, marketId: M, timestamp: new Date(ts).toISOString(), data: { seq: this.items.length, type } });
  }
  client = {
    activity: {
      list: async (p: ActivityParams = {}): Promise<ActivityPage> => {
        this.calls++;
        const newest = [...this.items].reverse().filter((i) => !p.types || p.types.includes(i.type as never));
        const from = p.cursor ? Number(p.cursor) : 0;
        const limit = p.limit ?? 50;
        const page = newest.slice(from, from + limit);
        const more = from + limit < newest.length;
        return { marketId: null, activity: page, cursor: more ? String(from + limit) : null, hasMore: more };
      },
    },
  };
}

/** Run polls like the feed does: read, advance, save. Returns what each poll delivered. */
async function poll(v: Venue, store: { load(): ActivityPosition | null; save(p: ActivityPosition): void }, maxPages = 20): Promise<ActivityItem[]> {
  const pos = store.load() ?? START;
  const r = await readNew(v.client, pos, maxPages);
  store.save(advance(pos, [...r.items].reverse()));
  return pos.newestTs === 0 ? [] : r.items;
}

const seqs = (items: ActivityItem[]) => items.map((i) => (i.data as { seq: number }).seq);

test('the first poll is a baseline; later polls deliver each new item once, oldest first', async () => {
  const v = new Venue();
  v.add(1000, 3);
  const store = memoryPositionStore();
  assert.deepEqual(await poll(v, store), []);
  v.add(2000, 2);
  assert.deepEqual(seqs(await poll(v, store)), [3, 4]);
  assert.deepEqual(seqs(await poll(v, store)), []);
  // more items at the same millisecond as the newest seen are still new
  v.add(2000, 1);
  v.add(3000, 1);
  assert.deepEqual(seqs(await poll(v, store)), [5, 6]);
});

test('no duplicates and no gaps across a poller restart, even across many pages', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'activity-'));
  try {
    const file = join(dir, 'activity.json');
    const v = new Venue();
    v.add(1000, 5);
    const delivered: number[] = [];
    let store = filePositionStore(file);
    delivered.push(...seqs(await poll(v, store)));
    v.add(1500, 3);
    delivered.push(...seqs(await poll(v, store)));
    // the bot is down while 250 items arrive (3 pages of 100)
    for (let t = 0; t < 250; t++) v.add(2000 + t * 10);
    store = filePositionStore(file); // a new process reads the saved position
    delivered.push(...seqs(await poll(v, store)));
    v.add(9000, 2);
    delivered.push(...seqs(await poll(v, store)));
    const expected = Array.from({ length: v.items.length - 5 }, (_, i) => i + 5);
    assert.deepEqual(delivered, expected);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('reading back further than maxPages reports an incomplete read instead of pretending', async () => {
  const v = new Venue();
  v.add(1000, 1);
  const pos = advance(START, [...v.items]);
  for (let t = 0; t < 350; t++) v.add(2000 + t);
  const r = await readNew(v.client, pos, 2);
  assert.equal(r.complete, false);
  assert.equal(r.items.length, 200);
});

test('the position is keyed by timestamp and item identity', () => {
  const a: ActivityItem = { type: 'trade', marketId: M, timestamp: '2026-11-21T00:00:01.000Z', data: { x: 1 } };
  const b: ActivityItem = { ...a, data: { x: 2 } };
  const p = advance(START, [b, a]);
  assert.equal(p.newestTs, Date.parse(a.timestamp!));
  assert.deepEqual(p.keysAtNewest.sort(), [activityKey(a), activityKey(b)].sort());
});

test('a resolution of a quoted market becomes a metadata event with the payout', () => {
  const it: ActivityItem = { type: 'resolution', marketId: M, timestamp: '2026-11-21T00:00:01.000Z', data: { data: { outcome: 1 } } };
  const [e] = itemEvents(it, new Set([M.toLowerCase()]), 5);
  assert.equal(e?.event.type, 'MarketMetadataUpdated');
  assert.deepEqual({ ...(e!.event as object), ts: 0 }, { type: 'MarketMetadataUpdated', marketId: M, status: 'resolved', payoutYes: 1_000_000, ts: 0 });
  assert.equal(e!.venueTs, Date.parse(it.timestamp!));
  assert.deepEqual(itemEvents(it, new Set(), 5), []);
});

test('with `types`, the venue is asked for those kinds only: a busy venue of oracle updates costs one page, not every page of them', async () => {
  const v = new Venue();
  v.add(1000, 1, 'resolution');
  const store = memoryPositionStore();
  const types = ['resolution' as const];
  const pollOf = async (): Promise<ActivityItem[]> => {
    const pos = store.load() ?? START;
    const r = await readNew(v.client, pos, 20, types);
    store.save(advance(pos, [...r.items].reverse()));
    return pos.newestTs === 0 ? [] : r.items;
  };
  await pollOf(); // baseline
  v.add(2000, 950, 'oracle_update'); // every market's oracle, ten pages' worth
  v.add(2500, 1, 'resolution');
  v.calls = 0;
  const got = await pollOf();
  assert.deepEqual(
    got.map((i) => i.type),
    ['resolution'],
  );
  assert.equal(v.calls, 1, 'one page (old code: ten pages of oracle updates read and dropped)');
});
