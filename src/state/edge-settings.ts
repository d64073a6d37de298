/**
 * Settings of the edge measures the store keeps per market (./edge-state.ts): markout horizons,
 * toxicity and flow decay, and the regime thresholds. The config's `edge:` section
 * (src/config/parse-edge.ts) fills them; every field has a default.
 *
 * Units: times in ms, prices in 1e-6 USDC (YES terms), sizes in 1e-6 shares, oracle jumps in
 * probability.
 */
export interface RegimeSettings {
  /** |mid − mid `midJumpWindowMs` earlier| at or above this is an event (1e-6 USDC) */
  readonly midJump: number;
  readonly midJumpWindowMs: number;
  /** |Δ oracle probability| between two oracle updates at or above this is an event */
  readonly oracleJump: number;
  /**
   * ... and at or above this many times the running mean of the oracle's own |Δ| between readings
   * (its noise; 0 = off: `oracleJump` alone)
   */
  readonly oracleJumpNoise: number;
  /** trade volume over the fast window at or above `burstFactor` × its slow-window rate is an event ... */
  readonly burstFactor: number;
  /** ... when it is also at least this many shares (1e-6) */
  readonly burstMinSize: number;
  /** an event regime lasts this long after its last trigger */
  readonly eventHoldMs: number;
  /** |mid − mid `trendWindowMs` earlier| at or above this is a trend (1e-6 USDC); it ends below half of it */
  readonly trendMove: number;
  readonly trendWindowMs: number;
  /** |decayed taker-flow imbalance| at or above this is a trend too (0 … 1; 1 = off) */
  readonly trendImbalance: number;
  /** decayed own markout at the toxicity horizon at or below −this: reduce-only (1e-6 USDC per share; 0 = off) */
  readonly reduceOnlyMarkout: number;
  /** ... once at least this many fills' weight stands behind the average */
  readonly minFills: number;
  /** reduce-only this long before the market's deadline (0 = off) */
  readonly reduceOnlyBeforeDeadlineMs: number;
}

export interface EdgeSettings {
  /** markout horizons, ascending, ms */
  readonly markoutHorizonsMs: readonly number[];
  /** the horizon whose markouts feed the toxicity average (one of the horizons) */
  readonly toxicityHorizonMs: number;
  /** half-life of the toxicity average (weights of older fills halve every this long) */
  readonly toxicityHalfLifeMs: number;
  /**
   * half-life of the account's pooled toxicity (every market's markouts at the toxicity horizon,
   * kept by the store past a market's release: the guard's prior for a fresh market)
   */
  readonly poolHalfLifeMs: number;
  /** half-life of the market's print markouts (the passive side of every trade, marked out at the toxicity horizon) */
  readonly printHalfLifeMs: number;
  /**
   * a fill whose markout at the toxicity horizon is below −this was picked off (1e-6 USDC per share):
   * the toxicity sums keep such fills apart too, for the guard's test (docs/edge.md, "The guard")
   */
  readonly pickoffMarkout: number;
  /** half-life of the taker-flow imbalance */
  readonly flowHalfLifeMs: number;
  /** half-lives of the fast and slow volume rates behind the burst detector */
  readonly burstFastMs: number;
  readonly burstSlowMs: number;
  /** fills (and, apart, prints) waiting for a markout, per market (the oldest are dropped beyond it, counted) */
  readonly maxPending: number;
  readonly regime: RegimeSettings;
}

export const DEFAULT_REGIME: RegimeSettings = {
  midJump: 30_000,
  midJumpWindowMs: 5_000,
  oracleJump: 0.05,
  oracleJumpNoise: 3.5,
  burstFactor: 5,
  burstMinSize: 200_000_000,
  eventHoldMs: 30_000,
  trendMove: 30_000,
  trendWindowMs: 60_000,
  trendImbalance: 0.8,
  reduceOnlyMarkout: 0,
  minFills: 5,
  reduceOnlyBeforeDeadlineMs: 0,
};

export const DEFAULT_EDGE: EdgeSettings = {
  markoutHorizonsMs: [1_000, 5_000, 10_000, 30_000, 60_000, 300_000],
  toxicityHorizonMs: 10_000,
  toxicityHalfLifeMs: 300_000,
  poolHalfLifeMs: 1_800_000,
  printHalfLifeMs: 300_000,
  pickoffMarkout: 50_000,
  flowHalfLifeMs: 30_000,
  burstFastMs: 5_000,
  burstSlowMs: 300_000,
  maxPending: 1_000,
  regime: DEFAULT_REGIME,
};

/** Label of a horizon: `1s`, `300s`, `1.5s`. */
export const horizonLabel = (ms: number): string => `${ms / 1000}s`;
