/**
 * Counts the store's events into the bot metrics: one subscription at the stream boundary, one
 * switch per event, no per-level work.
 *
 * Entry points: `countEvent(metrics, event, state)` (pure-ish: only increments counters) and
 * `bindStoreMetrics(metrics, store)` → an unsubscribe function.
 */
import type { Subscription } from 'rxjs';
import { adoptedIntoSlot, isStrangerCancel } from '../orders/orphan-slot.ts';
import { refusalLabel } from '../orders/refusal.ts';
import type { StateEvent } from '../state/events.ts';
import type { StoreState } from '../state/market-state.ts';
import type { StateStore } from '../state/store.ts';
import type { BotMetrics } from './bot-metrics.ts';
import type { Bytes32 } from '../model/order.ts';
import { micro } from '../model/units.ts';

const MICRO = 1e6;

function label(state: StoreState, marketId: Bytes32, bySlug: boolean): string {
  if (!bySlug) return marketId;
  return state.markets.get(marketId)?.slug ?? marketId;
}

/**
 * Each market's fill totals, exact (shares and fees in 1e-6, notional in 1e-12 USDC), and what its
 * counters hold (the floats prom-client added up): the counters move to the exact figure's decimal at
 * each fill, so they read 21.67, not the 21.669999999999998 a sum of floats drifts to. A released
 * market's entry goes with its series (src/metrics/remove-market-series.ts).
 */
export type FillTotals = Map<Bytes32, { shares: bigint; notional: bigint; fees: bigint; at: [number, number, number] }>;

const SCALE = 1_000_000n;

/** Move a counter from `cur` (what it holds) up to `target`; returns what it holds then (as prom-client adds). */
function incTo(c: BotMetrics['fills'], labels: { market: string }, cur: number, target: number): number {
  const d = target - cur;
  if (!(d > 0)) return cur;
  c.inc(labels, d);
  return cur + d;
}

function countFillMoney(m: BotMetrics, e: Extract<StateEvent, { type: 'OrderFilled' }>, mk: string, totals: FillTotals): void {
  let t = totals.get(e.marketId);
  if (t === undefined) totals.set(e.marketId, (t = { shares: 0n, notional: 0n, fees: 0n, at: [0, 0, 0] }));
  t.shares += BigInt(e.size);
  // the fill's stated collateral when it has one, as the books count its volume (src/state/position.ts)
  t.notional += e.notional !== undefined ? BigInt(e.notional) * SCALE : BigInt(e.size) * BigInt(e.price);
  t.fees += BigInt(e.fee);
  const labels = { market: mk };
  // the decimal of the exact figure (the notional floored to 1e-6, as the books round a market's volume)
  t.at[0] = incTo(m.fillShares, labels, t.at[0], Number(micro(t.shares)));
  t.at[1] = incTo(m.fillNotional, labels, t.at[1], Number(micro(t.notional / SCALE)));
  if (e.fee > 0) t.at[2] = incTo(m.fees, labels, t.at[2], Number(micro(t.fees)));
}

export function countEvent(m: BotMetrics, e: StateEvent, state: StoreState, bySlug = false, totals?: FillTotals): void {
  // no closure per event: this runs for every book delta too (2,000/s in the load run), and a
  // closure made per call costs an allocation (and, under tsx, a defineProperty for its name)
  switch (e.type) {
    case 'OrderSubmitted':
      m.ordersSent.inc({ market: label(state, e.marketId, bySlug), action: e.retry ? 'resend' : 'create' });
      break;
    case 'CancelSubmitted':
      // a stranger's cancel apart (the ledger's cancels.stranger, by the same test: src/orders/orphan-slot.ts)
      m.ordersSent.inc({ market: label(state, e.marketId, bySlug), action: isStrangerCancel(e) ? 'cancel-stranger' : 'cancel' });
      break;
    case 'OrderAccepted':
      m.ordersAccepted.inc({ market: label(state, e.marketId, bySlug), duplicate: String(e.duplicate) });
      break;
    case 'OrderCancelled':
      // not one the venue had already ended (filled, expired: alreadyCancelled), which no cancel of ours ended
      // a stranger cancelled is no order of this bot: counted apart, as the ledger's orderEnds.strangers.cancelled
      if (!e.alreadyCancelled) (isStrangerCancel(e) ? m.strangersCancelled : m.ordersCancelled).inc({ market: label(state, e.marketId, bySlug) });
      break;
    case 'OrderRejected':
      m.ordersRejected.inc({
        market: label(state, e.marketId, bySlug),
        reason: refusalLabel({ code: e.reason, message: e.message ?? '', status: e.status, venueCode: e.venueCode }),
      });
      break;
    case 'CancelFailed':
      m.cancelsFailed.inc({ market: label(state, e.marketId, bySlug), reason: e.reason });
      break;
    case 'OrderAdopted':
      // a stranger found and being cancelled is taken into account (counted at worst case) too; only
      // orders adopted into a quote slot count as adopted, by the test the ledger's count uses (order-ends.ts)
      if (adoptedIntoSlot(e)) m.ordersAdopted.inc({ market: label(state, e.marketId, bySlug) });
      break;
    case 'OrdersReconciled':
      m.reconciles.inc();
      break;
    case 'OrderFilled': {
      const mk = label(state, e.marketId, bySlug);
      m.fills.inc({ market: mk, side: e.side === 0 ? 'buy' : 'sell' });
      if (totals) {
        countFillMoney(m, e, mk, totals);
        break;
      }
      m.fillShares.inc({ market: mk }, e.size / MICRO);
      // the fill's stated collateral when it has one, as the books count its volume (src/state/position.ts)
      m.fillNotional.inc({ market: mk }, e.notional !== undefined ? e.notional / MICRO : (e.size / MICRO) * (e.price / MICRO));
      if (e.fee > 0) m.fees.inc({ market: mk }, e.fee / MICRO);
      break;
    }
    case 'MarketReleased':
      // its series are removed (src/runtime/rotation/bot-markets.ts): a later fill starts them again
      totals?.delete(e.marketId);
      break;
    case 'QuoteDenied':
      m.riskDenials.inc({ market: label(state, e.marketId, bySlug), reason: e.reason });
      break;
    case 'VenueBackedOff':
      if (e.shed > 0) m.requotesShed.inc(e.shed);
      else m.backoffs.inc();
      break;
    case 'VenueCallCompleted':
      m.venueCalls.inc({ call: e.call, ok: String(e.ok) });
      break;
    case 'MarketBlocked':
      m.marketsBlocked.inc({ market: label(state, e.marketId, bySlug), reason: e.reason });
      break;
    case 'BookEventReceived':
      if (e.event.type === 'status' && e.event.state === 'reconnecting') m.streamReconnects.inc({ market: label(state, e.event.marketId, bySlug) });
      break;
    default:
      break;
  }
}

/**
 * A fill the store had already taken (by fill id) before this change: reported again (a second
 * feed, a re-read), it is not a new fill and the counters skip it, as the books do.
 */
function repeated(before: StoreState, e: StateEvent): boolean {
  if (e.type !== 'OrderFilled' || e.fillId === undefined) return false;
  return before.markets.get(e.marketId)?.fillIds.has(e.fillId) === true;
}

export function bindStoreMetrics(m: BotMetrics, store: StateStore, bySlug = false): () => void {
  let before = store.state;
  const totals: FillTotals = new Map();
  const sub: Subscription = store.changes$.subscribe(({ state, events }) => {
    for (const e of events) if (!repeated(before, e)) countEvent(m, e, state, bySlug, totals);
    before = state;
  });
  return () => sub.unsubscribe();
}
