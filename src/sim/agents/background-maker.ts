/**
 * A background maker: every refresh it pulls its ladder in the market and rests a new one around
 * its own (noisy) view of the fair value — bids as BUY YES, asks as BUY NO at 1 − p, so it needs
 * only collateral. With a wider spread, smaller size or a noisier fair view it doubles as one of the
 * "other makers".
 */
import type { EngineCommand } from '../../engine/types.ts';
import type { Rng } from '../rng.ts';
import type { AgentStep, AgentView } from './agent-types.ts';
import { snapPrice, toSubmitOrder } from './order-builder.ts';
import { gaussian } from './random-draws.ts';

export interface MakerConfig {
  trader: number;
  /** levels per side (default 3) */
  levels: number;
  /** distance of the first level from fair value, in ticks (default 2) */
  halfSpreadTicks: number;
  /** distance between levels, in ticks (default 1) */
  stepTicks: number;
  /** mean shares per level in 1e-6 units (default 50 shares) */
  size: number;
  /** relative size jitter in [0, 1) (default 0.5) */
  sizeJitter: number;
  /** ms between ladder refreshes (default 2000) */
  refreshMs: number;
  /** std of the maker's error about the fair value, in probability (default 0.003) */
  fairNoise: number;
  /**
   * how slowly the maker learns the fair value, in seconds (default 0: at once): it quotes around
   * its belief, which moves toward the fair value by 1 − e^(−dt/lag) of the gap over dt, so its
   * quotes trail a move for about `lagSeconds` and informed takers keep trading against them
   * meanwhile (the slowly growing adverse markout of a real book; docs/edge.md)
   */
  lagSeconds: number;
  /** the part of a move of the fair value that trails (default 1: all of it); the rest is learned at once */
  lagShare: number;
}

export const DEFAULT_MAKER: Readonly<Omit<MakerConfig, 'trader'>> = Object.freeze({
  levels: 3,
  halfSpreadTicks: 2,
  stepTicks: 1,
  size: 50_000_000,
  sizeJitter: 0.5,
  refreshMs: 2000,
  fairNoise: 0.003,
  lagSeconds: 0,
  lagShare: 1,
});

export interface MakerState {
  nextMs: number;
  /** the trailing part of the maker's view of the fair value (probability) and when it was last updated; only with a lag */
  belief?: number;
  beliefMs?: number;
}

export function initMaker(nowMs: number): MakerState {
  return { nextMs: nowMs };
}

/** The lagging maker's trailing view moved toward `fairProbability` for the time since its last update. */
function updatedBelief(cfg: MakerConfig, state: MakerState, nowMs: number, fairProbability: number): MakerState {
  if (!(cfg.lagSeconds > 0)) return state;
  if (state.belief === undefined || state.beliefMs === undefined) return { ...state, belief: fairProbability, beliefMs: nowMs };
  const dt = Math.max(0, nowMs - state.beliefMs) / 1000;
  const a = 1 - Math.exp(-dt / cfg.lagSeconds);
  return { ...state, belief: state.belief + a * (fairProbability - state.belief), beliefMs: nowMs };
}

/** Shares for one level: the mean ± jitter, rounded to whole shares, at least one share. */
export function jitteredSize(mean: number, jitter: number, rng: Rng): number {
  const s = mean * (1 + jitter * (2 * rng.next() - 1));
  return Math.max(1_000_000, Math.round(s / 1_000_000) * 1_000_000);
}

export function stepMaker(cfg: MakerConfig, state: MakerState, rng: Rng, nowMs: number, view: AgentView, fairProbability: number): AgentStep<MakerState> {
  state = updatedBelief(cfg, state, nowMs, fairProbability);
  if (nowMs < state.nextMs) return { state, commands: [], nextMs: state.nextMs };
  const tick = view.tick;
  const belief = state.belief === undefined ? fairProbability : cfg.lagShare * state.belief + (1 - cfg.lagShare) * fairProbability;
  const fair = (belief + cfg.fairNoise * gaussian(rng)) * 1_000_000;
  const commands: EngineCommand[] = [{ type: 'cancelAll', trader: cfg.trader, market: view.market, nowMs }];
  for (let i = 0; i < cfg.levels; i++) {
    const away = (cfg.halfSpreadTicks + i * cfg.stepTicks) * tick;
    const bid = snapPrice(fair - away, tick, 'down');
    const ask = snapPrice(fair + away, tick, 'up');
    const common = { market: view.market, trader: cfg.trader, side: 'buy' as const, nowMs };
    if (bid < ask) {
      commands.push({ type: 'submit', order: toSubmitOrder({ ...common, outcome: 1, price: bid, size: jitteredSize(cfg.size, cfg.sizeJitter, rng) }) });
      commands.push({
        type: 'submit',
        order: toSubmitOrder({ ...common, outcome: 0, price: 1_000_000 - ask, size: jitteredSize(cfg.size, cfg.sizeJitter, rng) }),
      });
    }
  }
  const nextMs = nowMs + cfg.refreshMs;
  return { state: { ...state, nextMs }, commands, nextMs };
}
