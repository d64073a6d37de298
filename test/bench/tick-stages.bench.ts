/**
 * tick-stages: what each stage of the tick-to-wire path costs on its own, on the inputs of
 * the tick-to-wire bench's tick (a 2-level book whose mid moves 3¢, the bands strategy with 2 bands a
 * side, 4 resting quotes that all move: 4 cancels signed ahead + 4 creates signed on the tick):
 *
 *   reduce     the store applies the book event (a new snapshot of the market)
 *   view       selectMarketView: the strategy's MarketView of the new state
 *   strategy   bands quote()
 *   risk       the risk gate (applyRisk) on the strategy's quotes
 *   to-orders  quotes → venue orders in slots, sells reserved (desiredWithReservedSells)
 *   diff       the order manager's diff against the 4 resting orders + the call plan
 *   nonces     4 fresh order nonces
 *   sign       4 creates signed (EIP-712 digest + native libsecp256k1, with ECDSA nonces computed ahead)
 *   sign-ahead (idle)  the 4 nonces computed ahead, in idle time between ticks (not in the sum)
 *   serialise  JSON.stringify of the bulk request (4 cancels + 4 creates)
 *   write      the request's bytes written to a loopback TCP socket (the syscall the transport makes)
 *
 * Each stage runs alone in a loop (the other stages' inputs computed once, ahead); the figure is the
 * median of 9 rounds of the mean CPU µs per call (process CPU time: the loopback sink's reads count
 * in the write stage). The sum is less than tick-to-wire's p50: what is left is
 * the kernel and order manager around the stages (events into the store, entries, promises).
 * `--base DIR`: the same stages from another checkout (with node_modules) in the same process, round
 * by round alternated, with the ratio base/this per stage.
 *
 *   npm run bench -- tick-stages [--base DIR] [--rounds 9]
 */
import { existsSync } from 'node:fs';
import { createConnection, createServer, type Socket } from 'node:net';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { inTree, report } from './lib.ts';
import { twoBands, unboundedRisk } from '../support/quoting.ts';
import { bookSnapshot } from '../support/stub-orders-client.ts';
import type { Bytes32 } from '../../src/model/order.ts';

const argOf = (name: string): string | undefined => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
const baseDir = argOf('base');
if (baseDir !== undefined && !existsSync(resolve(baseDir, inTree(baseDir, 'src/kernel/quoting-kernel.ts')))) {
  process.stderr.write('tick-stages: --base DIR must be a checkout of this project with node_modules\n');
  process.exit(2);
}
const ROUNDS = Number(argOf('rounds') ?? 9);
const here = resolve(new URL('../..', import.meta.url).pathname);
const M = '0x' + 'ab'.repeat(32);
const KEY = '0x' + '11'.repeat(32);

/** a tree's modules, typed only by use */
type Mod = any;
const load = (root: string, path: string): Promise<Mod> => import(pathToFileURL(resolve(root, inTree(root, path))).href);

/** `prepare` runs untimed before a timed loop; an `idle` stage is work done between ticks, not in the sum */
type Stage = { name: string; iters: number; run: () => void; prepare?: (iters: number) => void; idle?: boolean };

async function stagesOf(root: string, sink: Socket): Promise<Stage[]> {
  const [
    { default: bands },
    { DEFAULT_RISK },
    { TESTNET },
    { createSigner },
    { StateStore },
    { selectMarketView },
    { applyRisk },
    { INITIAL_RISK_STATE },
    { desiredWithReservedSells },
    { diff },
    { planCalls },
    { NonceSource },
  ] = await Promise.all([
    load(root, 'strategies/bands/index.ts'),
    load(root, 'src/config/parse-risk.ts'),
    load(root, 'src/exchange/chains.ts'),
    load(root, 'src/exchange/signing/signer.ts'),
    load(root, 'src/state/store.ts'),
    load(root, 'src/state/market-view.ts'),
    load(root, 'src/risk/apply-risk.ts'),
    load(root, 'src/risk/types.ts'),
    load(root, 'src/orders/sell-reserve.ts'),
    load(root, 'src/orders/diff.ts'),
    load(root, 'src/orders/plan-calls.ts'),
    load(root, 'src/orders/nonces.ts'),
  ]);
  const params = bands.parseConfig(twoBands(), 'bench');
  const risk = unboundedRisk(DEFAULT_RISK);
  const signer = createSigner({ privateKey: KEY, chain: TESTNET, pure: false });
  const nonces = new NonceSource();
  const store = new StateStore();
  let seq = 0;
  // the stream's snapshot of a 2-level book around `mid`, a new seq each
  const bookEvent = (mid: number): unknown => bookSnapshot(M as Bytes32, mid, ++seq);
  store.dispatch(bookEvent(500_000));
  const tol = { price: 0, sizeFraction: 0.1 };
  const now = Date.now();
  const nowSec = Math.floor(now / 1000);
  // the tick's inputs, each from the stage before
  const views = [530_000, 500_000].map((mid) => {
    store.dispatch(bookEvent(mid));
    return selectMarketView(store.state, M, now);
  });
  const quotes = views.map((v: Mod) => bands.quote(v, params));
  const gated = views.map((v: Mod, i: number) => applyRisk(v, quotes[i], risk, INITIAL_RISK_STATE));
  const toOrders = (i: number): Mod =>
    desiredWithReservedSells({
      marketId: M,
      quotes: gated[i].quotes,
      keeps: gated[i].keeps,
      position: views[i].position,
      leaving: [],
      tracked: [],
      tolerances: tol,
      nowSec,
      toOrders: { marketId: M, tick: views[i].tick },
      cancelledSellsPark: true,
    });
  const desired = [toOrders(0), toOrders(1)];
  // resting: the other mid's orders, so all four move
  const tracked = desired.map((d: Mod[], i: number) =>
    desired[1 - i].map((x: Mod, j: number) => ({
      slot: x.slot,
      planned: { ...x.order, nonce: '0x' + (j + 1).toString(16).padStart(64, '0') },
      remaining: x.order.size,
      state: 'working',
      sentAt: 0,
    })),
  );
  const actions = [0, 1].map((i) => diff(desired[i], tracked[i], tol, nowSec));
  if (actions[0].length !== 4) throw new Error(`tick-stages: expected 4 moves, got ${actions[0].length}`);
  const planned = desired[0].map((d: Mod) => ({ ...d.order, nonce: nonces.next(), expiry: nowSec + 3600 }));
  const createBodies = planned.map((p: Mod) => signer.signOrder(p, nowSec));
  const cancelBodies = tracked[0].map((t: Mod) => signer.signCancel(t.planned.nonce));
  const request = {
    operations: [...cancelBodies.map((c: Mod) => ({ type: 'cancel', cancel: c })), ...createBodies.map((o: Mod) => ({ type: 'create', order: o }))],
  };
  const wire = Buffer.from(JSON.stringify(request));
  let k = 0;
  let keep: unknown = null;
  const mids = [530_000, 500_000];
  return [
    { name: 'reduce', iters: 20_000, run: () => void store.dispatch(bookEvent(mids[k++ & 1]!)) },
    {
      name: 'view',
      iters: 20_000,
      // the view of a fresh state (its book memo recomputed): a reduce between views, timed apart above
      run: () => {
        keep = selectMarketView(store.state, M, now);
      },
    },
    { name: 'strategy', iters: 20_000, run: () => void (keep = bands.quote(views[k++ & 1], params)) },
    { name: 'risk', iters: 20_000, run: () => void (keep = applyRisk(views[k & 1], quotes[k++ & 1], risk, INITIAL_RISK_STATE)) },
    { name: 'to-orders', iters: 20_000, run: () => void (keep = toOrders(k++ & 1)) },
    {
      name: 'diff',
      iters: 20_000,
      run: () => {
        const i = k++ & 1;
        keep = planCalls(diff(desired[i], tracked[i], tol, nowSec), 20);
      },
    },
    {
      name: 'nonces',
      iters: 5_000,
      run: () => {
        for (let j = 0; j < 4; j++) keep = nonces.next();
      },
    },
    {
      name: 'sign',
      iters: 2_000,
      // the ECDSA nonces the live venue computes ahead in idle turns (a tree without them signs with RFC 6979)
      prepare: (iters: number) => void signer.precomputeNonces?.(4 * iters),
      run: () => {
        for (let j = 0; j < 4; j++) keep = signer.signOrder(planned[j], nowSec);
      },
    },
    {
      // the idle-time half of signing: 4 nonces computed ahead per tick, in the live venue's chunks of 16
      name: 'sign-ahead (idle)',
      iters: 500,
      idle: true,
      run: () => {
        if (signer.precomputeNonces && k++ % 4 === 0) {
          const n = signer.precomputedNonces;
          keep = signer.precomputeNonces(n + 16);
        }
      },
    },
    { name: 'serialise', iters: 20_000, run: () => void (keep = JSON.stringify(request)) },
    { name: 'write', iters: 5_000, run: () => void sink.write(wire) },
  ].map((s) => ({ ...s, run: s.name === 'view' ? () => (store.dispatch(bookEvent(mids[k++ & 1]!)), s.run()) : s.run, keep: () => keep }));
}

// a loopback sink for the write stage: the server reads and drops every byte
const server = createServer((c) => c.on('data', () => undefined));
await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
const port = (server.address() as { port: number }).port;
const connect = (): Promise<Socket> =>
  new Promise((r) => {
    const s = createConnection(port, '127.0.0.1', () => r(s));
    s.setNoDelay(true);
  });
const trees: { label: string; stages: Stage[] }[] = [{ label: 'this', stages: await stagesOf(here, await connect()) }];
if (baseDir) trees.push({ label: 'base', stages: await stagesOf(resolve(baseDir), await connect()) });

/**
 * mean CPU µs per call over `iters` calls (CPU time, not wall: on the shared machine a loop is
 * descheduled for whole time slices; the view stage includes a reduce, subtracted below)
 */
function time(s: Stage): number {
  s.prepare?.(s.iters);
  const c0 = process.cpuUsage();
  for (let i = 0; i < s.iters; i++) s.run();
  const c = process.cpuUsage(c0);
  return (c.user + c.system) / s.iters;
}
// warm-up: every stage of every tree, then rounds alternating the trees per stage
for (const t of trees) for (const s of t.stages) time({ ...s, iters: Math.ceil(s.iters / 4) });
const samples = trees.map((t) => t.stages.map(() => [] as number[]));
for (let r = 0; r < ROUNDS; r++) {
  for (let i = 0; i < trees[0]!.stages.length; i++) {
    const order = r % 2 === 0 ? trees.map((_, j) => j) : trees.map((_, j) => trees.length - 1 - j);
    for (const j of order) samples[j]![i]!.push(time(trees[j]!.stages[i]!));
    // let the loopback sink drain between rounds
    await new Promise((res) => setTimeout(res, 5));
  }
}
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const names = trees[0]!.stages.map((s) => s.name);
const fig = samples.map((t) => {
  const m = t.map(median);
  // the view loop reduces a book before each view: its own figure is the difference
  const v = names.indexOf('view');
  m[v] = Math.max(0, m[v]! - m[names.indexOf('reduce')]!);
  return m;
});
const r1 = (x: number): number => Math.round(x * 100) / 100;
const rows: [string, string | number][] = names.map((n, i) => [
  `${n} µs`,
  trees.length > 1 ? `${r1(fig[0]![i]!)} (base ${r1(fig[1]![i]!)}, ${r1(fig[1]![i]! / Math.max(1e-9, fig[0]![i]!))}×)` : r1(fig[0]![i]!),
]);
const idle = trees[0]!.stages.map((s) => s.idle === true);
const sum = fig.map((m) => m.reduce((a, b, i) => (idle[i] ? a : a + b), 0));
rows.push(['sum of stages µs', trees.length > 1 ? `${r1(sum[0]!)} (base ${r1(sum[1]!)})` : r1(sum[0]!)]);
server.close();
report(rows, {
  name: 'tick-stages',
  unit: 'µs per tick, sum of stages',
  value: r1(sum[0]!),
  ...(trees.length > 1 ? { baseline: `same stages, ${baseDir}`, baselineValue: r1(sum[1]!), ratio: r1(sum[1]! / sum[0]!) } : {}),
  stages: Object.fromEntries(names.map((n, i) => [n, r1(fig[0]![i]!)])),
  ...(trees.length > 1 ? { baseStages: Object.fromEntries(names.map((n, i) => [n, r1(fig[1]![i]!)])) } : {}),
});
process.exit(0);
