/**
 * rank-refresh: what one refresh of a `rank:` entry costs against the local exchange over loopback
 * HTTP — wall time, requests and client CPU — with the default settings (top 20, budget 200
 * requests, 4 at once) over 500 active markets whose books the simulated makers fill. Baseline, same
 * run: an `all: true` selection of the same venue (the market list only, newest first, capped at 200).
 * Each shape runs ROUNDS times (RANK_BENCH_ROUNDS, default 5), interleaved; p50 is the headline.
 * Also: the pure choice (score order, hysteresis, capital) over 5 000 scored candidates, µs.
 */
import { parseConfigText } from '../../src/config/load-config.ts';
import { createVenueClient } from '../../src/exchange/venue-client.ts';
import { TESTNET } from '../../src/exchange/chains.ts';
import { selectMarkets } from '../../src/selection/select-markets.ts';
import { Ranker } from '../../src/selection/ranker.ts';
import { chooseRanked } from '../../src/selection/choose.ts';
import { RANK_TERMS } from '../../src/config/types.ts';
import { createLocalExchange } from '../../src/sim/local-exchange.ts';
import { startCounterparties } from '../../src/sim/counterparties.ts';
import { generatedMarketInput } from '../../src/sim/market-factory.ts';
import { percentile, report } from './lib.ts';

const ROUNDS = Number(process.env.RANK_BENCH_ROUNDS ?? 5);
const MARKETS = 500;

const ex = createLocalExchange({
  seed: 3,
  markets: Array.from({ length: MARKETS }, (_, i) => generatedMarketInput(i + 1)),
  apiKeys: [{ key: 'bench', perms: ['read'] }],
  rateLimit: { capacity: 1e9, refillPerSecond: 1e9 },
});
const agents = startCounterparties(ex, { seed: 3 });
const baseUrl = await ex.start(0);
await new Promise((r) => setTimeout(r, 2000)); // the makers' first quotes
const client = createVenueClient({ baseUrl, chain: TESTNET, apiKey: 'bench' });
let requests = 0;
const counted = createVenueClient({ baseUrl, chain: TESTNET, apiKey: 'bench', onResponse: () => void requests++ });
const cfg = (markets: string) => parseConfigText(`venue: { chain: testnet, baseUrl: "${baseUrl}" }\nmarkets:\n${markets}`, 'bench.yaml', { env: {} });
const rank = await cfg('  - rank: {}\n');
const all = await cfg('  - all: true\n');

async function time(f: () => Promise<unknown>): Promise<{ ms: number; cpuMs: number }> {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  await f();
  const c = process.cpuUsage(c0);
  return { ms: performance.now() - t0, cpuMs: (c.user + c.system) / 1000 };
}

const rankMs: number[] = [];
const rankCpu: number[] = [];
const allMs: number[] = [];
let rankRequests = 0;
let selected = 0;
for (let i = 0; i < ROUNDS; i++) {
  const ranker = new Ranker();
  requests = 0;
  const r = await time(async () => (selected = (await selectMarkets(counted, rank.markets, { ranker })).length));
  rankRequests = requests;
  rankMs.push(r.ms);
  rankCpu.push(r.cpuMs);
  allMs.push((await time(() => selectMarkets(client, all.markets, { ranker: new Ranker() }))).ms);
}
agents.stop();
await client.close();
await counted.close();
await ex.close();

// the pure choice over 5 000 candidates
const terms = Object.fromEntries(RANK_TERMS.map((t) => [t, 0.5])) as never;
const cands = Array.from({ length: 5000 }, (_, i) => ({
  id: `0x${i.toString(16).padStart(64, '0')}`,
  score: Math.sin(i) * 2,
  terms,
  status: 'active',
  scored: true,
}));
const previous = new Set(cands.slice(0, 20).map((c) => c.id));
const chooseUs: number[] = [];
for (let i = 0; i < 50; i++) {
  const t0 = performance.now();
  chooseRanked(
    cands,
    { top: 20, minScore: 0, perMarket: 150e6, total: 1500e6, enterMargin: 0.1, minHoldMs: 600_000 },
    { previous, enteredAt: new Map(), nowMs: 0 },
  );
  chooseUs.push((performance.now() - t0) * 1000);
}

const s = (a: number[]) => [...a].sort((x, y) => x - y);
const p50 = percentile(s(rankMs), 0.5);
const base = percentile(s(allMs), 0.5);
report(
  [
    ['markets at the venue', MARKETS],
    ['rank refresh p50, ms', p50],
    ['rank refresh max, ms', Math.max(...rankMs)],
    ['rank refresh client CPU p50, ms', percentile(s(rankCpu), 0.5)],
    ['rank requests per refresh', rankRequests],
    ['markets selected', selected],
    ['all: true selection p50, ms (baseline)', base],
    ['choose over 5 000 candidates p50, µs', percentile(s(chooseUs), 0.5)],
  ],
  {
    name: 'rank-refresh',
    unit: 'ms',
    value: p50,
    p50,
    baseline: 'all: true selection (market list only)',
    baselineValue: base,
    ratio: p50 / base,
    requests: rankRequests,
    chooseP50Us: percentile(s(chooseUs), 0.5),
  },
);
