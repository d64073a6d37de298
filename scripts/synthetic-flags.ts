/**
 * The command line the synthetic-run scripts share (scripts/gate-trace.ts, guard-phases.ts, holding-trace.ts,
 * edge-attribution.ts): `--flow PRESET --seeds A-B --hours H --markets M`, each with the script's own default, and
 * `flag(k, d)` for the script's other flags. Also the strategy params the guard's traces run (as gate-trace chose them),
 * and `seedRanges`, the seed lists of the flow-fit scripts (flow-calibrate.ts, edge-fit-seeds.ts).
 */
import { isFlowPreset, type FlowPreset } from '../src/sim/flow-presets.ts';

export interface SyntheticFlags {
  readonly args: readonly string[];
  /** the value after `k`, else `d` */
  readonly flag: (k: string, d: string) => string;
  readonly flow: FlowPreset;
  /** the first and last seed of `--seeds A-B` (the last undefined for a single seed `--seeds A`) */
  readonly s0: number;
  readonly s1: number | undefined;
  readonly hours: number;
  readonly markets: number;
}

export function syntheticFlags(d: { flow: FlowPreset; seeds: string; hours: string; markets?: string }, argv = process.argv.slice(2)): SyntheticFlags {
  const flag = (k: string, def: string): string => {
    const i = argv.indexOf(k);
    return i >= 0 && argv[i + 1] !== undefined ? argv[i + 1]! : def;
  };
  const flow = flag('--flow', d.flow);
  if (!isFlowPreset(flow)) throw new Error(`--flow: unknown preset ${flow}`);
  const [s0, s1] = flag('--seeds', d.seeds).split('-').map(Number);
  return { args: argv, flag, flow, s0: s0!, s1, hours: Number(flag('--hours', d.hours)), markets: Number(flag('--markets', d.markets ?? '4')) };
}

/** The five makers' params of the guard's traces (scripts/gate-trace.ts, scripts/guard-phases.ts; set by scripts/guard-trace-config.ts). */
export const GUARD_TRACE_PARAMS: Record<string, string> = {
  avellaneda: '{ fair: mid, gamma: 0.5, k: 150, inventoryUnit: 50, minSpread: 0.02, maxSpread: 0.2, size: 25 }',
  bands: '{ fair: microprice, inventorySkew: 0.0005, bands: [{ minMargin: 0.005, targetMargin: 0.01, maxMargin: 0.02, size: 25 }] }',
  'oracle-anchored': '{ book: microprice, oracleWeight: 0.6, halfSpread: 0.01, inventorySkew: 0.0005, size: 25 }',
  glft: '{ A: 0.05, k: 0.39, gamma: 0.05, inventoryUnit: 50, minSpread: 0.02, maxSpread: 0.2, size: 25 }',
  binary: '{ gamma: 0.5, k: 150, inventoryUnit: 50, minSpread: 0.02, maxSpread: 0.2, size: 25 }',
};

/** `A-B` ranges (or single seeds) joined by commas, as one list of seeds; an error naming `flag` otherwise. */
export function seedRanges(flag: string, text: string): number[] {
  return text.split(',').flatMap((g) => {
    const [a, b] = g.split('-').map(Number);
    if (!Number.isSafeInteger(a) || (b !== undefined && !(Number.isSafeInteger(b) && b >= a!)))
      throw new Error(`${flag}: A-B ranges joined by commas, got ${g}`);
    return Array.from({ length: (b ?? a!) - a! + 1 }, (_, i) => a! + i);
  });
}
