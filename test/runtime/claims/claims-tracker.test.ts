/**
 * After resolution (src/runtime/claims): the claimable summary is exact and keeps to this instance's
 * markets (shards share a wallet); the tracker logs each market once with its payout and amount,
 * exports bookmaker_claimable_usdc{market} and its total, re-reads until a resolution shows, notices
 * a claim, survives failed reads, and feeds the run report's block.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { asyncScheduler } from 'rxjs';
import { Registry } from 'prom-client';
import type { Clock } from '../../../src/core/clock.ts';
import { createLogger } from '../../../src/core/logger.ts';
import { VenueError } from '../../../src/exchange/client/errors.ts';
import type { Claimable } from '../../../src/exchange/client/portfolio.ts';
import type { Address, Bytes32 } from '../../../src/model/order.ts';
import { summarizeClaimable } from '../../../src/runtime/claims/claimable-summary.ts';
import {
  ClaimsTracker,
  MAX_INTERVAL_MS,
  OVERDUE_AFTER_MS,
  OVERDUE_LISTED_MAX,
  RESOLVED_SEEN_MAX,
  SETTLED_LISTED_MAX,
} from '../../../src/runtime/claims/claims-tracker.ts';
import { buildRunReport, formatRunReport } from '../../../src/runtime/run-report.ts';
import { STOPPED_RUN } from '../../support/run-report.ts';
import { movingClock } from '../../support/moving-clock.ts';

const A = ('0x' + 'a1'.repeat(32)) as Bytes32;
const B = ('0x' + 'b2'.repeat(32)) as Bytes32;
const C = ('0x' + 'c3'.repeat(32)) as Bytes32;
const TOKEN = ('0x' + 'cd'.repeat(20)) as Address;

const pos = (marketId: Bytes32, outcomeIndex: 0 | 1, balance: bigint, claimableAmount: bigint) => ({
  marketId,
  outcomeIndex,
  outcomeName: outcomeIndex ? 'Yes' : 'No',
  tokenAddress: TOKEN,
  balance,
  claimableAmount,
});
const mkt = (id: Bytes32, payouts: bigint[]) => ({ id, outcomeTokens: [TOKEN, TOKEN], outcomeNames: ['No', 'Yes'], payouts });

function manualClock(): Clock & { timers: { fn: () => void; ms: number }[]; fire(): void } {
  const c = {
    timers: [] as { fn: () => void; ms: number }[],
    now: () => 1_800_000_000_000,
    scheduler: asyncScheduler,
    setTimeout(fn: () => void, ms: number) {
      const t = { fn, ms };
      c.timers.push(t);
      return () => void (c.timers = c.timers.filter((x) => x !== t));
    },
    fire() {
      const ts = c.timers;
      c.timers = [];
      for (const t of ts) t.fn();
    },
  };
  return c;
}

function capture(): { logger: ReturnType<typeof createLogger>; lines: () => { msg: string; [k: string]: unknown }[] } {
  const out: string[] = [];
  const logger = createLogger({ level: 'info', destination: { write: (s: string) => void out.push(s) } });
  return { logger, lines: () => out.map((l) => JSON.parse(l) as { msg: string }) };
}

const settle = () => new Promise((r) => setImmediate(r));

test('summarizeClaimable: exact sums per market, payouts by outcome, only the markets this instance owns', () => {
  const c: Claimable = {
    positions: [pos(A, 1, 7_000_000n, 7_000_000n), pos(A, 0, 3_000_000n, 0n), pos(B, 0, 2_500_001n, 2_500_001n), pos(C, 1, 1n, 1n)],
    markets: [mkt(A, [0n, 1_000_000n]), mkt(B, [1_000_000n, 0n]), mkt(C, [500_000n, 500_000n])],
    totalClaimable: 9_500_002n,
  };
  const all = summarizeClaimable(c, () => true);
  assert.equal(all.total, 9_500_002n);
  assert.deepEqual(all.markets[0], { marketId: A, payoutYes: 1_000_000n, payoutNo: 0n, yesShares: 7_000_000n, noShares: 3_000_000n, claimable: 7_000_000n });
  assert.equal(all.markets[1]!.payoutYes, 0n);
  const mine = summarizeClaimable(c, (id) => id !== B);
  assert.deepEqual(
    mine.markets.map((m) => m.marketId),
    [A, C],
  );
  assert.equal(mine.total, 7_000_001n, "the wallet total is not this instance's");
  // (the venue's spelling of an id is normalised where the client reads it: src/model/ids.ts)
  assert.equal(summarizeClaimable({ ...c, positions: [pos(A, 1, 5n, 5n)], markets: [] }, (id) => id === A).total, 5n);
});

test('the tracker: start-up read, a resolution read until it shows, logs with payout and amount, metrics, a claim noticed, failed reads survived', async () => {
  const clock = manualClock();
  /** The delays of the timers set now, in ms. */
  const timerDelays = () => clock.timers.map((x) => x.ms);
  const { logger, lines } = capture();
  const registry = new Registry();
  let answer: Claimable | Error = { positions: [pos(A, 1, 4_000_000n, 4_000_000n)], markets: [mkt(A, [0n, 1_000_000n])], totalClaimable: 4_000_000n };
  let reads = 0;
  const t = new ClaimsTracker({
    read: async () => {
      reads++;
      if (answer instanceof Error) throw answer;
      return answer;
    },
    owns: (id) => id !== C,
    clock,
    logger,
    registry,
    intervalMs: 60_000,
    retryMs: 2_000,
    maxTries: 3,
  });
  // start-up: a position held from an earlier run is claimable
  await t.start();
  assert.equal(reads, 1);
  const first = lines().find((l) => l.msg.includes(`market ${A} resolved: 4.000000 USDC claimable`));
  assert.ok(first, JSON.stringify(lines()));
  assert.equal(first.payoutYes, '1.000000');
  assert.equal(first.claimableUsdc, '4.000000');
  const metrics = await registry.getMetricsAsJSON();
  const per = metrics.find((m) => m.name === 'bookmaker_claimable_usdc')!;
  assert.deepEqual(
    per.values.map((v) => [v.labels.market, v.value]),
    [[A, 4]],
  );
  assert.equal(metrics.find((m) => m.name === 'bookmaker_claimable_total_usdc')!.values[0]!.value, 4);
  assert.deepEqual(timerDelays(), [60_000], 'something claimable: re-read every interval');

  // B resolves with a position; the venue does not show it yet, then does
  t.marketResolved(B, 0, true);
  await settle();
  assert.equal(reads, 2);
  assert.deepEqual(timerDelays(), [4_000], 'retry after 2 s doubling (second try)');
  answer = {
    positions: [pos(A, 1, 4_000_000n, 4_000_000n), pos(B, 0, 2_000_000n, 2_000_000n)],
    markets: [mkt(A, [0n, 1_000_000n]), mkt(B, [1_000_000n, 0n])],
    totalClaimable: 6_000_000n,
  };
  clock.fire();
  await settle();
  assert.ok(lines().some((l) => l.msg.includes(`market ${B} resolved: 2.000000 USDC claimable (a YES share pays 0.000000, a NO share 1.000000 USDC)`)));
  assert.equal(lines().filter((l) => l.msg.includes(`market ${A} resolved:`)).length, 1, 'an unchanged market is not logged again');
  assert.equal(t.total(), 6_000_000n);
  // the same resolution seen again (activity and market feeds both report it) changes nothing
  t.marketResolved(B, 0, true);
  await settle();
  assert.equal(reads, 3);

  // a market resolved without a position in the books: one line, one read, no retries
  t.marketResolved(('0x' + 'd4'.repeat(32)) as Bytes32, 1_000_000, false);
  assert.ok(lines().some((l) => l.msg.includes('no position in the books, nothing to claim')));
  await settle();
  assert.equal(reads, 4);
  assert.deepEqual(timerDelays(), [120_000], 'nothing pending: the claimable re-read only, its pause doubled (the read changed nothing)');
  // another shard's market is not this instance's business
  t.marketResolved(C, 1_000_000, true);
  await settle();
  assert.equal(reads, 4);

  // a failed read: logged, counted, retried; the figures stay
  answer = new Error('503 Service Unavailable');
  clock.fire();
  await settle();
  assert.ok(lines().some((l) => l.msg.includes('could not be read; retrying')));
  assert.equal(t.total(), 6_000_000n);
  assert.deepEqual(
    clock.timers.map((x) => x.ms),
    [2_000],
  );
  // A was claimed (the venue's auto-claim): the amount goes, its gauge label too
  answer = { positions: [pos(B, 0, 2_000_000n, 2_000_000n)], markets: [mkt(B, [1_000_000n, 0n])], totalClaimable: 2_000_000n };
  clock.fire();
  await settle();
  assert.ok(lines().some((l) => l.msg.includes(`market ${A}: 4.000000 USDC no longer claimable (claimed)`)));
  const after = await registry.getMetricsAsJSON();
  assert.deepEqual(
    after.find((m) => m.name === 'bookmaker_claimable_usdc')!.values.map((v) => [v.labels.market, v.value]),
    [[B, 2]],
  );
  assert.equal(after.find((m) => m.name === 'bookmaker_claimable_read_errors_total')!.values[0]!.value, 1);

  // the run report's block: exact strings, one line per market
  const snap = t.report();
  assert.deepEqual(
    snap.markets.map((m) => [m.marketId, m.state, m.claimable]),
    [
      [A, 'claimed', 0n],
      [B, 'claimable', 2_000_000n],
      ['0x' + 'd4'.repeat(32), 'nothing-to-claim', 0n],
    ],
  );
  const report = buildRunReport({ ...STOPPED_RUN, claims: snap });
  assert.equal(report.claims!.totalClaimableUsdc, '2.000000');
  assert.deepEqual(report.claims!.markets[1], {
    marketId: B,
    state: 'claimable',
    payoutYesUsdc: '0.000000',
    payoutNoUsdc: '1.000000',
    yesShares: '0.000000',
    noShares: '2.000000',
    claimableUsdc: '2.000000',
  });
  const text = formatRunReport(report).join('\n');
  assert.match(text, /after resolution: 3 market\(s\) resolved, 2\.00 USDC claimable \(1 failed reads\)/);
  t.stop();
  assert.equal(clock.timers.length, 0, 'stop cancels the timer');
});

test('weeks of rotation: thousands of settled resolutions keep a bounded list (the newest, the rest counted); claimable ones always listed', async () => {
  const clock = manualClock();
  const { logger } = capture();
  // B stays claimable throughout; every other market resolves with nothing held
  const t = new ClaimsTracker({
    read: async () => ({ positions: [pos(B, 0, 2_000_000n, 2_000_000n)], markets: [mkt(B, [1_000_000n, 0n])], totalClaimable: 2_000_000n }),
    clock,
    logger,
  });
  await t.start();
  const N = 5_000;
  const idOf = (i: number) => ('0x' + i.toString(16).padStart(64, '0')) as Bytes32;
  for (let i = 1; i <= N; i++) {
    t.marketResolved(idOf(i), 1_000_000, false);
    if (i % 500 === 0) await settle();
  }
  await settle();
  const snap = t.report();
  assert.equal(snap.markets.length, SETTLED_LISTED_MAX + 1, 'the newest settled markets and the claimable one');
  assert.ok(
    snap.markets.some((m) => m.marketId === B && m.state === 'claimable'),
    'a claimable market is never dropped',
  );
  assert.ok(
    snap.markets.some((m) => m.marketId === idOf(N)),
    'the newest settled market is listed',
  );
  assert.ok(!snap.markets.some((m) => m.marketId === idOf(1)), 'the oldest is not');
  assert.equal(snap.earlierSettled, N - SETTLED_LISTED_MAX);
  assert.equal(snap.total, 2_000_000n);
  assert.ok(t.heldMarketState <= SETTLED_LISTED_MAX + 1 + RESOLVED_SEEN_MAX, `held ${t.heldMarketState}`);
  // the report says how many resolved in all
  const report = buildRunReport({ ...STOPPED_RUN, claims: snap });
  assert.equal(report.claims!.earlierSettled, N - SETTLED_LISTED_MAX);
  const text = formatRunReport(report).join('\n');
  assert.match(text, new RegExp(`after resolution: ${N + 1} market\\(s\\) resolved, 2\\.00 USDC claimable`));
  assert.match(text, new RegExp(`\\(${N - SETTLED_LISTED_MAX} earlier settled market\\(s\\)`));
  t.stop();
});

test('a resolution the venue never shows as claimable ends after maxTries with a warning, and the timer stops', async () => {
  const clock = manualClock();
  const { logger, lines } = capture();
  const t = new ClaimsTracker({ read: async () => ({ positions: [], markets: [], totalClaimable: 0n }), clock, logger, maxTries: 2 });
  await t.start();
  assert.equal(clock.timers.length, 0, 'nothing claimable, nothing pending: idle');
  t.marketResolved(A, 0, true);
  await settle();
  clock.fire();
  await settle();
  assert.ok(lines().some((l) => l.msg.includes('the venue shows nothing claimable for it')));
  assert.equal(clock.timers.length, 0);
  assert.equal(t.report().markets[0]!.state, 'nothing-to-claim');
});

test('a refusal no retry passes (403): said once, no retry loop, the next resolution tries again', async () => {
  const clock = manualClock();
  const { logger, lines } = capture();
  let reads = 0;
  const t = new ClaimsTracker({
    read: async () => {
      reads++;
      throw new VenueError({
        status: 403,
        venueCode: null,
        message: 'forbidden',
        endpoint: 'GET /portfolio/:address/claimable',
        retryAfterMs: null,
        body: null,
      });
    },
    clock,
    logger,
  });
  await t.start();
  assert.equal(reads, 1);
  assert.equal(lines().filter((l) => l.msg.includes('the venue refuses the claimable read')).length, 1);
  assert.equal(clock.timers.length, 0, 'no retry loop');
  t.marketResolved(A, 1_000_000, true);
  await settle();
  assert.equal(reads, 2, 'a new resolution tries again');
  assert.equal(clock.timers.length, 0);
  assert.equal(t.report().markets[0]!.state, 'pending');
  t.stop();
});

/** A venue whose claimable list the test sets: market id → claimable (YES won, 1e-6 USDC). */
function claimableVenue(): { list: Map<Bytes32, bigint>; read: () => Promise<Claimable>; reads: number } {
  const v = {
    list: new Map<Bytes32, bigint>(),
    reads: 0,
    read: async (): Promise<Claimable> => {
      v.reads++;
      const ids = [...v.list.keys()];
      return {
        positions: ids.map((id) => pos(id, 1, v.list.get(id)!, v.list.get(id)!)),
        markets: ids.map((id) => mkt(id, [0n, 1_000_000n])),
        totalClaimable: [...v.list.values()].reduce((a, b) => a + b, 0n),
      };
    },
  };
  return v;
}

async function gauges(registry: Registry): Promise<{ perMarket: [string, number][]; total: number; overdueMarkets: number; overdueUsdc: number }> {
  const all = await registry.getMetricsAsJSON();
  const one = (name: string) => all.find((m) => m.name === name)!.values[0]!.value;
  return {
    perMarket: all.find((m) => m.name === 'bookmaker_claimable_usdc')!.values.map((v) => [String(v.labels.market), v.value]),
    total: one('bookmaker_claimable_total_usdc'),
    overdueMarkets: one('bookmaker_claimable_overdue_markets'),
    overdueUsdc: one('bookmaker_claimable_overdue_usdc'),
  };
}

test('a market nobody claims: re-reads back off to 15 min, overdue after 24 h it leaves the list and its series (said once at warn), every total keeps it, its claim still reaches the books', async () => {
  const clock = movingClock();
  const { logger, lines } = capture();
  const registry = new Registry();
  const venue = claimableVenue();
  const claimed: [Bytes32, bigint | null][] = [];
  const t = new ClaimsTracker({ read: venue.read, clock, logger, registry, onClaimed: (id, p) => void claimed.push([id, p]) });
  await t.start();
  assert.equal(clock.timers.length, 0, 'nothing claimable: idle');

  // A resolves with a position; the venue lists it and never claims it
  venue.list.set(A, 4_000_001n);
  t.marketResolved(A, 1_000_000, true);
  await settle();
  const pauses: number[] = [];
  for (let i = 0; i < 6; i++) {
    pauses.push(clock.step());
    await settle();
  }
  assert.deepEqual(
    pauses,
    [60_000, 120_000, 240_000, 480_000, MAX_INTERVAL_MS, MAX_INTERVAL_MS],
    'a change, then reads that change nothing double the pause up to 15 min',
  );
  // B resolves: the pause starts again at 60 s
  venue.list.set(B, 2_500_000n);
  t.marketResolved(B, 1_000_000, true);
  await settle();
  assert.deepEqual(
    clock.timers.map((x) => x.at - clock.t),
    [60_000],
    'B is new: 60 s again',
  );
  assert.deepEqual((await gauges(registry)).perMarket, [
    [A, 4.000001],
    [B, 2.5],
  ]);

  // a day after A was first read claimable: overdue
  const readsBefore = venue.reads;
  const day = OVERDUE_AFTER_MS + 3_600_000;
  while (clock.t < 1_800_000_000_000 + day) {
    clock.step();
    await settle();
  }
  // at most one read per 15 min once nothing changes (60 s a read on the old code: ~1,500)
  assert.ok(venue.reads - readsBefore <= Math.ceil(day / MAX_INTERVAL_MS) + 6, `reads in a day: ${venue.reads - readsBefore}`);
  const warned = lines().filter((l) => l.msg.includes(`market ${A}: 4.000001 USDC still claimable`));
  assert.equal(warned.length, 1, 'said once');
  assert.equal(warned[0]!.level, 40, 'at warn');
  assert.match(warned[0]!.msg, /not claimed by the venue: claim it/);
  assert.ok(
    lines().some((l) => l.msg.includes(`market ${B}: 2.500000 USDC still claimable`)),
    'B too, a day after its first read',
  );
  const g = await gauges(registry);
  assert.deepEqual(g.perMarket, [], 'no per-market series for overdue markets');
  assert.equal(g.overdueMarkets, 2);
  assert.equal(g.overdueUsdc, 6.500001);
  // one figure: total() is the gauge's and the report's, overdue included
  assert.equal(t.total(), 6_500_001n);
  assert.equal(g.total, 6.500001);
  const snap = t.report();
  assert.equal(snap.total, t.total());
  assert.deepEqual(snap.markets, [], 'overdue markets leave the per-market list');
  assert.equal(snap.overdue.markets, 2);
  assert.equal(snap.overdue.total, 6_500_001n);
  assert.deepEqual(
    snap.overdue.largest.map((m) => [m.marketId, m.claimable, m.payoutYes]),
    [
      [A, 4_000_001n, 1_000_000n],
      [B, 2_500_000n, 1_000_000n],
    ],
  );
  const report = buildRunReport({ ...STOPPED_RUN, claims: snap });
  assert.equal(report.claims!.totalClaimableUsdc, '6.500001');
  assert.equal(report.claims!.overdue!.claimableUsdc, '6.500001');
  assert.equal(report.claims!.overdue!.largest[0]!.claimableSince, new Date(1_800_000_000_000).toISOString());
  const text = formatRunReport(report).join('\n');
  assert.match(text, /after resolution: 2 market\(s\) resolved, 6\.50 USDC claimable/);
  assert.match(text, /overdue: 2 market\(s\) claimable 24 h or more, not claimed by the venue, 6\.50 USDC: claim them; they are:/);
  assert.ok(text.includes(`    ${A} 4.00 USDC (claimable since `), text);

  // a resolution seen again changes nothing; the venue's amount moving is followed
  t.marketResolved(A, 1_000_000, true);
  venue.list.set(B, 2_000_000n);
  clock.step();
  await settle();
  assert.equal(t.total(), 6_000_001n);
  // A is claimed at last: the books hear of it, the overdue figures drop it
  venue.list.delete(A);
  assert.equal(clock.step(), 60_000, 'the last read changed an amount');
  await settle();
  assert.deepEqual(claimed, [[A, 1_000_000n]]);
  const saidClaimed = lines().find((l) => l.msg.includes(`market ${A}: 4.000001 USDC no longer claimable (claimed, `));
  assert.match(saidClaimed?.msg ?? '', /\(claimed, 2[45] h after first seen claimable\)$/);
  const after = await gauges(registry);
  assert.equal(after.overdueMarkets, 1);
  assert.equal(after.total, 2);
  assert.equal(t.report().earlierSettled, 1);
  t.stop();
  assert.equal(clock.timers.length, 0);
});

test('many markets overdue at once (start-up after a long absence): 20 lines, one summary, the largest named, the totals exact to the unit', async () => {
  const clock = movingClock();
  const { logger, lines } = capture();
  const registry = new Registry();
  const venue = claimableVenue();
  const n = 50;
  const idOf = (i: number) => ('0x' + (i + 1).toString(16).padStart(64, '0')) as Bytes32;
  let sum = 0n;
  for (let i = 0; i < n; i++) {
    venue.list.set(idOf(i), 1_000_000n + BigInt(i) * 7n + 1n);
    sum += 1_000_000n + BigInt(i) * 7n + 1n;
  }
  const t = new ClaimsTracker({ read: venue.read, clock, logger, registry });
  await t.start();
  assert.equal((await gauges(registry)).perMarket.length, n);
  while (clock.t < 1_800_000_000_000 + OVERDUE_AFTER_MS) {
    clock.step();
    await settle();
  }
  const said = lines().filter((l) => l.level === 40 && l.msg.includes('still claimable'));
  assert.equal(said.length, 20);
  const summary = lines().filter((l) => l.msg.startsWith(`${n - 20} more market(s) with `));
  assert.equal(summary.length, 1, JSON.stringify(lines().slice(-3)));
  const g = await gauges(registry);
  assert.equal(g.perMarket.length, 0);
  assert.equal(g.overdueMarkets, n);
  const snap = t.report();
  assert.equal(snap.total, sum);
  assert.equal(snap.overdue.total, sum);
  assert.equal(snap.overdue.largest.length, OVERDUE_LISTED_MAX);
  assert.equal(snap.overdue.largest[0]!.marketId, idOf(n - 1), 'the largest first');
  const report = buildRunReport({ ...STOPPED_RUN, claims: snap });
  const text = formatRunReport(report).join('\n');
  assert.match(text, new RegExp(`after resolution: ${n} market\\(s\\) resolved`));
  assert.match(text, new RegExp(`overdue: ${n} market\\(s\\) .*: claim them; the largest ${OVERDUE_LISTED_MAX}:`));
  assert.equal(report.claims!.totalClaimableUsdc, (Number(sum) / 1e6).toFixed(6));
  assert.ok(t.heldMarketState <= n + RESOLVED_SEEN_MAX, `held ${t.heldMarketState}`);
  t.stop();
});

test('a claimable market the venue then lists with nothing left to claim was claimed: the books hear of it', async () => {
  const clock = movingClock();
  const { logger } = capture();
  const venue = claimableVenue();
  const claimed: Bytes32[] = [];
  const t = new ClaimsTracker({ read: venue.read, clock, logger, onClaimed: (id) => void claimed.push(id) });
  venue.list.set(A, 3_000_000n);
  await t.start();
  venue.list.set(A, 0n);
  clock.step();
  await settle();
  assert.deepEqual(claimed, [A]);
  assert.equal(t.report().markets[0]!.state, 'claimed');
  assert.equal(t.total(), 0n);
  t.stop();
});

test('a balance read below the books in a claimable market reads the claimable list at once (once), so a claim made while the bot runs reaches the books within a read', async () => {
  const clock = manualClock();
  const { logger, lines } = capture();
  const listed: Claimable = {
    positions: [pos(A, 1, 4_000_000n, 4_000_000n), pos(B, 1, 2_000_000n, 2_000_000n)],
    markets: [mkt(A, [0n, 1_000_000n]), mkt(B, [500_000n, 500_000n])],
    totalClaimable: 6_000_000n,
  };
  let answer = listed;
  let reads = 0;
  const claimed: [Bytes32, bigint | null][] = [];
  const t = new ClaimsTracker({
    read: async () => {
      reads++;
      return answer;
    },
    clock,
    logger,
    onClaimed: (id, p) => void claimed.push([id, p]),
  });
  await t.start();
  assert.equal(reads, 1);
  assert.deepEqual(
    clock.timers.map((x) => x.ms),
    [60_000],
    'the next re-read: 60 s (up to 15 min once reads change nothing)',
  );
  // B is claimed while the bot runs; a balance read shows its tokens gone: read now, not in 60 s
  answer = { positions: [listed.positions[0]!], markets: [listed.markets[0]!], totalClaimable: 4_000_000n };
  t.balanceBelowBooks(B);
  await settle();
  assert.equal(reads, 2, 'read at once, no timer fired');
  assert.deepEqual(claimed, [[B, 500_000n]], 'at the payout the claimable list stated');
  assert.ok(lines().some((l) => l.msg.startsWith(`market ${B}: a balance read shows fewer tokens than the books hold`)));
  // the drift goes on being reported until the books catch up: no read more for B, none for a market not claimable
  t.balanceBelowBooks(B);
  t.balanceBelowBooks(C);
  await settle();
  assert.equal(reads, 2);
  // A still listed: once per market, however many reads below the books
  t.balanceBelowBooks(A);
  t.balanceBelowBooks(A);
  await settle();
  assert.equal(reads, 3);
  assert.deepEqual(claimed, [[B, 500_000n]]);
  t.stop();
});
