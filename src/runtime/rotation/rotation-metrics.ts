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
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { RETIRE_REASONS, START_REASONS, type MarketRotation, type RotationMetricsSink } from './market-rotation.ts';

export function registerRotationMetrics(registry: Registry, rotation: () => MarketRotation | null, prefix = 'bookmaker_'): RotationMetricsSink {
  const r = [registry];
  new Gauge({
    name: `${prefix}markets_active`,
    help: 'Markets quoted now (started and not retiring)',
    registers: r,
    collect() {
      const rot = rotation();
      if (rot) this.set(rot.summary().active);
    },
  });
  new Gauge({
    name: `${prefix}markets_retiring`,
    help: 'Markets retiring now: quotes pulled, cancels not yet confirmed by the venue',
    registers: r,
    collect() {
      const rot = rotation();
      this.set(rot ? rot.summary().retiring : 0);
    },
  });
  new Gauge({
    name: `${prefix}markets_retiring_stuck`,
    help: 'Retiring markets whose cancels a full round of venue reads could not confirm (retried)',
    registers: r,
    collect() {
      const rot = rotation();
      this.set(rot ? rot.summary().stuck : 0);
    },
  });
  const started = new Counter({
    name: `${prefix}markets_started_total`,
    help: 'Markets started, by reason (startup, selected, reload)',
    labelNames: ['reason'],
    registers: r,
  });
  const retired = new Counter({
    name: `${prefix}markets_retired_total`,
    help: 'Markets retired (cancels confirmed, state released), by reason',
    labelNames: ['reason'],
    registers: r,
  });
  for (const reason of START_REASONS) started.inc({ reason }, 0);
  for (const reason of RETIRE_REASONS) retired.inc({ reason }, 0);
  const seconds = new Histogram({
    name: `${prefix}market_retire_seconds`,
    help: 'Retirement time of a market: quotes pulled → cancels confirmed by the venue → state released',
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
    registers: r,
  });
  const stuck = new Counter({
    name: `${prefix}market_retire_stuck_total`,
    help: 'Retirement rounds that ended with cancels unconfirmed (the market stays retiring and is retried)',
    registers: r,
  });
  const startFailed = new Counter({
    name: `${prefix}market_start_failures_total`,
    help: 'Market starts that failed (retried at the next refresh)',
    registers: r,
  });
  const refreshFailed = new Counter({
    name: `${prefix}rotation_refresh_failures_total`,
    help: 'Market re-selections that failed (venue unreachable); the current markets stayed',
    registers: r,
  });
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
