/**
 * The set-up the guard's traces share (scripts/gate-trace.ts, scripts/guard-phases.ts): per strategy, the
 * shipped module with its quote wrapped to push one record a tick, by market id, into
 * `globalThis.__gateTrace` (a Map the script sets before each run; no map, no records), and a copy of
 * config/backtest.yaml whose default strategy is that wrapper on its GUARD_TRACE_PARAMS with
 * `toxicity: guard`. Returns the copy's path, for loadBacktestConfig.
 *
 *   guardTraceConfig({ work, name, guard, imports: 'markoutsAdverse', when: '', record: 'l.push({ t: view.now });' })
 *
 * `imports` are names of src/strategy/edge-adjust.ts; `when` is more of the condition on a tick (after
 * `tr && view.edge`); `record` is the wrapper's code that pushes the tick's record onto `l`, the market's
 * list (`view`, `cfg` and `k`, the market id, in scope). The wrapper then quotes as the module does.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { GUARD_TRACE_PARAMS } from './synthetic-flags.ts';

const strategyBlock = /defaults:\n  strategy:\n(?: {4}.*\n)+/;

export function guardTraceConfig(o: { work: string; name: string; guard: string; imports: string; when: string; record: string }): string {
  const root = resolve('.');
  const wrapper = join(o.work, `${o.name}-trace.ts`);
  writeFileSync(
    wrapper,
    `import m from '${root}/strategies/${o.name}/index.ts';
import { ${o.imports} } from '${root}/src/strategy/edge-adjust.ts';
export default { ...m, quote(view, cfg) {
  const tr = globalThis.__gateTrace;
  if (tr && view.edge${o.when}) {
    const k = view.marketId;
    let l = tr.get(k); if (!l) tr.set(k, (l = []));
    ${o.record}
  }
  return m.quote(view, cfg);
} };
`,
  );
  const params = GUARD_TRACE_PARAMS[o.name];
  if (params === undefined) throw new Error(`no guard-trace params for strategy ${o.name} (scripts/synthetic-flags.ts GUARD_TRACE_PARAMS)`);
  const file = join(o.work, `${o.name}.yaml`);
  const base = readFileSync('config/backtest.yaml', 'utf8');
  writeFileSync(
    file,
    base.replace(strategyBlock, `defaults:\n  strategy:\n    name: ${wrapper}\n    params: ${params.replace(/ }$/, `, toxicity: ${o.guard} }`)}\n`),
  );
  return file;
}
