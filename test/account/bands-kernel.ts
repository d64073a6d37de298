/**
 * The account tests' bot: a quoting kernel of the bands strategy (one band a side) over `markets`, on a
 * fake venue and a manual clock, no timers; risk limits of 1000 shares and 1000 USDC that books up to a
 * minute old pass. `more` adds kernel options (the account, its limits).
 */
import bands from '../../strategies/bands/index.ts';
import { DEFAULT_RISK } from '../../src/config/parse-risk.ts';
import { QuotingKernel, type QuotingKernelOptions } from '../../src/kernel/quoting-kernel.ts';
import type { Bytes32 } from '../../src/model/order.ts';
import { StateStore } from '../../src/state/store.ts';
import { ManualClock } from '../exchange/stream/manual-clock.ts';
import { FakeVenue } from '../orders/fake-venue.ts';
import { ONE_BAND } from '../support/quoting.ts';

const S = 1_000_000;
const params = bands.parseConfig(ONE_BAND, 'strategy');
const risk = { ...DEFAULT_RISK, maxBookAgeMs: 60_000, maxStreamSilenceMs: 60_000, maxPosition: 1000 * S, maxNotional: 1000 * S };

export function bandsKernel(markets: Bytes32[], more: Partial<QuotingKernelOptions> = {}): { clock: ManualClock; store: StateStore; kernel: QuotingKernel } {
  const clock = new ManualClock(1_800_000_000_000);
  const store = new StateStore();
  const kernel = new QuotingKernel({
    clock,
    venue: new FakeVenue(),
    store,
    markets: markets.map((marketId) => ({ marketId, strategy: bands, params, risk })),
    requoteIntervalMs: 0,
    housekeepingMs: 0,
    ...more,
  });
  return { clock, store, kernel };
}
