/**
 * The samples of a CPU profile (V8's `.cpuprofile` shape, as `Profiler.stop` returns it) by the backtest's
 * layers, for `npm run bench -- backtest-edge --layers` (docs/performance/backtest.md, "Where a run's
 * CPU goes"). A sample is charged to the layer of its function's file; a sample in shared code (src/core,
 * src/model, Node's own and V8's builtins) to the nearest caller that has a layer, so `L2Book.setBid` counts
 * for the cursor that wrote the row. Garbage collection is a layer of its own.
 */

interface Frame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: Frame;
  children?: number[];
}
export interface CpuProfileLike {
  nodes: ProfileNode[];
  samples?: number[];
  timeDeltas?: number[];
}

/** The layers by file, first match wins (paths as a clone has them). */
export const LAYER_RULES: readonly (readonly [RegExp, string])[] = [
  [/\/src\/backtest\/(replay-source|recording\/)/, 'load: columns, checks, window'],
  [/\/src\/backtest\/run-backtest\.ts/, 'replay loop'],
  [/\/src\/backtest\/(sim-exchange|queue-model|engine-order|tape-order|others-rows)\.ts|\/src\/engine\//, 'sim exchange: books, queues, matching'],
  [/\/src\/backtest\/replay-feed\.ts/, "replay feed: the bot's book, snapshots"],
  [/\/src\/backtest\/virtual-clock\.ts/, 'virtual clock: timers'],
  [/\/src\/backtest\/(sim-venue|latency-model)\.ts/, 'sim venue: calls, listings'],
  [/\/src\/backtest\//, 'collector, diagnostics, summary'],
  [/\/src\/state\/(market-view|edge-view|held-read|state-memo)\.ts/, 'tick: view'],
  [/\/src\/state\//, 'store: reductions, edge, regime'],
  [/\/src\/strategy\/|\/strategies\//, 'tick: strategy'],
  [/\/src\/risk\//, 'tick: risk gate'],
  [/\/src\/orders\/(sell-reserve|slots)\.ts/, 'tick: to-orders'],
  [/\/src\/orders\/diff\.ts/, 'tick: diff'],
  [/\/src\/orders\/nonces\.ts|\/src\/core\/bytes32-window\.ts/, 'nonces and their memory'],
  [/\/src\/orders\//, 'order manager: sync, executor, reconcile'],
  // (the kernel lived in src/runtime before src/kernel: a base tree such as 2e8e4dd7)
  [/\/src\/kernel\/|\/src\/runtime\/(quoting-kernel|trading-core|event-bus|run-strategy)\.ts/, 'tick: kernel (throttle, runTick, events)'],
  [/\/src\/account\/|\/src\/core\/fill-id/, 'account books, fill ids'],
  [/\/src\/ledger\//, 'ledger hooks'],
  [/\/src\/(metrics|health)\//, 'metrics, health'],
];

const GC = 'garbage collection';
const OTHER = 'other: promise jobs, Node, shared code at the root';

/** A frame's layer, or null for shared code (charged to its caller). */
export function layerOfFrame(f: Frame): string | null {
  if (f.functionName === '(garbage collector)') return GC;
  if (f.functionName === '(program)' || f.functionName === '(idle)') return OTHER;
  for (const [re, layer] of LAYER_RULES) if (re.test(f.url)) return layer;
  return null;
}

/** Each layer's and each function's share of the sampled time, largest first. */
export function layerShares(p: CpuProfileLike): { layers: [string, number][]; functions: [string, number][]; samples: number } {
  const parent = new Map<number, number>();
  const byId = new Map<number, ProfileNode>();
  for (const n of p.nodes) {
    byId.set(n.id, n);
    for (const c of n.children ?? []) parent.set(c, n.id);
  }
  const layerOfNode = new Map<number, string>();
  const layers = new Map<string, number>();
  const functions = new Map<string, number>();
  const samples = p.samples ?? [];
  const deltas = p.timeDeltas ?? [];
  let total = 0;
  for (let i = 0; i < samples.length; i++) {
    const id = samples[i]!;
    // a sample's time is the delta to the next sample (the last one's: none)
    const dt = deltas[i + 1] ?? 0;
    total += dt;
    let layer = layerOfNode.get(id);
    if (layer === undefined) {
      layer = OTHER;
      for (let n: number | undefined = id; n !== undefined; n = parent.get(n)) {
        const l = layerOfFrame(byId.get(n)!.callFrame);
        if (l !== null) {
          layer = l;
          break;
        }
      }
      layerOfNode.set(id, layer);
    }
    layers.set(layer, (layers.get(layer) ?? 0) + dt);
    const f = byId.get(id)!.callFrame;
    const name = `${f.functionName || '(anonymous)'} ${f.url.replace(/^.*\/(src|strategies)\//, '$1/')}`;
    functions.set(name, (functions.get(name) ?? 0) + dt);
  }
  const shares = (m: Map<string, number>): [string, number][] =>
    [...m].map(([k, v]): [string, number] => [k, total > 0 ? v / total : 0]).sort((a, b) => b[1] - a[1]);
  return { layers: shares(layers), functions: shares(functions), samples: samples.length };
}
