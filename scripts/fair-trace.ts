/**
 * The hidden fair value of a synthetic run's markets, for the analysis scripts (edge-decompose-run,
 * holding-trace, edge-attribution): sampled 1 ms after every agent step (every 500 ms from the start)
 * and kept under the step's time, so a sample is the value that step's takers traded on. The source
 * lends the value to scripts only (`live.hiddenFair`); the bot never sees it.
 *
 * A trace also keeps the times of the value's jumps: steps of at least FAIR_JUMP_LOGIT in log-odds.
 *
 * Entry points: `traceHiddenFair(source)` before the run starts (it schedules itself on the run's
 * virtual clock) → traces by lower-case market id; `sampleIndex(trace, t)` → the newest sample at or
 * before t, or -1.
 */
import type { LiveFlow } from '../src/backtest/replay-source.ts';

/** a step of the fair value this large in log-odds is a jump */
export const FAIR_JUMP_LOGIT = 0.2;

export type FairTrace = { readonly t: number[]; readonly p: number[]; readonly jump: number[] };

const logOdds = (x: number): number => Math.log(x / (1 - x));

export function traceHiddenFair(source: {
  readonly manifest: { readonly markets: readonly { readonly id: string }[] };
  readonly live: LiveFlow;
}): Map<string, FairTrace> {
  const ids = source.manifest.markets.map((m) => m.id);
  const traces = new Map<string, FairTrace>();
  for (const id of ids) traces.set(id.toLowerCase(), { t: [], p: [], jump: [] });
  const clock = source.live.clock;
  const sample = (): void => {
    for (const id of ids) {
      const f = source.live.hiddenFair?.(id);
      if (f === undefined) continue;
      const tr = traces.get(id.toLowerCase())!;
      const prev = tr.p.length ? tr.p[tr.p.length - 1]! : f;
      if (Math.abs(logOdds(f) - logOdds(prev)) >= FAIR_JUMP_LOGIT) tr.jump.push(clock.now() - 1);
      tr.t.push(clock.now() - 1);
      tr.p.push(f);
    }
    if (clock.now() + 500 < source.live.end) clock.setTimeout(sample, 500);
  };
  clock.setTimeout(sample, 501);
  return traces;
}

/** The index of the newest sample at or before `t` (binary search), or -1 when there is none. */
export function sampleIndex(trace: { readonly t: readonly number[] }, t: number): number {
  if (trace.t.length === 0 || trace.t[0]! > t) return -1;
  let lo = 0;
  let hi = trace.t.length - 1;
  while (lo < hi) {
    const m = (lo + hi + 1) >> 1;
    if (trace.t[m]! <= t) lo = m;
    else hi = m - 1;
  }
  return lo;
}
