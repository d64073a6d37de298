/**
 * requote-calls: venue calls per minute of the order manager (tolerances, cancel-replace, one mixed
 * bulk per change) against a naive cancel-all-then-create loop, on the same simulated book moves.
 *
 * 10 markets, each with a book event every 200 ms for 10 virtual minutes: the mid random-walks (70 %
 * of events jitter sizes only, 25 % move 1–2 ticks, 5 % jump 3–8 ticks). The bands strategy (2
 * bands a side, min/target/max margins) quotes through the quoting kernel with a 250 ms requote
 * interval on a virtual clock; the venue is in memory and counts calls. The baseline replays the
 * same kernel ticks as "cancel every order of the market, then create the whole desired set": one
 * cancel call and one create call per tick that has something to cancel / create.
 *
 *   npm run bench -- requote-calls [--minutes N] [--markets N]
 */
import bands from '../../strategies/bands/index.ts';
import { DEFAULT_RISK } from '../../src/config/parse-risk.ts';
import type { Bytes32, VenueOrder } from '../../src/model/order.ts';
import type { BatchResult, CancelOutcome, CreateOutcome, PlannedOrder, VenuePort } from '../../src/model/venue.ts';
import { QuotingKernel, type KernelTick } from '../../src/kernel/quoting-kernel.ts';
import { StateStore } from '../../src/state/store.ts';
import { report } from './lib.ts';
import { ManualClock } from '../exchange/stream/manual-clock.ts';
import { mulberry32 } from '../../src/sim/rng.ts';
import { benchKernel, twoBands, unboundedRisk } from '../support/quoting.ts';

const arg = (name: string, d: number): number => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : d;
};
const MINUTES = arg('minutes', 10);
const MARKETS = arg('markets', 10);
const TICK = 10_000;

class CountingVenue implements VenuePort {
  readonly trader = '0x00000000000000000000000000000000000000aa' as const;
  readonly batchLimit = 50;
  calls = { batch: 0, cancelReplace: 0 };
  private open = new Map<string, PlannedOrder>();
  async batch(creates: PlannedOrder[], cancels: Bytes32[]): Promise<BatchResult> {
    this.calls.batch++;
    return { cancels: cancels.map((n) => this.cancel(n)), creates: creates.map((p) => this.create(p)) };
  }
  async cancelReplace(n: Bytes32, p: PlannedOrder): Promise<{ cancel: CancelOutcome; create: CreateOutcome }> {
    this.calls.cancelReplace++;
    return { cancel: this.cancel(n), create: this.create(p) };
  }
  async openOrders(): Promise<VenueOrder[]> {
    return [];
  }
  private cancel(n: Bytes32): CancelOutcome {
    return { ok: true, nonce: n, alreadyCancelled: !this.open.delete(n) };
  }
  private create(p: PlannedOrder): CreateOutcome {
    this.open.set(p.nonce, p);
    return { ok: true, nonce: p.nonce, order: null, duplicate: false };
  }
}

const rng = mulberry32;

const ids = Array.from({ length: MARKETS }, (_, i) => ('0x' + (i + 1).toString(16).padStart(2, '0').repeat(32)) as Bytes32);
const clock = new ManualClock(1_800_000_000_000);
const venue = new CountingVenue();
const store = new StateStore();
const params = bands.parseConfig(twoBands(), 'bench');
const risk = unboundedRisk(DEFAULT_RISK, { maxBookAgeMs: 60_000, maxStreamSilenceMs: 60_000, orderRate: { capacity: 1e9, refillPerSecond: 1e9 } });

// naive baseline over the same ticks: cancel whatever rests, then create the whole desired set
const naive = { calls: 0, resting: new Map<string, number>() };
function naiveTick(marketId: Bytes32, t: KernelTick): void {
  const k = marketId.toLowerCase();
  if ((naive.resting.get(k) ?? 0) > 0) naive.calls++;
  if (t.desired.length > 0) naive.calls++;
  naive.resting.set(k, t.desired.length);
}
let ticks = 0;
const kernel = benchKernel({ QuotingKernel, bands, DEFAULT_RISK }, ids, {
  clock,
  venue,
  store,
  params,
  risk,
  requoteIntervalMs: 250,
  housekeepingMs: 1000,
  onTick: (m, t) => {
    ticks++;
    naiveTick(m, t);
  },
});
await kernel.orderManager.reconcile();

const r = rng(42);
const mids = ids.map(() => 300_000 + Math.floor(r() * 40) * TICK);
const STEP = 200;
const end = clock.now() + MINUTES * 60_000;
let seq = 0;
let events = 0;
while (clock.now() < end) {
  const now = clock.now() + STEP;
  clock.advance(now - clock.now());
  for (let i = 0; i < ids.length; i++) {
    const u = r();
    if (u > 0.7) {
      const big = u > 0.95;
      const n = big ? 3 + Math.floor(r() * 6) : 1 + Math.floor(r() * 2);
      mids[i] = Math.min(900_000, Math.max(100_000, mids[i]! + (r() < 0.5 ? -n : n) * TICK));
    }
    const mid = mids[i]!;
    const jitter = () => 50_000_000 + Math.floor(r() * 50) * 1_000_000;
    kernel.onEvent({
      type: 'BookEventReceived',
      event: {
        type: 'snapshot',
        book: {
          marketId: ids[i]!,
          outcomeIndex: 1,
          bids: [
            { price: mid - TICK, size: jitter() },
            { price: mid - 2 * TICK, size: jitter() },
          ],
          asks: [
            { price: mid + TICK, size: jitter() },
            { price: mid + 2 * TICK, size: jitter() },
          ],
          venueTs: now,
          seq: ++seq,
        },
        seq,
        localTs: now,
        source: 'stream',
      },
      ts: now,
    });
    events++;
  }
  await kernel.flush();
}
kernel.stop();

const ours = venue.calls.batch + venue.calls.cancelReplace;
const perMin = ours / MINUTES;
const naivePerMin = naive.calls / MINUTES;
report(
  [
    ['markets', MARKETS],
    ['virtual minutes', MINUTES],
    ['book events', events],
    ['kernel ticks', ticks],
    ['order manager: bulk calls', venue.calls.batch],
    ['order manager: cancel-replace calls', venue.calls.cancelReplace],
    ['order manager calls / minute', perMin],
    ['naive cancel-all + create calls / minute', naivePerMin],
    ['order manager calls per kernel tick', ours / Math.max(1, ticks)],
  ],
  {
    name: 'requote-calls',
    unit: 'venue calls/min (10 markets)',
    value: Math.round(perMin * 10) / 10,
    baseline: 'naive cancel-all-then-create',
    baselineValue: Math.round(naivePerMin * 10) / 10,
    ratio: Math.round((naivePerMin / perMin) * 100) / 100,
  },
);
