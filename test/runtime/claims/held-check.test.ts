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
import type { Claimable, ClaimState, Holding } from '../../../src/exchange/client/portfolio.ts';
import type { Address, Bytes32 } from '../../../src/model/order.ts';
import { ClaimsTracker } from '../../../src/runtime/claims/claims-tracker.ts';

const id = (c: string) => ('0x' + c.repeat(32)) as Bytes32;
const FOLLOWED = id('f1');
const U = id('a1');
const V = id('b2');
const TOKEN = ('0x' + 'cd'.repeat(20)) as Address;
const settle = async () => {
  for (let i = 0; i < 10; i++) await new Promise((r) => setImmediate(r));
};

function row(marketId: Bytes32, o: { balance?: bigint; state?: ClaimState | null; redeemed?: bigint; claimable?: bigint } = {}): Holding {
  return {
    tokenAddress: TOKEN,
    marketId,
    outcomeIndex: 1,
    outcomeName: 'Yes',
    balance: o.balance ?? 0n,
    settlementBalance: o.balance ?? 0n,
    walletBalance: 0n,
    netInvestment: 0n,
    currentValue: 0n,
    claimState: o.state ?? null,
    claimableAmount: o.claimable ?? 0n,
    tokensRedeemed: o.redeemed ?? 0n,
  };
}

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

test('while running: a held market not followed, claimed at the venue, reaches the books within a period; no read once only followed markets are held', async () => {
  const clock = manualClock(1_800_000_000_000);
  // the books: 10 YES in a followed market and in U (not followed), neither's payout known
  let held = [FOLLOWED, U];
  let rows: Holding[] = [row(FOLLOWED, { balance: 10n }), row(U, { balance: 10n })];
  let holdingReads = 0;
  const marketReads: Bytes32[] = [];
  const claimed: [Bytes32, bigint | null][] = [];
  const t = new ClaimsTracker({
    read: async (): Promise<Claimable> => ({ positions: [], markets: [], totalClaimable: 0n }),
    unclaimed: () => [],
    heldUnresolved: () => held,
    readPayout: async (m) => {
      marketReads.push(m);
      return 1_000_000n;
    },
    readHoldings: async function* () {
      holdingReads++;
      for (const r of rows) yield r;
    },
    follows: (m) => m === FOLLOWED,
    heldCheckMs: 1_000,
    clock,
    logger: createLogger({ level: 'silent' }),
    onClaimed: (m, p) => {
      claimed.push([m, p]);
      held = held.filter((x) => x !== m);
    },
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
  const claimed: [Bytes32, bigint | null][] = [];
  let rows: Holding[] = [row(V, { balance: 10n })];
  let held = [V];
  const t = new ClaimsTracker({
    read: async () => {
      claimableReads++;
      return listed;
    },
    unclaimed: () => [],
    heldUnresolved: () => held,
    readPayout: async () => null,
    readHoldings: async function* () {
      for (const r of rows) yield r;
    },
    follows: () => false,
    heldCheckMs: 1_000,
    intervalMs: 5_000,
    clock,
    logger: createLogger({ level: 'silent' }),
    onClaimed: (m, p) => {
      claimed.push([m, p]);
      held = held.filter((x) => x !== m);
    },
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
