/**
 * Avellaneda–Stoikov (2008) in probability space:
 *   reservation price  r = s − q·γ·σ²·(T − t)
 *   optimal spread     δ = γ·σ²·(T − t) + (2/γ)·ln(1 + γ/k)
 * s = fair price (probability), q = inventory in units, σ per √s, T − t in seconds.
 * Long inventory lowers r, so both quotes move down: the ask gets hit more and the bid less.
 */
export interface AsInputs {
  readonly s: number;
  readonly q: number;
  readonly gamma: number;
  readonly sigma: number;
  readonly tau: number;
  readonly k: number;
}

export function reservationPrice(i: AsInputs): number {
  return i.s - i.q * i.gamma * i.sigma * i.sigma * i.tau;
}

export function optimalSpread(i: AsInputs): number {
  return i.gamma * i.sigma * i.sigma * i.tau + (2 / i.gamma) * Math.log1p(i.gamma / i.k);
}

/** T − t in seconds: to the deadline (or the cap without one), clamped into [floor, cap]. */
export function horizonSeconds(now: number, deadline: number | null, floor: number, cap: number): number {
  const left = deadline === null ? cap : (deadline - now) / 1000;
  return Math.min(cap, Math.max(floor, left));
}
