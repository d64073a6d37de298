/**
 * Gauges of the edge measures: markouts, toxicity, taker flow, regime and PnL
 * attribution per market, read from the latest store snapshot at scrape time (nothing on the hot
 * path). Registered by createBotMetrics (./bot-metrics.ts) on the bot's registry:
 *
 *   {p}markout_cents{market,horizon}               mean own-fill markout, cents per share (size-weighted)
 *   {p}markout_fills{market,horizon}               fills behind it
 *   {p}toxicity_cents{market}                      decayed markout at the toxicity horizon (negative = picked off)
 *   {p}toxicity_pool_cents                         the account's pooled toxicity (every market's fills, kept past release)
 *   {p}toxicity_pool_fills                         decayed fills behind it
 *   {p}toxicity_prints_cents{market}               decayed markout of the market's prints (the passive side of every trade)
 *   {p}toxicity_prints{market}                     decayed prints behind it
 *   {p}flow_imbalance{market}                      decayed taker-flow imbalance, −1 … 1
 *   {p}regime{market,regime}                       1 for the market's current regime, 0 for the others
 *   {p}regime_transitions{market}                  regime changes since start (a running count)
 *   {p}pnl_attribution_usdc{market,component}      spread_capture, inventory, fees, resolution (sum = PnL of the fills)
 */
import { Gauge, type Registry } from 'prom-client';
import type { Account } from '../account/account.ts';
import type { Clock } from '../core/clock.ts';
import { DEFAULT_EDGE, horizonLabel } from '../state/edge-settings.ts';
import { edgeView, marketAttribution, poolView } from '../state/edge-view.ts';
import type { MarketState, StoreState } from '../state/market-state.ts';
import { REGIMES, type PooledToxicity } from '../strategy/types.ts';

/** the store, the clock and (when the bot has one) the account's books the attribution sums to */
export type EdgeSource = () => { state: StoreState; clock: Clock; books?: Account | undefined } | null;

export function registerEdgeMetrics(registry: Registry, prefix: string, label: (m: MarketState) => string, source: EdgeSource): void {
  const r = [registry];
  const gauge = (
    name: string,
    help: string,
    labelNames: string[],
    read: (m: MarketState, now: number, set: (labels: Record<string, string>, v: number) => void, books: Account | undefined) => void,
  ) =>
    new Gauge({
      name: `${prefix}${name}`,
      help,
      labelNames,
      registers: r,
      collect() {
        this.reset();
        const src = source();
        if (!src) return;
        const now = src.clock.now();
        for (const m of src.state.markets.values()) read(m, now, (labels, v) => this.set(labels, v), src.books);
      },
    });
  gauge(
    'markout_cents',
    'Mean markout of own fills at each horizon, cents per share (mid move in our favour; negative = adverse)',
    ['market', 'horizon'],
    (m, now, set) => {
      for (const k of edgeView(m, now).markouts) if (k.perShare !== null) set({ market: label(m), horizon: horizonLabel(k.horizonMs) }, k.perShare / 10_000);
    },
  );
  gauge('markout_fills', 'Own fills whose markout at each horizon is known', ['market', 'horizon'], (m, now, set) => {
    for (const k of edgeView(m, now).markouts) set({ market: label(m), horizon: horizonLabel(k.horizonMs) }, k.n);
  });
  gauge(
    'toxicity_cents',
    'Decayed size-weighted own markout at the toxicity horizon, cents per share (negative = informed flow)',
    ['market'],
    (m, now, set) => {
      const t = edgeView(m, now).toxicity;
      if (t !== null) set({ market: label(m) }, t / 10_000);
    },
  );
  // the market's prints: the same printView the guard's evidence reads (src/state/edge-view.ts)
  gauge(
    'toxicity_prints_cents',
    "Decayed markout at the toxicity horizon of the market's prints (the passive side of every trade), cents per share",
    ['market'],
    (m, now, set) => {
      const t = edgeView(m, now).prints?.toxicity;
      if (t !== undefined && t !== null) set({ market: label(m) }, t / 10_000);
    },
  );
  gauge('toxicity_prints', "Decayed prints behind the market's print markout", ['market'], (m, now, set) => {
    set({ market: label(m) }, edgeView(m, now).prints?.weight ?? 0);
  });
  // the account's pool: one figure, the same poolView the guard's prior reads (src/state/edge-view.ts)
  const pooled = (read: (p: PooledToxicity) => number | null) =>
    function collect(this: Gauge) {
      this.reset();
      const src = source();
      if (!src) return;
      const s = src.state;
      const v = read(poolView(s.toxicityPool, src.clock.now(), s.markets.values().next().value?.edge.settings.poolHalfLifeMs ?? DEFAULT_EDGE.poolHalfLifeMs));
      if (v !== null) this.set(v);
    };
  new Gauge({
    name: `${prefix}toxicity_pool_cents`,
    help: "The account's pooled toxicity: decayed own markout at the toxicity horizon over every market's fills, kept past a market's release, cents per share (the guard's prior for a fresh market)",
    registers: r,
    collect: pooled((p) => (p.toxicity === null ? null : p.toxicity / 10_000)),
  });
  new Gauge({
    name: `${prefix}toxicity_pool_fills`,
    help: "Decayed own fills behind the account's pooled toxicity",
    registers: r,
    collect: pooled((p) => p.weight),
  });
  gauge('flow_imbalance', 'Decayed taker-flow imbalance (buy − sell) / (buy + sell), −1 … 1', ['market'], (m, now, set) => {
    set({ market: label(m) }, edgeView(m, now).flowImbalance);
  });
  gauge('regime', "1 for the market's current regime (quiet, trending, event, reduce-only, halted)", ['market', 'regime'], (m, now, set) => {
    const cur = edgeView(m, now).regime;
    for (const g of REGIMES) set({ market: label(m), regime: g }, g === cur ? 1 : 0);
  });
  gauge('regime_transitions', 'Regime changes of the market since start', ['market'], (m, _now, set) => {
    set({ market: label(m) }, m.edge.transitions);
  });
  gauge(
    'pnl_attribution_usdc',
    "PnL of the market's fills by source, USDC: spread_capture, inventory, fees, resolution (exact; they sum to the market's PnL in the books)",
    ['market', 'component'],
    (m, _now, set, books) => {
      const a = marketAttribution(m, books);
      const market = label(m);
      set({ market, component: 'spread_capture' }, Number(a.spreadCapture) / 1e6);
      set({ market, component: 'inventory' }, Number(a.inventory) / 1e6);
      set({ market, component: 'fees' }, Number(a.fees) / 1e6);
      set({ market, component: 'resolution' }, Number(a.resolution) / 1e6);
    },
  );
}
