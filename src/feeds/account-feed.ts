/**
 * Balances and positions by polling `GET /balance/:address`: free collateral (the settlement
 * balance, what orders can lock) as BalanceUpdated, and per quoted market the YES and NO holdings as
 * PositionSynced (the store trusts these over its own fill arithmetic). Markets we quote but hold
 * nothing in are synced to zero, so a position closed elsewhere does not linger.
 */
import type { Observable } from 'rxjs';
import type { BalanceSummary } from '../exchange/client/balance.ts';
import type { Address, Bytes32 } from '../model/order.ts';
import { feedEvent, type FeedEvent } from './feed-event.ts';
import { idsOf, type MarketIds } from './market-ids.ts';
import { pollFeed, pollOf, type PollTiming } from './poll-feed.ts';

export interface BalanceSource {
  balance: { summary(owner: Address): Promise<BalanceSummary> };
}

export interface AccountFeedOptions extends PollTiming {
  client: BalanceSource;
  trader: Address;
  /** a fixed list, or a getter read at every poll (markets start and retire while the feed runs) */
  marketIds: MarketIds;
}

const SOURCE = 'account';

/**
 * The collateral the bot trades with, 1e-6 USDC: the settlement balance when the venue reports one,
 * else the balance. The one reading of a balance summary the bot's state and `bookmaker doctor` share.
 */
export function freeCollateral(s: Pick<BalanceSummary, 'usdc'>): bigint {
  return s.usdc.settlementBalance > 0n ? s.usdc.settlementBalance : s.usdc.balance;
}

/** One balance summary → the state events it implies (pure). */
export function accountEvents(s: BalanceSummary, marketIds: readonly Bytes32[], now: number, startedAt = now): FeedEvent[] {
  const out: FeedEvent[] = [feedEvent(SOURCE, { type: 'BalanceUpdated', collateral: freeCollateral(s), ts: now }, 0, now)];
  const held = new Map<string, { yes: number; no: number }>();
  for (const t of s.outcomeTokens) {
    const k = t.marketId;
    const h = held.get(k) ?? { yes: 0, no: 0 };
    const amount = Number(t.balance);
    if (t.outcomeIndex === 1) h.yes += amount;
    else h.no += amount;
    held.set(k, h);
  }
  for (const id of marketIds) {
    const h = held.get(id) ?? { yes: 0, no: 0 };
    out.push(feedEvent(SOURCE, { type: 'PositionSynced', marketId: id, yes: h.yes, no: h.no, ts: now, readStartedAt: startedAt }, 0, now));
  }
  return out;
}

export function accountReader(opts: Pick<AccountFeedOptions, 'client' | 'trader' | 'marketIds' | 'clock'>): () => Promise<FeedEvent[]> {
  return async () => {
    const startedAt = opts.clock.now();
    return accountEvents(await opts.client.balance.summary(opts.trader), idsOf(opts.marketIds), opts.clock.now(), startedAt);
  };
}

/**
 * Balances alone. The runtime uses `tradingFeed` instead: fills first, then the balance read, in
 * one poll, so a position sync rarely lands before the fill that explains it.
 */
export function accountFeed(opts: AccountFeedOptions): Observable<FeedEvent> {
  return pollFeed(pollOf(SOURCE, opts, accountReader(opts)));
}
