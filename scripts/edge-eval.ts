/**
 * The README's edge figures: each shipped strategy with and without the adverse-selection
 * helper (`toxicity`), evaluated honestly.
 *
 *   node --import tsx scripts/edge-eval.ts capture RECORDING [--split +10m]
 *     walk-forward on a recording (the Polymarket capture): for each strategy and helper setting,
 *     choose the spread parameter on the first part (--to SPLIT) by PnL, then report that choice on
 *     the rest (--from SPLIT): PnL, volume, fills, markouts and the attribution of both parts.
 *   node --import tsx scripts/edge-eval.ts local [--seeds 1,2,3] [--seconds 20] [--rate 12]
 *     the local exchange (noise and informed takers) live: the same six configurations per seed.
 *
 * Prints one JSON object per run and a markdown table at the end.
 */
import { buildBacktestConfig, readYamlDoc } from '../src/backtest/backtest-config.ts';
import { buildSummary, type BacktestSummary } from '../src/backtest/report-summary.ts';
import { loadReplaySource, parseTimeFlag } from '../src/backtest/replay-source.ts';
import { readManifest } from '../src/backtest/recording/reader.ts';
import { runBacktest } from '../src/backtest/run-backtest.ts';
import { parseConfigText } from '../src/config/load-config.ts';
import { silentLogger } from '../src/core/logger.ts';
import { marketAttribution } from '../src/state/edge-view.ts';
import { marketPnl, selectMarketView } from '../src/state/market-view.ts';
import type { Bytes32 } from '../src/model/order.ts';

type Params = Record<string, unknown>;
interface Strategy {
  name: string;
  /** the spread grid chosen on the training part */
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

async function backtest(dir: string, strategy: string, params: Params, win: { from?: number; to?: number }): Promise<BacktestSummary> {
  const doc = (await readYamlDoc('config/backtest.yaml')) as Record<string, unknown>;
  const defaults = { ...(doc.defaults as Record<string, unknown>), strategy: { name: strategy, params } };
  const cfg = await buildBacktestConfig('config/backtest.yaml', { ...doc, defaults }, {}, {});
  const run = await runBacktest({ source: loadReplaySource(dir, win), config: cfg.bot, settings: cfg.settings });
  return buildSummary(run);
}

async function capture(dir: string): Promise<void> {
  const manifest = readManifest(dir);
  const start = manifest.files.find((x) => x.events > 0)!.firstLts;
  const split = parseTimeFlag(flag('--split') ?? '+10m', '--split', start);
  rows.push(
    '| strategy | helper | chosen on train | train PnL | test PnL | test volume | test fills | test markout 1 s / 10 s / 60 s (¢) | test attribution spread / inventory / fees |',
    '|---|---|---|---|---|---|---|---|---|',
  );
  for (const s of STRATEGIES) {
    for (const helper of [false, true]) {
      let best: { label: string; params: Params; pnl: number } | null = null;
      for (const g of s.grid) {
        const params = { ...g.params, toxicity: helper };
        const r = await backtest(dir, s.name, params, { to: split });
        out({ part: 'train', strategy: s.name, helper, choice: g.label, pnl: r.pnl.total, volume: r.volume, fills: r.fills });
        if (!best || r.pnl.total > best.pnl) best = { label: g.label, params, pnl: r.pnl.total };
      }
      const t = await backtest(dir, s.name, best!.params, { from: split });
      const a = t.pnl.attribution;
      out({
        part: 'test',
        strategy: s.name,
        helper,
        choice: best!.label,
        pnl: t.pnl.total,
        volume: t.volume,
        fills: t.fills,
        markouts: t.markouts,
        attribution: a,
        regimes: t.regimes,
      });
      rows.push(
        `| ${s.name} | ${helper ? 'on' : 'off'} | ${best!.label} | ${f2(best!.pnl)} | ${f2(t.pnl.total)} | ${f2(t.volume, 0)} | ${t.fills} | ${f2(t.markouts['1s']?.centsPerShare)} / ${f2(t.markouts['10s']?.centsPerShare)} / ${f2(t.markouts['60s']?.centsPerShare)} | ${f2(a.spreadCapture)} / ${f2(a.inventory)} / ${f2(a.fees)} |`,
      );
    }
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
else if (args[0] === 'local') await local();
else {
  process.stderr.write('usage: edge-eval.ts capture RECORDING [--split +10m] | local [--seeds 1,2,3] [--seconds 20] [--rate 12]\n');
  process.exit(2);
}
process.stdout.write('\n' + rows.join('\n') + '\n');
process.exit(0);
