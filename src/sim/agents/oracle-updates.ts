/**
 * Oracle updates near the hidden fair value: at Poisson times, a probability drawn around fair
 * value with a confidence label that matches how far the draw may stray (high = close).
 */
import type { Rng } from '../rng.ts';
import { exponential, gaussian } from './random-draws.ts';

export interface OracleConfig {
  /** mean ms between updates (default 30 000) */
  meanEveryMs: number;
  /** std of the oracle's error, in probability, for 'medium' confidence (default 0.03) */
  noise: number;
}

export const DEFAULT_ORACLE: Readonly<OracleConfig> = Object.freeze({ meanEveryMs: 30_000, noise: 0.03 });

export type OracleConfidence = 'low' | 'medium' | 'high';

export interface OracleUpdate {
  /** YES probability in [0.01, 0.99] */
  probability: number;
  confidence: OracleConfidence;
  reasoning: string;
  atMs: number;
}

export interface OracleState {
  nextMs: number;
}

export function initOracle(cfg: OracleConfig, rng: Rng, nowMs: number): OracleState {
  return { nextMs: nowMs + exponential(rng, 1 / cfg.meanEveryMs) };
}

const NOISE_SCALE: Record<OracleConfidence, number> = { high: 0.4, medium: 1, low: 2.5 };

export function stepOracle(
  cfg: OracleConfig,
  state: OracleState,
  rng: Rng,
  nowMs: number,
  fairProbability: number,
): { state: OracleState; update: OracleUpdate | null; nextMs: number } {
  if (nowMs < state.nextMs) return { state, update: null, nextMs: state.nextMs };
  const u = rng.next();
  const confidence: OracleConfidence = u < 0.3 ? 'high' : u < 0.8 ? 'medium' : 'low';
  const p = fairProbability + cfg.noise * NOISE_SCALE[confidence] * gaussian(rng);
  const probability = Math.round(Math.min(0.99, Math.max(0.01, p)) * 1000) / 1000;
  let next = state.nextMs;
  while (next <= nowMs) next += Math.max(1, exponential(rng, 1 / cfg.meanEveryMs));
  const reasoning = `Simulated evidence review: ${confidence} confidence, estimate ${(probability * 100).toFixed(1)}%.`;
  return { state: { nextMs: next }, update: { probability, confidence, reasoning, atMs: nowMs }, nextMs: next };
}
