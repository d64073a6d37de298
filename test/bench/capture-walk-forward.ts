/**
 * The walk-forward on the Polymarket capture, shared by the edge bench (test/bench/edge.bench.ts) and
 * `scripts/edge-eval.ts capture`: for each market maker a grid of spread, quote size, inventory limit
 * and skew, the guard (off; on, gated by the measured markouts; or ungated with a pull in the event
 * regime: `gate: always`, `event.pull`) and, for the model strategies, the flow lean; for follow (a
 * taker) its sweep's size and window and its size, run through src/backtest/walk-forward.ts (as
 * `bookmaker backtest --sweep --walk-forward`): chosen on the first part by CAPTURE_CRITERION (the
 * lower end of the 95 % interval of PnL per volume over 1-minute blocks, among runs with ≥
 * `minVolume` USDC of volume there), scored on the rest. The best strategy is the one whose choice
 * scored best on the first part, by the same criterion. The criterion used before (PnL per volume
 * alone, same floor) is run beside it for comparison (`PREVIOUS_CRITERION`): its choices and their
 * second parts are in the table too. Returns the markdown table and the goal lines (≥ −1 % of
 * volume at ≥ 150 USDC in the second part). docs/edge.md, "Walk-forward on the Polymarket capture".
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadReplaySource } from '../../src/backtest/replay-source.ts';
import { rankScore, type RankBy, type SweepResult, type SweepSpec } from '../../src/backtest/sweep-grid.ts';
import { criterionText, parseSplit, partFigures, runWalkForward, type PartFigures } from '../../src/backtest/walk-forward.ts';

/**
 * How the walk-forward chooses (fixed before the run that reports it): the lower end of the 95 %
 * interval of PnL per volume over the first part's 1-minute blocks (src/backtest/pnl-per-volume-bound.ts),
 * among runs with ≥ `minVolume` USDC of volume there (half the goal's 150: the first half trades less).
 */
export const CAPTURE_CRITERION: Readonly<{ rankBy: RankBy; blockSeconds: number; minVolume: number }> = {
  rankBy: 'pnlPerVolumeLow',
  blockSeconds: 60,
  minVolume: 75,
};
/** The criterion before 2026-11-29: PnL per volume on the first part alone (same floor); run beside it for comparison. */
export const PREVIOUS_CRITERION: RankBy = 'pnlPerVolume';

/** The guard settings of the grid and their labels: what each one does. */
export const GUARDS: readonly { readonly value: unknown; readonly label: string }[] = [
  { value: false, label: 'guard off' },
  { value: true, label: 'guard on' },
  // every response of the guard on every tick (no gate), and no quote at all in the event regime
  { value: { gate: 'always', event: { pull: true } }, label: 'guard ungated, event pull' },
];

/**
 * The best strategy: the one whose choice scores best on the first part by `by` (its floor applied),
 * the first in `picks` order on a tie; null when none reached the floor.
 */
export function bestOnFirstPart<T extends { first: SweepResult | null }>(picks: readonly T[], by: RankBy, minVolume: number): T | null {
  let best: T | null = null;
  let bestScore = -Infinity;
  for (const p of picks) {
    if (!p.first?.summary || p.first.summary.volume < minVolume) continue;
    const sc = rankScore(p.first, by);
    if (Number.isFinite(sc) && (best === null || sc > bestScore)) {
      best = p;
      bestScore = sc;
    }
  }
  return best;
}

/** Each strategy's parameters in the edge bench (its STRATEGY_PARAMS is this object) and the base of its capture grid: the documented examples sized like config/backtest.yaml (25 shares), bands as tuned. */
export const STRATEGY_EXAMPLES: Readonly<Record<string, string>> = {
  avellaneda: '{ fair: mid, gamma: 0.5, k: 150, inventoryUnit: 50, minSpread: 0.02, maxSpread: 0.2, size: 25 }',
  // joined at the others' touch where m(1 - m) <= 0.1875 (mid below 0.25 or above 0.75), 5 shares, skewed off a position:
  // chosen on tuning seeds 9001-9004 (docs/edge.md, "Joining the touch"); before 2026-11-29 the example sized like
  // config/backtest.yaml: inventorySkew 0.0005, one band 0.5/1/2c x 25, no touch
  bands: '{ fair: microprice, inventorySkew: 0.002, bands: [{ minMargin: 0.005, targetMargin: 0.01, maxMargin: 0.02, size: 5 }], touch: { maxPQ: 0.1875 } }',
  'oracle-anchored': '{ book: microprice, oracleWeight: 0.6, halfSpread: 0.01, inventorySkew: 0.0005, size: 25 }',
  glft: '{ A: 0.05, k: 0.39, gamma: 0.05, inventoryUnit: 50, minSpread: 0.02, maxSpread: 0.2, size: 25 }',
  binary: '{ gamma: 0.5, k: 150, inventoryUnit: 50, minSpread: 0.02, maxSpread: 0.2, size: 25 }',
  follow: '{ sweepShares: 300, sweepSeconds: 2, size: 25 }',
  // half a cent from the smoothed mid, 5 shares, only within 10 % of a bound: chosen on tuning seeds 9501-9540 (docs/edge-feasibility.md)
  lopsided: '{ halfSpread: 0.005, size: 5, maxPQ: 0.1, maxPosition: 50 }',
};

/** The sweep of one strategy's capture grid: the criterion's ranking, floor and blocks, full mode (the walk-forward and scripts/edge-eval.ts's capture-grid). */
export function captureSpec(grid: [string, unknown[]][], minVolume: number = CAPTURE_CRITERION.minVolume): SweepSpec {
  return { grid, rankBy: CAPTURE_CRITERION.rankBy, minVolume, windows: 4, blockSeconds: CAPTURE_CRITERION.blockSeconds, fast: false, maxRuns: 10_000 };
}

/** A strategy's grid in the capture walk-forward (each market maker's: spread, size, skew, inventory limit, guard, and the flow lean for the model strategies; follow's: its sweep and size). */
export function captureGrid(s: string, leans: readonly number[] = [0, 0.1]): [string, unknown[]][] {
  const P = 'defaults.strategy.params';
  const spreads = [0.02, 0.04, 0.08];
  const guards = GUARDS.map((g) => g.value);
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
  // lopsided (no guard): its distance, size and where it opens, and the inventory limit
  if (s === 'lopsided')
    return [
      [`${P}.halfSpread`, [0.005, 0.01]],
      [`${P}.size`, [5, 10]],
      [`${P}.maxPQ`, [0.1, 0.2]],
      ['defaults.risk.maxPosition', [25, 500]],
    ];
  if (s === 'oracle-anchored')
    return [[`${P}.halfSpread`, spreads.map((w) => w / 2)], [`${P}.size`, [10, 25]], [`${P}.inventorySkew`, [0.0005, 0.002]], ...common];
  return [[`${P}.minSpread`, spreads], [`${P}.size`, [10, 25]], [`${P}.inventoryUnit`, [10, 50]], [`${P}.flowLean`, [...leans]], ...common];
}

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

export async function captureWalkForward(o: CaptureWalkForwardOptions): Promise<{ lines: string[]; goal: string; previous: string }> {
  const dir = o.dir;
  const all = loadReplaySource(dir);
  const start = all.cols.lts[all.rows[0]!]!;
  const split = parseSplit(o.split ?? '50%', dir, {}, start);
  const P = 'defaults.strategy.params';
  const gridFor = (s: string) => captureGrid(s, o.leans);
  const label = (s: string, combo: Record<string, unknown>): string =>
    Object.entries(combo)
      .map(([k, v]) => {
        const key = k.replace(`${P}.`, '').replace('defaults.risk.', '');
        if (key === 'bands') {
          const b = (v as { targetMargin: number; size: number }[])[0]!;
          return `margin ${b.targetMargin}, size ${b.size}`;
        }
        if (key === 'toxicity') return GUARDS.find((g) => JSON.stringify(g.value) === JSON.stringify(v))?.label ?? `toxicity ${JSON.stringify(v)}`;
        if (key === 'allowCrossing') return '';
        return `${key} ${JSON.stringify(v)}`;
      })
      .filter((x) => x !== '')
      .join(', ');
  const minVolume = o.minVolume ?? CAPTURE_CRITERION.minVolume;
  const spec = (s: string): SweepSpec => captureSpec(gridFor(s), minVolume);
  interface Pick {
    readonly s: string;
    readonly by: RankBy;
    readonly pick: string;
    readonly first: SweepResult | null;
    readonly second: SweepResult | null;
    readonly runs: number;
    readonly same: boolean;
  }
  const now: Pick[] = [];
  const before: Pick[] = [];
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
      compareBy: PREVIOUS_CRITERION,
    });
    o.onStrategy?.(s, r.ranked.length);
    const none = 'none reached the volume floor';
    now.push({
      s,
      by: CAPTURE_CRITERION.rankBy,
      pick: r.chosen ? label(s, r.chosen.combo) : none,
      first: r.chosen ?? r.ranked[0] ?? null,
      second: r.heldOut,
      runs: r.ranked.length,
      same: false,
    });
    const c = r.compared!;
    before.push({
      s,
      by: c.by,
      pick: c.chosen ? label(s, c.chosen.combo) : none,
      first: c.chosen,
      second: c.heldOut,
      runs: r.ranked.length,
      same: c.chosen !== null && c.chosen.index === r.chosen?.index,
    });
  }
  const pct = (p: PartFigures | null) => (p && p.pnlPctOfVolume !== null ? `${p.pnlPctOfVolume.toFixed(2)} %` : '–');
  const ci = (p: PartFigures | null) => (p?.pnlPctOfVolumeCi ? ` [${p.pnlPctOfVolumeCi.lo.toFixed(2)}, ${p.pnlPctOfVolumeCi.hi.toFixed(2)}]` : '');
  const lines: string[] = [];
  lines.push(
    `capture walk-forward: chosen on the first part by ${criterionText(spec('glft'))}, scored on the rest; beside it the choice by ${criterionText({ ...spec('glft'), rankBy: PREVIOUS_CRITERION })} (before 2026-11-29)`,
    '| strategy | criterion | runs | chosen on the first part | first part PnL / volume (% [95 % interval]) | second part PnL USDC | volume USDC | PnL % of volume | worst quarter | spread / inventory / fees |',
    '|---|---|---|---|---|---|---|---|---|---|',
  );
  for (const [w, old] of now.map((w, i) => [w, before[i]!] as const)) {
    for (const x of [w, old]) {
      const f = x.first ? partFigures(x.first) : null;
      const b = x.second ? partFigures(x.second) : null;
      const pick = x === old && x.same ? 'the same' : x.pick;
      lines.push(
        `| ${w.s} | ${x.by} | ${x.runs} | ${pick} | ${f ? `${f.pnl.toFixed(2)} / ${f.volume.toFixed(0)} (${pct(f)}${ci(f)})` : '–'} | ${b ? b.pnl.toFixed(2) : '–'} | ${b ? b.volume.toFixed(0) : '–'} | ${pct(b)} | ${b?.worstWindow?.toFixed(2) ?? '–'} | ${b ? `${b.attribution.spreadCapture.toFixed(2)} / ${b.attribution.inventory.toFixed(2)} / ${b.attribution.fees.toFixed(2)}` : '–'} |`,
      );
    }
  }
  // the best strategy, chosen on the first part too (its choice's score there, by the same criterion)
  const goalLine = (picks: readonly Pick[], by: RankBy, name: string): string => {
    const top = bestOnFirstPart(
      picks.filter((p) => p.second !== null && p.pick !== 'none reached the volume floor'),
      by,
      minVolume,
    );
    const t = top?.second ? partFigures(top.second) : null;
    return top && t
      ? `capture walk-forward${name}: best on the first part ${top.s} (${top.pick}); second part ${t.pnl.toFixed(2)} on ${t.volume.toFixed(0)} USDC = ${pct(t)} of volume → ${t.volume >= 150 && t.pnl >= -0.01 * t.volume ? 'MET' : 'NOT met'} (≥ −1 % at ≥ 150 USDC)`
      : `capture walk-forward${name}: no strategy reached the volume floor on the first part → NOT met`;
  };
  return {
    lines,
    goal: goalLine(now, CAPTURE_CRITERION.rankBy, ''),
    previous: goalLine(before, PREVIOUS_CRITERION, ` (by ${PREVIOUS_CRITERION}, before 2026-11-29, for comparison)`),
  };
}
