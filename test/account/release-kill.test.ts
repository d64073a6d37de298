/**
 * Markets leave the store, not the account: the kill switch acts on the account's PnL,
 * released markets included.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DEFAULT_ACCOUNT_LIMITS } from '../../src/account/account-risk.ts';
import type { Bytes32 } from '../../src/model/order.ts';
import type { StateEvent } from '../../src/state/events.ts';
import { StateStore } from '../../src/state/store.ts';
import { QuotingKernel } from '../../src/kernel/quoting-kernel.ts';
import { ManualClock } from '../exchange/stream/manual-clock.ts';
import { bandsKernel } from './bands-kernel.ts';
import { M1, M2 } from '../orders/fake-venue.ts';
import { topOfBook } from '../support/quoting.ts';

const S = 1_000_000;
const M3 = ('0x' + '33'.repeat(32)) as Bytes32;

const book = (marketId: Bytes32, bid: number, ask: number, ts: number): StateEvent => topOfBook(marketId, bid, ask, ts);
let n = 0;
const fill = (marketId: Bytes32, side: 0 | 1, price: number, size: number, ts: number): StateEvent => ({
  type: 'OrderFilled',
  marketId,
  nonce: null,
  outcomeIndex: 1,
  side,
  price,
  size,
  fee: 0,
  fillId: `f${++n}`,
  ts,
});

function setup() {
  const { clock, store, kernel } = bandsKernel([M1, M2, M3], { accountLimits: { ...DEFAULT_ACCOUNT_LIMITS, maxDrawdown: 30 * S, maxErrorRate: 0 } });
  return { clock, kernel, store };
}

/** A market that made +40 and went flat is released: it leaves the store, not the account. */
function makeFortyAndRelease(k: QuotingKernel, store: StateStore, clock: ManualClock, m: Bytes32): void {
  k.onEvent(book(m, 390_000, 410_000, clock.now()));
  k.onEvent(fill(m, 0, 400_000, 100 * S, clock.now()));
  k.onEvent(book(m, 790_000, 810_000, clock.now()));
  k.onEvent(fill(m, 1, 800_000, 100 * S, clock.now()));
  // every market quoting sees the peak: +40
  for (const other of [M2, M3]) if (other !== m) k.onEvent(book(other, 490_000, 510_000, clock.now()));
  k.tick(m);
  k.tick(M2);
  k.retireMarket(m);
  k.removeMarket(m);
  k.onEvent({ type: 'MarketReleased', marketId: m, keepPosition: true, ts: clock.now() });
  assert.equal(store.state.markets.has(m.toLowerCase()), false, 'the flat market left the store');
}

test('+40 made in a market that is then released: the account PnL stays +40 and the drawdown kill does not fire', async () => {
  const { clock, kernel, store } = setup();
  makeFortyAndRelease(kernel, store, clock, M1);
  clock.advance(1000);
  kernel.onEvent(book(M2, 490_000, 510_000, clock.now()));
  kernel.tick(M2);
  assert.equal(kernel.killed, null);
  assert.equal(kernel.account.figures().total, BigInt(40 * S));
  kernel.stop();
});

test('the market that set the peak is released, another loses 40: the drawdown kill fires', async () => {
  const { clock, kernel, store } = setup();
  makeFortyAndRelease(kernel, store, clock, M1);
  // M2: buy 100 at 0.50, the market falls to 0.10: −40, the account back to 0 from a +40 peak
  kernel.onEvent(book(M2, 490_000, 510_000, clock.now()));
  kernel.onEvent(fill(M2, 0, 500_000, 100 * S, clock.now()));
  clock.advance(1000);
  kernel.onEvent(book(M2, 90_000, 110_000, clock.now()));
  kernel.tick(M2);
  assert.equal(kernel.killed, 'KILL_DRAWDOWN');
  assert.equal(kernel.account.figures().total, 0n);
  kernel.stop();
});

test("the issue's case through the kernel: sell 10 @ 0.70, the balance read lands, then the buy 10 @ 0.50 arrives: realised +2.00", () => {
  const { clock, kernel } = setup();
  const t = clock.now();
  kernel.onEvent({ type: 'OrderFilled', marketId: M1, nonce: null, outcomeIndex: 1, side: 1, price: 700_000, size: 10 * S, fee: 0, fillId: 'sell', ts: t + 2 });
  kernel.onEvent({ type: 'PositionSynced', marketId: M1, yes: 0, no: 0, ts: t + 3 });
  kernel.onEvent({ type: 'OrderFilled', marketId: M1, nonce: null, outcomeIndex: 1, side: 0, price: 500_000, size: 10 * S, fee: 0, fillId: 'buy', ts: t + 1 });
  assert.equal(kernel.account.figures().realised, BigInt(2 * S));
  assert.deepEqual(kernel.account.positions(), []);
  assert.deepEqual(kernel.account.drifts(), []);
  kernel.stop();
});
