/**
 * The migration state machine over MigrationData (docs/venue.md#migration-to-settlement-v2). Pure functions of the data (no
 * HTTP, no clock, no signature checks: the routes verify signatures first and then call these).
 *
 * Per wallet:  legacy state ──start──▶ orders retired, restorations pending
 *              legacy balances ──migrate-funds──▶ balances credited to the V2 ledger, operator approved
 *              pending/failed restorations ──restore-orders / dismiss-orders──▶ restored / dismissed
 * Legacy (V1) orders never rest in the V2 book: V1 settlement is halted during the migration, so they
 * only exist here until retired.
 *
 * The trading rule: while migration is active, a wallet with legacy balances, legacy open orders or
 * pending/failed restorations cannot create orders (409); cancels keep working.
 *
 * Wallets arrive here normalised (../wire-ids.ts, docs/local-exchange.md#ids-and-addresses): the
 * routes' validators, the trading guard and the seeds make them lower-case once, so a wallet is its
 * own key in `MigrationData.wallets` and `operators`.
 */
import { HttpError } from '../http-errors.ts';
import { addressOf, bytes32Of } from '../../model/ids.ts';
import type { Bytes32 } from '../../model/order.ts';
import type { LowerAddress } from '../wire-ids.ts';
import type { FundsPlan, PlanContracts } from './funds-plan.ts';
import { buildFundsPlan } from './funds-plan.ts';
import type { LegacyAsset, LegacyOrder, MigrationData, OperatorState, Restoration, WalletMigration } from './migration-data.ts';

/** How moved funds reach the V2 ledger (the engine, through the exchange). */
export interface LedgerCredit {
  credit(wallet: LowerAddress, asset: LegacyAsset, amount: bigint): void;
}

export type HoldingsVersion = 1 | 2;

export function walletState(data: MigrationData, wallet: LowerAddress): WalletMigration | undefined {
  return data.wallets[wallet];
}

export function legacyTotal(w: WalletMigration): bigint {
  let t = 0n;
  for (const b of w.legacyBalances) t += b.amount;
  return t;
}

export function openLegacyOrders(w: WalletMigration): LegacyOrder[] {
  return w.legacyOrders.filter((o) => o.status === 'open');
}

/** Restorations still waiting for the user: pending, or failed and not yet dismissed. */
export function outstandingRestorations(w: WalletMigration): Restoration[] {
  return w.restorations.filter((r) => r.status === 'pending' || r.status === 'failed');
}

/** Does this wallet still have something to migrate? */
export function needsMigration(w: WalletMigration | undefined): boolean {
  if (!w) return false;
  return legacyTotal(w) > 0n || openLegacyOrders(w).length > 0 || outstandingRestorations(w).length > 0;
}

/** The 409 rule (create, bulk create, mixed bulk, cancel-replace). */
export function isTradingBlocked(data: MigrationData, wallet: LowerAddress): boolean {
  return data.active && needsMigration(walletState(data, wallet));
}

/**
 * Operator approval state on one Holdings version. Wallets seeded as legacy accounts start without a
 * V2 approval (the funds migration grants it); every other wallet is assumed set up already.
 */
export function operatorState(data: MigrationData, version: HoldingsVersion, wallet: LowerAddress): OperatorState {
  const found = data.operators[`${version}:${wallet}`];
  if (found) return found;
  const legacy = walletState(data, wallet) !== undefined;
  return { nonce: 0n, approved: version === 2 ? !legacy : legacy };
}

/** Apply an operator approval whose signature (with `nonce` = current nonce) was verified. */
export function applyOperatorApproval(data: MigrationData, version: HoldingsVersion, wallet: LowerAddress, approved: boolean): OperatorState {
  const cur = operatorState(data, version, wallet);
  const next = { nonce: cur.nonce + 1n, approved };
  data.operators[`${version}:${wallet}`] = next;
  return next;
}

export function fundsPlanOf(data: MigrationData, w: WalletMigration, contracts: Omit<PlanContracts, 'relayer'>): FundsPlan {
  const plan = buildFundsPlan(w.legacyBalances, data.tokensPerChunk, { ...contracts, relayer: data.relayer }, w.wallet);
  if (plan.phase === 'none' && w.funds?.status === 'completed') return { ...plan, phase: 'completed' };
  return plan;
}

function requireActive(data: MigrationData): void {
  if (!data.active) throw new HttpError(409, 'CONFLICT', 'migration is not active');
}

function requireWallet(data: MigrationData, wallet: LowerAddress): WalletMigration {
  const w = walletState(data, wallet);
  if (!w) throw new HttpError(409, 'CONFLICT', 'this wallet has nothing to migrate');
  return w;
}

/**
 * Start: retire every open legacy order and create one pending restoration for each. Idempotent: a
 * second start retires nothing more, so an interrupted client can simply run its flow again.
 */
export function startMigration(data: MigrationData, wallet: LowerAddress): { retiredCount: number; restorableCount: number } {
  requireActive(data);
  const w = walletState(data, wallet);
  if (!w) return { retiredCount: 0, restorableCount: 0 };
  let retired = 0;
  for (const o of w.legacyOrders) {
    if (o.status !== 'open') continue;
    o.status = 'retired';
    retired++;
    w.restorations.push({ id: data.nextRestorationId++, legacyOrderId: o.id, status: 'pending', error: null, restoredOrderId: null, restoredOrderHash: null });
  }
  w.started = true;
  return { retiredCount: retired, restorableCount: outstandingRestorations(w).length };
}

/** Deterministic simulated transaction hash (unique per call). */
export function nextTxHash(data: MigrationData, label: string, hash: (s: string) => Bytes32): Bytes32 {
  data.txCounter++;
  return hash(`bookmaker-sim:${label}:${data.txCounter}`);
}

export interface FundsExecution {
  userOperationHash: Bytes32;
  txHash: Bytes32;
}

/**
 * Move every legacy balance of the plan into the V2 ledger, mark the V2 operator approved (the
 * setOperator signature was verified against `newHoldingsOperatorNonce`) and record the sponsored
 * execution. `batchNonces` are the chunks' BatchWithdraw nonces, already verified; each may be used once.
 */
export function applyFundsMigration(
  data: MigrationData,
  wallet: LowerAddress,
  batchNonces: readonly bigint[],
  ledger: LedgerCredit,
  hash: (s: string) => Bytes32,
): { executions: FundsExecution[] } {
  requireActive(data);
  const w = requireWallet(data, wallet);
  const used = new Set(w.usedBatchNonces);
  for (const n of batchNonces) {
    if (used.has(n.toString())) throw new HttpError(409, 'CONFLICT', 'batchWithdraw nonce already used', { field: 'batchWithdraw.nonce' });
  }
  if (new Set(batchNonces.map(String)).size !== batchNonces.length) {
    throw new HttpError(400, 'VALIDATION_ERROR', 'chunks: each batchWithdraw needs its own nonce', { field: 'chunks' });
  }
  for (const b of w.legacyBalances) if (b.amount > 0n) ledger.credit(wallet, b.asset, b.amount);
  w.legacyBalances = w.legacyBalances.map((b) => ({ ...b, amount: 0n }));
  w.usedBatchNonces.push(...batchNonces.map(String));
  applyOperatorApproval(data, 2, wallet, true);
  const executions = batchNonces.map(() => ({ userOperationHash: nextTxHash(data, 'userop', hash), txHash: nextTxHash(data, 'tx', hash) }));
  const last = executions[executions.length - 1]!;
  w.funds = { status: 'completed', userOperationHash: last.userOperationHash, txHash: last.txHash, error: null };
  return { executions };
}

/** The restoration and its retired legacy order, or an error text for a per-item failure. */
export function restorationFor(w: WalletMigration, legacyOrderId: number): { restoration: Restoration; order: LegacyOrder } | { error: string } {
  const restoration = w.restorations.find((r) => r.legacyOrderId === legacyOrderId);
  const order = w.legacyOrders.find((o) => o.id === legacyOrderId);
  if (!restoration || !order) return { error: 'unknown legacy order for this wallet' };
  if (restoration.status === 'restored') return { error: 'legacy order already restored' };
  if (restoration.status === 'dismissed') return { error: 'legacy order was dismissed' };
  return { restoration, order };
}

export function markRestored(r: Restoration, orderId: number, orderHash: Bytes32): void {
  r.status = 'restored';
  r.error = null;
  r.restoredOrderId = orderId;
  r.restoredOrderHash = orderHash;
}

export function markFailed(r: Restoration, error: string): void {
  r.status = 'failed';
  r.error = error;
}

/**
 * Dismiss retired orders (all outstanding ones when `ids` is absent). Legacy orders still open (start
 * not called yet) are retired and dismissed in one step. Unknown ids are a 400 naming the field.
 */
export function dismissOrders(data: MigrationData, wallet: LowerAddress, ids: readonly number[] | undefined): number {
  requireActive(data);
  const w = walletState(data, wallet);
  if (!w) {
    if (ids && ids.length) throw new HttpError(400, 'VALIDATION_ERROR', 'legacyOrderIds: unknown legacy order', { field: 'legacyOrderIds' });
    return 0;
  }
  const wanted = ids ? new Set(ids) : undefined;
  if (wanted) {
    for (const id of wanted) {
      if (!w.legacyOrders.some((o) => o.id === id)) {
        throw new HttpError(400, 'VALIDATION_ERROR', `legacyOrderIds: unknown legacy order ${id}`, { field: 'legacyOrderIds' });
      }
    }
  }
  let count = 0;
  for (const o of w.legacyOrders) {
    if (wanted && !wanted.has(o.id)) continue;
    if (o.status === 'open') {
      o.status = 'dismissed';
      w.restorations.push({
        id: data.nextRestorationId++,
        legacyOrderId: o.id,
        status: 'dismissed',
        error: null,
        restoredOrderId: null,
        restoredOrderHash: null,
      });
      count++;
      continue;
    }
    const r = w.restorations.find((x) => x.legacyOrderId === o.id);
    if (r && (r.status === 'pending' || r.status === 'failed')) {
      r.status = 'dismissed';
      o.status = 'dismissed';
      count++;
    }
  }
  return count;
}

/** The restoration draft the client re-signs as a V2 limit order (docs/venue.md#migration-to-settlement-v2 (step 5)). */
export function restorationDraft(o: LegacyOrder): Record<string, unknown> {
  return {
    type: 'limit',
    marketId: o.marketId,
    trader: o.trader,
    side: o.side,
    price: String(o.price),
    size: String(o.size),
    remainingSize: String(o.remainingSize),
    outcomeIndex: o.outcomeIndex,
    nonce: o.nonce,
    expiry: String(o.expiry),
    maxFee: String(o.maxFee),
    timeInForce: o.timeInForce,
    clientOrderType: o.clientOrderType,
    makerRoleConstraint: o.makerRoleConstraint,
    inventoryModeConstraint: o.inventoryModeConstraint,
    reason: 'ready_for_resign',
  };
}

/**
 * Does a restored order body carry the retired order's terms? The legacy nonce, expiry and maxFee are
 * reused unchanged; price, side, outcome, market and the remaining size must match too. Returns the
 * first mismatching field, or null.
 *
 * `wallet` is the order's trader normalised (the record keeps the seeded spelling, which the draft
 * shows). The body is the caller's raw input: its ids are normalised here, where they enter, so any
 * spelling of the same id matches; the record's market id and nonce were normalised when seeded.
 */
export function restoreMismatch(o: LegacyOrder, wallet: LowerAddress, body: Record<string, unknown>): string | null {
  if (body.type !== 'limit') return 'type';
  if (bytes32Of(body.marketId) !== o.marketId) return 'marketId';
  if (addressOf(body.trader) !== wallet) return 'trader';
  if (body.side !== o.side) return 'side';
  if (body.outcomeIndex !== o.outcomeIndex) return 'outcomeIndex';
  if (body.price !== String(o.price)) return 'price';
  if (body.size !== String(o.remainingSize)) return 'size';
  if (bytes32Of(body.nonce) !== o.nonce) return 'nonce';
  if (body.expiry !== String(o.expiry)) return 'expiry';
  if (body.maxFee !== String(o.maxFee)) return 'maxFee';
  if ((body.timeInForce ?? 0) !== o.timeInForce) return 'timeInForce';
  if (body.inventoryModeConstraint !== o.inventoryModeConstraint) return 'inventoryModeConstraint';
  if (body.makerRoleConstraint !== o.makerRoleConstraint) return 'makerRoleConstraint';
  return null;
}
