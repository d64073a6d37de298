/**
 * The rotation phase of the live start-up (src/runtime/bot.ts): markets start and retire while the bot
 * runs (src/runtime/rotation). Rotation's lists take over from the start-up's (MarketLists); a market the
 * market feed sees resolved, closed or paused retires between refreshes; each released market leaves a
 * row for the run report.
 */
import type { BotConfig } from '../../config/types.ts';
import type { KernelMarket } from '../../kernel/quoting-kernel.ts';
import { marketEvent } from '../../feeds/market-feed.ts';
import type { Bytes32 } from '../../model/order.ts';
import { shardOwns } from '../../selection/shard.ts';
import { marketAttribution } from '../../state/edge-view.ts';
import { RetiredRows } from '../retired-rows.ts';
import { BotMarkets, retireReasonOf } from '../rotation/bot-markets.ts';
import { MarketRotation } from '../rotation/market-rotation.ts';
import { registerRotationMetrics } from '../rotation/rotation-metrics.ts';
import { waitForBooks, waitForPosition } from '../startup-waits.ts';
import type { CorePhase } from './core.ts';
import type { FeedsPhase } from './feeds.ts';
import type { LedgerPhase } from './ledger.ts';
import type { SelectPhase } from './select.ts';
import type { StartContext } from './start-context.ts';
import type { VenuePhase } from './venue.ts';

export interface RotationPhase {
  readonly rotation: MarketRotation;
  readonly lists: BotMarkets;
  /** end-of-run rows of released markets (bounded: the newest RETIRED_ROWS_MAX; older ones folded into one) */
  readonly retired: RetiredRows;
  /** the market feed saw a market resolved, closed or paused: it retires between refreshes */
  venueFact(marketId: Bytes32, status: string | undefined): void;
}

export function rotationPhase(
  c: StartContext,
  { client }: VenuePhase,
  s: SelectPhase,
  { accountBooks }: LedgerPhase,
  cp: CorePhase,
  { books }: FeedsPhase,
  /** the running config (a reload replaces it): the refreshes select with it */
  runningConfig: () => BotConfig,
): RotationPhase {
  const { cfg, clock, log, paper, o } = c;
  const { kernel: k, orderManager: om, store } = cp.core;
  // beyond the bound, the oldest rows fold into one line (the report's totals stay exact); a market
  // still holding a position keeps its row (its PnL is read again at the report)
  const retired = new RetiredRows(cp.runFigures, accountBooks, (marketId) => store.state.markets.has(marketId));
  const bm = new BotMarkets({
    initial: s.marketIds,
    kernel: k,
    orderManager: om,
    venue: cp.venue,
    store,
    health: cp.healthModel,
    books,
    clock,
    firstBook: (id) => waitForBooks(store, [id], clock, o.warmupMs ?? 5_000),
    // the paper venue starts flat; live, the fills/balance poll covers the market from its next round
    ...(paper ? {} : { firstPosition: (id: Bytes32) => waitForPosition(store, id, clock, 10_000, log) }),
    marketStatus: async (id) => (await client.markets.get(id)).status,
    marketInfo: async (id) => {
      const m = await client.markets.get(id);
      return { status: m.status, event: marketEvent(id, m, clock.now()).event };
    },
    // the selection knows some reasons itself: another shard's market, or one the rank let go for a better one
    leftBecause: (id) =>
      cfg.selection.shard && !shardOwns(id, cfg.selection.shard) ? 'shard' : s.ranker.leftBecause(id) === 'ranked-out' ? 'ranked-out' : null,
    ...(cfg.orders.reconcileScope === 'markets'
      ? {
          ownMarkets: (ids: readonly Bytes32[]) => {
            om.setOwnMarkets(ids);
            o.watchdog?.scope(ids);
          },
        }
      : {}),
    forgetMeter: (id) => cp.wireMeter.forget(id),
    registry: c.metrics.registry,
    // the market's fills since its last reading (a market retired before and started again), from the
    // books; the report reads on from there, so fills after this release count too
    onReleased: (id, reason, time, m) => {
      if (!time) return;
      retired.released(id, {
        time,
        unrealised: accountBooks.marketPnl(id).unrealised,
        net: accountBooks.holdingsOf(id).net,
        retired: reason,
        ...(m ? { attribution: marketAttribution(m, accountBooks) } : {}),
      });
    },
    // a released market starting again: what filled since its release stays in its released row
    onStarted: (id) => retired.restarted(id),
    // a release goes where the venue's events go: the ledger's record, then the store and the account's
    // books (which fold or compact a retired market's book once it holds nothing or its payout is known)
    receive: (e) => cp.core.receive(e),
    // gone from the store while the books may hold its tokens: claimed before the bot saw it resolve? (the
    // venue's portfolio says; src/runtime/claims/claims-tracker.ts positionGone)
    onGone: (id) => cp.claims?.positionGone(id),
  });
  s.lists.follow(bm);
  const rotationMetrics = registerRotationMetrics(c.metrics.registry, () => rot);
  const rot: MarketRotation = new MarketRotation({
    clock,
    refreshMs: cfg.selection.refreshMs,
    logger: o.logger,
    metrics: rotationMetrics,
    ports: bm.ports((previous): Promise<KernelMarket[]> => s.select(runningConfig(), previous, true)),
  });
  c.life.add(() => rot.stop());
  cp.shutdown.onStop(() => rot.stop());
  const venueFact = (marketId: Bytes32, status: string | undefined): void => {
    const reason = retireReasonOf(status, cfg.selection.refreshMs > 0);
    if (reason && rot.isActive(marketId)) rot.retire(marketId, reason);
  };
  cp.core.inbound.on('react', (e) => {
    if (e.type === 'MarketMetadataUpdated') venueFact(e.marketId, e.status);
  });
  return { rotation: rot, lists: bm, retired, venueFact };
}
