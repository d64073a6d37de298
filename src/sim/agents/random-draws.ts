/**
 * Draws the agents need on top of a uniform seeded generator (src/sim/rng.ts): normal and
 * exponential variates, and independent per-agent seeds derived from one exchange seed.
 */
import type { Rng } from '../rng.ts';

/** Standard normal by Box–Muller (one of the pair; simplicity beats speed here). */
export function gaussian(rng: Rng): number {
  let u = rng.next();
  while (u <= Number.EPSILON) u = rng.next();
  const v = rng.next();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
}

/** Exponential with the given rate (events per unit); the gap to the next Poisson arrival. */
export function exponential(rng: Rng, rate: number): number {
  if (!(rate > 0)) return Infinity;
  let u = rng.next();
  while (u <= Number.EPSILON) u = rng.next();
  return -Math.log(u) / rate;
}

/**
 * A 32-bit seed for one agent from the exchange seed, the market and the agent's name, so adding an
 * agent or a market never shifts another agent's random stream. The seed and the market are mixed in
 * one after the other: XORed together (as before 2026-11-29), seed s's market i drew the same streams
 * as seed s ^ i ^ j's market j, so the edge bench's seeds 1-20 listed 28 distinct markets among 205.
 */
export function deriveSeed(seed: number, market: number, name: string): number {
  let h = 0x811c9dc5;
  const mix = (x: number) => {
    h = Math.imul(h ^ x, 0x01000193) >>> 0;
    h ^= h >>> 15;
  };
  mix(seed >>> 0);
  mix(market >>> 0);
  for (let i = 0; i < name.length; i++) mix(name.charCodeAt(i));
  return h >>> 0;
}

/**
 * Shares (1e-6 units, whole shares) drawn log-normally: median `median` shares, log-sd `logSd`,
 * clamped to [1, max] shares. Trade sizes on prediction markets are heavy-tailed (the Polymarket
 * capture: median 21 shares, 90th percentile 335), which a uniform draw cannot give.
 */
export function logNormalShares(rng: Rng, median: number, logSd: number, max: number): number {
  const shares = Math.round(median * Math.exp(logSd * gaussian(rng)));
  return Math.min(Math.max(1, Math.round(max / 1_000_000)), Math.max(1, shares)) * 1_000_000;
}
