/**
 * The Guéant–Lehalle–Fernandez-Tapia closed form (the asymptotic optimal quotes of GLFT 2013, as
 * hftbacktest's GLFT market-making example computes them), in ticks:
 *   c1 = 1/(ξΔ) · ln(1 + ξΔ/k)
 *   c2 = √( γ / (2·A·Δ·k) · (1 + ξΔ/k)^(k/(ξΔ) + 1) )
 *   half spread  = c1 + Δ/2 · σ · c2
 *   skew         = σ · c2
 *   reservation  = s − skew · q
 * with fills at distance δ ticks from the mid arriving at λ(δ) = A·e^(−kδ) per second, σ the
 * mid's volatility in ticks per √second, q the inventory in units of Δ (order size), γ the risk
 * aversion and ξ (= γ by default) the penalty of the value function.
 */
export interface GlftInputs {
  /** fill intensity at the mid, per second */
  readonly A: number;
  /** intensity decay per tick of distance */
  readonly k: number;
  readonly gamma: number;
  readonly xi: number;
  /** order size unit Δ (1 = one inventory unit) */
  readonly delta: number;
}

export interface GlftCoefficients {
  readonly c1: number;
  readonly c2: number;
}

export function glftCoefficients(i: GlftInputs): GlftCoefficients {
  const xd = i.xi * i.delta;
  const c1 = (1 / xd) * Math.log1p(xd / i.k);
  const c2 = Math.sqrt((i.gamma / (2 * i.A * i.delta * i.k)) * Math.pow(1 + xd / i.k, i.k / xd + 1));
  return { c1, c2 };
}

/** Half spread and skew per unit of inventory, in ticks, for volatility `sigmaTicks` per √s. */
export function glftQuotes(c: GlftCoefficients, sigmaTicks: number, delta: number): { half: number; skew: number } {
  return { half: c.c1 + (delta / 2) * sigmaTicks * c.c2, skew: sigmaTicks * c.c2 };
}
