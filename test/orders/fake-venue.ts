/**
 * A scripted VenuePort for order-manager tests: an in-memory set of open orders, every call
 * recorded, and per-item outcomes overridable by a script. Also a manual clock.
 */
import { asyncScheduler } from 'rxjs';
import type { Clock } from '../../src/core/clock.ts';
import type { Address, Bytes32, VenueOrder } from '../../src/model/order.ts';
import type { BatchResult, CancelOutcome, CreateOutcome, PlannedOrder, VenuePort } from '../../src/model/venue.ts';

export const TRADER = '0x1111111111111111111111111111111111111111' as Address;
export const M1 = ('0x' + 'a1'.repeat(32)) as Bytes32;
export const M2 = ('0x' + 'b2'.repeat(32)) as Bytes32;

export class ManualClock implements Clock {
  readonly scheduler = asyncScheduler;
  constructor(public t = 1_800_000_000_000) {}
  now(): number {
    return this.t;
  }
  setTimeout(fn: () => void): () => void {
    queueMicrotask(fn);
    return () => undefined;
  }
}

export type Call =
  | { kind: 'batch'; creates: PlannedOrder[]; cancels: Bytes32[] }
  | { kind: 'cancel-replace'; cancel: Bytes32; create: PlannedOrder }
  | { kind: 'open-orders'; marketId?: Bytes32 };

export function venueOrder(p: PlannedOrder, remaining = p.size): VenueOrder {
  return {
    marketId: p.marketId,
    trader: TRADER,
    nonce: p.nonce,
    side: p.side,
    outcomeIndex: p.outcomeIndex,
    price: p.price,
    size: p.size,
    filledSize: p.size - remaining,
    remainingSize: remaining,
    percentFilled: 0,
    type: 'limit',
    status: 'open',
    voidReason: null,
    insertedAt: '2026-11-21T00:00:00Z',
    expiry: p.expiry ?? 0,
    settlementVersion: 2,
    sv2OrderKind: p.side === 0 ? 0 : p.inventoryMode === 2 ? 2 : 1,
    sv2TimeInForce: 0,
    sv2MinSharesOut: null, // keeps remainingSize in shares for buys in these tests
    sv2MaxCollateralIn: null,
    sv2MinCollateralOut: null,
  };
}

/** A `createScript` that refuses every create as the venue answers a 400 for want of collateral. */
export const refuseInsufficientBalance = (p: PlannedOrder): CreateOutcome => ({
  ok: false,
  nonce: p.nonce,
  code: 'bad-request',
  message: 'insufficient balance',
  retryable: false,
  status: 400,
  venueCode: 'INSUFFICIENT_BALANCE',
});

export class FakeVenue implements VenuePort {
  readonly trader = TRADER;
  readonly open = new Map<string, VenueOrder>();
  readonly calls: Call[] = [];
  /** every create body ever received, in order (to check retries resend the same order) */
  readonly received: PlannedOrder[] = [];
  /** return an outcome to override the default for one create */
  createScript: (p: PlannedOrder) => CreateOutcome | undefined = () => undefined;
  cancelScript: (n: Bytes32) => CancelOutcome | undefined = () => undefined;
  /** throw from the next batch call */
  throwNext: Error | null = null;
  /** resolve batch calls only when released (to observe in-flight state) */
  hold: Promise<void> | null = null;
  /** orders appearing at the venue on the next openOrders() (a late-landing create) */
  lateArrivals: VenueOrder[] = [];
  failOpenOrders = 0;

  constructor(readonly batchLimit = 50) {}

  private create(p: PlannedOrder): CreateOutcome {
    this.received.push(p);
    const scripted = this.createScript(p);
    if (scripted) {
      if (scripted.ok) this.open.set(p.nonce, venueOrder(p));
      return scripted;
    }
    if (this.open.has(p.nonce)) return { ok: true, nonce: p.nonce, order: null, duplicate: true };
    const o = venueOrder(p);
    this.open.set(p.nonce, o);
    return { ok: true, nonce: p.nonce, order: o, duplicate: false };
  }

  private cancel(n: Bytes32): CancelOutcome {
    const scripted = this.cancelScript(n);
    if (scripted) return scripted;
    const had = this.open.delete(n);
    return { ok: true, nonce: n, alreadyCancelled: !had };
  }

  async batch(creates: PlannedOrder[], cancels: Bytes32[]): Promise<BatchResult> {
    this.calls.push({ kind: 'batch', creates: [...creates], cancels: [...cancels] });
    if (creates.length + cancels.length > this.batchLimit) throw new Error('batch over the limit');
    if (this.hold) await this.hold;
    if (this.throwNext) {
      const e = this.throwNext;
      this.throwNext = null;
      throw e;
    }
    const c = cancels.map((n) => this.cancel(n));
    return { cancels: c, creates: creates.map((p) => this.create(p)) };
  }

  async cancelReplace(cancelNonce: Bytes32, create: PlannedOrder): Promise<{ cancel: CancelOutcome; create: CreateOutcome }> {
    this.calls.push({ kind: 'cancel-replace', cancel: cancelNonce, create });
    if (this.hold) await this.hold;
    return { cancel: this.cancel(cancelNonce), create: this.create(create) };
  }

  async openOrders(marketId?: Bytes32): Promise<VenueOrder[]> {
    this.calls.push({ kind: 'open-orders', ...(marketId ? { marketId } : {}) });
    if (this.failOpenOrders > 0) {
      this.failOpenOrders--;
      throw new Error('list failed');
    }
    for (const o of this.lateArrivals) this.open.set(o.nonce, o);
    this.lateArrivals = [];
    return [...this.open.values()].filter((o) => !marketId || o.marketId === marketId);
  }

  venueCalls(): Call[] {
    return this.calls.filter((c) => c.kind !== 'open-orders');
  }
}
