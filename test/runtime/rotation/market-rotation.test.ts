/**
 * MarketRotation with fake ports on a manual clock: refreshes start and retire, a failed refresh
 * keeps the set, one refresh at a time, retirements release only once the venue confirms no order
 * (stuck ones stay retiring and are retried), a market is never started twice, and a thousand
 * start/retire cycles leave nothing behind.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Bytes32 } from '../../../src/model/order.ts';
import type { KernelMarket } from '../../../src/kernel/quoting-kernel.ts';
import {
  ENDED_MAX,
  MarketRotation,
  type RetireReason,
  type RotationMetricsSink,
  type RotationPorts,
  type StartReason,
} from '../../../src/runtime/rotation/market-rotation.ts';
import { ManualClock } from '../../exchange/stream/manual-clock.ts';

const id = (n: number): Bytes32 => `0x${n.toString(16).padStart(64, '0')}` as Bytes32;
const STRATEGY = {} as KernelMarket['strategy'];
const km = (n: number, params: Record<string, unknown> = {}): KernelMarket => ({
  marketId: id(n),
  strategy: STRATEGY,
  params,
  risk: {} as KernelMarket['risk'],
});

interface Fake {
  ports: RotationPorts;
  calls: string[];
  /** the venue's answer to confirmCancels per market (default 0: confirmed) */
  open: Map<string, number | 'down'>;
  selection: KernelMarket[] | 'down';
  selects: number;
  reasons: Map<string, RetireReason>;
  /** starts that hang until resolved */
  gates: Map<string, () => void>;
  failStart: Set<string>;
  /** markets not active at the venue: start answers false */
  inactive: Set<string>;
}

function fake(): Fake {
  const f: Fake = {
    calls: [],
    open: new Map(),
    selection: [],
    selects: 0,
    reasons: new Map(),
    gates: new Map(),
    failStart: new Set(),
    inactive: new Set(),
    ports: null as unknown as RotationPorts,
  };
  f.ports = {
    select: async () => {
      f.selects++;
      await Promise.resolve();
      if (f.selection === 'down') throw new Error('venue down');
      return f.selection;
    },
    start: async (m, reason) => {
      f.calls.push(`start ${Number(m.marketId)} ${reason}`);
      const k = m.marketId.toLowerCase();
      if (f.gates.has(k) || f.gates.get('*')) await new Promise<void>((r) => f.gates.set(k, r));
      if (f.failStart.has(k)) throw new Error('no book');
      if (f.inactive.has(k)) return false;
    },
    update: (m) => void f.calls.push(`update ${Number(m.marketId)}`),
    pull: (m) => void f.calls.push(`pull ${Number(m)}`),
    confirmCancels: async (m) => {
      const v = f.open.get(m.toLowerCase()) ?? 0;
      if (v === 'down') throw new Error('venue down');
      return v;
    },
    release: (m, reason) => void f.calls.push(`release ${Number(m)} ${reason}`),
    leaveReason: (m) => f.reasons.get(m.toLowerCase()) ?? 'filtered-out',
  };
  return f;
}

function sink(): RotationMetricsSink & { log: string[] } {
  const log: string[] = [];
  return {
    log,
    started: (r: StartReason) => void log.push(`started ${r}`),
    retired: (r: RetireReason, s: number) => void log.push(`retired ${r} ${s}`),
    refreshFailed: () => void log.push('refresh-failed'),
    startFailed: () => void log.push('start-failed'),
    retireStuck: () => void log.push('stuck'),
  };
}

/** Let promises run and move the manual clock until `cond` holds. */
async function until(clock: ManualClock, cond: () => boolean, stepMs = 50, maxSteps = 5_000): Promise<void> {
  for (let i = 0; i < maxSteps; i++) {
    if (cond()) return;
    await new Promise((r) => setImmediate(r));
    clock.advance(stepMs);
  }
  throw new Error('condition never held');
}

const flush = async (): Promise<void> => {
  for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
};

/** A rotation over a fresh fake (ports, selection) on a manual clock, counting into a metrics sink `m`. */
function rotation(o: Omit<ConstructorParameters<typeof MarketRotation>[0], 'ports' | 'clock' | 'metrics'>) {
  const clock = new ManualClock();
  const f = fake();
  const m = sink();
  const rot = new MarketRotation({ ports: f.ports, clock, metrics: m, ...o });
  return { clock, f, m, rot };
}

/** A rotation of market 1, retired (`reason`) while one of its orders still rests at the venue. */
async function retiringWithAnOrder(reason: RetireReason, o: Parameters<typeof rotation>[0]) {
  const { clock, f, rot } = rotation(o);
  rot.begin([km(1)]);
  f.open.set(id(1), 1);
  rot.retire(id(1), reason);
  await flush();
  return { clock, f, rot };
}

/** `n` markets selected one after the other, a second apart (each retires the one before), then none. */
async function cycle(clock: ManualClock, f: Fake, rot: MarketRotation, n: number): Promise<void> {
  for (let i = 0; i < n; i++) {
    f.selection = [km(i)];
    await rot.refresh();
    clock.advance(1_000);
  }
  f.selection = [];
  await rot.refresh();
  await rot.settled();
}

describe('MarketRotation', () => {
  test('a refresh starts what entered and retires what left, with its reason; metrics and summary follow', async () => {
    const { f, m, rot } = rotation({ refreshMs: 1_000 });
    rot.begin([km(1), km(2)]);
    f.selection = [km(2), km(3)];
    f.reasons.set(id(1), 'resolved');
    assert.equal(await rot.refresh(), true);
    await rot.settled();
    assert.deepEqual(f.calls, ['start 3 selected', 'pull 1', 'release 1 resolved']);
    assert.deepEqual(rot.activeIds(), [id(2), id(3)]);
    assert.deepEqual(m.log, ['started startup', 'started startup', 'started selected', 'retired resolved 0']);
    const s = rot.summary();
    assert.equal(s.active, 2);
    assert.equal(s.startedInWindow, 3);
    assert.deepEqual(s.retiredByReason, { resolved: 1 });
    assert.deepEqual(rot.totals(), { started: { startup: 2, selected: 1 }, retired: { resolved: 1 } });
  });

  test('schedule(): refreshes every refreshMs on the clock; 0 never refreshes', async () => {
    const { clock, f, rot } = rotation({ refreshMs: 1_000 });
    rot.schedule();
    clock.advance(999);
    await flush();
    assert.equal(f.selects, 0);
    clock.advance(1);
    await flush();
    assert.equal(f.selects, 1);
    clock.advance(1_000);
    await flush();
    assert.equal(f.selects, 2);
    rot.stop();
    clock.advance(5_000);
    await flush();
    assert.equal(f.selects, 2);
    const off = new MarketRotation({ ports: f.ports, clock, refreshMs: 0 });
    off.schedule();
    clock.advance(60_000);
    await flush();
    assert.equal(f.selects, 2);
  });

  test('a failed refresh keeps every market, is counted, and never retires', async () => {
    const { f, m, rot } = rotation({ refreshMs: 1_000 });
    rot.begin([km(1), km(2)]);
    f.selection = 'down';
    assert.equal(await rot.refresh(), false);
    await rot.settled();
    assert.deepEqual(f.calls, []);
    assert.deepEqual(rot.activeIds(), [id(1), id(2)]);
    assert.deepEqual(m.log.slice(2), ['refresh-failed']);
    assert.equal(rot.summary().refreshFailures, 1);
    assert.equal(rot.summary().lastRefreshError, 'venue down');
  });

  test('one refresh at a time: calls during a refresh share it', async () => {
    const { f, rot } = rotation({ refreshMs: 1_000 });
    f.selection = [km(1)];
    const [a, b] = await Promise.all([rot.refresh(), rot.refresh()]);
    assert.equal(a, true);
    assert.equal(b, true);
    assert.equal(f.selects, 1);
    assert.deepEqual(f.calls, ['start 1 selected']);
  });

  test('a retirement the venue does not confirm stays retiring, is counted, retried, and released only once confirmed', async () => {
    const { clock, f, m, rot } = rotation({ refreshMs: 0, confirmAttempts: 3, confirmDelayMs: 100, retryMs: 5_000 });
    rot.begin([km(1)]);
    f.open.set(id(1), 2);
    assert.equal(rot.retire(id(1), 'closed'), true);
    await until(clock, () => m.log.includes('stuck'));
    assert.equal(rot.isRetiring(id(1)), true);
    assert.equal(rot.summary().stuck, 1);
    assert.ok(!f.calls.some((c) => c.startsWith('release')), 'never released with orders left');
    // the venue cannot even be read: still retiring
    f.open.set(id(1), 'down');
    await until(clock, () => m.log.filter((x) => x === 'stuck').length === 2);
    assert.ok(!f.calls.some((c) => c.startsWith('release')));
    // the cancels land: the next round releases it
    f.open.set(id(1), 0);
    await until(clock, () => !rot.isRetiring(id(1)));
    assert.deepEqual(
      f.calls.filter((c) => c.startsWith('release')),
      ['release 1 closed'],
    );
    assert.equal(rot.summary().retired, 1);
    assert.equal(rot.summary().stuck, 0);
    assert.ok(f.calls.filter((c) => c === 'pull 1').length >= 2, 'each round pulls again');
  });

  test('a market re-selected while retiring is not started twice: it starts at the refresh after its release', async () => {
    const { f, rot } = await retiringWithAnOrder('paused', { refreshMs: 0, confirmAttempts: 1, retryMs: 60_000 });
    f.selection = [km(1)];
    await rot.refresh();
    await rot.settled();
    assert.ok(!f.calls.some((c) => c.startsWith('start')), 'not started while its orders may still rest');
    assert.equal(rot.isActive(id(1)), false);
    // confirmed at the next round (a refresh retries stuck retirements at once)
    f.open.set(id(1), 0);
    await rot.refresh();
    await rot.settled();
    assert.deepEqual(
      f.calls.filter((c) => !c.startsWith('pull')),
      ['release 1 paused'],
    );
    const n = f.calls.length;
    await rot.refresh();
    assert.deepEqual(f.calls.slice(n), ['start 1 selected']);
    assert.equal(rot.isActive(id(1)), true);
    // and a second refresh does not start it again
    await rot.refresh();
    assert.equal(f.calls.filter((c) => c.startsWith('start')).length, 1);
  });

  test('a market retired while starting finishes its start, then retires', async () => {
    const { f, rot } = rotation({ refreshMs: 0 });
    f.gates.set(id(5), () => undefined);
    f.selection = [km(5)];
    const applied = rot.refresh();
    await flush();
    assert.equal(rot.retire(id(5), 'resolved'), true);
    await flush();
    assert.deepEqual(f.calls, ['start 5 selected'], 'not pulled mid-start');
    f.gates.get(id(5))!();
    await applied;
    await rot.settled();
    assert.deepEqual(f.calls, ['start 5 selected', 'pull 5', 'release 5 resolved']);
  });

  test('a failed start is counted, cleaned up without counting a retirement, and tried again at the next refresh', async () => {
    const { f, m, rot } = rotation({ refreshMs: 0 });
    f.failStart.add(id(7));
    f.selection = [km(7)];
    await rot.refresh();
    await rot.settled();
    assert.deepEqual(f.calls, ['start 7 selected', 'pull 7', 'release 7 filtered-out']);
    assert.deepEqual(m.log, ['start-failed']);
    assert.equal(rot.summary().retired, 0);
    f.failStart.clear();
    await rot.refresh();
    assert.equal(rot.isActive(id(7)), true);
    assert.deepEqual(m.log, ['start-failed', 'started selected']);
  });

  test('a reload retires with reason reload and hands changed settings to update', async () => {
    const { f, rot } = rotation({ refreshMs: 0 });
    rot.begin([km(1, { size: 10 }), km(2)]);
    const r = await rot.apply([km(1, { size: 12 }), km(3)], 'reload');
    await rot.settled();
    assert.deepEqual(r, { started: [id(3)], retired: [id(2)], waiting: [], changed: [id(1)] });
    assert.deepEqual(f.calls, ['update 1', 'start 3 reload', 'pull 2', 'release 2 reload']);
  });

  test('venue facts retire only quoted markets, once', async () => {
    const { f, rot } = rotation({ refreshMs: 0 });
    rot.begin([km(1)]);
    assert.equal(rot.retire(id(9), 'resolved'), false);
    assert.equal(rot.retire(id(1), 'resolved'), true);
    assert.equal(rot.retire(id(1), 'closed'), false);
    await rot.settled();
    assert.deepEqual(f.calls, ['pull 1', 'release 1 resolved']);
  });

  test('a market retired as resolved or closed is not started again though a selector by id still lists it', async () => {
    const { f, rot } = rotation({ refreshMs: 0 });
    rot.begin([km(1), km(2)]);
    rot.retire(id(1), 'resolved');
    rot.retire(id(2), 'paused');
    await rot.settled();
    f.selection = [km(1), km(2)];
    await rot.refresh();
    assert.equal(rot.isActive(id(1)), false, 'resolved: never again');
    assert.equal(rot.isActive(id(2)), true, 'paused: may come back');
  });

  test('a selected market the venue does not list as active is not started, nor counted, and tried again later', async () => {
    const { f, m, rot } = rotation({ refreshMs: 0 });
    f.inactive.add(id(4));
    f.selection = [km(4)];
    await rot.refresh();
    assert.equal(rot.isActive(id(4)), false);
    assert.deepEqual(m.log, []);
    assert.ok(!f.calls.some((c) => c.startsWith('pull')), 'nothing wired, nothing to retire');
    f.inactive.clear();
    await rot.refresh();
    assert.equal(rot.isActive(id(4)), true);
    assert.deepEqual(m.log, ['started selected']);
  });

  test('stop(): no more refreshes or retirement rounds', async () => {
    const { clock, f, rot } = await retiringWithAnOrder('closed', { refreshMs: 1_000, confirmAttempts: 1, retryMs: 1_000 });
    rot.stop();
    f.open.set(id(1), 0);
    clock.advance(10_000);
    await flush();
    assert.ok(!f.calls.some((c) => c.startsWith('release')));
    assert.equal(await rot.refresh(), false);
  });

  test('1,000 start/retire cycles leave no per-market state in the rotation', async () => {
    const { clock, f, rot } = rotation({ refreshMs: 0, windowMs: 60_000 });
    await cycle(clock, f, rot, 1_000);
    assert.equal(rot.heldMarketState, 0);
    assert.equal(rot.summary().started, 1_000);
    assert.equal(rot.summary().retired, 1_000);
    // the event log keeps only the summary window
    assert.ok(rot.recent().length <= 2 * 61, `recent events ${rot.recent().length}`);
  });

  test('markets retired as resolved are remembered in a small bounded set: the newest ENDED_MAX', async () => {
    const { clock, f, rot } = rotation({ refreshMs: 0, windowMs: 60_000 });
    const n = ENDED_MAX + 500;
    for (let i = 0; i < n; i++) f.reasons.set(id(i), 'resolved');
    await cycle(clock, f, rot, n);
    assert.equal(rot.summary().retired, n);
    assert.ok(ENDED_MAX <= 2_000, 'a few hundred KB of ids at most');
    assert.equal(rot.endedRemembered, ENDED_MAX);
    // the newest ended market is still refused though a selector by id lists it
    f.calls.length = 0;
    f.selection = [km(n - 1)];
    await rot.refresh();
    assert.equal(rot.isActive(id(n - 1)), false);
    assert.deepEqual(f.calls, []);
  });
});
