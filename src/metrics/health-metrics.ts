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
import { Gauge, type Registry } from 'prom-client';
import { declareOn } from './declare.ts';
import { HEALTH_STATES, type HealthModel } from '../health/health-model.ts';

export function registerHealthMetrics(registry: Registry, health: () => HealthModel | null, prefix = 'bookmaker_') {
  const r = [registry];
  const d = declareOn(registry, prefix);
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
  d.readGauge('kill_switch_active', '1 once the kill switch fired (everything cancelled, the bot exits 3)', () => (health()?.killSwitch ? 1 : 0));
  d.readGauge(
    'not_quoting_grace_seconds',
    'health.notQuotingGraceSeconds: a market that should quote and has had no live quote this long fails /readyz',
    () => health()?.graceSeconds,
  );
  return {
    strategyErrors: d.counter('strategy_errors_total', 'Strategy calls that threw or returned something that is not a list of quotes', ['market']),
    strategySlow: d.counter('strategy_slow_total', 'Strategy calls (strategy + risk gate) slower than health.strategyBudgetMs', ['market']),
  };
}

export type HealthMetrics = ReturnType<typeof registerHealthMetrics>;
