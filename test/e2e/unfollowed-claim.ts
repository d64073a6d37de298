/**
 * The steps the claimed-while-down-unfollowed and claimed-while-running-unfollowed e2e tests share: run 1 buys YES
 * in a market and stops before it resolves; the venue resolves it YES and auto-claims the tokens; the books of a bot
 * that saw both (run 1's, rebuilt from its ledger, resolved and claimed) are the reference the live books and the
 * ledger's replay are held to, to the unit.
 */
import assert from 'node:assert/strict';
import type { Account } from '../../src/account/account.ts';
import { accountFromLedger } from '../../src/ledger/books.ts';
import type { Bytes32 } from '../../src/model/order.ts';
import type { Bot } from '../../src/runtime/bot.ts';
import { accountLedger } from '../../src/sim/routes/account/ledger-of.ts';
import { boughtYes, ledgerConfig, startTestBot, type Harness } from './harness.ts';
import { readLedgerFile } from './ledger-runs.ts';

/** a market's figures but when it was marked (the resolution's time: when the books learnt it) */
export const unmarked = (m: ReturnType<Account['market']>) => (m === null ? null : { ...m, markedAt: 0 });

/** An account's figures but when they were marked. */
export function figuresUnmarked(a: Account): Omit<ReturnType<Account['figures']>, 'markedAt'> {
  const { markedAt: _, ...rest } = a.figures();
  return rest;
}

/**
 * Run 1 on `ledger`: buys `shares` YES in `m` and stops (exit 0) before `m` resolves. Returns the reference books
 * (run 1's, from its ledger, then resolved YES and claimed: what a bot that saw both holds) and run 1's cash.
 */
export async function run1HoldsYes(h: Harness, ledger: string, m: Bytes32, shares: number): Promise<{ ref: Account; cashBefore: bigint }> {
  const bot = await startTestBot(h, await ledgerConfig(h, ledger));
  let stopped = false;
  try {
    await boughtYes(h, bot, m, shares);
    stopped = true;
    assert.equal(await bot.stop(), 0);
  } finally {
    if (!stopped) await bot.stop();
  }
  const ml = m.toLowerCase() as Bytes32;
  const ref = readLedgerFile(ledger, (l) => accountFromLedger(l));
  assert.equal(ref.market(ml)?.payoutYes, null, 'run 1 never saw the market resolve');
  assert.deepEqual(ref.unclaimedResolved(), []);
  const cashBefore = ref.figures().cash;
  ref.resolve(ml, 1_000_000, Date.now());
  ref.claimed(ml);
  return { ref, cashBefore };
}

/** At the venue: `m` resolves YES and the auto-claim redeems the bot's `shares` YES; returns what it paid. */
export function venueResolvesAndClaims(h: Harness, m: Bytes32, shares: number): bigint {
  h.ex.state.services.resolveMarket(m, 1_000_000, Date.now(), 'e2e: YES');
  const venue = accountLedger(h.ex.state);
  const collateralBefore = venue.collateral(h.bot.wallet).total;
  const paid = h.ex.state.services.claimPosition(h.bot.wallet, m, 'auto', Date.now());
  assert.equal(paid, BigInt(shares) * 1_000_000n);
  assert.equal(venue.collateral(h.bot.wallet).total - collateralBefore, paid);
  return paid;
}

/**
 * The live books of `bot` once it recorded the claim of `m`: equal to the reference's, the cash gained what the venue
 * paid, the market resolved and claimed as in the reference, and the run report lists it claimed at its payout.
 */
export function assertBooksClaimed(bot: Bot, m: Bytes32, ref: Account, cashBefore: bigint, paid: bigint): void {
  const ml = m.toLowerCase() as Bytes32;
  const live = bot.kernel.account;
  const got = figuresUnmarked(live);
  assert.deepEqual(got, figuresUnmarked(ref), 'the books equal those of a bot that saw the resolution and the claim');
  assert.equal(got.cash - cashBefore, paid, 'the cash gained is what the venue paid');
  assert.deepEqual(unmarked(live.market(ml)), unmarked(ref.market(ml)));
  assert.ok(
    bot.report('test', 0).claims?.markets.some((x) => x.marketId === ml && x.state === 'claimed' && x.payoutYesUsdc === '1.000000'),
    'the report lists the market claimed, at its payout',
  );
}

/** The ledger replayed (what `ledger summary` and the next restart show): the reference's books; returns the replay. */
export function assertReplayClaimed(ledger: string, m: Bytes32, ref: Account): Account {
  const ml = m.toLowerCase() as Bytes32;
  const replayed = readLedgerFile(ledger, (l) => accountFromLedger(l));
  assert.deepEqual(figuresUnmarked(replayed), figuresUnmarked(ref));
  assert.deepEqual(unmarked(replayed.market(ml)), unmarked(ref.market(ml)));
  return replayed;
}
