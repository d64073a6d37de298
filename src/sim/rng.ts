/**
 * A small seeded PRNG (mulberry32) so every simulated choice (faults, counterparties, generated
 * markets) is reproducible from the exchange seed. Not for secrets.
 */
export interface Rng {
  /** uniform in [0, 1) */
  next(): number;
  /** integer in [lo, hi] */
  int(lo: number, hi: number): number;
  /** true with probability p */
  chance(p: number): boolean;
}

/** The bare generator: uniform in [0, 1), the same sequence for the same seed (tests and benches use it too). */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function createRng(seed: number): Rng {
  const next = mulberry32((seed >>> 0) ^ 0x9e3779b9);
  return {
    next,
    int: (lo, hi) => lo + Math.floor(next() * (hi - lo + 1)),
    chance: (p) => p > 0 && next() < p,
  };
}
