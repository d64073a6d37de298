/**
 * The health model's metrics (the metric contract; the Grafana dashboard and the alert rules in
 * deploy/prometheus/ rely on these exact names):
 *   bookmaker_market_state{market,state}            1 for the market's current state, 0 for the others
 *   bookmaker_market_not_quoting_seconds{market}     time without a live quote while it should quote
 *   bookmaker_kill_switch_active                      0/1
 *   bookmaker_not_quoting_grace_seconds               health.notQuotingGraceSeconds (the alert rule compares with it)
 *   bookmaker_strategy_errors_total{market}           strategy calls that threw or returned garbage
 *   bookmaker_strategy_slow_total{market}             strategy calls over the time budget
 * Gauges are computed at scrape time from the model (evaluated then): nothing on the hot path.
 *
 *   const hm = registerHealthMetrics(registry, () => health);   // health may come later (null until then)
 *   hm.strategyErrors.inc({ market }); hm.strategySlow.inc({ market })
 */
import { Counter, Gauge, type Registry } from 'prom-client';
import { HEALTH_STATES, type HealthModel } from '../health/health-model.ts';

export function registerHealthMetrics(registry: Registry, health: () => HealthModel | null, prefix = 'bookmaker_') {
  const r = [registry];
  new Gauge({
    name: `${prefix}market_state`,
    help: `Health state per market: 1 for the current state, 0 for the others (${HEALTH_STATES.join(', ')})`,
    labelNames: ['market', 'state'],
    registers: r,
    collect() {
      const h = health();
      if (!h) return;
      h.evaluateOncePerTurn();
      this.reset();
      for (const m of h.markets()) for (const s of HEALTH_STATES) this.set({ market: m.marketId, state: s }, m.state === s ? 1 : 0);
    },
  });
  new Gauge({
    name: `${prefix}market_not_quoting_seconds`,
    help: 'Seconds since the market last had a live quote while it should quote (0 while quoting or paused on purpose)',
    labelNames: ['market'],
    registers: r,
    collect() {
      const h = health();
      if (!h) return;
      this.reset();
      for (const m of h.markets()) this.set({ market: m.marketId }, m.notQuotingMs / 1000);
    },
  });
  new Gauge({
    name: `${prefix}kill_switch_active`,
    help: '1 once the kill switch fired (everything cancelled, the bot exits 3)',
    registers: r,
    collect() {
      const h = health();
      this.set(h?.killSwitch ? 1 : 0);
    },
  });
  new Gauge({
    name: `${prefix}not_quoting_grace_seconds`,
    help: 'health.notQuotingGraceSeconds: a market that should quote and has had no live quote this long fails /readyz',
    registers: r,
    collect() {
      const h = health();
      if (h) this.set(h.graceSeconds);
    },
  });
  return {
    strategyErrors: new Counter({
      name: `${prefix}strategy_errors_total`,
      help: 'Strategy calls that threw or returned something that is not a list of quotes',
      labelNames: ['market'],
      registers: r,
    }),
    strategySlow: new Counter({
      name: `${prefix}strategy_slow_total`,
      help: 'Strategy calls (strategy + risk gate) slower than health.strategyBudgetMs',
      labelNames: ['market'],
      registers: r,
    }),
  };
}

export type HealthMetrics = ReturnType<typeof registerHealthMetrics>;
