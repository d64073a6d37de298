/**
 * The edge gauges (src/metrics/edge-metrics.ts) on the bot's registry: markouts per horizon,
 * toxicity, flow, the regime one-hot and transitions, and the PnL attribution, which sums exactly
 * to the market's PnL as the pnl_usdc gauge reports it.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { Bytes32 } from '../../src/model/order.ts';
import { createBotMetrics } from '../../src/metrics/bot-metrics.ts';
import { StateStore } from '../../src/state/store.ts';
import type { StateEvent } from '../../src/state/events.ts';
import { ManualClock } from '../orders/fake-venue.ts';

const M = ('0x' + 'ef'.repeat(32)) as Bytes32;
const S = 1_000_000;
const book = (ts: number, bid: number, ask: number): StateEvent => ({
  type: 'BookEventReceived',
  event: {
    type: 'snapshot',
    book: { marketId: M, outcomeIndex: 1, bids: [{ price: bid, size: 100 * S }], asks: [{ price: ask, size: 100 * S }], venueTs: ts },
    seq: ts,
    localTs: ts,
    source: 'stream',
  },
  ts,
});
const value = (text: string, name: string, labels: string): number => {
  const l = text.split('\n').find((x) => x.startsWith(`${name}{${labels}}`));
  assert.ok(l, `${name}{${labels}} present`);
  return Number(l.split(' ').pop());
};

it('exports markouts, toxicity, flow, regime and attribution per market', async () => {
  const store = new StateStore();
  const clock = new ManualClock(0);
  const metrics = createBotMetrics({ labelBySlug: true });
  metrics.setStateSource(() => store.state, clock);
  store.dispatchAll([
    { type: 'MarketMetadataUpdated', marketId: M, slug: 'goal-before-half', ts: 0 },
    book(0, 490_000, 510_000),
    // bought 10 @ 48¢ (mid 50¢), sold 4 @ 53¢ (mid 50¢), fee 0.01
    { type: 'OrderFilled', marketId: M, nonce: null, outcomeIndex: 1, side: 0, price: 480_000, size: 10 * S, fee: 10_000, fillId: 'a', ts: 1_000 },
    { type: 'OrderFilled', marketId: M, nonce: null, outcomeIndex: 1, side: 1, price: 530_000, size: 4 * S, fee: 0, fillId: 'b', ts: 1_000 },
    {
      type: 'BookEventReceived',
      event: { type: 'trade', marketId: M, outcomeIndex: 1, seq: 9, price: 500_000, size: 20 * S, takerSide: 'sell', venueTs: 1_500, localTs: 1_500 },
      ts: 1_500,
    },
    // mid 45¢ from 1.5 s: jump (event regime); 1 s markouts: buy −3¢ (×10), sell +8¢ (×4)
    book(1_500, 440_000, 460_000),
    book(2_500, 440_000, 460_000),
  ]);
  clock.t = 3_000;
  const text = await metrics.registry.metrics();
  const mk = 'market="goal-before-half"';
  assert.ok(Math.abs(value(text, 'bookmaker_markout_cents', `${mk},horizon="1s"`) - (10 * -3 + 4 * 8) / 14) < 1e-9);
  assert.equal(value(text, 'bookmaker_markout_fills', `${mk},horizon="1s"`), 2);
  assert.equal(value(text, 'bookmaker_markout_fills', `${mk},horizon="10s"`), 0);
  assert.equal(value(text, 'bookmaker_flow_imbalance', mk), -1);
  assert.equal(value(text, 'bookmaker_regime', `${mk},regime="event"`), 1);
  assert.equal(value(text, 'bookmaker_regime', `${mk},regime="quiet"`), 0);
  // quiet → trending (the one-way selling flow) → event (the jump)
  assert.equal(value(text, 'bookmaker_regime_transitions', mk), 2);
  const part = (c: string) => Math.round(value(text, 'bookmaker_pnl_attribution_usdc', `${mk},component="${c}"`) * 1e6);
  // spread: 10 × 2¢ + 4 × 3¢; inventory: net 6 × (45 − 50)¢; fees −0.01
  assert.deepEqual([part('spread_capture'), part('inventory'), part('fees'), part('resolution')], [320_000, -300_000, -10_000, 0]);
  const pnl =
    Math.round(value(text, 'bookmaker_pnl_usdc', `${mk},kind="realised"`) * 1e6) +
    Math.round(value(text, 'bookmaker_pnl_usdc', `${mk},kind="unrealised"`) * 1e6);
  assert.equal(part('spread_capture') + part('inventory') + part('fees') + part('resolution'), pnl);
});

it("exports the account's pooled toxicity: with one market, the market's own figure; kept after the market is released", async () => {
  const store = new StateStore();
  const clock = new ManualClock(0);
  const metrics = createBotMetrics({ labelBySlug: true });
  metrics.setStateSource(() => store.state, clock);
  const plain = (text: string, name: string): number | undefined => {
    const l = text.split('\n').find((x) => x.startsWith(`${name} `));
    return l === undefined ? undefined : Number(l.split(' ').pop());
  };
  store.dispatchAll([
    { type: 'MarketMetadataUpdated', marketId: M, slug: 'goal-before-half', ts: 0 },
    book(0, 490_000, 510_000),
    { type: 'OrderFilled', marketId: M, nonce: null, outcomeIndex: 1, side: 0, price: 480_000, size: 10 * S, fee: 0, fillId: 'a', ts: 1_000 },
    { type: 'OrderFilled', marketId: M, nonce: null, outcomeIndex: 1, side: 0, price: 490_000, size: 10 * S, fee: 0, fillId: 'b', ts: 1_000 },
    book(1_500, 440_000, 460_000),
    book(12_000, 440_000, 460_000),
  ]);
  clock.t = 12_000;
  let text = await metrics.registry.metrics();
  // 10 s markouts: −3¢ and −4¢, 10 shares each
  const own = value(text, 'bookmaker_toxicity_cents', 'market="goal-before-half"');
  assert.ok(Math.abs(own - -3.5) < 1e-9);
  assert.equal(plain(text, 'bookmaker_toxicity_pool_cents'), own);
  // two fills, decayed for 1 s since their markouts settled (half-life 30 min)
  assert.ok(Math.abs(plain(text, 'bookmaker_toxicity_pool_fills')! - 2 * 0.5 ** (1_000 / 1_800_000)) < 1e-9);
  store.dispatch({ type: 'MarketReleased', marketId: M, keepPosition: false, ts: 13_000 });
  text = await metrics.registry.metrics();
  assert.equal(text.includes('bookmaker_toxicity_cents{'), false);
  assert.equal(plain(text, 'bookmaker_toxicity_pool_cents'), own);
});

it("exports the market's print markout: the passive side of its trades at the toxicity horizon, as the view has it", async () => {
  const store = new StateStore();
  const clock = new ManualClock(0);
  const metrics = createBotMetrics({ labelBySlug: true });
  metrics.setStateSource(() => store.state, clock);
  const trade = (ts: number, takerSide: 'buy' | 'sell', price: number): StateEvent => ({
    type: 'BookEventReceived',
    event: { type: 'trade', marketId: M, outcomeIndex: 1, seq: ts, price, size: 10 * S, takerSide, venueTs: ts, localTs: ts },
    ts,
  });
  store.dispatchAll([
    { type: 'MarketMetadataUpdated', marketId: M, slug: 'goal-before-half', ts: 0 },
    book(0, 490_000, 510_000),
    // a taker sale at 49¢ (the passive side bought) and a taker buy at 51¢ (it sold); the mid then 45¢
    trade(1_000, 'sell', 490_000),
    trade(1_000, 'buy', 510_000),
    book(1_500, 440_000, 460_000),
    book(12_000, 440_000, 460_000),
  ]);
  clock.t = 12_000;
  const text = await metrics.registry.metrics();
  const mk = 'market="goal-before-half"';
  // 10 s markouts: the buyer −4¢, the seller +6¢: +1¢ a share
  assert.ok(Math.abs(value(text, 'bookmaker_toxicity_prints_cents', mk) - 1) < 1e-9);
  assert.ok(Math.abs(value(text, 'bookmaker_toxicity_prints', mk) - 2 * 0.5 ** (1_000 / 300_000)) < 1e-9);
  // no own fills: no toxicity of its own
  assert.equal(text.includes('bookmaker_toxicity_cents{'), false);
});
