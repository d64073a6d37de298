/**
 * The select phase of the live start-up (src/runtime/bot.ts): the markets at the venue that the selectors
 * and the shard choose, their rank entries on /metrics, and the lists the feeds follow.
 */
import type { BotConfig } from '../../config/types.ts';
import type { KernelMarket } from '../../kernel/quoting-kernel.ts';
import { registerRankMetrics } from '../../metrics/rank-metrics.ts';
import type { Bytes32 } from '../../model/order.ts';
import { Ranker } from '../../selection/ranker.ts';
import { selectMarkets } from '../../selection/select-markets.ts';
import { shardText } from '../../selection/shard.ts';
import { retryStartupStep } from '../startup-retry.ts';
import { MarketLists } from './market-lists.ts';
import { retryOptions, type StartContext } from './start-context.ts';
import type { VenuePhase } from './venue.ts';

/**
 * The selectors at the venue. `previous` (lower-case ids quoted now, for the rank entries'
 * hysteresis) is given after start-up; on a refresh an empty selection is an answer (every market
 * left), and at start-up too while refreshes are on; on a reload, or at start-up with refreshes off,
 * it is a config error.
 */
export type SelectMarkets = (c: BotConfig, previous?: ReadonlySet<string>, allowEmpty?: boolean) => Promise<KernelMarket[]>;

export interface SelectPhase {
  readonly select: SelectMarkets;
  readonly markets: KernelMarket[];
  readonly marketIds: Bytes32[];
  readonly lists: MarketLists;
  /** the rank entries' state between refreshes: this bot's, not the process's */
  readonly ranker: Ranker;
}

export async function selectPhase(c: StartContext, { client }: VenuePhase): Promise<SelectPhase> {
  const { cfg, log, v, paper } = c;
  // rank entries: each selected market's score and terms on /metrics after every selection
  const rankMetrics = registerRankMetrics(c.metrics.registry);
  const ranker = new Ranker();
  const select: SelectMarkets = async (next, previous, allowEmpty = false) => {
    const chosen = await selectMarkets(client, next.markets, {
      maxMarkets: next.selection.maxMarkets,
      shard: cfg.selection.shard,
      log: c.o.logger,
      allowEmpty,
      ranker,
      ...(previous ? { previous } : {}),
    });
    rankMetrics.update(ranker.scores(), ranker.lastReports());
    return chosen;
  };
  // with refreshes on, a start-up that selects nothing (a shard whose markets do not exist yet, a
  // category not yet listed) waits for the refreshes instead of exiting: a fleet pod would crash-loop
  const waitForMarkets = cfg.selection.refreshMs > 0;
  c.early?.controls.phase('select markets');
  const markets = await retryStartupStep('select markets', () => select(cfg, undefined, waitForMarkets), retryOptions(c));
  if (markets.length === 0)
    log.warn(
      { refreshSeconds: cfg.selection.refreshMs / 1000, shard: cfg.selection.shard ? shardText(cfg.selection.shard) : null },
      'no market at the venue matches the selectors yet; quoting nothing until a refresh selects one',
    );
  const marketIds = markets.map((m) => m.marketId);
  // a wallet shared with a person or another instance: the watchdog's cancel-all keeps to our markets too
  if (c.o.watchdog && cfg.orders.reconcileScope === 'markets') c.o.watchdog.scope(marketIds);
  log.info({ venue: v.baseUrl, markets: marketIds.length, paper, embedded: v.local !== null }, 'markets selected');
  const shard = cfg.selection.shard;
  if (shard)
    log.info(
      { shard: shardText(shard), markets: marketIds.length, reconcileScope: 'markets', configured: c.o.config.orders.reconcileScope },
      `shard ${shardText(shard)}: quoting this shard's markets only; start-up reconcile and every cancel-all touch only them (reconcileScope markets)`,
    );
  return { select, markets, marketIds, lists: new MarketLists(marketIds), ranker };
}
