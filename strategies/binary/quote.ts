/** binary quote function: p(1 − p) variance, deadline-weighted inventory risk and jump premium, quotes within (0, 1). */
import { fairPrice } from '../../src/strategy/fair-price.ts';
import { fairBook } from '../../src/strategy/others-book.ts';
import { edgeAdjust, guardedLadder } from '../../src/strategy/edge-adjust.ts';
import { applySweepReact } from '../../src/strategy/sweep-react.ts';
import { flowLeanShift } from '../../src/strategy/ladder-config.ts';
import type { DesiredQuote, MarketView } from '../../src/strategy/types.ts';
import type { BinaryConfig } from './config.ts';
import { deadlineWeight, ewmaLogitSigma, halfSpread, jumpPremium, reservation } from './model.ts';

export function quoteBinary(view: MarketView, cfg: BinaryConfig): DesiredQuote[] | null {
  const ref = fairPrice(fairBook(view, cfg.fairFrom), cfg.fair);
  if (ref === null || cfg.size < view.minSize) return null;
  // keep p inside (0, 1) so p(1 − p) > 0 even on a book pinned at an edge
  const tickP = view.tick / 1e6;
  const p = Math.min(1 - tickP, Math.max(tickP, ref / 1e6));
  // σ_L estimated in logit space: the price σ is then σ_L·p(1 − p) at today's p, not an average over past p's
  const sigmaLogit = cfg.sigmaLogit ?? ewmaLogitSigma(view.midHistory, cfg.ewmaLambda, cfg.minSigmaLogit);
  const left = view.deadline === null ? cfg.horizonCapSeconds : (view.deadline - view.now) / 1000;
  const tau = Math.min(cfg.horizonCapSeconds, Math.max(cfg.horizonFloorSeconds, left));
  const inputs = {
    p,
    q: view.position.net / cfg.inventoryUnit,
    gamma: cfg.gamma,
    k: cfg.k,
    sigmaLogit,
    tau,
    terminalRisk: cfg.terminalRisk,
    jumpPremium: cfg.jumpPremium,
    w: deadlineWeight(view.now, view.deadline, cfg.deadlineWindowSeconds),
  };
  const r = reservation(inputs) + flowLeanShift(view, cfg);
  const half = Math.min(cfg.maxSpread / 2, Math.max(cfg.minSpread / 2, halfSpread(inputs))) + jumpPremium(inputs);
  const adj = edgeAdjust(view, cfg.toxicity);
  // the ladder keeps prices inside [tick, 1 − tick] and drops a side pushed beyond its bound
  const quotes = guardedLadder(
    { center: r, half, spacing: cfg.levelSpacing, levels: cfg.levels, size: cfg.size, tick: view.tick, tag: 'binary' },
    adj,
    view.minSize,
  );
  // after a taker sweep: the swept-toward side pulled, the rest moved toward it (afterSweep; off by default)
  return applySweepReact(quotes, view, cfg.afterSweep);
}
