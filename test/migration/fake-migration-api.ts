/**
 * An in-memory migration endpoint modelled on docs/venue.md#migration-to-settlement-v2 (and the local exchange's machine):
 * status flags computed from state, each call checked like the venue would, and scripted
 * interruptions — the request lost before the venue applied it, or the answer lost after.
 */
import assert from 'node:assert/strict';
import { asyncScheduler } from 'rxjs';
import type { Clock } from '../../src/core/clock.ts';
import type { MigrateFundsInput, MigrationStatus, PendingRestoration, RestoreItemResult } from '../../src/exchange/client/migration.ts';
import type { MigrationApi } from '../../src/migration/startup-migration.ts';
import { BookmakerError } from '../../src/model/errors.ts';
import { addressOf } from '../../src/model/ids.ts';
import type { Address, CreateOrderBody } from '../../src/model/order.ts';

export const WALLET = '0x2222222222222222222222222222222222222222' as Address;
export const RELAYER = '0x3333333333333333333333333333333333333333' as Address;
export const SV2 = '0x00000000008c286A2aaa99c6Be3b3D405A929500' as Address;
const USDC = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913' as Address;

/** A clock whose timers advance virtual time instantly. */
export class SteppingClock implements Clock {
  readonly scheduler = asyncScheduler;
  constructor(public t = 1_800_000_000_000) {}
  now(): number {
    return this.t;
  }
  setTimeout(fn: () => void, ms: number): () => void {
    this.t += ms;
    queueMicrotask(fn);
    return () => undefined;
  }
}

export interface LegacyOrder {
  id: number;
  draft: Record<string, unknown>;
  status: 'open' | 'retired' | 'restored' | 'dismissed' | 'failed';
}

export type Interrupt = { call: 'start' | 'migrateFunds' | 'restoreOrders' | 'dismissOrders'; when: 'before' | 'after' };

export class FakeMigrationApi implements MigrationApi {
  active = true;
  started = false;
  /** legacy balances, one chunk per entry */
  chunks: bigint[];
  opApproved = false;
  opNonce = 4n;
  fundsStatus: string | null = null;
  /** funds migrations the venue applied (must end at exactly 1) */
  fundsApplied = 0;
  startApplied = 0;
  readonly orders: LegacyOrder[];
  readonly calls: string[] = [];
  readonly fundsBodies: MigrateFundsInput[] = [];
  readonly restoredBodies: CreateOrderBody[] = [];
  interrupt: Interrupt | null = null;
  /** legacy order ids whose restore the venue refuses */
  refuseRestore = new Set<number>();
  /** sponsored funds stay "pending" for this many status reads after submission */
  pendingReads = 0;

  constructor(
    private readonly clock: Clock,
    opts: { chunks?: bigint[]; orders?: { id: number; expiry: number }[] } = {},
  ) {
    this.chunks = opts.chunks ?? [5_000_000n];
    this.orders = (opts.orders ?? []).map(({ id, expiry }) => ({
      id,
      status: 'open',
      draft: {
        type: 'limit',
        marketId: '0x' + id.toString(16).padStart(64, '0'),
        trader: WALLET,
        side: 0,
        price: '450000',
        size: '10000000',
        remainingSize: '7000000',
        outcomeIndex: 1,
        nonce: '0x' + (1000 + id).toString(16).padStart(64, '0'),
        expiry: String(expiry),
        maxFee: '45000',
        timeInForce: 0,
        clientOrderType: 'limit',
        makerRoleConstraint: 0,
        inventoryModeConstraint: 0,
        reason: 'ready_for_resign',
      },
    }));
  }

  private outstanding(): LegacyOrder[] {
    return this.orders.filter((o) => o.status === 'retired' || o.status === 'failed');
  }

  private complete(): boolean {
    return this.chunks.length === 0 && this.outstanding().length === 0 && !this.orders.some((o) => o.status === 'open') && this.opApproved;
  }

  private gate(call: Interrupt['call'], when: Interrupt['when']): void {
    if (this.interrupt?.call === call && this.interrupt.when === when) {
      this.interrupt = null;
      throw new BookmakerError('NETWORK', `connection reset (${call}, ${when})`);
    }
  }

  async status(): Promise<MigrationStatus> {
    this.calls.push('status');
    if (this.fundsStatus === 'pending') {
      if (this.pendingReads > 0) this.pendingReads--;
      else {
        this.fundsStatus = 'completed';
        this.chunks = [];
        this.opApproved = true;
        this.opNonce++;
      }
    }
    const pending: PendingRestoration[] = this.outstanding().map((o) => ({
      id: o.id,
      legacyOrderId: o.id,
      legacyOrderHash: null,
      legacyMarketId: String(o.draft.marketId),
      status: o.status === 'failed' ? 'failed' : 'pending',
      draft: o.draft,
      error: null,
    }));
    const tokens = (amount: bigint) => [{ token: USDC, amount }];
    return {
      migrationActive: this.active,
      // as the client reads them: normalised where they enter (src/model/ids.ts)
      walletAddress: addressOf(WALLET)!,
      holdings: { legacy: null, new: null },
      settlementV2Address: addressOf(SV2)!,
      legacyBalances: [],
      newBalances: [],
      v2OperatorApproved: this.opApproved,
      newHoldingsOperatorNonce: this.opNonce,
      fundsMigrationPlan: {
        phase: this.chunks.length ? 'ready' : 'none',
        callCount: 0,
        chunkCount: this.chunks.length,
        calls: [],
        tokens: [],
        chunks: this.chunks.map((a) => ({ callCount: 1, calls: [], tokens: tokens(a) })),
      },
      pendingRestorations: pending,
      voidedLegacyOrderCount: 0,
      legacyOpenOrderCount: this.orders.filter((o) => o.status === 'open').length,
      sponsoredFundsMigrationAvailable: true,
      sponsoredRelayerAddress: RELAYER,
      sponsoredFundsMigrationStatus: this.fundsStatus === null ? null : { status: this.fundsStatus, userOperationHash: null, txHash: null, error: null },
      canStart: this.active && !this.started && this.orders.some((o) => o.status === 'open'),
      canMigrateFunds: this.active && this.chunks.length > 0,
      canRestoreOrders: this.active && this.outstanding().length > 0,
      canDismissOrders: this.active && (this.outstanding().length > 0 || this.orders.some((o) => o.status === 'open')),
      migrationComplete: this.complete(),
    };
  }

  async start() {
    this.calls.push('start');
    this.gate('start', 'before');
    assert.ok(!this.started, 'start applied twice');
    this.started = true;
    this.startApplied++;
    let retired = 0;
    for (const o of this.orders) if (o.status === 'open') (o.status = 'retired'), retired++;
    this.gate('start', 'after');
    return {
      retiredCount: retired,
      restorableCount: retired,
      legacyBalances: [],
      newBalances: [],
      fundsMigrationPlan: null,
      pendingRestorations: [],
      legacyOpenOrderCount: 0,
    };
  }

  async migrateFunds(input: MigrateFundsInput) {
    this.calls.push('migrateFunds');
    this.gate('migrateFunds', 'before');
    assert.ok(this.chunks.length > 0, 'funds migrated twice');
    assert.equal(input.batchWithdraws.length, this.chunks.length, 'one BatchWithdraw per chunk');
    const now = Math.floor(this.clock.now() / 1000);
    for (const w of [...input.batchWithdraws, input.setOperator]) assert.equal(w.deadline, String(now + 3600), 'shared deadline now + 3600');
    const nonces = input.batchWithdraws.map((w) => BigInt(w.nonce));
    assert.equal(new Set(nonces).size, nonces.length, 'distinct chunk nonces');
    for (const n of nonces) assert.ok(n < 2n ** 128n, 'uint128 nonce');
    assert.equal(input.setOperator.nonce, String(this.opNonce), 'operator nonce from status');
    this.fundsBodies.push(input);
    this.fundsApplied++;
    if (this.pendingReads > 0) this.fundsStatus = 'pending';
    else {
      this.chunks = [];
      this.opApproved = true;
      this.opNonce++;
      this.fundsStatus = 'completed';
    }
    this.gate('migrateFunds', 'after');
    return {
      userOperationHash: '0x' + 'aa'.repeat(32),
      txHash: '0x' + 'bb'.repeat(32),
      executions: [],
      legacyBalances: [],
      newBalances: [],
      v2OperatorApproved: this.opApproved,
    };
  }

  async restoreOrders(items: { legacyOrderId: number; order: CreateOrderBody }[]) {
    this.calls.push('restoreOrders');
    this.gate('restoreOrders', 'before');
    assert.ok(items.length >= 1 && items.length <= 50);
    const results: RestoreItemResult[] = items.map(({ legacyOrderId, order }) => {
      const o = this.orders.find((x) => x.id === legacyOrderId);
      assert.ok(o && o.status === 'retired', `restore of ${legacyOrderId} in state ${o?.status}`);
      assert.equal(order.type, 'limit');
      if (order.type !== 'limit') throw new Error('unreachable');
      for (const k of ['nonce', 'expiry', 'maxFee', 'price', 'marketId'] as const) assert.equal(order[k], o.draft[k], `legacy ${k} reused`);
      assert.equal(order.size, o.draft.remainingSize, 'size = remaining size');
      assert.equal(order.buyValue, undefined);
      assert.match(order.signature, /^0x[0-9a-f]+$/);
      if (this.refuseRestore.has(legacyOrderId)) {
        o.status = 'failed';
        return { legacyOrderId, success: false, error: 'UNDER_COLLATERALIZED' };
      }
      o.status = 'restored';
      this.restoredBodies.push(order);
      return { legacyOrderId, success: true, restoredOrderId: legacyOrderId + 500, restoredOrderHash: '0x' + 'cc'.repeat(32) };
    });
    this.gate('restoreOrders', 'after');
    return { restoredCount: results.filter((r) => r.success).length, failedCount: results.filter((r) => !r.success).length, results };
  }

  async dismissOrders(opts: { legacyOrderIds?: number[] }) {
    this.calls.push('dismissOrders');
    this.gate('dismissOrders', 'before');
    let n = 0;
    for (const o of this.orders) {
      if ((o.status === 'retired' || o.status === 'failed' || o.status === 'open') && (!opts.legacyOrderIds || opts.legacyOrderIds.includes(o.id))) {
        o.status = 'dismissed';
        n++;
      }
    }
    this.gate('dismissOrders', 'after');
    return { dismissedCount: n };
  }
}
