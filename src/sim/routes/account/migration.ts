/**
 * Migration routes (docs/venue.md#migration-to-settlement-v2): GET /account/migration, POST /account/migration/start,
 * /migrate-funds, /restore-orders and /dismiss-orders. The state machine lives in
 * src/sim/migration; these handlers parse, verify signatures and shape the answers.
 *
 * Every route takes an optional `address` (default: the key's wallet). start and dismiss-orders for
 * another wallet need `authorization` (the wallet's EIP-191 signature of the five-line message);
 * migrate-funds and restore-orders are authorised by the wallet's own EIP-712 signatures.
 */
import { keccakText } from '../../../exchange/signing/text-hash.ts';
import type { ExchangeState, RequestContext } from '../../context.ts';
import { HttpError, badRequest, invalidSignature, forbidden } from '../../http-errors.ts';
import { json, type Router } from '../../router.ts';
import { array, int, object, signature as parseSignature, uintString, type Obj } from '../../validate.ts';
import type { Address, Bytes32 } from '../../../model/order.ts';
import { fundsPlanToWire } from '../../migration/funds-plan.ts';
import { migrationData, withGuardBypass } from '../../migration/install.ts';
import type { MigrationData, WalletMigration } from '../../migration/migration-data.ts';
import {
  applyFundsMigration,
  dismissOrders,
  fundsPlanOf,
  markFailed,
  markRestored,
  needsMigration,
  openLegacyOrders,
  operatorState,
  outstandingRestorations,
  restorationDraft,
  restorationFor,
  restoreMismatch,
  startMigration,
  walletState,
} from '../../migration/migration-machine.ts';
import { isBatchWithdrawSigner, isMigrationAuthorizationSigner, isOperatorApprovalSigner } from '../../migration/verify-signatures.ts';
import { accountLedger } from './ledger-of.ts';
import { keyWallet, walletOrKey } from './wallet-param.ts';
import { checksumOf } from '../../checksum.ts';
import type { LowerAddress } from '../../wire-ids.ts';
import type { WalletLedger } from './wallet-ledger.ts';

const hashText = (s: string): Bytes32 => keccakText(s);

function contracts(state: ExchangeState) {
  return { holdingsLegacy: state.chain.holdingsLegacy, holdingsNew: state.chain.holdingsNew };
}

/** The wallet's V2 balances as MigrationBalance[] (USDC first, then non-zero outcome tokens). */
function newBalances(state: ExchangeState, ledger: WalletLedger, wallet: LowerAddress): { token: Address; balance: string }[] {
  const out = [{ token: state.chain.usdc, balance: ledger.collateral(wallet).total.toString() }];
  for (const p of ledger.positions(wallet)) {
    const m = state.services.market(p.marketId);
    if (!m) continue;
    if (p.no > 0n) out.push({ token: checksumOf(m.outcomeTokens[0]), balance: p.no.toString() });
    if (p.yes > 0n) out.push({ token: checksumOf(m.outcomeTokens[1]), balance: p.yes.toString() });
  }
  return out;
}

function legacyBalances(w: WalletMigration | undefined): { token: Address; balance: string }[] {
  return (w?.legacyBalances ?? []).filter((b) => b.amount > 0n).map((b) => ({ token: b.token, balance: b.amount.toString() }));
}

function pendingRestorationsJson(state: ExchangeState, w: WalletMigration | undefined, full: boolean): Record<string, unknown>[] {
  if (!w) return [];
  return outstandingRestorations(w).map((r) => {
    const o = w.legacyOrders.find((x) => x.id === r.legacyOrderId)!;
    const base: Record<string, unknown> = {
      id: r.id,
      legacyOrderId: r.legacyOrderId,
      legacyMarketId: o.marketId,
      status: r.status,
      draft: restorationDraft(o),
    };
    if (!full) return base;
    const m = state.services.market(o.marketId);
    return { ...base, legacyOrderHash: o.hash, error: r.error, market: m ? { shortQuestion: m.shortQuestion, outcomeNames: ['No', 'Yes'] } : null };
  });
}

/** The MigrationStatus answer. */
export function migrationStatusJson(state: ExchangeState, wallet: LowerAddress): Record<string, unknown> {
  const data = migrationData(state);
  const ledger = accountLedger(state);
  const w = walletState(data, wallet);
  const plan = w ? fundsPlanOf(data, w, contracts(state)) : { phase: 'none' as const, tokens: [], chunks: [] };
  const op = operatorState(data, 2, wallet);
  const outstanding = w ? outstandingRestorations(w).length : 0;
  const legacyOpen = w ? openLegacyOrders(w).length : 0;
  const hasFunds = plan.chunks.length > 0;
  return {
    migrationActive: data.active,
    walletAddress: checksumOf(wallet),
    holdings: { legacy: state.chain.holdingsLegacy, new: state.chain.holdingsNew },
    settlementV2Address: state.chain.settlementV2,
    legacyBalances: legacyBalances(w),
    newBalances: newBalances(state, ledger, wallet),
    v2OperatorApproved: op.approved,
    newHoldingsOperatorNonce: data.sponsoredAvailable ? op.nonce.toString() : null,
    fundsMigrationPlan: fundsPlanToWire(plan),
    pendingRestorations: pendingRestorationsJson(state, w, true),
    voidedLegacyOrderCount: w ? w.legacyOrders.filter((o) => o.status !== 'open').length : 0,
    legacyOpenOrderCount: legacyOpen,
    sponsoredFundsMigrationAvailable: data.sponsoredAvailable,
    sponsoredRelayerAddress: data.relayer,
    sponsoredFundsMigrationStatus: w?.funds ?? null,
    canStart: data.active && w !== undefined && !w.started && legacyOpen > 0,
    canMigrateFunds: data.active && data.sponsoredAvailable && hasFunds,
    canRestoreOrders: data.active && outstanding > 0,
    canDismissOrders: data.active && (outstanding > 0 || legacyOpen > 0),
    migrationComplete: !needsMigration(w) && (w === undefined || op.approved),
  };
}

interface Authorization {
  deadline: number;
  signature: `0x${string}`;
}

function parseAuthorization(v: unknown): Authorization | undefined {
  if (v === undefined || v === null) return undefined;
  const o = object(v, 'authorization');
  const deadline = uintString(o.deadline, 'authorization.deadline');
  if (deadline > BigInt(Number.MAX_SAFE_INTEGER)) throw badRequest('authorization.deadline', 'expected unix seconds');
  return { deadline: Number(deadline), signature: parseSignature(o.signature, 'authorization.signature') };
}

/**
 * The wallet a start / dismiss acts for. Another wallet than the key's needs a valid, unexpired
 * authorization signed by that wallet over exactly this action and these ids.
 */
function authorisedWallet(ctx: RequestContext, body: Obj, action: 'start' | 'dismiss-orders', ids: readonly number[]): LowerAddress {
  const wallet = walletOrKey(ctx, body.address, 'address');
  const auth = parseAuthorization(body.authorization);
  if (wallet === keyWallet(ctx)) return wallet;
  if (!auth) throw forbidden('address: acting for another wallet needs its authorization');
  if (auth.deadline * 1000 < ctx.now) throw badRequest('authorization.deadline', 'the authorization has expired');
  if (!isMigrationAuthorizationSigner(action, wallet, ids, auth.deadline, auth.signature)) throw invalidSignature('authorization.signature');
  return wallet;
}

function optionalBody(ctx: RequestContext): Obj {
  return ctx.body === undefined || ctx.body === null ? {} : object(ctx.body, 'body');
}

function getStatus(ctx: RequestContext) {
  const wallet = walletOrKey(ctx, ctx.query.get('address') ?? undefined, 'address');
  return json(200, migrationStatusJson(ctx.state, wallet));
}

function postStart(ctx: RequestContext) {
  const body = optionalBody(ctx);
  const wallet = authorisedWallet(ctx, body, 'start', []);
  const data = migrationData(ctx.state);
  const { retiredCount, restorableCount } = startMigration(data, wallet);
  const w = walletState(data, wallet);
  const plan = w ? fundsPlanOf(data, w, contracts(ctx.state)) : { phase: 'none' as const, tokens: [], chunks: [] };
  return json(200, {
    success: true,
    retiredCount,
    restorableCount,
    legacyBalances: legacyBalances(w),
    newBalances: newBalances(ctx.state, accountLedger(ctx.state), wallet),
    fundsMigrationPlan: fundsPlanToWire(plan),
    pendingRestorations: pendingRestorationsJson(ctx.state, w, false),
    legacyOpenOrderCount: w ? openLegacyOrders(w).length : 0,
  });
}

interface SignedPart {
  nonce: bigint;
  deadline: bigint;
  signature: `0x${string}`;
}

function signedPart(v: unknown, field: string): SignedPart {
  const o = object(v, field);
  return {
    nonce: uintString(o.nonce, `${field}.nonce`),
    deadline: uintString(o.deadline, `${field}.deadline`),
    signature: parseSignature(o.signature, `${field}.signature`),
  };
}

function requireUnexpired(p: SignedPart, field: string, nowMs: number): void {
  if (p.deadline * 1000n < BigInt(nowMs)) throw badRequest(`${field}.deadline`, 'the signature has expired');
}

/**
 * How one legacy balance is credited on the new holdings, decided before anything is applied:
 * collateral as collateral; outcome tokens of an open market as the same tokens; outcome tokens of a
 * RESOLVED market are redeemed at its payout and credited as collateral (⌊amount · payout / 1e6⌋,
 * what claiming them would pay: a resolved market's tokens cannot be minted any more). A token of a
 * market this exchange does not know, or of a halted one, refuses the whole call (409) and nothing
 * is applied.
 */
type CreditStep =
  | { kind: 'collateral'; amount: bigint }
  | { kind: 'outcome'; marketId: Bytes32; outcomeIndex: 0 | 1; amount: bigint }
  | { kind: 'redeemed'; amount: bigint; tokens: bigint; marketId: Bytes32 };

function planCredits(state: ExchangeState, w: WalletMigration): CreditStep[] {
  const host = state.engine;
  const steps: CreditStep[] = [];
  for (const b of w.legacyBalances) {
    if (b.amount <= 0n) continue;
    const a = b.asset;
    if (a.kind === 'collateral') {
      steps.push({ kind: 'collateral', amount: b.amount });
      continue;
    }
    const idx = host.marketIndex(a.marketId);
    const info = idx === undefined ? undefined : host.engine.market(idx);
    if (!info) throw new HttpError(409, 'CONFLICT', `legacy token ${b.token}: market ${a.marketId} is unknown here; nothing was migrated`);
    if (info.status === 'resolved') {
      const payout = BigInt(a.outcomeIndex === 1 ? info.payoutYes! : info.payoutNo!);
      steps.push({ kind: 'redeemed', amount: (b.amount * payout) / 1_000_000n, tokens: b.amount, marketId: a.marketId });
    } else if (info.status !== 'open') {
      throw new HttpError(409, 'CONFLICT', `legacy token ${b.token}: market ${a.marketId} is ${info.status}; nothing was migrated, retry once it reopens`);
    } else steps.push({ kind: 'outcome', marketId: a.marketId, outcomeIndex: a.outcomeIndex, amount: b.amount });
  }
  return steps;
}

/** The credit callback of applyFundsMigration, applying the planned steps (decided up front). */
function creditLedger(ledger: WalletLedger, steps: CreditStep[]) {
  let applied = false;
  return {
    credit(wallet: LowerAddress) {
      if (applied) return; // the plan covers every balance: applied once, on the first call
      applied = true;
      for (const s of steps) {
        if (s.kind === 'outcome') ledger.creditOutcome(wallet, s.marketId, s.outcomeIndex, s.amount);
        else ledger.depositCollateral(wallet, s.amount);
      }
    },
  };
}

function postMigrateFunds(ctx: RequestContext) {
  const body = object(ctx.body, 'body');
  const wallet = walletOrKey(ctx, body.address, 'address');
  const data = migrationData(ctx.state);
  const w = walletState(data, wallet);
  if (!data.active) throw new HttpError(409, 'CONFLICT', 'migration is not active');
  if (!data.sponsoredAvailable) throw new HttpError(409, 'CONFLICT', 'sponsored funds migration is not available');
  const plan = w ? fundsPlanOf(data, w, contracts(ctx.state)) : undefined;
  if (!w || !plan || plan.chunks.length === 0) throw new HttpError(409, 'CONFLICT', 'no legacy balances to migrate');

  // One chunk: {batchWithdraw, setOperator}; several: {chunks: [{batchWithdraw}], setOperator}.
  let parts: { part: SignedPart; field: string }[];
  if (body.chunks !== undefined) {
    const chunks = array(body.chunks, 'chunks', { min: 1, max: 100 });
    parts = chunks.map((c, i) => ({
      part: signedPart(object(c, `chunks[${i}]`).batchWithdraw, `chunks[${i}].batchWithdraw`),
      field: `chunks[${i}].batchWithdraw`,
    }));
  } else if (body.batchWithdraw !== undefined) {
    parts = [{ part: signedPart(body.batchWithdraw, 'batchWithdraw'), field: 'batchWithdraw' }];
  } else {
    throw badRequest('batchWithdraw', 'expected batchWithdraw (one chunk) or chunks (several)');
  }
  const setOperator = signedPart(body.setOperator, 'setOperator');
  if (parts.length !== plan.chunks.length) {
    throw badRequest(body.chunks !== undefined ? 'chunks' : 'batchWithdraw', `expected ${plan.chunks.length} signed chunk(s), one per plan chunk`);
  }
  parts.forEach(({ part, field }, i) => {
    requireUnexpired(part, field, ctx.now);
    const ok = isBatchWithdrawSigner({
      chain: ctx.state.chain,
      from: wallet,
      to: data.relayer,
      tokens: plan.chunks[i]!.tokens,
      nonce: part.nonce,
      deadline: part.deadline,
      signature: part.signature,
    });
    if (!ok) throw invalidSignature(`${field}.signature`);
  });
  requireUnexpired(setOperator, 'setOperator', ctx.now);
  const op = operatorState(data, 2, wallet);
  if (setOperator.nonce !== op.nonce) throw badRequest('setOperator.nonce', `expected the current operator nonce ${op.nonce}`);
  const approvalOk = isOperatorApprovalSigner({
    chain: ctx.state.chain,
    version: 2,
    user: wallet,
    approved: true,
    nonce: setOperator.nonce,
    deadline: setOperator.deadline,
    signature: setOperator.signature,
  });
  if (!approvalOk) throw invalidSignature('setOperator.signature');

  const ledger = accountLedger(ctx.state);
  // every decision before any change: a refusal below leaves the legacy balances and the ledger as they were
  const steps = planCredits(ctx.state, w);
  const redeemed = steps.flatMap((s) =>
    s.kind === 'redeemed' ? [{ marketId: s.marketId, tokens: s.tokens.toString(), collateral: s.amount.toString() }] : [],
  );
  const { executions } = applyFundsMigration(
    data,
    wallet,
    parts.map((p) => p.part.nonce),
    creditLedger(ledger, steps),
    hashText,
  );
  const last = executions[executions.length - 1]!;
  return json(200, {
    success: true,
    userOperationHash: last.userOperationHash,
    txHash: last.txHash,
    executions,
    legacyBalances: legacyBalances(walletState(data, wallet)),
    newBalances: newBalances(ctx.state, ledger, wallet),
    v2OperatorApproved: operatorState(data, 2, wallet).approved,
    ...(redeemed.length ? { redeemedResolved: redeemed } : {}),
  });
}

function postRestore(ctx: RequestContext) {
  const body = object(ctx.body, 'body');
  const wallet = walletOrKey(ctx, body.address, 'address');
  const restorations = array(body.restorations, 'restorations', { min: 1, max: 50 });
  const items = restorations.map((r, i) => {
    const o = object(r, `restorations[${i}]`);
    return {
      legacyOrderId: int(o.legacyOrderId, `restorations[${i}].legacyOrderId`, 1, Number.MAX_SAFE_INTEGER),
      order: object(o.order, `restorations[${i}].order`),
    };
  });
  const data = migrationData(ctx.state);
  if (!data.active) throw new HttpError(409, 'CONFLICT', 'migration is not active');
  const w = walletState(data, wallet);
  const caller = ctx.key!;
  // Restored orders are placed for `wallet`; the caller's key acts for it on this path only.
  const asWallet = { ...caller, wallet };
  const results = items.map((item, i) => restoreOne(ctx.state, data, wallet, w, item, `restorations[${i}].order`, asWallet, ctx.now));
  const restoredCount = results.filter((r) => r.success).length;
  return json(200, {
    success: restoredCount === results.length,
    restoredCount,
    failedCount: results.length - restoredCount,
    results,
    settlementV2Address: ctx.state.chain.settlementV2,
  });
}

type RestoreResult =
  | { legacyOrderId: number; success: true; restoredOrderId: number; restoredOrderHash: Bytes32 }
  | { legacyOrderId: number; success: false; error: string };

function restoreOne(
  state: ExchangeState,
  data: MigrationData,
  wallet: LowerAddress,
  w: WalletMigration | undefined,
  item: { legacyOrderId: number; order: Obj },
  field: string,
  caller: NonNullable<RequestContext['key']>,
  now: number,
): RestoreResult {
  const id = item.legacyOrderId;
  if (!w) return { legacyOrderId: id, success: false, error: 'this wallet has no retired legacy orders' };
  const found = restorationFor(w, id);
  if ('error' in found) return { legacyOrderId: id, success: false, error: found.error };
  if (found.order.status === 'open') return { legacyOrderId: id, success: false, error: 'legacy order not retired yet: call start first' };
  const mismatch = restoreMismatch(found.order, wallet, item.order);
  if (mismatch) {
    const error = `${mismatch}: does not match the retired order (legacy nonce, expiry and maxFee are reused unchanged)`;
    markFailed(found.restoration, error);
    return { legacyOrderId: id, success: false, error };
  }
  try {
    // The order route verifies the V2 signature (recovered signer == trader) and places the order.
    const placed = withGuardBypass(state, wallet, () => state.services.placeOrder(item.order, field, caller, now));
    markRestored(found.restoration, placed.id, placed.hash);
    return { legacyOrderId: id, success: true, restoredOrderId: placed.id, restoredOrderHash: placed.hash };
  } catch (err) {
    const error = err instanceof HttpError ? err.message : 'order could not be placed';
    markFailed(found.restoration, error);
    return { legacyOrderId: id, success: false, error };
  }
}

function postDismiss(ctx: RequestContext) {
  const body = optionalBody(ctx);
  let ids: number[] | undefined;
  if (body.legacyOrderIds !== undefined) {
    ids = array(body.legacyOrderIds, 'legacyOrderIds', { max: 1000 }).map((v, i) => int(v, `legacyOrderIds[${i}]`, 1, Number.MAX_SAFE_INTEGER));
  }
  const wallet = authorisedWallet(ctx, body, 'dismiss-orders', ids ?? []);
  const dismissedCount = dismissOrders(migrationData(ctx.state), wallet, ids);
  return json(200, { success: true, dismissedCount });
}

export function register(router: Router): void {
  router.add({ method: 'GET', path: '/account/migration', auth: true, handler: getStatus });
  router.add({ method: 'POST', path: '/account/migration/start', auth: true, permission: 'trade', handler: postStart });
  router.add({ method: 'POST', path: '/account/migration/migrate-funds', auth: true, permission: 'trade', handler: postMigrateFunds });
  router.add({ method: 'POST', path: '/account/migration/restore-orders', auth: true, permission: 'trade', handler: postRestore });
  router.add({ method: 'POST', path: '/account/migration/dismiss-orders', auth: true, permission: 'trade', handler: postDismiss });
}
