/**
 * The heap policy of a large run (docs/deployment.md, "At thousands of markets"): a bot that quotes
 * `LARGE_RUN_MARKETS` markets or more lets V8's old generation grow to 2 × what a full collection
 * left live (`--heap-growing-percent=100`), instead of V8's own factor (up to 4 × when collections
 * are cheap next to the bot's allocation), which took a 2,000-market bot past 550 MiB resident
 * with a live heap of 100–250 MiB. The price is collection work: on the core's work at one delta a
 * second per market (the still-markets benchmark), 2 × reserved 28 % less heap for 12–16 % more
 * CPU; 1.5 × reserved 38 % less for 25–38 % more.
 *
 * V8 reads that factor at every full collection, so it can be set once the markets are selected;
 * the heap's size limits (`--max-old-space-size`, the semi-space) are fixed when the process starts
 * and stay what bin/bookmaker.js or NODE_OPTIONS gave. An operator who set any heap flag keeps it:
 * the policy then does nothing. `BOOKMAKER_HEAP_GROWING_PERCENT` chooses the factor (0: V8's own).
 *
 *   const p = heapPolicyFor(markets, process.env, process.execArgv)  // pure: what to set and why
 *   applyHeapPolicy(p)                                               // sets the V8 flag (once per process)
 */
import { setFlagsFromString } from 'node:v8';

/** From this many quoted markets at start-up, the growing factor is capped. */
export const LARGE_RUN_MARKETS = 1_000;
/** The old generation may grow to (1 + this / 100) × the live heap after a full collection. */
export const LARGE_RUN_HEAP_GROWING_PERCENT = 100;

export interface HeapPolicy {
  /** the percent to set (null: leave V8's own) */
  readonly growingPercent: number | null;
  /** why, for the start-up log */
  readonly why: string;
  /** the operator's setting was not understood (logged as a warning) */
  readonly invalid?: boolean;
}

const HEAP_FLAG = /--(max-old-space-size|max-heap-size|heap-growing-percent)\b/;

export function heapPolicyFor(markets: number, env: NodeJS.ProcessEnv, execArgv: readonly string[]): HeapPolicy {
  const asked = env.BOOKMAKER_HEAP_GROWING_PERCENT;
  if (asked !== undefined && asked !== '') {
    const n = Number(asked);
    if (!Number.isInteger(n) || n < 0 || n > 1000)
      return { growingPercent: null, why: `BOOKMAKER_HEAP_GROWING_PERCENT=${JSON.stringify(asked)} ignored: expected a whole number 0–1000`, invalid: true };
    return n === 0
      ? { growingPercent: null, why: 'BOOKMAKER_HEAP_GROWING_PERCENT=0: V8 sizes the heap' }
      : { growingPercent: n, why: 'BOOKMAKER_HEAP_GROWING_PERCENT' };
  }
  if (execArgv.some((a) => HEAP_FLAG.test(a)) || HEAP_FLAG.test(env.NODE_OPTIONS ?? '') || env.BOOKMAKER_HEAP_APPLIED)
    return { growingPercent: null, why: 'heap flags given at start: kept' };
  if (markets < LARGE_RUN_MARKETS) return { growingPercent: null, why: `fewer than ${LARGE_RUN_MARKETS} markets: V8 sizes the heap` };
  return { growingPercent: LARGE_RUN_HEAP_GROWING_PERCENT, why: `${markets} markets (${LARGE_RUN_MARKETS} or more)` };
}

let applied: number | null = null;

/** Set the growing factor of a policy (process-wide; the first policy that sets one wins). */
export function applyHeapPolicy(p: HeapPolicy): boolean {
  if (p.growingPercent === null || applied !== null) return false;
  setFlagsFromString(`--heap-growing-percent=${p.growingPercent}`);
  applied = p.growingPercent;
  return true;
}
