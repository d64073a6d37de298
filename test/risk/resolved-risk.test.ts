/**
 * After resolution: a market whose payout is known stops counting against the account-wide limits
 * (maxTotalPosition, maxTotalNotional). Its position is worth its payout, not at risk. Through the
 * real store and view (the account totals are summed there) and the real gate. On the old code the
 * resolved market's 100-share long kept taking 100 shares / ~60 USDC of the totals, and the other
 * market's bid was trimmed to nothing.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { BookSnapshot } from '../../src/model/book.ts';
import type { Bytes32 } from '../../src/model/order.ts';
import { accountShare, exposureOf, worstNotional, worstPosition } from '../../src/risk/exposure.ts';
import { applyRisk } from '../../src/risk/apply-risk.ts';
import type { StateEvent } from '../../src/state/events.ts';
import { selectMarketView } from '../../src/state/market-view.ts';
import { StateStore } from '../../src/state/store.ts';
import { limits, S } from './limits.ts';

const RESOLVED = ('0x' + 'a1'.repeat(32)) as Bytes32;
const LIVE = ('0x' + 'b2'.repeat(32)) as Bytes32;

function book(marketId: Bytes32, bid: number, ask: number, ts: number): StateEvent {
  const b: BookSnapshot = { marketId, outcomeIndex: 1, bids: [{ price: bid, size: 50 * S }], asks: [{ price: ask, size: 50 * S }], venueTs: ts };
  return { type: 'BookEventReceived', event: { type: 'snapshot', book: b, seq: 1, localTs: ts, source: 'stream' }, ts };
}

test('accountShare: a known payout adds nothing; otherwise the worst case as before', () => {
  const e = exposureOf(100 * S, []);
  assert.deepEqual(accountShare(e, 600_000, false), { position: worstPosition(e), notional: worstNotional(e, 600_000) });
  assert.deepEqual(accountShare(e, 600_000, false), { position: 100 * S, notional: 60 * S });
  assert.deepEqual(accountShare(e, 1_000_000, true), { position: 0, notional: 0 });
  assert.deepEqual(accountShare(exposureOf(-40 * S, []), 0, true), { position: 0, notional: 0 });
});

test('a resolved market leaves the account totals (its PnL stays), so it no longer blocks quoting elsewhere', () => {
  const store = new StateStore();
  store.dispatchAll([
    book(RESOLVED, 590_000, 610_000, 1_000),
    book(LIVE, 480_000, 520_000, 1_000),
    // 100 YES bought at 0.40 in the market that will resolve
    { type: 'OrderFilled', marketId: RESOLVED, nonce: null, outcomeIndex: 1, side: 0, price: 400_000, size: 100 * S, fee: 0, ts: 1_000 },
    { type: 'MarketMetadataUpdated', marketId: LIVE, status: 'active', ts: 1_000 },
  ]);
  const lim = limits({ maxTotalPosition: 120 * S, maxTotalNotional: 80 * S });
  const bid = { side: 'bid' as const, price: 480_000, size: 40 * S, level: 0 };

  const before = selectMarketView(store.state, LIVE, 1_500)!;
  assert.equal(before.account.worstCasePosition, 100 * S, 'the open long counts');
  assert.equal(before.account.worstCaseNotional, 60 * S, '100 shares at the 0.60 mid');
  const r1 = applyRisk(before, [bid], lim);
  // room: position 120 − 100 = 20 shares; notional (80 − 60) USDC at the 0.50 mark = 40 shares; the tighter wins
  const d1 = r1.decisions[0]!;
  assert.equal(d1.kind, 'trim');
  assert.ok(d1.kind === 'trim' && d1.reason === 'TOTAL_POSITION_LIMIT' && d1.size === 20 * S, JSON.stringify(d1));
  const pnlBefore = before.account.pnl;

  // the market resolves YES: 100 shares worth 1.00 each, claimable, nothing at risk
  store.dispatch({ type: 'MarketMetadataUpdated', marketId: RESOLVED, status: 'resolved', payoutYes: 1_000_000, ts: 2_000 });
  const after = selectMarketView(store.state, LIVE, 2_500)!;
  assert.equal(after.account.worstCasePosition, 0);
  assert.equal(after.account.worstCaseNotional, 0);
  assert.ok(after.account.pnl > pnlBefore, `the payout is marked in PnL: ${pnlBefore} → ${after.account.pnl}`);
  assert.equal(after.account.pnl, 60 * S, '100 × (1.00 − 0.40)');
  const r2 = applyRisk(after, [bid], lim);
  assert.deepEqual(r2.decisions[0], { kind: 'pass', quote: bid });

  // the resolved market itself quotes nothing (its guard stands)
  const own = applyRisk(selectMarketView(store.state, RESOLVED, 2_500)!, [bid], lim);
  assert.equal(own.action, 'pull');
  assert.equal(own.decisions[0]!.kind === 'deny' && own.decisions[0]!.reason, 'MARKET_NOT_ACTIVE');
});
