/**
 * Flow presets of the simulated counterparties (`--flow` of `bookmaker sim` and of the synthetic
 * backtest, `venue.local.flow` in config): agent settings that give the order flow a character.
 *
 *   benign      the agents' own defaults (what the local exchange has always run): mostly noise,
 *               informed takers that need a 2-tick mispricing, rare fair-value jumps.
 *   calibrated  fitted to the Polymarket capture in data/polymarket-tickscope (trade rate and
 *               sizes, the share of informed flow, jump size and frequency, a small quote's
 *               markouts, the news orders by the capture's sweeps; docs/edge.md shows the fit and the capture's figures side
 *               by side).
 *   toxic       benign plus news: frequent fair-value jumps that the informed takers act on at once,
 *               with full-size orders, before the makers move their quotes.
 */
import type { MarketAgentsConfig } from './agents/market-agents.ts';

export const FLOW_PRESETS = ['benign', 'calibrated', 'toxic'] as const;
export type FlowPreset = (typeof FLOW_PRESETS)[number];

/** Overrides passed to every market's agents (rates, sizes, spreads). */
export type AgentOverrides = Partial<Omit<MarketAgentsConfig, 'seed' | 'market' | 'traders' | 'initialProbability' | 'endTimeMs'>>;

/**
 * The fitted settings of the `calibrated` preset. The model: a deep background maker whose view
 * of the fair value trails it (`makerLagShare` of a move is learned over ~`makerLagSeconds`, the
 * rest at once), informed takers that trade whenever the touch is on the wrong side of the fair
 * value (so the trailing book keeps being picked off while it catches up: the passive markout grows
 * from 1 s to 60 s, as in the capture) with large orders, noise takers with small ones (so a small
 * quote at the touch meets mostly noise, as the capture's small prints are), log-normal order sizes
 * (the capture's print sizes) and fair-value jumps acted on at once by news orders (their count and
 * size fitted to the capture's sweeps).
 */
export interface CalibratedFit {
  informedRatePerSec: number;
  noiseRatePerSec: number;
  makerLagSeconds: number;
  makerLagShare: number;
  makerSizeShares: number;
  /** the maker's first level from its view of the fair value, in ticks (0.5: a 1-tick book) */
  makerHalfSpreadTicks: number;
  jumpRatePerSec: number;
  /** logit units */
  jumpStd: number;
  /** log-sd of the informed takers' order sizes */
  sizeLogSd: number;
  /**
   * median of the informed takers' order sizes, in shares (an order that meets several resting orders
   * prints as several trades, so the prints' median is not the orders')
   */
  sizeMedian: number;
  /** log-sd and median (shares) of the noise takers' order sizes */
  noiseSizeLogSd: number;
  noiseSizeMedian: number;
  /** IOC orders the informed takers send at once when the fair value jumps (news) */
  newsTrades: number;
  /** shares of each news order */
  newsSizeShares: number;
  /**
   * the other maker (src/sim/counterparties.ts runs one by default): its first level from its view
   * of the fair value, in ticks, and its shares a level
   */
  otherMakerHalfSpreadTicks: number;
  otherMakerSizeShares: number;
  /** the mispricing, in ticks, past which an informed taker trades (0: whenever the touch is on the wrong side of the fair value) */
  informedEdgeTicks: number;
}

// fitted by scripts/flow-calibrate.ts on seeds 9101-9132 (32 seeds, 0.5 h × 4 markets each, open loop,
// markets replaced as they resolve), the fair value a martingale, to the prints, the passive markouts
// (size-weighted and a 25-share quote's), the mid jumps and the sweeps: `--steps 1.4,1.2` (two rounds)
// from the quote refit, then checked once on seeds 9201-9240 against it; docs/edge.md, "The fit"
export const CALIBRATED_FIT: Readonly<CalibratedFit> = Object.freeze({
  informedRatePerSec: 0.479,
  noiseRatePerSec: 0.0714,
  makerLagSeconds: 4.21,
  makerLagShare: 0.232,
  makerSizeShares: 4167,
  makerHalfSpreadTicks: 0.8,
  jumpRatePerSec: 0.00625,
  jumpStd: 0.6,
  sizeLogSd: 1.92,
  sizeMedian: 143,
  noiseSizeLogSd: 2.08,
  noiseSizeMedian: 12,
  newsTrades: 1,
  newsSizeShares: 248,
  informedEdgeTicks: 0,
  otherMakerHalfSpreadTicks: 9.6,
  otherMakerSizeShares: 12,
});

/** The agent settings of a `calibrated` fit. */
export function calibratedAgents(f: CalibratedFit): AgentOverrides {
  return {
    fair: { volPerSqrtSec: 0.025, jumpRatePerSec: f.jumpRatePerSec, jumpStd: f.jumpStd },
    maker: {
      halfSpreadTicks: f.makerHalfSpreadTicks,
      size: Math.round(f.makerSizeShares) * 1_000_000,
      refreshMs: 1000,
      lagSeconds: f.makerLagSeconds,
      lagShare: f.makerLagShare,
      // an unchanged level keeps its place in the queue, as on the capture's deep touch (docs/edge.md)
      keepQueue: true,
    },
    otherMaker: { halfSpreadTicks: f.otherMakerHalfSpreadTicks, size: Math.round(f.otherMakerSizeShares) * 1_000_000, keepQueue: true },
    noise: { ratePerSec: f.noiseRatePerSec, maxSize: 2_000_000_000, slippageTicks: 2, sizeLogSd: f.noiseSizeLogSd, sizeMedian: f.noiseSizeMedian },
    informed: {
      ratePerSec: f.informedRatePerSec,
      edgeTicks: f.informedEdgeTicks,
      maxSize: 2_000_000_000,
      sizeLogSd: f.sizeLogSd,
      sizeMedian: f.sizeMedian,
      newsTrades: Math.round(f.newsTrades),
      newsSize: Math.round(f.newsSizeShares) * 1_000_000,
    },
  };
}

const PRESETS: Readonly<Record<FlowPreset, AgentOverrides>> = {
  benign: {},
  calibrated: calibratedAgents(CALIBRATED_FIT),
  toxic: {
    fair: { jumpRatePerSec: 1 / 30, jumpStd: 0.9 },
    informed: { newsTrades: 4, newsSize: 150_000_000 },
  },
};

export function isFlowPreset(v: unknown): v is FlowPreset {
  return typeof v === 'string' && (FLOW_PRESETS as readonly string[]).includes(v);
}

/**
 * The agent overrides of a preset, merged under `agents` (per-agent settings given explicitly win,
 * e.g. the taker rates of `venue.local.agents`).
 */
export function flowPresetAgents(preset: FlowPreset, agents: AgentOverrides = {}): AgentOverrides {
  const p = PRESETS[preset];
  const out: AgentOverrides = { ...p, ...agents };
  for (const k of ['fair', 'maker', 'otherMaker', 'noise', 'informed', 'oracle'] as const) {
    if (p[k] !== undefined || agents[k] !== undefined) (out as Record<string, unknown>)[k] = { ...p[k], ...agents[k] };
  }
  return out;
}
