/**
 * Shards (src/selection/shard.ts): rendezvous hashing of the market id. Every id has exactly one
 * owner, the shards are balanced, N → N + 1 moves ≈ 1/(N + 1) of the ids and only to the new shard,
 * and the assignment is pinned (instances of different versions must agree). selectMarkets keeps a
 * shard's markets before its caps; `run --shard` and BOOKMAKER_SHARD refuse bad values with exit 2.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import { main } from '../../src/cli/main.ts';
import { parseConfigText } from '../../src/config/load-config.ts';
import { shardFromEnv } from '../../src/config/env-overrides.ts';
import type { MarketInfo } from '../../src/exchange/client/parse-market.ts';
import { bytes32Of } from '../../src/model/ids.ts';
import type { Bytes32 } from '../../src/model/order.ts';
import { selectMarkets, type MarketsSource } from '../../src/selection/select-markets.ts';
import { shardOf, shardOwns, withShard, withShardScope } from '../../src/selection/shard.ts';

const ids = Array.from({ length: 10_000 }, (_, i) => `0x${createHash('sha256').update(`market ${i}`).digest('hex')}` as Bytes32);

test('every id is owned by exactly one shard, and the shards are balanced', () => {
  for (const n of [1, 2, 3, 5, 8]) {
    const counts = new Array<number>(n).fill(0);
    for (const id of ids) {
      const owners = Array.from({ length: n }, (_, i) => i).filter((i) => shardOwns(id, { index: i, count: n }));
      assert.equal(owners.length, 1, `${id} in ${n} shards`);
      assert.equal(owners[0], shardOf(id, n));
      counts[owners[0]!]!++;
    }
    // binomial sd for 10 000 ids and 8 shards is ~33; 6 sd of slack keeps this deterministic-data test far from its edge
    const expected = ids.length / n;
    for (const c of counts) assert.ok(Math.abs(c - expected) < 6 * Math.sqrt(expected) + 1, `shard sizes ${counts.join(', ')} for N = ${n}`);
  }
});

test('N → N + 1 moves about 1/(N + 1) of the markets, each to the new shard; none moves between old shards', () => {
  for (const n of [1, 2, 3, 4, 7, 15]) {
    let moved = 0;
    for (const id of ids) {
      const before = shardOf(id, n);
      const after = shardOf(id, n + 1);
      if (before === after) continue;
      moved++;
      assert.equal(after, n, `${id}: ${before}/${n} → ${after}/${n + 1}`);
    }
    const fraction = moved / ids.length;
    const expected = 1 / (n + 1);
    assert.ok(Math.abs(fraction - expected) < 0.02, `N ${n} → ${n + 1}: moved ${(fraction * 100).toFixed(2)} %, expected ≈ ${(expected * 100).toFixed(2)} %`);
  }
  // a modulo assignment would move most of them: the reason for rendezvous hashing
  const mod = (id: string, k: number): number => Number(BigInt(id) % BigInt(k));
  const movedMod = ids.filter((id) => mod(id, 4) !== mod(id, 5)).length / ids.length;
  assert.ok(movedMod > 0.7, `modulo moves ${movedMod}`);
});

test('an id in any case is one shard once normalised where it enters, and the assignment is pinned (all instances, all versions agree)', () => {
  for (const id of ids.slice(0, 200)) assert.equal(shardOf(bytes32Of(id.toUpperCase().replace('0X', '0x'))!, 7), shardOf(id, 7));
  // golden values: a change of the hash re-shards every deployment, so it must be deliberate
  const pinned = ids.slice(0, 12).map((id) => shardOf(id, 4));
  assert.deepEqual(pinned, PINNED_4);
  assert.equal(shardOf(`0x${'0'.repeat(63)}1` as Bytes32, 10_000), PINNED_ONE_OF_10000);
  assert.throws(() => shardOf(ids[0]!, 0), /positive integer/);
  assert.equal(shardOwns(ids[0]!, null), true);
});
const PINNED_4 = [2, 3, 1, 2, 2, 0, 2, 3, 1, 1, 1, 0];
const PINNED_ONE_OF_10000 = 7445;

/** A venue's market list: `n` active markets, newest first. */
function venue(n: number): MarketsSource {
  const list: MarketInfo[] = ids.slice(0, n).map((id) => ({
    id: id as Bytes32,
    question: 'q',
    shortQuestion: 'q',
    slug: null,
    status: 'active',
    resolutionStatus: null,
    outcomePrices: [],
    outcomeTokens: [],
    volume: 0n,
    volume24h: 0n,
    participantCount: null,
    deadline: null,
    createdAt: null,
    outcome: null,
    creator: null,
    oracle: null,
    categories: [],
  }));
  return {
    markets: {
      get: async (id) => {
        const m = list.find((x) => x.id === id.toLowerCase());
        if (!m) throw new Error('404');
        return m;
      },
      async *iterate() {
        yield* list;
      },
    },
  };
}

const CONFIG = `venue: local\nmarkets:\n  - id: "${ids[0]}"\n  - all: true\n`;

test("selectMarkets keeps the shard's markets before the cap: shards are disjoint, their union is the unsharded selection, each fills its own maxMarkets", async () => {
  const cfg = await parseConfigText(CONFIG, 'config/t.yaml', { env: {} });
  const src = venue(60);
  const all = (await selectMarkets(src, cfg.markets, { maxMarkets: 100 })).map((m) => m.marketId);
  assert.equal(all.length, 60);
  const parts = await Promise.all(
    [0, 1, 2].map(async (index) => (await selectMarkets(src, cfg.markets, { maxMarkets: 100, shard: { index, count: 3 } })).map((m) => m.marketId)),
  );
  const union = parts.flat();
  assert.equal(new Set(union).size, union.length, 'disjoint');
  assert.deepEqual([...union].sort(), [...all].sort(), 'the union is every selected market');
  for (const [i, p] of parts.entries()) for (const id of p) assert.equal(shardOf(id, 3), i);
  // the id entry is kept only by its owner
  assert.equal(parts.filter((p) => p.includes(ids[0] as Bytes32)).length, 1);
  // a cap of 5: each shard takes 5 of ITS markets (a cap applied before the filter would leave shards short)
  for (const index of [0, 1, 2]) {
    const few = await selectMarkets(src, cfg.markets, { maxMarkets: 5, shard: { index, count: 3 } });
    assert.ok(few.length >= 5, `shard ${index}: ${few.length}`); // 5 from `all`, maybe the id entry too
    for (const m of few) assert.equal(shardOf(m.marketId, 3), index);
  }
  // nothing in a shard: a clear error naming it
  await assert.rejects(
    selectMarkets(venue(1), [cfg.markets[1]!], { shard: { index: shardOf(ids[0]!, 2) === 0 ? 1 : 0, count: 2 } }),
    /no market .* in shard \d\/2/,
  );
});

test("a shard forces reconcileScope markets; withShard replaces the file's shard", async () => {
  const cfg = await parseConfigText(CONFIG, 'config/t.yaml', { env: {} });
  assert.equal(cfg.orders.reconcileScope, 'wallet');
  assert.equal(withShardScope(cfg), cfg, 'no shard: unchanged');
  const sharded = withShard(cfg, { index: 1, count: 2 });
  assert.deepEqual(sharded.selection.shard, { index: 1, count: 2 });
  assert.equal(withShardScope(sharded).orders.reconcileScope, 'markets');
  assert.equal(cfg.selection.shard, null, 'the original is not touched');
  const fromFile = await parseConfigText(`venue: local\nmarkets:\n  shard: 2/3\n  select: all\n`, 'config/t.yaml', { env: {} });
  assert.deepEqual(fromFile.selection.shard, { index: 2, count: 3 });
  assert.equal(withShardScope(fromFile).orders.reconcileScope, 'markets');
});

test('BOOKMAKER_SHARD is read and checked; run --shard and BOOKMAKER_SHARD refuse bad values with exit 2 and a clear message', async () => {
  assert.equal(shardFromEnv({}), undefined);
  assert.equal(shardFromEnv({ BOOKMAKER_SHARD: ' ' }), undefined);
  assert.deepEqual(shardFromEnv({ BOOKMAKER_SHARD: '3/4' }), { index: 3, count: 4 });
  assert.throws(() => shardFromEnv({ BOOKMAKER_SHARD: '4/4' }), /BOOKMAKER_SHARD: expected I\/N/);
  const err: string[] = [];
  const write = process.stderr.write.bind(process.stderr);
  process.stderr.write = ((s: string) => (err.push(String(s)), true)) as typeof process.stderr.write;
  const saved = process.env.BOOKMAKER_SHARD;
  try {
    for (const bad of ['2/2', '1', '-1/2', 'a/b', '0/0']) assert.equal(await main(['run', '-c', 'config/local.yaml', '--shard', bad]), 2, bad);
    assert.match(err.join(''), /--shard: expected I\/N with N from 1 to 10000 and I from 0 to N − 1/);
    err.length = 0;
    process.env.BOOKMAKER_SHARD = '5/3';
    assert.equal(await main(['run', '-c', 'config/local.yaml', '--summary-seconds', '0']), 2);
    assert.match(err.join(''), /BOOKMAKER_SHARD: expected I\/N/);
  } finally {
    process.stderr.write = write;
    if (saved === undefined) delete process.env.BOOKMAKER_SHARD;
    else process.env.BOOKMAKER_SHARD = saved;
  }
});

test("a rank entry ranks only the shard's markets: each shard fills its own top N from its own share", async () => {
  const { fakeSource, market } = await import('./fake-source.ts');
  const { Ranker } = await import('../../src/selection/ranker.ts');
  const SPREAD_ONLY =
    'weights: { spread: 1, depth: 0, volume: 0, volume24h: 0, volatility: 0, tradeRate: 0, timeToDeadline: 0, oracleDisagreement: 0, fee: 0 }';
  const cfg = await parseConfigText(`venue: mainnet\nmarkets:\n  - rank:\n      top: 3\n      ${SPREAD_ONLY}\n`, 'x.yaml', { env: {} });
  // 12 markets, spreads 1..12 cents: unsharded, the top 3 are the widest three
  const src = fakeSource(Array.from({ length: 12 }, (_, k) => market(k + 1, { bid: 400_000, ask: 400_000 + (k + 1) * 10_000 })));
  const spread = (id: string): number => Number(BigInt(id));
  const parts = await Promise.all(
    [0, 1].map(async (index) =>
      (await selectMarkets(src, cfg.markets, { ranker: new Ranker(), now: () => 0, shard: { index, count: 2 } })).map((m) => m.marketId),
    ),
  );
  for (const [index, p] of parts.entries()) {
    assert.equal(p.length, 3, `shard ${index} fills its top 3`);
    for (const id of p) assert.equal(shardOf(id, 2), index);
    // and they are the widest of ITS markets
    const own = Array.from({ length: 12 }, (_, k) => k + 1).filter((n) => shardOf(`0x${n.toString(16).padStart(64, '0')}` as Bytes32, 2) === index);
    assert.deepEqual(
      p.map(spread).sort((a, b) => b - a),
      own.sort((a, b) => b - a).slice(0, 3),
    );
  }
  assert.equal(new Set([...parts[0]!, ...parts[1]!]).size, 6, 'disjoint');
});
