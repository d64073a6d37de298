/**
 * `npm run bench -- engine`: the typed-array matching engine on a mixed stream of 1e6 orders
 * (70 % resting adds, 20 % cancels, 10 % crossing IOC orders) against a baseline written here: a
 * straightforward engine of order objects, a Map by id and sorted arrays of price levels. Both see
 * the same seeded commands, each engine in a child process of its own (see `runChild`). Also memory
 * per resting order (heap + array buffers after GC, divided by resting orders) and, as lazy cancels
 * leave tombstones holding slots, the slots in use per resting order at the end of the stream.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { MatchingEngine } from '../../src/engine/matching-engine.ts';
import type { SubmitOrder } from '../../src/engine/types.ts';
import { report } from './lib.ts';
import { mulberry32 } from '../../src/sim/rng.ts';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const N = Number(process.argv[2] ?? 1_000_000);
const TRADERS = 200;
const CENT = 10_000;
const SHARE = 1_000_000;

// ---------------------------------------------------------------- the stream (seeded)
const rng = mulberry32;

/**
 * The stream as typed columns; each order object is built right before it is submitted (as a server
 * builds one from a parsed request), so both engines see cache-hot input instead of a million
 * pre-built objects scattered over the heap.
 */
interface Stream {
  n: number;
  /** 0 submit, 1 cancel */
  op: Uint8Array;
  /** cancels: index of an earlier submit */
  target: Int32Array;
  /**
   * cancels: the id they cancel, as a cancel request carries it. Filled in by the first warm-up
   * pass of each engine from the ids its submits returned (a fresh engine on the same stream returns
   * the same ids, which every timed run checks), so the timed loop reads it from a column instead of
   * looking it up at a random index of 5.6 MB of earlier results: that lookup was a cache miss per
   * cancel inside the timed loop, a cost of the harness (~10 % of our engine's run) that a server,
   * which gets the id in the request, does not have.
   */
  cancelId: Float64Array;
  trader: Int32Array;
  outcome: Uint8Array;
  price: Int32Array;
  /**
   * Sizes, budgets and fee caps stay below 2^31 here, so int columns: the order objects then hold
   * small integers, as a JSON-parsed request does (numbers read from a Float64Array would make
   * them double fields, a boxed number each, which no caller of the engine produces).
   */
  size: Int32Array;
  /** the signed V2 budget and fee cap of each submit, computed when the stream is built */
  maxIn: Int32Array;
  maxFee: Int32Array;
  tif: Uint8Array;
}

function buildStream(n: number, seed: number): Stream {
  const r = rng(seed);
  const s: Stream = {
    n,
    op: new Uint8Array(n),
    target: new Int32Array(n),
    cancelId: new Float64Array(n),
    trader: new Int32Array(n),
    outcome: new Uint8Array(n),
    price: new Int32Array(n),
    size: new Int32Array(n),
    maxIn: new Int32Array(n),
    maxFee: new Int32Array(n),
    tif: new Uint8Array(n),
  };
  let submits = 0;
  for (let i = 0; i < n; i++) {
    const u = r();
    if (u < 0.2 && submits > 0) {
      s.op[i] = 1;
      s.target[i] = Math.floor(r() * submits);
      continue;
    }
    const crossing = u >= 0.9;
    const yes = r() < 0.5; // BUY YES rests as a bid, BUY NO as an ask (YES terms)
    // resting adds sit 1–10¢ away from 50¢; crossing orders reach 1–6¢ through it
    const away = crossing ? -(1 + Math.floor(r() * 6)) : 1 + Math.floor(r() * 10);
    const yesPrice = yes ? 50 - away : 50 + away;
    s.price[i] = (yes ? yesPrice : 100 - yesPrice) * CENT;
    s.size[i] = (1 + Math.floor(r() * 20)) * SHARE;
    // the SDK's V2 limits for a BUY (docs/venue.md#from-a-limit-order-to-a-v2-order): budget ⌈p·n⌉ + fee cap F, F = 1 % of notional
    const notional = s.price[i]! * s.size[i]!;
    const F = Math.max(1, Math.floor(Math.floor(notional / 100) / 1e6));
    s.maxIn[i] = Math.ceil(notional / 1e6) + F;
    s.maxFee[i] = F;
    s.trader[i] = Math.floor(r() * TRADERS);
    s.outcome[i] = yes ? 1 : 0;
    s.tif[i] = crossing ? 1 : 0;
    submits++;
  }
  return s;
}

/**
 * The order object of submit `i`, as a server builds one from a parsed request: only column reads,
 * so the timed loop measures the engines rather than the bench's own arithmetic.
 */
function orderAt(s: Stream, i: number): SubmitOrder {
  return {
    market: 0,
    trader: s.trader[i]!,
    outcome: s.outcome[i] as 0 | 1,
    kind: 0,
    price: s.price[i]!,
    maxShares: 0,
    minSharesOut: s.size[i]!,
    maxCollateralIn: s.maxIn[i]!,
    minCollateralOut: 0,
    maxFee: s.maxFee[i]!,
    timeInForce: s.tif[i] as 0 | 1,
    nowMs: 1_700_000_000_000 + i,
  };
}

// ---------------------------------------------------------------- baseline: objects, Map, sorted arrays
interface BOrder {
  id: number;
  trader: number;
  side: 0 | 1;
  price: number; // YES terms
  qty: number;
  filled: number;
  budget: number;
}
interface BLevel {
  price: number;
  orders: BOrder[];
}
class BaselineEngine {
  private nextId = 1;
  private readonly byId = new Map<number, BOrder>();
  /** bids descending, asks ascending: best first */
  private readonly sides: [BLevel[], BLevel[]] = [[], []];
  private readonly cash = new Map<number, number>();
  private readonly reserved = new Map<number, number>();

  deposit(trader: number, amount: number): void {
    this.cash.set(trader, (this.cash.get(trader) ?? 0) + amount);
  }

  submit(o: SubmitOrder): number {
    const avail = (this.cash.get(o.trader) ?? 0) - (this.reserved.get(o.trader) ?? 0);
    if (avail < o.maxCollateralIn) return 0;
    this.reserved.set(o.trader, (this.reserved.get(o.trader) ?? 0) + o.maxCollateralIn);
    const side: 0 | 1 = o.outcome === 1 ? 0 : 1;
    const price = o.outcome === 1 ? o.price : 1_000_000 - o.price;
    const order: BOrder = { id: this.nextId++, trader: o.trader, side, price, qty: o.minSharesOut, filled: 0, budget: o.maxCollateralIn };
    const opp = this.sides[side === 0 ? 1 : 0];
    while (order.filled < order.qty && opp.length > 0) {
      const best = opp[0]!;
      if (side === 0 ? best.price > price : best.price < price) break;
      const maker = best.orders[0]!;
      if (maker.trader === order.trader) {
        this.remove(maker);
        continue;
      }
      const n = Math.min(order.qty - order.filled, maker.qty - maker.filled);
      maker.filled += n;
      order.filled += n;
      const mp = maker.side === 0 ? best.price : 1_000_000 - best.price;
      const tp = side === 0 ? best.price : 1_000_000 - best.price;
      this.pay(maker, Math.ceil((mp * n) / 1e6));
      this.pay(order, Math.ceil((tp * n) / 1e6) + Math.ceil((tp * n * 50) / 1e10));
      if (maker.filled === maker.qty) this.remove(maker);
    }
    if (order.filled < order.qty && (o.timeInForce ?? 0) === 0) {
      this.byId.set(order.id, order);
      this.insert(order);
    } else this.release(order);
    return order.id;
  }

  cancel(id: number): boolean {
    const o = this.byId.get(id);
    if (!o) return false;
    this.remove(o);
    return true;
  }

  private pay(o: BOrder, amount: number): void {
    o.budget -= amount;
    this.cash.set(o.trader, this.cash.get(o.trader)! - amount);
    this.reserved.set(o.trader, this.reserved.get(o.trader)! - amount);
  }

  private release(o: BOrder): void {
    this.reserved.set(o.trader, this.reserved.get(o.trader)! - o.budget);
    o.budget = 0;
  }

  private insert(o: BOrder): void {
    const levels = this.sides[o.side];
    const better = (a: number, b: number) => (o.side === 0 ? a > b : a < b);
    let lo = 0;
    let hi = levels.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (better(levels[mid]!.price, o.price)) lo = mid + 1;
      else hi = mid;
    }
    if (lo < levels.length && levels[lo]!.price === o.price) levels[lo]!.orders.push(o);
    else levels.splice(lo, 0, { price: o.price, orders: [o] });
  }

  private remove(o: BOrder): void {
    this.byId.delete(o.id);
    this.release(o);
    const levels = this.sides[o.side];
    const li = levels.findIndex((l) => l.price === o.price);
    if (li < 0) return;
    const q = levels[li]!.orders;
    const k = q.indexOf(o);
    if (k >= 0) q.splice(k, 1);
    if (q.length === 0) levels.splice(li, 1);
  }

  resting(): number {
    return this.byId.size;
  }
}

// ---------------------------------------------------------------- runs
/**
 * Run the stream on a fresh engine. `resolve` (the first warm-up pass): cancels look their ids up
 * among the earlier submits' results and record them in `ops.cancelId` for the later runs.
 */
function runEngine(ops: Stream, resolve = false): { ms: number; cpuMs: number; engine: MatchingEngine; ids: Float64Array } {
  const e = new MatchingEngine({ capacity: 1 << 18 });
  e.addMarket();
  for (let t = 0; t < TRADERS; t++) {
    e.addTrader();
    e.deposit(t, 10n ** 13n);
  }
  const ids = new Float64Array(ops.n);
  // the previous run's garbage (the other engine's book, result objects) is collected now rather
  // than charged to this run
  gc();
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  if (resolve) resolveEngine(e, ops, ids);
  else driveEngine(e, ops, ids);
  return { ms: performance.now() - t0, cpuMs: cpuMs(c0), engine: e, ids };
}

/**
 * The timed loop, in a function of its own for both engines: inside runEngine it was compiled
 * on-stack with the run's set-up and result code, which deoptimised at the end of every run (code
 * after the loop had no type feedback yet) and was recompiled inside the next timed run, the
 * compile charged to that run's CPU time. A function called once per run is compiled whole after
 * the warm-up calls and stays compiled.
 */
function driveEngine(e: MatchingEngine, ops: Stream, ids: Float64Array): void {
  let k = 0;
  for (let i = 0; i < ops.n; i++) {
    if (ops.op[i] === 0) {
      const r = e.submit(orderAt(ops, i));
      ids[k++] = r.ok ? r.id : 0;
    } else e.cancel(ops.cancelId[i]!, 0);
  }
}

/** The first warm-up pass: as driveEngine, cancels finding their ids among the results so far. */
function resolveEngine(e: MatchingEngine, ops: Stream, ids: Float64Array): void {
  let k = 0;
  for (let i = 0; i < ops.n; i++) {
    if (ops.op[i] === 0) {
      const r = e.submit(orderAt(ops, i));
      ids[k++] = r.ok ? r.id : 0;
    } else e.cancel((ops.cancelId[i] = ids[ops.target[i]!]!), 0);
  }
}

function runBaseline(ops: Stream, resolve = false): { ms: number; cpuMs: number; engine: BaselineEngine; ids: Float64Array } {
  const e = new BaselineEngine();
  for (let t = 0; t < TRADERS; t++) e.deposit(t, 1e13);
  const ids = new Float64Array(ops.n);
  // the previous run's garbage (the other engine's book, result objects) is collected now rather
  // than charged to this run
  gc();
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  if (resolve) resolveBaseline(e, ops, ids);
  else driveBaseline(e, ops, ids);
  return { ms: performance.now() - t0, cpuMs: cpuMs(c0), engine: e, ids };
}

/** The baseline's timed loop (see driveEngine). */
function driveBaseline(e: BaselineEngine, ops: Stream, ids: Float64Array): void {
  let k = 0;
  for (let i = 0; i < ops.n; i++) {
    if (ops.op[i] === 0) ids[k++] = e.submit(orderAt(ops, i));
    else e.cancel(ops.cancelId[i]!);
  }
}

/** The baseline's first warm-up pass (see resolveEngine). */
function resolveBaseline(e: BaselineEngine, ops: Stream, ids: Float64Array): void {
  let k = 0;
  for (let i = 0; i < ops.n; i++) {
    if (ops.op[i] === 0) ids[k++] = e.submit(orderAt(ops, i));
    else e.cancel((ops.cancelId[i] = ids[ops.target[i]!]!));
  }
}

/** A timed run must have returned the ids the resolving pass saw, or its cancels missed their orders. */
function checkSameIds(first: Float64Array, run: Float64Array): void {
  for (let i = 0; i < first.length; i++) if (first[i] !== run[i]) throw new Error(`submit ${i} returned another id than in the first pass`);
}

function restingCount(e: MatchingEngine): number {
  const b = e.book(0);
  let n = 0;
  for (const l of b.bids) n += l.orders;
  for (const l of b.asks) n += l.orders;
  return n;
}

/** CPU milliseconds since `c0`: on a shared, loaded machine CPU time is steadier than wall time. */
function cpuMs(c0: NodeJS.CpuUsage): number {
  const d = process.cpuUsage(c0);
  return (d.user + d.system) / 1000;
}

/** module-level, so the measured book is certainly alive when memory is read */
const retained: unknown[] = [];

/** Heap + array buffers after GC; array-buffer backing stores are freed asynchronously, so settle first. */
async function memUsed(): Promise<number> {
  for (let i = 0; i < 3; i++) {
    gc();
    await new Promise((r) => setTimeout(r, 50));
  }
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
}

/** Bytes per resting order: build a book of `n` resting orders and measure the growth. */
async function memoryPerOrder(n: number, which: 'engine' | 'baseline'): Promise<number> {
  const r = rng(7);
  const orders: SubmitOrder[] = [];
  for (let i = 0; i < n; i++) {
    const yes = r() < 0.5;
    const yesPrice = yes ? 49 - Math.floor(r() * 40) : 51 + Math.floor(r() * 40);
    const price = (yes ? yesPrice : 100 - yesPrice) * CENT;
    // the stream's object shape (timeInForce included), so this phase does not leave the engine's
    // property loads polymorphic for the timed runs
    orders.push({
      market: 0,
      trader: i % TRADERS,
      outcome: yes ? 1 : 0,
      kind: 0,
      price,
      maxShares: 0,
      minSharesOut: SHARE,
      maxCollateralIn: SHARE,
      minCollateralOut: 0,
      maxFee: 1,
      timeInForce: 0,
      nowMs: 0,
    });
  }
  const before = await memUsed();
  if (which === 'engine') {
    const e = new MatchingEngine({ capacity: 16 });
    e.addMarket();
    for (let t = 0; t < TRADERS; t++) {
      e.addTrader();
      e.deposit(t, 10n ** 13n);
    }
    for (const o of orders) e.submit(o);
    if (restingCount(e) !== n) throw new Error('memory book incomplete');
    retained.push(e, orders);
  } else {
    const e = new BaselineEngine();
    for (let t = 0; t < TRADERS; t++) e.deposit(t, 1e13);
    for (const o of orders) e.submit(o);
    if (e.resting() !== n) throw new Error(`baseline memory book incomplete: ${e.resting()}`);
    retained.push(e, orders);
  }
  const after = await memUsed();
  retained.length = 0;
  return (after - before) / n;
}

// memory first, before the timed runs leave buffers behind
// ---------------------------------------------------------------- phases, one child process each
/** What a child process measures and hands back to the parent (one JSON line on stdout). */
interface PhaseResult {
  cpuMs: number[];
  wallMs: number[];
  resting: number;
  invariantErrors: number;
  /** engine only: order slots in use at the end of the stream (open orders + tombstones) */
  slots: number;
}

/**
 * One engine's timed runs. Warm-up first: four untimed passes of the whole stream (the first one
 * resolving the cancels' ids, the others running the timed loop itself), so the code is
 * optimised with complete type feedback before the timed runs (a shorter pass left paths the full
 * stream reaches later, such as ids beyond 2^31 or sums growing past small integers, to deoptimise
 * and recompile inside the first timed run, the compile work charged to it on background threads;
 * after a single pass the first timed run was still ~20 % slow, the run loop itself being
 * optimised only on-stack during the warm-up).
 * Then the best of REPS runs: on this shared 2-vCPU machine a run's CPU time swings ±20 % with the
 * neighbours' load (cache and TLB contention), so more runs give the quiet moments a chance.
 */
const WARMUPS = 4;
function runPhase(which: 'engine' | 'baseline', reps: number): PhaseResult {
  const ops = buildStream(N, 20261121);
  const out: PhaseResult = { cpuMs: [], wallMs: [], resting: 0, invariantErrors: 0, slots: 0 };
  if (which === 'engine') {
    const first = runEngine(ops, true).ids;
    for (let w = 1; w < WARMUPS; w++) checkSameIds(first, runEngine(ops).ids);
    for (let rep = 0; rep < reps; rep++) {
      const a = runEngine(ops);
      checkSameIds(first, a.ids);
      out.cpuMs.push(a.cpuMs);
      out.wallMs.push(a.ms);
      // from the book's level counts: listing 483 k order objects here would leave the next run a big heap
      out.resting = restingCount(a.engine);
      out.slots = a.engine.slotStats().slots;
      // after the last run only: the check's calls into shared engine code left the next run slower
      if (rep === reps - 1) out.invariantErrors = a.engine.checkInvariants().length;
    }
  } else {
    const first = runBaseline(ops, true).ids;
    for (let w = 1; w < WARMUPS; w++) checkSameIds(first, runBaseline(ops).ids);
    for (let rep = 0; rep < reps; rep++) {
      const b = runBaseline(ops);
      checkSameIds(first, b.ids);
      out.cpuMs.push(b.cpuMs);
      out.wallMs.push(b.ms);
      out.resting = b.engine.resting();
    }
  }
  return out;
}

/**
 * Each engine runs in a child process of its own, one after the other, on the same seeded stream.
 * In one process the baseline's heap (a million order objects, Maps, its garbage) stayed around the
 * typed-array engine's runs and cost them ~8 % (4.0–4.2 M vs 4.5 M per CPU-second alone, same
 * hour); apart, neither engine is charged for the other's heap, caches or collector.
 */
function runChild(which: 'engine' | 'baseline', reps: number): PhaseResult {
  const r = spawnSync(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url), String(N)], {
    env: { ...process.env, ENGINE_BENCH_PHASE: which, ENGINE_BENCH_REPS: String(reps) },
    encoding: 'utf8',
    maxBuffer: 1 << 20,
  });
  if (r.status !== 0) throw new Error(`${which} phase failed (exit ${r.status}): ${r.stderr}`);
  const last = r.stdout.trim().split('\n').at(-1)!;
  return JSON.parse(last) as PhaseResult;
}

const REPS = Number(process.env.ENGINE_BENCH_REPS ?? 5);
const phase = process.env.ENGINE_BENCH_PHASE;
if (phase === 'engine' || phase === 'baseline') {
  process.stdout.write(JSON.stringify(runPhase(phase, REPS)) + '\n');
} else {
  // memory first, in this process, before any timed run
  const memBase = await memoryPerOrder(200_000, 'baseline');
  const memEngine = await memoryPerOrder(200_000, 'engine');
  const eng = runChild('engine', REPS);
  const base = runChild('baseline', REPS);
  if (eng.invariantErrors > 0) throw new Error(`engine invariants broken after the stream: ${eng.invariantErrors}`);
  const best = (xs: number[]) => Math.min(...xs);
  const engineRate = (N * 1000) / best(eng.cpuMs);
  const baseRate = (N * 1000) / best(base.cpuMs);
  const engineWall = (N * 1000) / best(eng.wallMs);
  const baseWall = (N * 1000) / best(base.wallMs);
  const rates = (xs: number[]) => xs.map((ms) => (((N / ms) * 1000) / 1e6).toFixed(2)).join(' / ');
  // lazy cancels leave tombstones holding slots: the book at the end of the stream uses this many
  // slots per resting order, so its bytes per resting order are the memory phase's figure (a book
  // without cancels) times this
  const slotsPerResting = eng.slots / eng.resting;

  report(
    [
      ['orders in stream', N],
      ['mix', '70 % adds, 20 % cancels, 10 % crossing IOC'],
      ['each engine', `own child process, ${WARMUPS} warm-up passes, then ${REPS} timed runs`],
      [`typed-array engine, orders per CPU-second (best of ${REPS})`, engineRate],
      ['  all runs, M per CPU-second', rates(eng.cpuMs)],
      ['baseline object+Map+sorted arrays, orders per CPU-second', baseRate],
      ['typed-array engine, orders/s wall clock', engineWall],
      ['  all runs, M/s wall', rates(eng.wallMs)],
      ['baseline, orders/s wall clock', baseWall],
      ['ratio', engineRate / baseRate],
      ['resting at end (engine / baseline)', `${eng.resting} / ${base.resting}`],
      ['engine slots in use at end (resting + tombstones)', eng.slots],
      ['engine slots per resting order at end', slotsPerResting],
      ['engine bytes per resting order (book without cancels)', memEngine],
      ['engine bytes per resting order at end of stream (× slots per order)', memEngine * slotsPerResting],
      ['baseline bytes per resting order', memBase],
    ],
    {
      name: 'engine',
      unit: 'orders per CPU-second',
      value: Math.round(engineRate),
      baseline: 'object+Map+sorted-array engine',
      baselineValue: Math.round(baseRate),
      ratio: Number((engineRate / baseRate).toFixed(2)),
      wallOrdersPerSecond: Math.round(engineWall),
      runs: REPS,
      bytesPerRestingOrder: Math.round(memEngine),
      slotsPerRestingOrderAtEnd: Number(slotsPerResting.toFixed(3)),
      bytesPerRestingOrderAtEnd: Math.round(memEngine * slotsPerResting),
      baselineBytesPerRestingOrder: Math.round(memBase),
    },
  );
}
