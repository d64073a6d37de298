/**
 * store-books: the store's side of book snapshots, this tree against a base tree in one process.
 * 16,000 YES snapshots over 6 markets (one every 300 ms, the mid moving, so every market takes a
 * mid sample at nearly every snapshot: the mid history at its bound of 120), each reduced into the
 * store; every third one read back as that market's view and its volatility (viewSigma). CPU time
 * (process.cpuUsage) of each round, the two trees' rounds alternated, so the machine's load falls on
 * both alike; the figure is the median of the pairs' ratios.
 *
 *   npm run bench -- store-books --base DIR [--rounds N]
 *
 * DIR is a checkout with the same module layout (src/state/reduce.ts, market-state.ts,
 * market-view.ts, src/strategy/volatility.ts).
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { report } from './lib.ts';

const argOf = (name: string): string | undefined => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
const baseDir = argOf('base');
if (baseDir === undefined) {
  process.stderr.write('store-books: --base DIR (a checkout to compare against) is required\n');
  process.exit(2);
}
const ROUNDS = Math.max(2, Number(argOf('rounds') ?? 20));

interface Tree {
  reduce: (s: unknown, e: unknown, lim: unknown) => unknown;
  limits: unknown;
  emptyState: () => unknown;
  view: (s: unknown, id: string, now: number) => unknown;
  sigma: (v: unknown, o: { lambda: number; minSigma: number }) => number;
}

async function load(dir: string): Promise<Tree> {
  const at = (p: string) => import(pathToFileURL(resolve(dir, p)).href);
  const r = await at('src/state/reduce.ts');
  const ms = await at('src/state/market-state.ts');
  const mv = await at('src/state/market-view.ts');
  const vol = await at('src/strategy/volatility.ts');
  return { reduce: r.reduce, limits: r.DEFAULT_LIMITS, emptyState: ms.emptyState, view: mv.selectMarketView, sigma: vol.viewSigma };
}

const ours = await load(new URL('../..', import.meta.url).pathname);
const base = await load(baseDir);

const ids = Array.from({ length: 6 }, (_, i) => '0x' + (i * 104_729 + 17).toString(16).padStart(64, '0'));
const CENT = 10_000;
const SHARE = 1_000_000;
const events = Array.from({ length: 16_000 }, (_, n) => {
  const ts = 1_700_000_000_000 + n * 300;
  const mid = 50 + ((n * 7919) % 7) - 3;
  const book = {
    marketId: ids[n % 6]!,
    outcomeIndex: 1,
    bids: [{ price: (mid - 1) * CENT, size: 100 * SHARE }],
    asks: [{ price: (mid + 1) * CENT, size: 100 * SHARE }],
    venueTs: ts,
  };
  return { type: 'BookEventReceived', event: { type: 'snapshot', book, seq: ts, localTs: ts, source: 'stream' }, ts };
});

/** CPU ms of one round. */
function round(t: Tree): number {
  const t0 = process.cpuUsage();
  let s = t.emptyState();
  let acc = 0;
  for (let i = 0; i < events.length; i++) {
    const e = events[i]!;
    s = t.reduce(s, e, t.limits);
    if (i % 3 === 0) acc += t.sigma(t.view(s, ids[i % 6]!, e.ts), { lambda: 0.94, minSigma: 0 });
  }
  const d = process.cpuUsage(t0);
  if (!(acc > 0)) throw new Error('store-books: no volatility read');
  return (d.user + d.system) / 1000;
}

const a: number[] = [];
const b: number[] = [];
for (let k = 0; k < ROUNDS; k++) {
  // alternate which tree goes first, so neither always runs right after the other's garbage
  if (k % 2 === 0) {
    a.push(round(ours));
    b.push(round(base));
  } else {
    b.push(round(base));
    a.push(round(ours));
  }
}
const least = (x: number[]) => Math.min(...x);
const ratios = a.map((v, i) => v / b[i]!).sort((p, q) => p - q);
const median = ratios[ratios.length >> 1]!;
const r2 = (v: number) => Math.round(v * 100) / 100;
const r3 = (v: number) => Math.round(v * 1000) / 1000;
report(
  [
    ['rounds (alternated, one process)', String(ROUNDS)],
    ['this tree: CPU ms a round (least)', r2(least(a))],
    ['base tree: CPU ms a round (least)', r2(least(b))],
    ['ratio this / base (median of pairs)', r3(median)],
    ['pair ratios, sorted', ratios.map((v) => v.toFixed(3)).join(' ')],
  ],
  {
    name: 'store-books',
    unit: 'CPU ms per 16,000 book snapshots reduced and read (least)',
    value: r2(least(a)),
    baseline: `the base tree (${baseDir}), same process, rounds alternated`,
    baselineValue: r2(least(b)),
    ratio: r3(median),
  },
);
