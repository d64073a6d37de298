/**
 * A smoothed mid of the others' book (the book without the bot's own quotes), kept between ticks: an
 * EWMA of the mid with time constant `tauSeconds` over the bot's ticks of the market, restarted at the
 * mid whenever the mid moves further than `jump` from it (a jump of the fair value: the EWMA would
 * trail it for seconds). Where a book is a maker's ladder around its own noisy view of the fair value,
 * redrawn every refresh, the smoothing averages a few refreshes' noise; docs/edge-feasibility.md, "A
 * maker that sees only the book", measures it against the synthetic runs' hidden fair value.
 *
 * The memory is one number and a time per market, in a Map the caller owns (the `lopsided`
 * strategy keeps one per parsed configuration). It restarts at the mid when the clock goes back or
 * after `STALE_MS` without a tick, so a new run (a backtest's next seed, whose clock starts again)
 * never reads the last run's value. Prices in 1e-6 USDC per YES share.
 */
export interface SmoothMidMemory {
  t: number;
  v: number;
}

/** a market not ticked for this long restarts at the mid */
export const STALE_MS = 30_000;

export function smoothMid(memory: Map<string, SmoothMidMemory>, marketId: string, now: number, mid: number, tauSeconds: number, jump: number): number {
  const m = memory.get(marketId);
  if (m === undefined || now < m.t || now - m.t > STALE_MS || !(tauSeconds > 0) || Math.abs(mid - m.v) > jump) {
    memory.set(marketId, { t: now, v: mid });
    return mid;
  }
  m.v += (1 - Math.exp(-(now - m.t) / 1000 / tauSeconds)) * (mid - m.v);
  m.t = now;
  return m.v;
}
