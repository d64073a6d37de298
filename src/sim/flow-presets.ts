/**
 * Flow presets of the simulated counterparties (`--flow` of `bookmaker sim` and of the synthetic
 * backtest, `venue.local.flow` in config): agent settings that give the order flow a character.
 *
 *   benign      the agents' own defaults (what the local exchange has always run): mostly noise,
 *               informed takers that need a 2-tick mispricing, rare fair-value jumps.
 *   calibrated  fitted to the Polymarket capture in data/polymarket-tickscope (trade rate and
 *               sizes, the share of informed flow, jump size and frequency; docs/edge.md shows the
 *               fit and the capture's figures side by side).
 *   toxic       benign plus news: frequent fair-value jumps that the informed takers act on at once,
 *               with full-size orders, before the makers move their quotes.
 */
import type { MarketAgentsConfig } from './agents/market-agents.ts';

export const FLOW_PRESETS = ['benign', 'calibrated', 'toxic'] as const;
export type FlowPreset = (typeof FLOW_PRESETS)[number];

/** Overrides passed to every market's agents (rates, sizes, spreads). */
export type AgentOverrides = Partial<Omit<MarketAgentsConfig, 'seed' | 'market' | 'traders' | 'initialProbability' | 'endTimeMs'>>;

const PRESETS: Readonly<Record<FlowPreset, AgentOverrides>> = {
  benign: {},
  calibrated: {
    fair: { volPerSqrtSec: 0.025, jumpRatePerSec: 1 / 150, jumpStd: 0.35 },
    maker: { halfSpreadTicks: 1, size: 300_000_000, refreshMs: 1000 },
    noise: { ratePerSec: 0.04, maxSize: 2_000_000_000, slippageTicks: 2, sizeLogSd: 2.1, sizeMedian: 21 },
    informed: { ratePerSec: 0.7, edgeTicks: 0, maxSize: 2_000_000_000, sizeLogSd: 2.1, sizeMedian: 21, newsTrades: 2, newsSize: 150_000_000 },
  },
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
