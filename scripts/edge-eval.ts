/**
 * The README's edge figures: each shipped strategy with and without the adverse-selection
 * helper (`toxicity`), evaluated honestly.
 *
 *   node --import tsx scripts/edge-eval.ts capture RECORDING [--split 50%] [--min-volume 75] [--workers 2]
 *     walk-forward on a recording (the Polymarket capture), the edge bench's
 *     (test/bench/capture-walk-forward.ts): for each of the six strategies a grid (the market makers:
 *     spread, size, inventory limit, skew, guard and flow lean; follow: its sweep and size), chosen on
 *     the first part by the lower end of the 95 % interval of PnL per volume (volume floor), scored on
 *     the rest; the best strategy chosen on the first part too; beside it the choice by PnL per volume alone. For one strategy
 *     and a grid of your own: `bookmaker backtest --sweep GRID --walk-forward 50%`.
 *   node --import tsx scripts/edge-eval.ts capture-grid RECORDING [--split 50%] [--workers 2]
 *     every combination of every strategy's capture grid run on both parts (a distribution, not a
 *     choice: nothing here chooses): how well each criterion's first-part score ranks the second
 *     part's PnL % of volume (Spearman's rank correlation over the runs at the volume floor), and how
 *     the best 10 by each criterion did in the second part (and which they are).
 *   node --import tsx scripts/edge-eval.ts local [--seeds 1,2,3] [--seconds 20] [--rate 12]
 *     the local exchange (noise and informed takers) live: the same six configurations per seed.
 *
 * local: prints one JSON object per run and a markdown table at the end; capture: the table and the goal.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseConfigText } from '../src/config/load-config.ts';
import { silentLogger } from '../src/core/logger.ts';
import { marketAttribution } from '../src/state/edge-view.ts';
import { marketPnl, selectMarketView } from '../src/state/market-view.ts';
import type { Bytes32 } from '../src/model/order.ts';
import { loadReplaySource } from '../src/backtest/replay-source.ts';
import { runSweep } from '../src/backtest/run-sweep.ts';
import { rankScore, type RankBy } from '../src/backtest/sweep-grid.ts';
import { parseSplit } from '../src/backtest/walk-forward.ts';
import { CAPTURE_CRITERION, captureGrid, captureSpec, captureWalkForward, PREVIOUS_CRITERION, STRATEGY_EXAMPLES } from '../test/bench/capture-walk-forward.ts';

type Params = Record<string, unknown>;
interface Strategy {
  name: string;
  /** the spread grid (local: its second value is run) */
  grid: { label: string; params: Params }[];
}

const STRATEGIES: Strategy[] = [
  {
    name: 'bands',
    grid: [0.01, 0.02, 0.03, 0.05].map((m) => ({
      label: `targetMargin ${m}`,
      params: { fair: 'mid', bands: [{ minMargin: m / 2, targetMargin: m, maxMargin: m * 1.5, size: 25 }] },
    })),
  },
  {
    name: 'avellaneda',
    grid: [0.02, 0.04, 0.06, 0.08].map((s) => ({
      label: `minSpread ${s}`,
      params: { fair: 'mid', gamma: 0.5, k: 150, inventoryUnit: 50, minSpread: s, maxSpread: 0.2, size: 25 },
    })),
  },
  { name: 'oracle-anchored', grid: [0.01, 0.02, 0.03, 0.04].map((h) => ({ label: `halfSpread ${h}`, params: { halfSpread: h, size: 25 } })) },
];

const args = process.argv.slice(2);
const flag = (k: string): string | undefined => {
  const i = args.indexOf(k);
  return i >= 0 ? args[i + 1] : undefined;
};
const rows: string[] = [];
const out = (o: object) => process.stdout.write(JSON.stringify(o) + '\n');
const f2 = (x: number | null | undefined, d = 2) => (x === null || x === undefined ? '–' : x.toFixed(d));

async function capture(dir: string): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'bookmaker-edge-eval-'));
  try {
    const wf = await captureWalkForward({
      dir,
      params: STRATEGY_EXAMPLES,
      strategies: Object.keys(STRATEGY_EXAMPLES),
      baseConfig: readFileSync('config/backtest.yaml', 'utf8'),
      strategyBlock: /defaults:\n  strategy:\n(?: {4}.*\n)+/,
      work,
      split: flag('--split') ?? '50%',
      minVolume: Number(flag('--min-volume') ?? 75),
      workers: Number(flag('--workers') ?? 2),
      onStrategy: (s, runs) => process.stderr.write(`${s}: ${runs} runs\n`),
    });
    rows.push(...wf.lines, '', wf.goal, wf.previous);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** Ranks (1 = smallest), ties averaged. */
function ranks(xs: readonly number[]): number[] {
  const idx = xs.map((x, i) => [x, i] as const).sort((a, b) => a[0] - b[0]);
  const r = new Array<number>(xs.length);
  for (let i = 0; i < idx.length; ) {
    let j = i;
    while (j + 1 < idx.length && idx[j + 1]![0] === idx[i]![0]) j++;
    for (let k = i; k <= j; k++) r[idx[k]![1]] = (i + j) / 2 + 1;
    i = j + 1;
  }
  return r;
}

function spearman(a: readonly number[], b: readonly number[]): number {
  const ra = ranks(a);
  const rb = ranks(b);
  const n = a.length;
  const ma = ra.reduce((x, y) => x + y, 0) / n;
  const mb = rb.reduce((x, y) => x + y, 0) / n;
  let sab = 0;
  let saa = 0;
  let sbb = 0;
  for (let i = 0; i < n; i++) {
    sab += (ra[i]! - ma) * (rb[i]! - mb);
    saa += (ra[i]! - ma) ** 2;
    sbb += (rb[i]! - mb) ** 2;
  }
  return sab / Math.sqrt(saa * sbb);
}

async function captureGridEval(dir: string): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'bookmaker-edge-eval-'));
  try {
    const all = loadReplaySource(dir);
    const sp = parseSplit(flag('--split') ?? '50%', dir, {}, all.cols.lts[all.rows[0]!]!);
    const workers = Number(flag('--workers') ?? 2);
    const base = readFileSync('config/backtest.yaml', 'utf8');
    const { minVolume } = CAPTURE_CRITERION;
    const pairs: { s: string; index: number; first: Record<RankBy, number>; pct: number; volume: number }[] = [];
    for (const s of Object.keys(STRATEGY_EXAMPLES)) {
      const cfg = join(work, `grid-${s}.yaml`);
      writeFileSync(
        cfg,
        base.replace(/defaults:\n  strategy:\n(?: {4}.*\n)+/, `defaults:\n  strategy:\n    name: ${s}\n    params: ${STRATEGY_EXAMPLES[s]!}\n`),
      );
      const spec = captureSpec(captureGrid(s), minVolume);
      const first = await runSweep({ configFile: cfg, data: dir, from: sp.from, to: sp.split, spec, workers });
      const second = await runSweep({ configFile: cfg, data: dir, from: sp.split, to: sp.to, spec, workers });
      for (const f of first) {
        const b = second.find((x) => x.index === f.index);
        if (!f.summary || f.summary.volume < minVolume || !b?.summary || !(b.summary.volume > 0)) continue;
        pairs.push({
          s,
          index: f.index,
          first: { [CAPTURE_CRITERION.rankBy]: rankScore(f, CAPTURE_CRITERION.rankBy), [PREVIOUS_CRITERION]: rankScore(f, PREVIOUS_CRITERION) } as Record<
            RankBy,
            number
          >,
          pct: (b.summary.pnl.total / b.summary.volume) * 100,
          volume: b.summary.volume,
        });
      }
      process.stderr.write(`${s}: ${first.length} × 2 runs\n`);
    }
    const meets = (p: { pct: number; volume: number }) => p.volume >= 150 && p.pct >= -1;
    const tops: string[] = [];
    rows.push(
      `capture grid, split ${flag('--split') ?? '50%'}: ${pairs.length} combinations at the first part's floor (${minVolume} USDC), all strategies; ${pairs.filter(meets).length} meet the goal in the second part`,
      '| criterion | Spearman (first-part score, second-part PnL % of volume) | best 10: mean second-part % | best 10: meet the goal |',
      '|---|---|---|---|',
    );
    for (const by of [CAPTURE_CRITERION.rankBy, PREVIOUS_CRITERION]) {
      const ok = pairs.filter((p) => Number.isFinite(p.first[by]));
      const top = [...ok].sort((a, b) => b.first[by] - a.first[by]).slice(0, 10);
      rows.push(
        `| ${by} | ${spearman(
          ok.map((p) => p.first[by]),
          ok.map((p) => p.pct),
        ).toFixed(3)} (${ok.length}) | ${f2(top.reduce((a, p) => a + p.pct, 0) / top.length)} % | ${top.filter(meets).length} of ${top.length} |`,
      );
      tops.push(
        `best 10 by ${by} (strategy #grid index: first-part score %, second part % of volume on USDC): ${top
          .map((p) => `${p.s} #${p.index}: ${f2(p.first[by] * 100)}, ${f2(p.pct)} on ${p.volume.toFixed(0)}`)
          .join('; ')}`,
      );
    }
    rows.push('', ...tops);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

async function local(): Promise<void> {
  const seeds = (flag('--seeds') ?? '1,2,3').split(',').map(Number);
  const seconds = Number(flag('--seconds') ?? 20);
  const rate = Number(flag('--rate') ?? 12);
  const { startBot } = await import('../src/runtime/bot.ts');
  rows.push(
    '| seed | strategy | helper | PnL | volume | fills | markout 1 s / 5 s / 10 s (¢) | spread / inventory / fees |',
    '|---|---|---|---|---|---|---|---|',
  );
  const mid = (s: Strategy) => s.grid[1]!;
  for (const seed of seeds) {
    for (const s of STRATEGIES) {
      for (const helper of [false, true]) {
        const params: Params = { ...mid(s).params, toxicity: helper };
        if (s.name === 'bands') params.bands = [{ ...(mid(s).params.bands as Params[])[0]!, size: 10 }];
        else params.size = 10;
        const yaml = `
venue:
  local: { seed: ${seed}, markets: 2, tick: 0.01, agents: { noiseTakers: 3, informedTakers: 2, makers: 1, takerRatePerSecond: ${rate} } }
defaults:
  strategy: { name: ${s.name}, params: ${JSON.stringify(Object.fromEntries(Object.entries(params).filter(([, v]) => v !== undefined)))} }
  risk: { maxPosition: 300, maxNotional: 250 }
markets: all
orders: { requoteIntervalSeconds: 0.25 }
edge: { markoutHorizonsSeconds: [1, 5, 10, 30] }
metrics: { port: 0 }
logging: { level: warn }
`;
        const cfg = await parseConfigText(yaml, `local-${seed}.yaml`, { env: {} });
        const bot = await startBot({ config: cfg, logger: silentLogger, metricsPort: 0, env: {} });
        await new Promise((r) => setTimeout(r, seconds * 1000));
        const now = Date.now();
        let pnl = 0n;
        let vol = 0n;
        let fills = 0;
        const attr = { s: 0n, i: 0n, f: 0n };
        const mk = new Map<number, { e: number; n: number }>();
        for (const m of bot.store.state.markets.values()) {
          const p = marketPnl(m);
          pnl += p.realised + p.unrealised;
          vol += m.position.volume;
          fills += m.position.fills;
          const a = marketAttribution(m);
          attr.s += a.spreadCapture;
          attr.i += a.inventory;
          attr.f += a.fees;
          const v = selectMarketView(bot.store.state, m.marketId as Bytes32, now)!;
          for (const k of v.edge!.markouts) {
            if (k.perShare === null) continue;
            const cur = mk.get(k.horizonMs) ?? { e: 0, n: 0 };
            const sh = m.edge.markouts[v.edge!.markouts.indexOf(k)]!.size;
            mk.set(k.horizonMs, { e: cur.e + k.perShare * sh, n: cur.n + sh });
          }
        }
        await bot.stop();
        const c = (h: number) => (mk.get(h) && mk.get(h)!.n > 0 ? mk.get(h)!.e / mk.get(h)!.n / 10_000 : null);
        const usd = (x: bigint) => Number(x) / 1e6;
        out({
          seed,
          strategy: s.name,
          helper,
          pnl: usd(pnl),
          volume: Number(vol / 1_000_000n) / 1e6,
          fills,
          markouts: { '1s': c(1000), '5s': c(5000), '10s': c(10000) },
          attribution: { spreadCapture: usd(attr.s), inventory: usd(attr.i), fees: usd(attr.f) },
        });
        rows.push(
          `| ${seed} | ${s.name} | ${helper ? 'on' : 'off'} | ${f2(usd(pnl))} | ${f2(Number(vol / 1_000_000n) / 1e6, 0)} | ${fills} | ${f2(c(1000))} / ${f2(c(5000))} / ${f2(c(10000))} | ${f2(usd(attr.s))} / ${f2(usd(attr.i))} / ${f2(usd(attr.f))} |`,
        );
      }
    }
  }
}

if (args[0] === 'capture' && args[1]) await capture(args[1]);
else if (args[0] === 'capture-grid' && args[1]) await captureGridEval(args[1]);
else if (args[0] === 'local') await local();
else {
  process.stderr.write(
    'usage: edge-eval.ts capture RECORDING [--split 50%] [--min-volume 75] [--workers 2] | capture-grid RECORDING [--split 50%] [--workers 2] | local [--seeds 1,2,3] [--seconds 20] [--rate 12]\n',
  );
  process.exit(2);
}
process.stdout.write('\n' + rows.join('\n') + '\n');
process.exit(0);
