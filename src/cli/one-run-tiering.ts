/**
 * V8's tiering for a command that replays one backtest (docs/performance.md#the-clis-one-run): a
 * function is compiled by the optimising compiler once it has used up an interrupt budget (bytecode
 * executed); a budget 8 × V8's default (Node 20: 67,584) lets the replay's functions gather more type
 * feedback first, so they are optimised fewer times over and deoptimised less. The capture's one
 * run in a fresh process: 610–650 instead of 890–960 ms of CPU. The later runs of a process warm up
 * more slowly, so a sweep (many runs per process) keeps V8's default.
 *
 * The flag is set at run time (v8.setFlagsFromString: it applies to the functions that have not run
 * yet, the whole replay) rather than by re-executing node with it. An --interrupt-budget given to node
 * (on its command line or in NODE_OPTIONS) wins.
 */
import v8 from 'node:v8';

/** The budget for a one-run backtest: 8 × Node 20's default. */
export const ONE_RUN_INTERRUPT_BUDGET = 8 * 67_584;

/** The V8 flag a one-run backtest sets, or null when node was given an interrupt budget of its own. */
export function oneRunTieringFlag(env: NodeJS.ProcessEnv, execArgv: readonly string[]): string | null {
  const isBudget = (a: string): boolean => /^--interrupt[-_]budget(=|$)/.test(a);
  if (execArgv.some(isBudget) || (env.NODE_OPTIONS ?? '').split(/\s+/).some(isBudget)) return null;
  return `--interrupt-budget=${ONE_RUN_INTERRUPT_BUDGET}`;
}

/** Set it for this process (before the replay's code first runs); returns the flag set, or null. */
export function applyOneRunTiering(env: NodeJS.ProcessEnv = process.env, execArgv: readonly string[] = process.execArgv): string | null {
  const flag = oneRunTieringFlag(env, execArgv);
  if (flag !== null) v8.setFlagsFromString(flag);
  return flag;
}
