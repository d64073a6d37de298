/**
 * The overdue clock across restarts, and overdue markets without a record in memory
 * (src/runtime/claims/claims-tracker.ts with its store in the ledger, src/ledger/claimable-since.ts).
 * Each "process" is a new tracker on the same ledger file, reopened, its clock where the restart left it:
 * - a market first seen claimable 20 h before a restart is overdue 24 h after it was first seen (not 24 h
 *   after the restart: 44 h on the old code, which kept the time in the process only);
 * - one first seen 30 h before a restart is overdue at the restart's first read, said at warn once;
 * - an earlier process's market the first read no longer lists is forgotten with no claim recorded
 *   (a claim made while the bot was down is the portfolio check's: only what the venue states);
 * - 200 overdue markets: only the 20 largest are held in memory (200 records on the old code), the totals
 *   exact to the unit at every read, and the claim of one outside the 20 still reaches the books with its
 *   payout (from the ledger row), the totals dropping by its amount exactly.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { Registry } from 'prom-client';
import type { Clock } from '../../../src/core/clock.ts';
import { createLogger } from '../../../src/core/logger.ts';
import type { Claimable } from '../../../src/exchange/client/portfolio.ts';
import { claimableSinceStore } from '../../../src/ledger/claimable-since.ts';
import { openLedger } from '../../../src/ledger/ledger.ts';
import type { Address, Bytes32 } from '../../../src/model/order.ts';
import { ClaimsTracker, MAX_INTERVAL_MS, OVERDUE_AFTER_MS, OVERDUE_LISTED_MAX } from '../../../src/runtime/claims/claims-tracker.ts';
import { movingClock } from '../../support/moving-clock.ts';

const T0 = 1_800_000_000_000;
const H = 3_600_000;
const TOKEN = ('0x' + 'cd'.repeat(20)) as Address;
const idOf = (i: number) => ('0x' + (i + 1).toString(16).padStart(64, '0')) as Bytes32;
const A = idOf(1000);
const B = idOf(1001);
const settle = () => new Promise((r) => setImmediate(r));

/** The venue's claimable list: market id → claimable (YES won at `payout`, 1e-6 USDC). */
function venue(payout = 1_000_000n): { list: Map<Bytes32, bigint>; read: () => Promise<Claimable> } {
  const v = {
    list: new Map<Bytes32, bigint>(),
    read: async (): Promise<Claimable> => {
      const ids = [...v.list.keys()];
      return {
        positions: ids.map((id) => ({
          marketId: id,
          outcomeIndex: 1 as const,
          outcomeName: 'Yes',
          tokenAddress: TOKEN,
          balance: v.list.get(id)!,
          claimableAmount: v.list.get(id)!,
        })),
        markets: ids.map((id) => ({ id, outcomeTokens: [TOKEN, TOKEN], outcomeNames: ['No', 'Yes'], payouts: [1_000_000n - payout, payout] })),
        totalClaimable: [...v.list.values()].reduce((a, b) => a + b, 0n),
      };
    },
  };
  return v;
}

/** One bot process on the ledger at `path`: its tracker, what it logged, what reached its books. */
function processOn(path: string, clock: Clock, read: () => Promise<Claimable>, registry?: Registry) {
  const out: string[] = [];
  const logger = createLogger({ level: 'info', destination: { write: (s: string) => void out.push(s) } });
  const ledger = openLedger({ path, clock });
  const claimed: [Bytes32, bigint | null][] = [];
  const t = new ClaimsTracker({
    read,
    clock,
    logger,
    ...(registry ? { registry } : {}),
    store: claimableSinceStore(ledger, logger),
    onClaimed: (id, p) => void claimed.push([id, p]),
  });
  return {
    t,
    ledger,
    claimed,
    lines: () => out.map((l) => JSON.parse(l) as { msg: string; level: number }),
    stop() {
      t.stop();
      ledger.close();
    },
  };
}

function withLedger(body: (path: string) => Promise<void>): () => Promise<void> {
  return async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bookmaker-claims-'));
    try {
      await body(join(dir, 'books.sqlite'));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
}

test(
  'claimable for 20 h, a restart: overdue 24 h after it was first seen, not 24 h after the restart',
  withLedger(async (path) => {
    const v = venue();
    v.list.set(A, 7_000_001n);
    const c1 = movingClock(T0);
    const p1 = processOn(path, c1, v.read);
    await p1.t.start();
    assert.equal(p1.t.report().markets[0]?.state, 'claimable');
    while (c1.t < T0 + 20 * H) {
      c1.step();
      await settle();
    }
    assert.equal(p1.t.report().overdue.markets, 0);
    p1.stop();

    // the restart, 20 h after A was first seen claimable
    const c2 = movingClock(T0 + 20 * H);
    const p2 = processOn(path, c2, v.read);
    await p2.t.start();
    assert.equal(p2.t.report().overdue.markets, 0, 'not overdue yet: 20 h');
    while (p2.t.report().overdue.markets === 0 && c2.t < T0 + 20 * H + OVERDUE_AFTER_MS + H) {
      c2.step();
      await settle();
    }
    assert.equal(p2.t.report().overdue.markets, 1);
    assert.ok(c2.t >= T0 + OVERDUE_AFTER_MS, 'not before 24 h');
    assert.ok(c2.t <= T0 + OVERDUE_AFTER_MS + MAX_INTERVAL_MS, `overdue at ${(c2.t - T0) / H} h after first seen: by the first read after 24 h`);
    const said = p2.lines().filter((l) => l.msg.includes(`market ${A}: 7.000001 USDC still claimable 24 h after first seen so`));
    assert.equal(said.length, 1);
    assert.equal(said[0]!.level, 40);
    assert.equal(p2.t.report().overdue.largest[0]?.claimableSince, T0, 'since when: the first process saw it');
    p2.stop();
  }),
);

test(
  'first seen 30 h before a restart: overdue at the first read, said once; a market claimed while the bot was down is forgotten, no claim invented',
  withLedger(async (path) => {
    const v = venue();
    v.list.set(A, 2_000_000n);
    v.list.set(B, 3_000_000n);
    const c1 = movingClock(T0);
    const p1 = processOn(path, c1, v.read);
    await p1.t.start();
    p1.stop();

    // 30 h later: B was claimed while the bot was down; A is still claimable
    v.list.delete(B);
    const c2 = movingClock(T0 + 30 * H);
    const registry = new Registry();
    const p2 = processOn(path, c2, v.read, registry);
    await p2.t.start();
    const snap = p2.t.report();
    assert.equal(snap.overdue.markets, 1);
    assert.equal(snap.overdue.total, 2_000_000n);
    assert.equal(snap.total, 2_000_000n);
    assert.deepEqual(snap.markets, [], 'overdue: not in the per-market list');
    const said = p2.lines().filter((l) => l.msg.includes('still claimable'));
    assert.equal(said.length, 1);
    assert.match(said[0]!.msg, new RegExp(`^market ${A}: 2\\.000000 USDC still claimable 30 h after first seen so`));
    const overdueGauge = (await registry.getMetricsAsJSON()).find((m) => m.name === 'bookmaker_claimable_overdue_usdc')!.values[0]!.value;
    assert.equal(overdueGauge, 2);
    assert.deepEqual(p2.claimed, [], "B's claim is not recorded from its absence (the portfolio check records what the venue states)");
    assert.deepEqual(
      [
        ...claimableSinceStore(p2.ledger, createLogger({ level: 'silent' }))
          .all()
          .keys(),
      ],
      [A],
      "B's row is gone",
    );
    // later reads: nothing said again
    c2.step();
    await settle();
    assert.equal(p2.lines().filter((l) => l.msg.includes('still claimable')).length, 1);
    p2.stop();
  }),
);

test(
  '200 overdue markets: the 20 largest in memory, totals exact at every read, a claim outside the 20 reaches the books with its payout',
  withLedger(async (path) => {
    const v = venue(1_000_000n);
    const n = 200;
    let sum = 0n;
    const amount = (i: number) => 1_000_000n + BigInt(i) * 13n + 1n;
    for (let i = 0; i < n; i++) {
      v.list.set(idOf(i), amount(i));
      sum += amount(i);
    }
    const c = movingClock(T0);
    const registry = new Registry();
    const p = processOn(path, c, v.read, registry);
    await p.t.start();
    while (c.t < T0 + OVERDUE_AFTER_MS) {
      c.step();
      await settle();
    }
    let snap = p.t.report();
    assert.equal(snap.overdue.markets, n);
    assert.equal(snap.overdue.total, sum);
    assert.equal(snap.total, sum);
    assert.equal(snap.overdue.largest.length, OVERDUE_LISTED_MAX);
    assert.equal(snap.overdue.largest[0]!.marketId, idOf(n - 1), 'the largest first');
    // in memory: the remembered resolutions (bounded apart) and the 20 largest; no record per overdue market
    assert.ok(p.t.heldMarketState <= n + OVERDUE_LISTED_MAX, `held ${p.t.heldMarketState} (old code: ${2 * n})`);
    // the venue's amounts move: the totals follow, to the unit
    v.list.set(idOf(3), amount(3) - 500n);
    sum -= 500n;
    c.step();
    await settle();
    assert.equal(p.t.total(), sum);
    // market 5, far from the 20 largest, is claimed: the books hear of it with its payout
    v.list.delete(idOf(5));
    sum -= amount(5);
    c.step();
    await settle();
    assert.deepEqual(p.claimed, [[idOf(5), 1_000_000n]]);
    snap = p.t.report();
    assert.equal(snap.overdue.markets, n - 1);
    assert.equal(snap.overdue.total, sum);
    assert.equal(p.t.total(), sum);
    const g = await registry.getMetricsAsJSON();
    const one = (name: string) => g.find((m) => m.name === name)!.values[0]!.value;
    assert.equal(one('bookmaker_claimable_overdue_markets'), n - 1);
    assert.equal(one('bookmaker_claimable_total_usdc'), Number(sum) / 1e6);
    assert.ok(p.lines().some((l) => l.msg.startsWith(`market ${idOf(5)}: no longer claimable (claimed, 24 h after first seen claimable)`)));
    p.stop();
  }),
);
