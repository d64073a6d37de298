/**
 * Shared shapes of the simulated counterparties. Every generator is a function of
 * (config, state, rng, nowMs, view) that returns its next state and the engine commands to apply;
 * it reads no clock and does no I/O, so a seed and a sequence of calls reproduce it exactly.
 */
import type { EngineCommand, MarketIndex } from '../../engine/types.ts';

/** What an agent may look at: the public top of the YES-terms book (0 = side empty). */
export interface AgentView {
  market: MarketIndex;
  tick: number;
  bestBid: number;
  bestAsk: number;
}

/** An agent's step: its new state, the commands to apply now, and when it wants to run next. */
export interface AgentStep<S> {
  state: S;
  commands: EngineCommand[];
  /** the earliest nowMs at which another step can produce anything */
  nextMs: number;
}
