/**
 * The claims tracker's periodic holdings check while running (src/runtime/claims/claims-tracker.ts
 * scheduleHeldCheck): every `heldCheckMs`, the markets the books hold tokens in that this run does not follow
 * (`follows`) are looked up in one portfolio read; one the venue shows claimed reaches the books (onClaimed,
 * at the payout its market read states) while the bot runs, not at the next start; one it shows claimable
 * makes the claimable list read (which follows it then). Bounded: no read at all while the books hold
 * tokens only in followed markets, one portfolio read a period otherwise, a market read only for a market
 * shown claimed. On the old code nothing ran after start-up: no read, no claim.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { asyncScheduler } from 'rxjs';
import type { Clock } from '../../../src/core/clock.ts';
import { createLogger } from '../../../src/core/logger.ts';
import type { Claimable, Holding } from '../../../src/exchange/client/portfolio.ts';
import type { Bytes32 } from '../../../src/model/order.ts';
import { ClaimsTracker, type ClaimsTrackerOptions } from '../../../src/runtime/claims/claims-tracker.ts';
import { holdingRow, marketOf } from './holdings-fixture.ts';

const FOLLOWED = marketOf('f1');
const U = marketOf('a1');
const V = marketOf('b2');
const row = holdingRow;
const settle = async () => {
  for (let i = 0; i < 10; i++) await new Promise((r) => setImmediate(r));
};

/** A clock whose timers the test fires: `tick(ms)` moves time on and runs the timers due. */
function manualClock(t: number): Clock & { tick(ms: number): void } {
  let now = t;
  let timers: { fn: () => void; at: number }[] = [];
  return {
    now: () => now,
    scheduler: asyncScheduler,
    setTimeout(fn: () => void, ms: number) {
      const x = { fn, at: now + ms };
      timers.push(x);
      return () => void (timers = timers.filter((y) => y !== x));
    },
    tick(ms: number) {
      now += ms;
      const due = timers.filter((x) => x.at <= now);
      timers = timers.filter((x) => x.at > now);
      for (const x of due) x.fn();
    },
  };
}

/**
 * A tracker on `clock` checking every second, whose books hold tokens without a payout in `held` (a market leaves it
 * when recorded claimed: `claimed` lists those, with their payout); `o` gives the venue's reads and the rest.
 */
function heldTracker(clock: Clock, held: Bytes32[], o: Omit<ClaimsTrackerOptions, 'unclaimed' | 'clock' | 'logger' | 'onClaimed'>) {
  const claimed: [Bytes32, bigint | null][] = [];
  let books = [...held];
  const t = new ClaimsTracker({
    unclaimed: () => [],
    heldUnresolved: () => books,
    heldCheckMs: 1_000,
    ...o,
    clock,
    logger: createLogger({ level: 'silent' }),
    onClaimed: (m, p) => {
      claimed.push([m, p]);
      books = books.filter((x) => x !== m);
    },
  });
  return { t, claimed };
}

test('while running: a held market not followed, claimed at the venue, reaches the books within a period; no read once only followed markets are held', async () => {
  const clock = manualClock(1_800_000_000_000);
  // the books: 10 YES in a followed market and in U (not followed), neither's payout known
  let rows: Holding[] = [row(FOLLOWED, { balance: 10n }), row(U, { balance: 10n })];
  let holdingReads = 0;
  const marketReads: Bytes32[] = [];
  const { t, claimed } = heldTracker(clock, [FOLLOWED, U], {
    read: async (): Promise<Claimable> => ({ positions: [], markets: [], totalClaimable: 0n }),
    readPayout: async (m) => {
      marketReads.push(m);
      return 1_000_000n;
    },
    readHoldings: async function* () {
      holdingReads++;
      for (const r of rows) yield r;
    },
    follows: (m) => m === FOLLOWED,
  });
  await t.start();
  assert.equal(holdingReads, 1, 'the start-up check');
  clock.tick(1_000);
  await settle();
  assert.equal(holdingReads, 2, 'a period: one read, U held, not followed');
  assert.deepEqual(claimed, []);
  // U resolves YES and the venue auto-claims it
  rows = [row(FOLLOWED, { balance: 10n }), row(U, { state: 'autoclaimed', redeemed: 10n })];
  clock.tick(1_000);
  await settle();
  assert.equal(holdingReads, 3);
  assert.deepEqual(claimed, [[U, 1_000_000n]], 'recorded while running, at the payout its market read states');
  assert.deepEqual(marketReads, [U], 'one market read: the market shown claimed');
  // only the followed market is held now: its feed tells its resolution; no more reads
  for (let i = 0; i < 5; i++) {
    clock.tick(1_000);
    await settle();
  }
  assert.equal(holdingReads, 3, 'no read while the books hold tokens only in followed markets');
  assert.deepEqual(claimed, [[U, 1_000_000n]], 'once');
  t.stop();
});

test('while running: a held market not followed that the venue shows claimable makes the claimable list read, which then follows it', async () => {
  const clock = manualClock(1_800_000_000_000);
  let claimableReads = 0;
  let listed: Claimable = { positions: [], markets: [], totalClaimable: 0n };
  let rows: Holding[] = [row(V, { balance: 10n })];
  const { t } = heldTracker(clock, [V], {
    read: async () => {
      claimableReads++;
      return listed;
    },
    readPayout: async () => null,
    readHoldings: async function* () {
      for (const r of rows) yield r;
    },
    follows: () => false,
    intervalMs: 5_000,
  });
  await t.start();
  const before = claimableReads;
  // V resolves YES: claimable at the venue, not claimed yet
  rows = [row(V, { balance: 10n, state: 'claimable', claimable: 10n })];
  listed = {
    positions: [{ marketId: V, outcomeIndex: 1, balance: 10n, claimableAmount: 10n } as never],
    markets: [{ id: V, payouts: [0n, 1_000_000n] } as never],
    totalClaimable: 10n,
  };
  clock.tick(1_000);
  await settle();
  assert.equal(claimableReads, before + 1, 'the claimable list is read at once');
  assert.ok(
    t.report().markets.some((m) => m.marketId === V && m.state === 'claimable'),
    JSON.stringify(t.report().markets, (_k, v) => (typeof v === 'bigint' ? String(v) : v)),
  );
  t.stop();
});
