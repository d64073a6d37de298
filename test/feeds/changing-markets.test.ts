/**
 * Feeds over a changing set of markets (market rotation): the polling feeds read a getter at every
 * poll (a market added is polled from the next round, one removed is not polled again and its memo
 * goes), and the book feed opens and closes one market's stream while it runs.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { systemClock } from '../../src/core/clock.ts';
import type { MarketInfo } from '../../src/exchange/client/parse-market.ts';
import { createBookFeed } from '../../src/feeds/book-feed.ts';
import type { FeedEvent } from '../../src/feeds/feed-event.ts';
import { FeedHealth } from '../../src/feeds/feed-health.ts';
import { marketFeed } from '../../src/feeds/market-feed.ts';
import { perRound, PollRounds, pruneTo } from '../../src/feeds/market-ids.ts';
import type { Bytes32 } from '../../src/model/order.ts';

const id = (n: number): Bytes32 => `0x${String(n).padStart(64, '0')}` as Bytes32;

test('pruneTo drops the memo entries of markets no longer covered', () => {
  const memo = new Map([
    [id(1), 'a'],
    [id(2), 'b'],
  ]);
  pruneTo(memo, [id(2), id(3)]);
  assert.deepEqual([...memo.keys()], [id(2)]);
});

test('the market feed polls the markets of its getter as of each round', async () => {
  const ids: Bytes32[] = [id(1)];
  const asked: string[][] = [];
  let round: string[] = [];
  const client = {
    markets: {
      get: async (m: string): Promise<MarketInfo> => {
        round.push(m);
        return { id: m, slug: `s${Number(m)}`, status: 'active', deadline: null, outcome: null } as unknown as MarketInfo;
      },
    },
  };
  const got: FeedEvent[] = [];
  await new Promise<void>((done) => {
    let polls = 0;
    const sub = marketFeed({ client, marketIds: () => ids, clock: systemClock, intervalMs: 5 }).subscribe((e) => got.push(e));
    const tick = setInterval(() => {
      if (round.length === 0) return;
      asked.push(round);
      round = [];
      polls++;
      if (polls === 2) ids.push(id(2)); // a market starts
      if (polls === 4) ids.splice(0, 1); // one retires
      if (polls === 5) ids.unshift(id(1)); // and comes back
      if (polls === 7) {
        clearInterval(tick);
        sub.unsubscribe();
        done();
      }
    }, 1);
  });
  assert.ok(
    asked.some((r) => r.includes(id(2))),
    'the added market is polled',
  );
  assert.ok(
    asked.some((r) => r.length === 1 && r[0] === id(2)),
    'the retired one is not',
  );
  // events: one per market per change; the market that came back is reported again (its memo went)
  const perMarket = (m: Bytes32): number => got.filter((e) => e.event.type === 'MarketMetadataUpdated' && e.event.marketId === m).length;
  assert.equal(perMarket(id(2)), 1);
  assert.equal(perMarket(id(1)), 2);
});

test('the book feed opens a stream for an added market and closes it, with its health source, on remove', async () => {
  const health = new FeedHealth();
  const feed = createBookFeed({
    baseUrl: 'http://127.0.0.1:9',
    marketIds: [id(1)],
    fetchSnapshot: () => async () => {
      throw new Error('offline');
    },
    clock: systemClock,
    health,
    stream: { backoff: { initialMs: 1_000, maxMs: 1_000 } },
  });
  const sub = feed.events$.subscribe(() => undefined);
  assert.equal(feed.add(id(2)), true);
  assert.equal(feed.add(id(2)), false, 'never two streams for one market');
  assert.deepEqual([...feed.streams.keys()], [id(1), id(2)]);
  assert.deepEqual(
    health
      .all()
      .map((h) => h.name)
      .sort(),
    [`book:${id(1)}`, `book:${id(2)}`],
  );
  assert.equal(feed.remove(id(1)), true);
  assert.equal(feed.remove(id(1)), false);
  assert.deepEqual([...feed.streams.keys()], [id(2)]);
  assert.deepEqual(
    health.all().map((h) => h.name),
    [`book:${id(2)}`],
  );
  sub.unsubscribe();
  // added while nobody listens: it starts with the next subscription
  feed.add(id(3));
  assert.deepEqual([...feed.streams.keys()], [id(2), id(3)]);
});

test('PollRounds: at most perRound markets a round, markets never read first, then every market in turn', () => {
  const r = new PollRounds(3);
  const ids = [1, 2, 3, 4, 5, 6, 7].map(id);
  assert.deepEqual(r.next(ids.slice(0, 3)), ids.slice(0, 3), 'no more markets than a round: all of them');
  assert.deepEqual(r.next(ids), [id(4), id(5), id(6)], 'never read first');
  assert.deepEqual(r.next(ids), [id(7), id(1), id(2)]);
  assert.deepEqual(r.next(ids), [id(3), id(4), id(5)], 'then in turn');
  ids.push(id(8));
  assert.deepEqual(r.next(ids), [id(8), id(6), id(7)], 'a market added is read in the next round');
  // over many rounds every market is read equally often (within one)
  const count = new Map<string, number>();
  for (let i = 0; i < 80; i++) for (const m of r.next(ids)) count.set(m, (count.get(m) ?? 0) + 1);
  const n = [...count.values()];
  assert.equal(count.size, ids.length);
  assert.ok(Math.max(...n) - Math.min(...n) <= 1, `reads per market ${n}`);
  assert.equal(perRound(20, 10_000), 200);
  assert.equal(perRound(0.1, 1_000), 1);
  assert.throws(() => new PollRounds(0), RangeError);
});

test('the market feed at a reads budget: a round of 2,000 markets reads the budget, not every market', async () => {
  const ids = Array.from({ length: 2_000 }, (_, i) => id(i + 1));
  const rounds: number[] = [];
  let n = 0;
  const client = {
    markets: {
      get: async (m: string): Promise<MarketInfo> => {
        n++;
        return { id: m, slug: 'x', status: 'active', deadline: null, outcome: null } as unknown as MarketInfo;
      },
    },
  };
  await new Promise<void>((done) => {
    // 20 reads a second over 10 ms rounds: 1 market a round
    const sub = marketFeed({ client, marketIds: ids, clock: systemClock, intervalMs: 10, readsPerSecond: 20 }).subscribe(() => undefined);
    const tick = setInterval(() => {
      if (n === 0) return;
      rounds.push(n);
      n = 0;
      if (rounds.length === 3) {
        clearInterval(tick);
        sub.unsubscribe();
        done();
      }
    }, 10);
  });
  assert.ok(
    rounds.every((r) => r <= 2),
    `reads per round ${rounds}`,
  );
});
