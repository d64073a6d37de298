/**
 * The rotation's metrics, on the bot's registry:
 *   bookmaker_markets_active                      gauge: markets quoted now (started, not retiring)
 *   bookmaker_markets_retiring                    gauge: markets whose quotes are pulled and cancels not yet confirmed
 *   bookmaker_markets_retiring_stuck              gauge: of those, the ones a full round of venue reads could not confirm
 *   bookmaker_markets_started_total{reason}       startup | selected | reload
 *   bookmaker_markets_retired_total{reason}       resolved | closed | paused | filtered-out | ranked-out | shard | reload
 *   bookmaker_market_retire_seconds               histogram: pull → cancels confirmed → released
 *   bookmaker_market_retire_stuck_total           retirement rounds that ended unconfirmed (each is retried)
 *   bookmaker_market_start_failures_total         starts that failed (retried at the next refresh)
 *   bookmaker_rotation_refresh_failures_total     re-selections that failed (the current set stayed)
 */
import { Histogram, type Registry } from 'prom-client';
import { declareOn } from '../../metrics/declare.ts';
import { RETIRE_REASONS, START_REASONS, type MarketRotation, type RotationMetricsSink } from './market-rotation.ts';

export function registerRotationMetrics(registry: Registry, rotation: () => MarketRotation | null, prefix = 'bookmaker_'): RotationMetricsSink {
  const d = declareOn(registry, prefix);
  d.readGauge('markets_active', 'Markets quoted now (started and not retiring)', () => rotation()?.summary().active);
  d.readGauge('markets_retiring', 'Markets retiring now: quotes pulled, cancels not yet confirmed by the venue', () => rotation()?.summary().retiring ?? 0);
  d.readGauge(
    'markets_retiring_stuck',
    'Retiring markets whose cancels a full round of venue reads could not confirm (retried)',
    () => rotation()?.summary().stuck ?? 0,
  );
  const started = d.counter('markets_started_total', 'Markets started, by reason (startup, selected, reload)', ['reason']);
  const retired = d.counter('markets_retired_total', 'Markets retired (cancels confirmed, state released), by reason', ['reason']);
  for (const reason of START_REASONS) started.inc({ reason }, 0);
  for (const reason of RETIRE_REASONS) retired.inc({ reason }, 0);
  const seconds = new Histogram({
    name: `${prefix}market_retire_seconds`,
    help: 'Retirement time of a market: quotes pulled → cancels confirmed by the venue → state released',
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
    registers: [registry],
  });
  const stuck = d.counter('market_retire_stuck_total', 'Retirement rounds that ended with cancels unconfirmed (the market stays retiring and is retried)');
  const startFailed = d.counter('market_start_failures_total', 'Market starts that failed (retried at the next refresh)');
  const refreshFailed = d.counter('rotation_refresh_failures_total', 'Market re-selections that failed (venue unreachable); the current markets stayed');
  return {
    started: (reason) => started.inc({ reason }),
    retired: (reason, s) => {
      retired.inc({ reason });
      seconds.observe(s);
    },
    refreshFailed: () => refreshFailed.inc(),
    startFailed: () => startFailed.inc(),
    retireStuck: () => stuck.inc(),
  };
}
