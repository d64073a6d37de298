/**
 * The health model over the real kernel, order manager and store on a manual clock (FakeVenue):
 * every way a market stops quoting has a named state, deliberate pauses do not fail readiness, the
 * not-quoting clock and the grace work, transitions are logged (throttled), the time per state adds
 * up, and strategy faults (throws, slowness) are contained, counted and logged once then summarised.
 */
import { DEFAULT_ACCOUNT_LIMITS, type AccountLimits } from '../../src/account/account-risk.ts';
import assert from 'node:assert/strict';
import { test } from 'node:test';
import bands from '../../strategies/bands/index.ts';
import { createLogger } from '../../src/core/logger.ts';
import { DEFAULT_RISK } from '../../src/config/parse-risk.ts';
import type { Bytes32 } from '../../src/model/order.ts';
import { OrderManager } from '../../src/orders/order-manager.ts';
import { HealthModel, stateOfRiskReason } from '../../src/health/health-model.ts';
import { registerHealthMetrics } from '../../src/metrics/health-metrics.ts';
import { describeStall } from '../../src/runtime/loop-stall.ts';
import { SlowTickJudge } from '../../src/runtime/slow-tick-judge.ts';
import { QuotingKernel, type KernelMarket, type KernelTick } from '../../src/kernel/quoting-kernel.ts';
import type { StateEvent } from '../../src/state/events.ts';
import { StateStore } from '../../src/state/store.ts';
import type { StoreState } from '../../src/state/market-state.ts';
import type { StrategyModule } from '../../src/strategy/types.ts';
import { ManualClock } from '../exchange/stream/manual-clock.ts';
import { FakeVenue, M1, M2, refuseInsufficientBalance } from '../orders/fake-venue.ts';
import { ONE_BAND, topOfBook } from '../support/quoting.ts';

const params = bands.parseConfig(ONE_BAND, 'strategy');
const risk = { ...DEFAULT_RISK, maxBookAgeMs: 5_000, maxStreamSilenceMs: 5_000 };

const book = (marketId: Bytes32, bid: number, ask: number, ts: number): StateEvent => topOfBook(marketId, bid, ask, ts);

interface Setup {
  strategy?: StrategyModule<unknown>;
  m1Risk?: typeof risk;
  m2Risk?: typeof risk;
  timer?: () => number;
  graceMs?: number;
  accountLimits?: AccountLimits;
}

function setup(o: Setup = {}) {
  const clock = new ManualClock();
  const venue = new FakeVenue();
  const store = new StateStore();
  const lines: Record<string, unknown>[] = [];
  const logger = createLogger({ level: 'info', destination: { write: (s: string) => void lines.push(JSON.parse(s) as Record<string, unknown>) } });
  const faults: { market: Bytes32; kind: string }[] = [];
  let kernel: QuotingKernel | null = null;
  const om = new OrderManager({
    venue,
    clock,
    tolerances: { price: 0, sizeFraction: 0.1 },
    emit: (e) => kernel!.onOrderManagerEvent(e),
    cancelAllDelayMs: 0,
    logger,
  });
  const markets: KernelMarket[] = [
    { marketId: M1, strategy: o.strategy ?? bands, params, risk: o.m1Risk ?? risk },
    { marketId: M2, strategy: o.strategy ?? bands, params, risk: o.m2Risk ?? risk },
  ];
  kernel = new QuotingKernel({
    clock,
    venue,
    store,
    markets,
    requoteIntervalMs: 0,
    housekeepingMs: 1000,
    orderManager: om,
    logger,
    faultLogIntervalMs: 10_000,
    ...(o.timer ? { timer: o.timer, strategyBudgetMs: 50 } : {}),
    onStrategyFault: (market, kind) => void faults.push({ market, kind }),
    ...(o.accountLimits ? { accountLimits: o.accountLimits } : {}),
  });
  const k = kernel;
  const health = new HealthModel({
    markets: [M1, M2],
    state: () => store.state,
    lastTick: (id) => k.lastTick(id),
    killed: () => k.killed,
    clock,
    graceMs: o.graceMs ?? 2_000,
    logger,
    logIntervalMs: 10_000,
  });
  return { clock, venue, store, kernel: k, om, health, lines, faults };
}

const states = (h: HealthModel) => h.markets().map((m) => m.state);

test('starting → quoting once orders are acknowledged; readiness waits for the process to run', async () => {
  const { clock, kernel, health } = setup();
  health.evaluate();
  assert.deepEqual(states(health), ['starting', 'starting']);
  assert.equal(health.readiness().ready, false, 'not ready while starting');
  kernel.onEvent(book(M1, 480_000, 520_000, clock.now()));
  kernel.onEvent(book(M2, 480_000, 520_000, clock.now()));
  await kernel.flush();
  health.setProcess('running');
  health.evaluate();
  assert.deepEqual(states(health), ['quoting', 'quoting']);
  assert.equal(health.markets()[0]!.liveOrders, 2);
  const r = health.readiness();
  assert.equal(r.ready, true, JSON.stringify(r));
  assert.deepEqual(r.reasons, []);
  kernel.stop();
});

test('a stale book pulls quotes: stale-book, the not-quoting clock runs, and /readyz fails only past the grace', async () => {
  const { clock, kernel, health, lines } = setup({ graceMs: 3_000 });
  kernel.onEvent(book(M1, 480_000, 520_000, clock.now()));
  kernel.onEvent(book(M2, 480_000, 520_000, clock.now()));
  await kernel.flush();
  health.setProcess('running');
  health.evaluate();
  // M2 keeps getting fresh books; M1 goes silent
  for (let i = 0; i < 6; i++) {
    clock.advance(1_000);
    kernel.onEvent(book(M2, 480_000, 520_000, clock.now()));
    await kernel.flush();
    health.evaluate();
  }
  const [m1, m2] = health.markets();
  assert.equal(m2!.state, 'quoting');
  assert.match(m1!.state, /^(stale-book|stream-silent)$/, m1!.detail);
  assert.ok(m1!.notQuotingMs > 0 && m1!.notQuotingMs <= 2_000, String(m1!.notQuotingMs));
  assert.equal(health.readiness().ready, true, 'within the grace');
  clock.advance(2_500);
  kernel.onEvent(book(M2, 480_000, 520_000, clock.now()));
  await kernel.flush();
  health.evaluate();
  const r = health.readiness();
  assert.equal(r.ready, false);
  assert.equal(r.reasons.length, 1);
  assert.match(r.reasons[0]!, new RegExp(`market ${M1}: not quoting for \\d+ s: (stream-silent|stale-book)`));
  const warn = lines.find((l) => l.component === 'health' && (l.to === 'stream-silent' || l.to === 'stale-book'));
  assert.ok(warn, 'the transition is logged');
  assert.equal(warn.level, 40);
  // a fresh book brings it back
  kernel.onEvent(book(M1, 480_000, 520_000, clock.now()));
  await kernel.flush();
  health.evaluate();
  assert.equal(health.markets()[0]!.state, 'quoting');
  assert.equal(health.markets()[0]!.notQuotingMs, 0);
  assert.equal(health.readiness().ready, true);
  const rep = health.report()[0]!;
  assert.ok((rep.states.quoting ?? 0) > 0 && (rep.states['stream-silent'] ?? 0) + (rep.states['stale-book'] ?? 0) > 0, JSON.stringify(rep));
  const sum = Object.values(rep.states).reduce((a, b) => a + (b ?? 0), 0);
  assert.equal(sum, rep.observedMs, 'time per state adds up to the time observed');
  kernel.stop();
});

test('halted by config is a deliberate pause: named, never a readiness failure', async () => {
  const { clock, kernel, health } = setup({ m2Risk: { ...risk, halted: true }, graceMs: 1_000 });
  kernel.onEvent(book(M1, 480_000, 520_000, clock.now()));
  kernel.onEvent(book(M2, 480_000, 520_000, clock.now()));
  await kernel.flush();
  health.setProcess('running');
  clock.advance(5_000);
  kernel.onEvent(book(M1, 480_000, 520_000, clock.now()));
  kernel.onEvent(book(M2, 480_000, 520_000, clock.now()));
  await kernel.flush();
  health.evaluate();
  assert.deepEqual(states(health), ['quoting', 'halted']);
  assert.equal(health.markets()[1]!.shouldQuote, false);
  assert.equal(health.markets()[1]!.notQuotingMs, 0);
  assert.equal(health.readiness().ready, true);
  kernel.stop();
});

test("refused creates: orders-refused with the venue's words; an accepted create clears it", async () => {
  const { clock, kernel, health, venue } = setup();
  venue.createScript = refuseInsufficientBalance;
  kernel.onEvent(book(M1, 480_000, 520_000, clock.now()));
  await kernel.flush();
  health.setProcess('running');
  health.refused(M1, clock.now(), '400 INSUFFICIENT_BALANCE: insufficient balance');
  health.evaluate();
  assert.equal(health.markets()[0]!.state, 'orders-refused');
  assert.match(health.markets()[0]!.detail, /INSUFFICIENT_BALANCE/);
  venue.createScript = () => undefined;
  clock.advance(1_500);
  kernel.onEvent(book(M1, 490_000, 530_000, clock.now()));
  await kernel.flush();
  health.accepted(M1, clock.now());
  health.evaluate();
  assert.equal(health.markets()[0]!.state, 'quoting');
  kernel.stop();
});

test('the kill switch / a halt names every market and fails readiness', () => {
  const { health, kernel } = setup();
  health.setProcess('running');
  health.halt('kill-switch', 'kill switch KILL_DRAWDOWN: pnl fell');
  assert.deepEqual(states(health), ['kill-switch', 'kill-switch']);
  assert.equal(health.killSwitch, true);
  const r = health.readiness();
  assert.equal(r.ready, false);
  assert.match(r.reasons[0]!, /process halted: kill switch KILL_DRAWDOWN/);
  health.setProcess('stopped');
  assert.equal(health.process, 'halted', 'a halt stays the last word');
  kernel.stop();
});

test('a strategy that throws: quotes pulled, strategy-error, counted every time, logged once with the stack then summarised', async () => {
  let throwing = false;
  const flaky: StrategyModule<unknown> = {
    name: 'flaky',
    parseConfig: (r, p) => bands.parseConfig(r, p),
    quote: (v, c) => {
      if (throwing) throw new Error('division by zero in the model');
      return bands.quote(v, c as typeof params);
    },
  };
  const { clock, kernel, health, venue, lines, faults } = setup({ strategy: flaky });
  kernel.onEvent(book(M1, 480_000, 520_000, clock.now()));
  await kernel.flush();
  health.setProcess('running');
  assert.equal(venue.open.size, 2);
  throwing = true;
  for (let i = 0; i < 30; i++) {
    clock.advance(500);
    kernel.onEvent(book(M1, 480_000 + (i % 2) * 10_000, 520_000, clock.now()));
    await kernel.flush();
  }
  health.evaluate();
  assert.equal(venue.open.size, 0, 'its quotes are pulled');
  assert.equal(health.markets()[0]!.state, 'strategy-error');
  assert.match(health.markets()[0]!.detail, /division by zero/);
  // every failing call counts: the 30 book ticks and the housekeeping ticks in between
  assert.ok(faults.filter((f) => f.kind === 'error' && f.market === M1).length >= 30);
  const told = lines.filter((l) => l.component === 'kernel' && /strategy (failed|still failing)/.test(String(l.msg)));
  // 15 s of failures with a 10 s interval: the first line (with the stack) and one summary
  assert.equal(told.length, 2, JSON.stringify(told.map((l) => l.msg)));
  assert.equal(told[0]!.level, 50);
  assert.match(String(told[0]!.stack), /division by zero in the model/);
  assert.ok(Number(told[1]!.failures) >= 15, String(told[1]!.failures));
  // it recovers: one line says so (with the failures not yet told), and it quotes again
  throwing = false;
  clock.advance(1_000);
  kernel.onEvent(book(M1, 480_000, 520_000, clock.now()));
  await kernel.flush();
  health.evaluate();
  const back = lines.filter((l) => l.msg === 'strategy recovered; quoting again');
  assert.equal(back.length, 1);
  assert.equal(typeof back[0]!.unreportedFailures, 'number');
  assert.equal(health.markets()[0]!.state, 'quoting');
  kernel.stop();
});

test('a strategy that flaps (fails on every other call) writes a few lines an interval, not a stack and a recovery per flip', async () => {
  let calls = 0;
  const flapping: StrategyModule<unknown> = {
    name: 'flapping',
    parseConfig: (r, p) => bands.parseConfig(r, p),
    quote: (v, c) => {
      if (++calls % 2 === 0) throw new Error('every other tick');
      return bands.quote(v, c as typeof params);
    },
  };
  const { clock, kernel, health, lines, faults } = setup({ strategy: flapping });
  health.setProcess('running');
  // 20 s of book events every 500 ms with a 10 s interval: ~40 ticks, half of them failing
  for (let i = 0; i < 40; i++) {
    clock.advance(500);
    kernel.onEvent(book(M1, 480_000 + (i % 2) * 10_000, 520_000, clock.now()));
    await kernel.flush();
  }
  const flips = faults.filter((f) => f.kind === 'error' && f.market === M1).length;
  assert.ok(flips >= 15, `it failed ${flips} times`);
  const kernelLines = lines.filter((l) => l.component === 'kernel' && /^strategy /.test(String(l.msg)));
  const stacks = kernelLines.filter((l) => l.stack !== undefined);
  const recovered = kernelLines.filter((l) => l.msg === 'strategy recovered; quoting again');
  // the first failure with its stack, the first recovery; then per 10 s one summary of each
  assert.ok(stacks.length <= 2, `${stacks.length} stacks: ${JSON.stringify(kernelLines.map((l) => l.msg))}`);
  assert.ok(recovered.length <= 2, `${recovered.length} recovery lines`);
  assert.ok(kernelLines.length <= 8, `${kernelLines.length} lines for ${flips} failures`);
  assert.ok(
    kernelLines.some((l) => l.msg === 'strategy flapping: recovered and failed again' || /still failing/.test(String(l.msg))),
    'the flapping is summarised',
  );
  kernel.stop();
});

test('a strategy slower than its budget is counted and its market marked strategy-slow', async () => {
  let t = 0;
  let slow = false;
  // each strategy call reads the timer twice; a slow call takes 60 ms by this timer (budget 50)
  const timer = (): number => (t += slow ? 60 : 0.01);
  const { clock, kernel, health, faults } = setup({ timer });
  kernel.onEvent(book(M1, 480_000, 520_000, clock.now()));
  await kernel.flush();
  health.setProcess('running');
  health.evaluate();
  assert.equal(health.markets()[0]!.state, 'quoting');
  slow = true;
  clock.advance(1_000);
  kernel.onEvent(book(M1, 490_000, 530_000, clock.now()));
  await kernel.flush();
  health.evaluate();
  assert.equal(health.markets()[0]!.state, 'strategy-slow');
  assert.ok(faults.some((f) => f.kind === 'slow' && f.market === M1));
  slow = false;
  clock.advance(1_000);
  kernel.onEvent(book(M1, 480_000, 520_000, clock.now()));
  await kernel.flush();
  health.evaluate();
  assert.equal(health.markets()[0]!.state, 'quoting', 'back once a tick is within budget');
  kernel.stop();
});

test('a slow call on a host that starves the bot of CPU: cpu-starved, not strategy-slow, in the states, /readyz and market_state; a busy one stays strategy-slow', async () => {
  let t = 0;
  let slow = false;
  const timer = (): number => (t += slow ? 60 : 0.01);
  const { clock, kernel, health } = setup({ timer, graceMs: 500 });
  // the runtime's wiring (src/runtime/phases/core.ts): a slow call is judged by the main thread's window
  let sched = { runNs: 1e9, waitNs: 0 };
  let mono = 0;
  const judge = new SlowTickJudge({ sched: () => sched, now: () => mono, load: () => 19.5, cores: 2 });
  const slowTick = async (ran: number, waited: number): Promise<void> => {
    judge.sample();
    mono += 1_000;
    sched = { runNs: sched.runNs + ran * 1e9, waitNs: sched.waitNs + waited * 1e9 };
    slow = true;
    clock.advance(1_000);
    kernel.onEvent(book(M1, 490_000 + Math.round(mono / 100), 530_000, clock.now()));
    await kernel.flush();
    const j = judge.judge();
    health.slowBecause(M1, j.cause, describeStall(j));
    health.evaluate();
  };
  kernel.onEvent(book(M1, 480_000, 520_000, clock.now()));
  await kernel.flush();
  health.setProcess('running');
  await slowTick(0.08, 0.9);
  const m = health.markets()[0]!;
  assert.equal(m.state, 'cpu-starved', 'old code: strategy-slow, the strategy blamed for the host');
  assert.match(m.detail, /waiting for a CPU: the main thread ran 0\.08 s and waited 0\.9 s for a CPU: starved of CPU.*load average 19\.5 on 2 cores/);
  const { Registry } = await import('prom-client');
  const registry = new Registry();
  registerHealthMetrics(registry, () => health);
  assert.match(await registry.metrics(), new RegExp(`bookmaker_market_state\\{market="${M1}",state="cpu-starved"\\} 1`));
  await slowTick(0.95, 0.02);
  assert.equal(health.markets()[0]!.state, 'strategy-slow', 'the main thread ran: the strategy (or a collection in it)');
  assert.match(health.markets()[0]!.detail, /over its time budget on the last tick: the main thread ran 0\.95 s .*one long turn of work/);
  await slowTick(0.05, 0.9);
  slow = false;
  const r = health.readiness().markets[0]!;
  assert.equal(r.state, 'cpu-starved', '/readyz names it');
  assert.match(r.detail, /starved of CPU/);
  kernel.stop();
});

test('risk reasons map onto health states', () => {
  assert.equal(stateOfRiskReason('STALE_BOOK', 'active'), 'stale-book');
  assert.equal(stateOfRiskReason('STREAM_SILENT', 'active'), 'stream-silent');
  assert.equal(stateOfRiskReason('HALTED', 'active'), 'halted');
  assert.equal(stateOfRiskReason('REDUCE_ONLY', 'active'), 'reduce-only');
  assert.equal(stateOfRiskReason('RATE_LIMIT', 'active'), 'rate-budget');
  assert.equal(stateOfRiskReason('MARKET_NOT_ACTIVE', 'resolved'), 'market-resolved');
  assert.equal(stateOfRiskReason('MARKET_NOT_ACTIVE', 'pending'), 'market-paused');
  assert.equal(stateOfRiskReason('DEADLINE', 'active'), 'market-paused');
  assert.equal(stateOfRiskReason('KILL_ERROR_RATE', 'active'), 'kill-switch');
  assert.equal(stateOfRiskReason('POSITION_LIMIT', 'active'), 'risk-limit');
});

test('refused creates count for the venue-error-rate kill switch: a refusal storm trips it, every market reads kill-switch', async () => {
  const { clock, kernel, health, venue } = setup({ accountLimits: { ...DEFAULT_ACCOUNT_LIMITS, maxErrorRate: 0.5, minRequestsForErrorRate: 3 } });
  venue.createScript = refuseInsufficientBalance;
  health.setProcess('running');
  for (let i = 0; i < 10 && !kernel.killed; i++) {
    clock.advance(1_100);
    kernel.onEvent(book(M1, 480_000 + (i % 2) * 10_000, 520_000, clock.now()));
    kernel.onEvent(book(M2, 480_000 + (i % 2) * 10_000, 520_000, clock.now()));
    await kernel.flush();
    for (let k = 0; k < 5; k++) await new Promise((r) => setImmediate(r));
  }
  assert.equal(kernel.killed, 'KILL_ERROR_RATE');
  health.evaluate();
  assert.deepEqual(states(health), ['kill-switch', 'kill-switch']);
  assert.equal(health.killSwitch, true);
  assert.equal(health.readiness().ready, false);
});

test('one evaluation per synchronous turn for a scrape; anything that can change the answer recomputes', async () => {
  const clock = new ManualClock();
  let state = new StateStore().state;
  let classified = 0;
  const h = new HealthModel({
    markets: [M1, M2],
    state: () => state,
    lastTick: () => {
      classified++;
      return null;
    },
    clock,
  });
  const evaluations = (): number => classified / 2; // one classification per market
  // a scrape: the market_state gauge, the ready and halted gauges, /readyz
  h.evaluateOncePerTurn();
  h.evaluateOncePerTurn();
  h.evaluateOncePerTurn();
  assert.equal(evaluations(), 1);
  // told something: recomputed in the same turn
  h.refused(M1, clock.now(), '403 FORBIDDEN: not your wallet');
  h.evaluateOncePerTurn();
  assert.equal(evaluations(), 2);
  // a new store snapshot: recomputed
  state = new StateStore().state;
  h.evaluateOncePerTurn();
  assert.equal(evaluations(), 3);
  // the clock moved: recomputed (durations are charged to the millisecond)
  clock.advance(5);
  h.evaluateOncePerTurn();
  h.evaluateOncePerTurn();
  assert.equal(evaluations(), 4);
  // the next turn: recomputed; direct evaluate() always recomputes
  await Promise.resolve();
  h.evaluateOncePerTurn();
  assert.equal(evaluations(), 5);
  h.evaluate();
  h.evaluate();
  assert.equal(evaluations(), 7);
});

test('a market whose inputs did not change keeps its state without being classified again; any input change reclassifies it', () => {
  const clock = new ManualClock();
  let counted = 0;
  /** the market's orders: counts how often the model reads them (once per classification) */
  class Orders extends Map<string, unknown> {
    override values(): MapIterator<unknown> {
      counted++;
      return super.values();
    }
  }
  const order = { state: 'working', slot: 'bid-0' };
  let market = { slug: 'm1', status: 'active', orders: new Orders([['n1', order]]) };
  let tick: KernelTick | null = { at: 0, action: 'quote', desired: [], denied: 0, strategyError: null };
  const state = () => ({ ...new StateStore().state, markets: new Map([[M1.toLowerCase(), market]]) }) as unknown as StoreState;
  let st = state();
  const h = new HealthModel({ markets: [M1], state: () => st, lastTick: () => tick, clock });
  h.setProcess('running');
  h.evaluate(); // classified as running
  counted = 0;
  for (let i = 0; i < 3; i++) {
    clock.advance(1_000);
    st = state(); // a new snapshot (a book delta), the same orders, status and tick
    h.evaluate();
  }
  assert.equal(counted, 0, 'nothing the state reads changed: not classified again');
  assert.equal(h.markets()[0]!.state, 'quoting');
  assert.equal(h.report()[0]!.states.quoting, 3_000, 'the time in its state still adds up');
  // ticked again to the same outcome (a housekeeping tick of a still market): a new tick object,
  // the same fields classify reads
  tick = { ...tick, at: 3_000 };
  h.evaluate();
  assert.equal(counted, 0, 'a new tick with the same outcome: not classified again');
  market = { ...market, orders: new Orders() };
  st = state();
  h.evaluate();
  assert.equal(counted, 1, 'new orders: classified again');
  assert.equal(h.markets()[0]!.detail, 'the strategy asked for no quotes', 'no live order: classified on the new orders');
  tick = { ...tick, action: 'no-view' };
  h.evaluate();
  assert.equal(h.markets()[0]!.state, 'stale-book', 'a new tick: classified again');
  tick = { ...tick, action: 'pull', reason: 'STALE_BOOK' };
  h.evaluate();
  assert.equal(h.markets()[0]!.detail, 'risk guard STALE_BOOK');
  tick = { ...tick, reason: 'STREAM_SILENT' };
  h.evaluate();
  assert.equal(h.markets()[0]!.state, 'stream-silent', 'another guard: classified again');
  tick = { ...tick, reason: undefined, deniedAll: 'POSITION_LIMIT', desired: [] };
  h.evaluate();
  assert.equal(h.markets()[0]!.detail, 'risk layer denied every quote (POSITION_LIMIT)', 'a denial: classified again');
  tick = { ...tick, deniedAll: undefined, strategyError: new Error('boom') };
  h.evaluate();
  assert.equal(h.markets()[0]!.detail, 'boom');
  tick = { ...tick, strategyError: new Error('bang') };
  h.evaluate();
  assert.equal(h.markets()[0]!.detail, 'bang', 'another error: classified again');
  tick = { ...tick, strategyError: null, slow: true };
  h.evaluate();
  assert.equal(h.markets()[0]!.state, 'strategy-slow', 'slow: classified again');
  tick = { ...tick, slow: false };
  h.setProcess('stopping');
  h.evaluate();
  assert.equal(h.markets()[0]!.state, 'halted', 'the process state moved: every market classified again');
});

test('a halt during start-up (a latch read at start) lifted before the bot runs returns the process to starting, not running', () => {
  const h = new HealthModel({ markets: [M1], state: () => new StateStore().state, lastTick: () => null, clock: new ManualClock() });
  h.halt('kill-switch', 'kill switch KILL_DRAWDOWN (latched in an earlier run)');
  assert.equal(h.process, 'halted');
  assert.equal(h.killSwitch, true);
  h.resumeAfterHalt();
  assert.equal(h.process, 'starting', 'the start-up is not over');
  h.setProcess('running');
  h.halt('kill-switch', 'again');
  h.resumeAfterHalt();
  assert.equal(h.process, 'running');
});
