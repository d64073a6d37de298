/**
 * The walk-forward on the Polymarket capture, shared by the edge bench (test/bench/edge.bench.ts) and
 * `scripts/edge-eval.ts capture`: for each market maker a grid of spread, quote size, inventory limit
 * and skew, the guard (off, on, or "calm only": pull in the event regime, gate always) and, for the
 * model strategies, the flow lean; for follow (a taker) its sweep's size and window and its size, run through src/backtest/walk-forward.ts (as `bookmaker backtest --sweep
 * --walk-forward`): chosen on the first part by PnL per volume among runs with ≥ `minVolume` USDC of
 * volume there, scored on the rest. The best strategy is the one whose choice scored best on the first
 * part, by the same criterion. Returns the markdown table and the goal line (≥ −1 % of volume at ≥ 150
 * USDC in the second part).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadReplaySource } from '../../src/backtest/replay-source.ts';
import type { SweepSpec } from '../../src/backtest/sweep-grid.ts';
import { criterionText, parseSplit, partFigures, runWalkForward, type PartFigures } from '../../src/backtest/walk-forward.ts';

/** Each strategy's documented example, sized like config/backtest.yaml (25 shares): the base of its grid (as the edge bench's STRATEGY_PARAMS). */
export const STRATEGY_EXAMPLES: Readonly<Record<string, string>> = {
  avellaneda: '{ fair: mid, gamma: 0.5, k: 150, inventoryUnit: 50, minSpread: 0.02, maxSpread: 0.2, size: 25 }',
  bands: '{ fair: microprice, inventorySkew: 0.0005, bands: [{ minMargin: 0.005, targetMargin: 0.01, maxMargin: 0.02, size: 25 }] }',
  'oracle-anchored': '{ book: microprice, oracleWeight: 0.6, halfSpread: 0.01, inventorySkew: 0.0005, size: 25 }',
  glft: '{ A: 0.05, k: 0.39, gamma: 0.05, inventoryUnit: 50, minSpread: 0.02, maxSpread: 0.2, size: 25 }',
  binary: '{ gamma: 0.5, k: 150, inventoryUnit: 50, minSpread: 0.02, maxSpread: 0.2, size: 25 }',
  follow: '{ sweepShares: 300, sweepSeconds: 2, size: 25 }',
};

export interface CaptureWalkForwardOptions {
  /** the recording (the imported capture) */
  readonly dir: string;
  /** strategy name → its base params (a YAML flow mapping) */
  readonly params: Readonly<Record<string, string>>;
  readonly strategies: readonly string[];
  /** config/backtest.yaml's text, and the regex of its default strategy block */
  readonly baseConfig: string;
  readonly strategyBlock: RegExp;
  /** a scratch folder for the per-strategy configs */
  readonly work: string;
  /** the split (default 50%) */
  readonly split?: string;
  readonly minVolume?: number;
  readonly leans?: readonly number[];
  readonly workers?: number;
  readonly onStrategy?: (strategy: string, runs: number) => void;
}

export async function captureWalkForward(o: CaptureWalkForwardOptions): Promise<{ lines: string[]; goal: string }> {
  const dir = o.dir;
  const all = loadReplaySource(dir);
  const start = all.cols.lts[all.rows[0]!]!;
  const split = parseSplit(o.split ?? '50%', dir, {}, start);
  const P = 'defaults.strategy.params';
  const spreads = [0.02, 0.04, 0.08];
  const guards = [false, true, { gate: 'always', event: { pull: true } }];
  const gridFor = (s: string): [string, unknown[]][] => {
    const common: [string, unknown[]][] = [
      ['defaults.risk.maxPosition', [25, 500]],
      [`${P}.toxicity`, guards],
    ];
    if (s === 'bands')
      return [
        [`${P}.bands`, spreads.flatMap((w) => [10, 25].map((size) => [{ minMargin: w / 4, targetMargin: w / 2, maxMargin: w, size }]))],
        [`${P}.inventorySkew`, [0.0005, 0.002]],
        ...common,
      ];
    // follow (a taker, no guard): the sweep's size and window and the position, with the risk lines it needs (config/strategies/follow.yaml)
    if (s === 'follow')
      return [
        [`${P}.sweepShares`, [150, 300, 600]],
        [`${P}.sweepSeconds`, [1, 2]],
        [`${P}.size`, [10, 25]],
        ['defaults.risk.maxPosition', [25]],
        ['defaults.risk.allowCrossing', [true]],
      ];
    if (s === 'oracle-anchored')
      return [[`${P}.halfSpread`, spreads.map((w) => w / 2)], [`${P}.size`, [10, 25]], [`${P}.inventorySkew`, [0.0005, 0.002]], ...common];
    return [[`${P}.minSpread`, spreads], [`${P}.size`, [10, 25]], [`${P}.inventoryUnit`, [10, 50]], [`${P}.flowLean`, [...(o.leans ?? [0, 0.1])]], ...common];
  };
  const label = (s: string, combo: Record<string, unknown>): string =>
    Object.entries(combo)
      .map(([k, v]) => {
        const key = k.replace(`${P}.`, '').replace('defaults.risk.', '');
        if (key === 'bands') {
          const b = (v as { targetMargin: number; size: number }[])[0]!;
          return `margin ${b.targetMargin}, size ${b.size}`;
        }
        if (key === 'toxicity') return `guard ${v === false ? 'off' : v === true ? 'on' : 'calm only'}`;
        if (key === 'allowCrossing') return '';
        return `${key} ${JSON.stringify(v)}`;
      })
      .filter((x) => x !== '')
      .join(', ');
  const spec = (s: string): SweepSpec => ({
    grid: gridFor(s),
    rankBy: 'pnlPerVolume',
    minVolume: o.minVolume ?? 75,
    windows: 4,
    fast: false,
    maxRuns: 10_000,
  });
  const wf: { s: string; pick: string; first: PartFigures; second: PartFigures | null; runs: number }[] = [];
  for (const s of o.strategies) {
    const cfg = join(o.work, `wf-${s}.yaml`);
    writeFileSync(cfg, o.baseConfig.replace(o.strategyBlock, `defaults:\n  strategy:\n    name: ${s}\n    params: ${o.params[s]!}\n`));
    const r = await runWalkForward({
      configFile: cfg,
      data: dir,
      from: split.from,
      to: split.to,
      split: split.split,
      spec: spec(s),
      workers: o.workers ?? 2,
    });
    o.onStrategy?.(s, r.ranked.length);
    if (!r.chosen) {
      wf.push({ s, pick: 'none reached the volume floor', first: partFigures(r.ranked[0]!)!, second: null, runs: r.ranked.length });
      continue;
    }
    wf.push({ s, pick: label(s, r.chosen.combo), first: partFigures(r.chosen)!, second: r.heldOut ? partFigures(r.heldOut) : null, runs: r.ranked.length });
  }
  const pct = (p: PartFigures | null) => (p && p.pnlPctOfVolume !== null ? `${p.pnlPctOfVolume.toFixed(2)} %` : '–');
  const lines: string[] = [];
  lines.push(
    `capture walk-forward: chosen on the first half by ${criterionText(spec('glft'))}, scored on the second`,
    '| strategy | runs | chosen on the first half | first half PnL / volume | second half PnL USDC | volume USDC | PnL % of volume | worst quarter | spread / inventory / fees |',
    '|---|---|---|---|---|---|---|---|---|',
  );
  for (const w of wf) {
    const b = w.second;
    lines.push(
      `| ${w.s} | ${w.runs} | ${w.pick} | ${w.first.pnl.toFixed(2)} / ${w.first.volume.toFixed(0)} (${pct(w.first)}) | ${b ? b.pnl.toFixed(2) : '–'} | ${b ? b.volume.toFixed(0) : '–'} | ${pct(b)} | ${b?.worstWindow?.toFixed(2) ?? '–'} | ${b ? `${b.attribution.spreadCapture.toFixed(2)} / ${b.attribution.inventory.toFixed(2)} / ${b.attribution.fees.toFixed(2)}` : '–'} |`,
    );
  }
  // the best strategy, chosen on the first half too (its choice's PnL per volume there)
  const top = wf
    .filter((w) => w.second && w.first.volume >= spec('glft').minVolume)
    .sort((a, b) => b.first.pnl / b.first.volume - a.first.pnl / a.first.volume)[0];
  const t = top?.second;
  const goal =
    top && t
      ? `capture walk-forward: best on the first half ${top.s} (${top.pick}); second half ${t.pnl.toFixed(2)} on ${t.volume.toFixed(0)} USDC = ${pct(t)} of volume → ${t.volume >= 150 && t.pnl >= -0.01 * t.volume ? 'MET' : 'NOT met'} (≥ −1 % at ≥ 150 USDC)`
      : 'capture walk-forward: no strategy reached the volume floor on the first half → NOT met';
  return { lines, goal };
}
