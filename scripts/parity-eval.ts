/**
 * Live-versus-backtest parity on a longer run: the bot trades live on the in-process local
 * exchange (bands, 2 markets, simulated noise and informed takers) while the recorder captures the
 * same markets — the public stream and the venue's drop copy (the others' book, the taker orders, the
 * bot's own quotes and fills: src/sim/flow-tap.ts) — and the recording is then backtested with the
 * same config, twice: from the drop copy (the replay this script measures) and, for comparison, from
 * the public stream alone (the old replay). Prints, per seed and summed over the seeds, fills,
 * volume, PnL and its attribution for the live run and each backtest, the gaps, and how many of the
 * live fills (the venue's own record of them) the backtest reproduced (same market, side and price
 * within 300 ms).
 *
 * The drop-copy backtest is also run with the latency the live bot measured on itself (its
 * tick-to-wire and order round-trip metrics) instead of the config's 2 ms, and with other seeds of the backtest's own randomness (the sampled
 * feed delays: `--replay-seeds 2,3`): how far those replays of the same recording fall from each
 * other is the measure of how sensitive the run is to millisecond timing, against which the
 * live-versus-backtest gap is to be read.
 *
 *   node --import tsx scripts/parity-eval.ts [--seconds 180] [--seeds 5,6,7] [--replay-seeds 2,3] [--fill-poll-ms 1000] [--keep DIR]
 *
 * The last line is one JSON object with every figure.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseDocument } from 'yaml';
import { parseConfigText } from '../src/config/load-config.ts';
import { silentLogger } from '../src/core/logger.ts';
import { startRecorder } from '../src/backtest/recorder.ts';
import { buildBacktestConfig } from '../src/backtest/backtest-config.ts';
import { readEvents } from '../src/backtest/recording/reader.ts';
import { loadReplaySource } from '../src/backtest/replay-source.ts';
import { runBacktest, type BacktestRun } from '../src/backtest/run-backtest.ts';
import { buildSummary } from '../src/backtest/report-summary.ts';
import { marketAttribution } from '../src/state/edge-view.ts';
import { startBot } from '../src/runtime/bot.ts';
import { parityBacktestYaml, parityBotYaml } from '../test/backtest/parity-configs.ts';

const args = process.argv.slice(2);
const flag = (k: string, d: string): string => {
  const i = args.indexOf(k);
  return i >= 0 && args[i + 1] !== undefined ? args[i + 1]! : d;
};
const seconds = Number(flag('--seconds', '180'));
const seeds = flag('--seeds', flag('--seed', '5'))
  .split(',')
  .map((x) => Number(x.trim()));
const fillPollMs = Number(flag('--fill-poll-ms', '1000'));
/** keep each recording under DIR/seed-N (for inspection) instead of deleting it */
const keep = flag('--keep', '');
const replaySeeds = flag('--replay-seeds', '2,3')
  .split(',')
  .filter((x) => x.trim() !== '')
  .map((x) => Number(x.trim()));
if (!(seconds > 0) || seeds.some((x) => !Number.isSafeInteger(x)) || replaySeeds.some((x) => !Number.isSafeInteger(x) || x < 0) || !(fillPollMs >= 0)) {
  process.stderr.write('usage: parity-eval.ts [--seconds N] [--seeds 5,6,7] [--replay-seeds 2,3] [--fill-poll-ms 1000]\n');
  process.exit(2);
}

const config = (seed: number): string => parityBotYaml(`seed: ${seed}, markets: 2, tick: 0.01, agents: { makers: 1 }`);
const BACKTEST = parityBacktestYaml(fillPollMs);

interface Attribution {
  spreadCapture: number;
  inventory: number;
  fees: number;
  resolution: number;
}
interface Side {
  fills: number;
  /** USDC in the orders' own terms (a YES-terms sale is p per share as a YES sale, 1 − p as a NO buy) */
  volume: number;
  /** shares filled: the volume measure that does not depend on which outcome an order was sent in */
  shares: number;
  pnl: number;
  /** the bot's own store: mids as the bot saw them when it heard of each fill (the live definition) */
  attribution: Attribution;
  /** backtests: the exchange's record, each fill against the mid just before it at the venue */
  attributionAtFill?: Attribution;
}
interface Fill {
  t: number;
  m: string;
  bid: boolean;
  p: number;
  s: number;
}

const usd = (x: bigint): number => Number(x) / 1e6;
const pct = (a: number, b: number): string => (b === 0 ? '–' : `${(((a - b) / Math.abs(b)) * 100).toFixed(1)} %`);

/** The attribution the bot's own store holds (what live reports), summed over markets, in USDC. */
function storeAttribution(markets: Iterable<Parameters<typeof marketAttribution>[0]>): Attribution & { total: bigint } {
  const a = { spread: 0n, inventory: 0n, fees: 0n, resolution: 0n, total: 0n };
  for (const m of markets) {
    const x = marketAttribution(m);
    a.spread += x.spreadCapture;
    a.inventory += x.inventory;
    a.fees += x.fees;
    a.resolution += x.resolution;
    a.total += x.total;
  }
  return { spreadCapture: usd(a.spread), inventory: usd(a.inventory), fees: usd(a.fees), resolution: usd(a.resolution), total: a.total };
}

function backtestSide(run: BacktestRun): Side {
  const s = buildSummary(run);
  const { total: _t, ...attribution } = storeAttribution(run.store.state.markets.values());
  const shares = run.collector.fills.reduce((a, f) => a + f.size, 0) / 1e6;
  return { fills: s.fills, volume: s.volume, shares, pnl: s.pnl.total, attribution, attributionAtFill: s.pnl.attribution };
}

/** Live fills (the venue's record) the backtest reproduced: same market, side and price within 300 ms. */
function matched(live: readonly Fill[], run: BacktestRun): { fills: number; shares: number } {
  const bt: Fill[] = run.collector.fills.map((f) => ({ t: f.at, m: f.marketId.toLowerCase(), bid: f.yesSide === 'bid', p: f.yesPrice, s: f.size }));
  const used = new Set<number>();
  let fills = 0;
  let shares = 0;
  for (const l of live) {
    const k = bt.findIndex((b, i) => !used.has(i) && b.m === l.m && b.bid === l.bid && b.p === l.p && Math.abs(b.t - l.t) <= 300);
    if (k < 0) continue;
    used.add(k);
    fills++;
    shares += Math.min(l.s, bt[k]!.s);
  }
  return { fills, shares: shares / 1e6 };
}

/**
 * The live bot's own latencies, from its metrics: mean tick-to-wire (event to signed request written)
 * and mean round trip of its order calls (POST), in ms.
 */
async function measuredLatency(bot: Awaited<ReturnType<typeof startBot>>): Promise<{ tickToWireMs: number; postMs: number }> {
  const mean = (
    values: readonly { metricName?: string; labels: Partial<Record<string, string | number>>; value: number }[],
    keep: (l: Partial<Record<string, string | number>>) => boolean,
  ): number => {
    let sum = 0;
    let count = 0;
    for (const v of values) {
      if (!keep(v.labels)) continue;
      if (v.metricName?.endsWith('_sum')) sum += v.value;
      else if (v.metricName?.endsWith('_count')) count += v.value;
    }
    return count > 0 ? (sum / count) * 1000 : 0;
  };
  const api = await bot.metrics.apiLatency.get();
  const t2w = await bot.metrics.tickToWire.get();
  return { tickToWireMs: Number(mean(t2w.values, () => true).toFixed(3)), postMs: Number(mean(api.values, (l) => l.method === 'POST').toFixed(3)) };
}

const results: Record<string, unknown>[] = [];
const sum = {
  live: { fills: 0, volume: 0, shares: 0, pnl: 0 },
  exact: { fills: 0, volume: 0, shares: 0, pnl: 0 },
  cal: { fills: 0, volume: 0, shares: 0, pnl: 0 },
  stream: { fills: 0, volume: 0, shares: 0, pnl: 0 },
  replayMean: { fills: 0, volume: 0, pnl: 0 },
  venueFills: 0,
  matchedExact: 0,
  matchedStream: 0,
};
for (const seed of seeds) {
  const out = keep ? join(keep, `seed-${seed}`) : mkdtempSync(join(tmpdir(), 'bookmaker-parity-eval-'));
  try {
    const text = config(seed);
    const cfg = await parseConfigText(text, 'parity.yaml', { env: {} });
    const bot = await startBot({ config: cfg, logger: silentLogger, metricsPort: 0, env: {} });
    const rec = await startRecorder({
      baseUrl: bot.baseUrl,
      markets: bot.markets,
      out,
      oraclePollMs: 60_000,
      flow: { tap: bot.localExchange!.tapFlow, exclude: bot.trader },
    });
    await new Promise((r) => setTimeout(r, seconds * 1000));
    const latency = await measuredLatency(bot);
    const code = await bot.stop();
    await rec.stop();
    let volume = 0n;
    for (const m of bot.store.state.markets.values()) volume += m.position.volume;
    const { total, ...attribution } = storeAttribution(bot.store.state.markets.values());
    const venueFills: Fill[] = [];
    for (const e of readEvents(out)) if (e.t === 'ownfill') venueFills.push({ t: e.vts, m: e.m.toLowerCase(), bid: e.side === 'buy', p: e.p, s: e.s });
    // fills as the venue booked them (the bot's own count merges the fills one poll saw of an order)
    // the risk gate's denials by reason: the live store's count against the backtest's
    const liveDenials: Record<string, number> = {};
    for (const m of bot.store.state.markets.values()) for (const [k, n] of m.denials) liveDenials[k] = (liveDenials[k] ?? 0) + n;
    const liveSide: Side = {
      fills: venueFills.length,
      volume: Number(volume / 1_000_000n) / 1e6,
      shares: venueFills.reduce((a, f) => a + f.s, 0) / 1e6,
      pnl: usd(total),
      attribution,
    };
    const bt = await buildBacktestConfig('parity.yaml', parseDocument(text + BACKTEST).toJS() as Record<string, unknown>, {}, {});
    const exactRun = await runBacktest({ source: loadReplaySource(out), config: bt.bot, settings: bt.settings });
    const streamRun = await runBacktest({ source: loadReplaySource(out), config: bt.bot, settings: bt.settings, ignoreDropCopy: true });
    const exact = backtestSide(exactRun);
    const stream = backtestSide(streamRun);
    // the same recording replayed with other seeds of the backtest's sampled delays
    const spread = [{ seed: bt.settings.seed, fills: exact.fills, volume: exact.volume, pnl: exact.pnl }];
    for (const rs of replaySeeds) {
      const run = await runBacktest({ source: loadReplaySource(out), config: bt.bot, settings: { ...bt.settings, seed: rs } });
      const b = backtestSide(run);
      spread.push({ seed: rs, fills: b.fills, volume: b.volume, pnl: b.pnl });
    }
    const mean = (k: 'fills' | 'volume' | 'pnl'): number => spread.reduce((a, x) => a + x[k], 0) / spread.length;
    const replaySpread = {
      runs: spread,
      mean: { fills: mean('fills'), volume: Number(mean('volume').toFixed(4)), pnl: Number(mean('pnl').toFixed(6)) },
      gapsOfMean: { fills: pct(mean('fills'), liveSide.fills), volume: pct(mean('volume'), liveSide.volume), pnl: pct(mean('pnl'), liveSide.pnl) },
      range: {
        fills: [Math.min(...spread.map((x) => x.fills)), Math.max(...spread.map((x) => x.fills))],
        volume: [Math.min(...spread.map((x) => x.volume)), Math.max(...spread.map((x) => x.volume))],
        pnl: [Math.min(...spread.map((x) => x.pnl)), Math.max(...spread.map((x) => x.pnl))],
      },
    };
    // the same drop-copy replay with the latency the live bot measured on itself: entry = tick-to-wire +
    // half a round trip, response = half a round trip
    const calibrated = {
      ...bt.settings,
      latency: { ...bt.settings.latency, entryMs: latency.tickToWireMs + latency.postMs / 2, responseMs: latency.postMs / 2 },
    };
    const calRun = await runBacktest({ source: loadReplaySource(out), config: bt.bot, settings: calibrated });
    const cal = backtestSide(calRun);
    const mE = matched(venueFills, exactRun);
    const mS = matched(venueFills, streamRun);
    const gaps = (b: Side) => ({
      fills: pct(b.fills, liveSide.fills),
      volume: pct(b.volume, liveSide.volume),
      shares: pct(b.shares, liveSide.shares),
      pnl: pct(b.pnl, liveSide.pnl),
      pnlUsdc: Number((b.pnl - liveSide.pnl).toFixed(6)),
    });
    const r = {
      seed,
      seconds,
      stopCode: code,
      venueFills: venueFills.length,
      live: { ...liveSide, denials: liveDenials },
      dropCopy: {
        ...exact,
        gaps: gaps(exact),
        liveFillsReproduced: mE,
        replaySpread,
        denials: exactRun.diagnostics.denials,
        pulls: exactRun.diagnostics.pulls,
      },
      dropCopyMeasuredLatency: {
        latency,
        entryMs: calibrated.latency.entryMs,
        responseMs: calibrated.latency.responseMs,
        ...cal,
        gaps: gaps(cal),
        liveFillsReproduced: matched(venueFills, calRun),
      },
      streamOnly: { ...stream, gaps: gaps(stream), liveFillsReproduced: mS },
    };
    results.push(r);
    process.stdout.write(JSON.stringify(r) + '\n');
    for (const [k, v] of [
      ['live', liveSide],
      ['exact', exact],
      ['cal', cal],
      ['stream', stream],
    ] as const) {
      sum[k].fills += v.fills;
      sum[k].volume += v.volume;
      sum[k].shares += v.shares;
      sum[k].pnl += v.pnl;
    }
    sum.replayMean.fills += replaySpread.mean.fills;
    sum.replayMean.volume += replaySpread.mean.volume;
    sum.replayMean.pnl += replaySpread.mean.pnl;
    sum.venueFills += venueFills.length;
    sum.matchedExact += mE.fills;
    sum.matchedStream += mS.fills;
  } finally {
    if (!keep) rmSync(out, { recursive: true, force: true });
  }
}
const total = {
  seeds,
  seconds,
  live: sum.live,
  dropCopy: {
    ...sum.exact,
    gaps: {
      fills: pct(sum.exact.fills, sum.live.fills),
      volume: pct(sum.exact.volume, sum.live.volume),
      shares: pct(sum.exact.shares, sum.live.shares),
      pnl: pct(sum.exact.pnl, sum.live.pnl),
    },
    liveFillsReproduced: sum.matchedExact,
  },
  dropCopyMeasuredLatency: {
    ...sum.cal,
    gaps: {
      fills: pct(sum.cal.fills, sum.live.fills),
      volume: pct(sum.cal.volume, sum.live.volume),
      shares: pct(sum.cal.shares, sum.live.shares),
      pnl: pct(sum.cal.pnl, sum.live.pnl),
    },
  },
  dropCopyMeanOverReplaySeeds: {
    ...sum.replayMean,
    gaps: { fills: pct(sum.replayMean.fills, sum.live.fills), volume: pct(sum.replayMean.volume, sum.live.volume), pnl: pct(sum.replayMean.pnl, sum.live.pnl) },
  },
  streamOnly: {
    ...sum.stream,
    gaps: {
      fills: pct(sum.stream.fills, sum.live.fills),
      volume: pct(sum.stream.volume, sum.live.volume),
      shares: pct(sum.stream.shares, sum.live.shares),
      pnl: pct(sum.stream.pnl, sum.live.pnl),
    },
    liveFillsReproduced: sum.matchedStream,
  },
  venueFills: sum.venueFills,
};
process.stdout.write(JSON.stringify({ total, runs: results }) + '\n');
process.exit(0);
