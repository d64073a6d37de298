/**
 * The steps the retired-market e2e tests share (retired-held-resolved, retired-auto-claimed,
 * claimed-before-resolution-seen): the venue closes markets a rotating bot holds tokens in and rotation retires
 * them; the venue's auto-claim redeems them; the books, the claims tracker, the run report, /metrics and the
 * ledger's replay are held to one another, to the unit.
 */
import assert from 'node:assert/strict';
import type { Account } from '../../src/account/account.ts';
import { accountFromLedger } from '../../src/ledger/books.ts';
import type { Bytes32 } from '../../src/model/order.ts';
import type { Bot } from '../../src/runtime/bot.ts';
import { accountBlock } from '../../src/runtime/run-report.ts';
import { createAutoClaim } from '../../src/sim/auto-claim.ts';
import { metricValue, scrapeMetrics, waitFor, type Harness } from './harness.ts';
import { readLedgerFile } from './ledger-runs.ts';
import { figuresUnmarked } from './unfollowed-claim.ts';

const S = 1_000_000;

/** a market's figures but when it was marked and which serial its book drew (a replay draws its own) */
export const same = (m: ReturnType<Bot['kernel']['account']['market']>) => (m === null ? null : { ...m, markedAt: 0, book: 0 });

/** The venue closes each of `ms` (their deadline); returns once rotation retired them all. */
export async function closeAndRetire(h: Harness, bot: Bot, ms: readonly Bytes32[]): Promise<void> {
  for (const m of ms) h.ex.state.services.closeMarket(m, Date.now());
  const ks = ms.map((m) => m.toLowerCase() as Bytes32);
  await waitFor(`${ms.join(', ')} retired`, () => ks.every((m) => !bot.rotation.isActive(m) && !bot.rotation.isRetiring(m)), 60_000);
}

/**
 * The venue's auto-claim, its pass run here (not on its timer: the test waits on no clock), over m1 (resolved
 * YES) and m2 (NO), the bot and the mover holding tokens in each: the bot's venue cash gains 10 USDC.
 */
export function venueAutoClaimsBoth(h: Harness, venueCashBefore: bigint): void {
  const ac = createAutoClaim(h.ex, { afterMs: 0 });
  ac.step();
  assert.deepEqual([ac.counts.markets, ac.counts.claims], [2, 4], 'the bot and the mover in each market');
  assert.equal(h.ex.state.engine.balance(h.bot.wallet)!.collateral - venueCashBefore, 10n * BigInt(S), 'm1 pays 10 USDC, m2 nothing');
}

/**
 * Once the books recorded both claims and folded both books of `ks` away (waited for up to `ms`, `what` its name):
 * m1 claimed at 1 USDC a YES, m2 at 0, nothing held, the cash gained what the venue paid.
 */
export async function foldedAtPayouts(bot: Bot, ks: readonly [Bytes32, Bytes32], cashBefore: bigint, what: string, ms: number): Promise<void> {
  await waitFor(what, () => ks.every((m) => bot.kernel.account.peekBook(m) === undefined && bot.kernel.account.keptMarket(m)?.claimed === true), ms);
  for (const m of ks) {
    const kept = bot.kernel.account.keptMarket(m)!;
    assert.deepEqual([kept.yes, kept.no], [0, 0], 'nothing held');
    assert.equal(bot.kernel.account.market(m), null, 'no book of it in the account');
  }
  assert.deepEqual(
    ks.map((m) => bot.kernel.account.keptMarket(m)!.payoutYes),
    [1_000_000, 0],
  );
  assert.equal(bot.kernel.account.figures().cash - cashBefore, 10n * BigInt(S), 'the cash gained is what the venue paid');
}

/**
 * The claims tracker shows every market of `ks` claimed and nothing claimable, in the run report and on
 * /metrics (no per-market claimable series: `seriesMessage`); returns the scrape.
 */
export async function assertAllClaimed(bot: Bot, ks: readonly Bytes32[], seriesMessage: string): Promise<string> {
  await waitFor(
    'the claims tracker shows both claimed',
    () => {
      const c = bot.report('test', 0).claims;
      return ks.every((m) => c?.markets.some((x) => x.marketId === m && x.state === 'claimed') === true);
    },
    30_000,
  );
  const claims = bot.report('test', 0).claims!;
  assert.equal(claims.totalClaimableUsdc, '0.000000');
  assert.equal(claims.books?.claimableUsdc ?? '0.000000', '0.000000', 'the books hold nothing resolved unclaimed');
  const text = await scrapeMetrics(bot);
  assert.doesNotMatch(text, /^bookmaker_claimable_usdc\{/m, seriesMessage);
  assert.equal(metricValue(text, 'bookmaker_claimable_total_usdc'), 0);
  assert.equal(metricValue(text, 'bookmaker_books_claimable_usdc'), 0);
  return text;
}

/** The figures /metrics (`text`) and the run report show are the account's (one function: figures()); returns them. */
export function assertAccountShown(bot: Bot, text: string): ReturnType<Account['figures']> {
  const live = bot.kernel.account.figures();
  assert.deepEqual(bot.report('test', 0).account, accountBlock(live));
  assert.equal(metricValue(text, 'bookmaker_account_fills'), live.fills);
  assert.equal(metricValue(text, 'bookmaker_account_pnl_usdc{kind="realised"}'), Number(live.realised) / 1e6);
  assert.equal(metricValue(text, 'bookmaker_account_pnl_usdc{kind="total"}'), Number(live.total) / 1e6);
  return live;
}

/** Once `bot` stopped: the ledger replayed (what a restart rebuilds) equals its books to the unit (`what`); returns the replay. */
export function assertReplayFigures(ledger: string, bot: Bot, what: string): Account {
  const replayed = readLedgerFile(ledger, (l) => accountFromLedger(l));
  assert.deepEqual(figuresUnmarked(bot.kernel.account), figuresUnmarked(replayed), what);
  return replayed;
}

/** assertReplayFigures, and each claimed market of `ks` in the replay as the books kept it (`keptAt`, read before the stop). */
export function assertReplayClaimedAll(
  ledger: string,
  bot: Bot,
  ks: readonly Bytes32[],
  keptAt: readonly ReturnType<Account['keptMarket']>[],
  what: string,
): void {
  const replayed = assertReplayFigures(ledger, bot, what);
  assert.deepEqual(
    ks.map((m) => same(replayed.market(m) ?? replayed.keptMarket(m))),
    keptAt.map((m) => same(m)),
  );
}
