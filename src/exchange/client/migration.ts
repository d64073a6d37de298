/**
 * Settlement migration (docs/venue.md#migration-to-settlement-v2; auth): status, start, migrate-funds (one chunk or many),
 * restore-orders, dismiss-orders. Bodies arrive signed (src/exchange/signing); no write here is retried on
 * 5xx or network errors, since each changes state on the venue — the migration module re-reads the status.
 * Every route takes an optional `address` (default: the API key's wallet).
 */
import { BadInputError } from '../../model/errors.ts';
import type { Address, CreateOrderBody, Hex, NormalAddress } from '../../model/order.ts';
import { requestObject, type ClientContext } from './context.ts';
import { arrIfPresent, address, arr, asObject, at, big, bool, int, naddress, nbig, nstr, str, sub, type At, type Rec } from './fields.ts';
import { checkAddress, checkOptAddress } from './inputs.ts';

export interface TokenAmount {
  token: Address;
  amount: bigint;
}

export interface FundsMigrationChunk {
  callCount: number;
  calls: unknown[];
  tokens: TokenAmount[];
}

export interface FundsMigrationPlan {
  phase: string;
  callCount: number;
  chunkCount: number;
  calls: unknown[];
  tokens: TokenAmount[];
  chunks: FundsMigrationChunk[];
}

export interface PendingRestoration {
  id: number;
  legacyOrderId: number;
  legacyOrderHash: string | null;
  legacyMarketId: string;
  status: string;
  /** the legacy order draft (type, marketId, trader, side, price, size, remainingSize, nonce, expiry, maxFee, …) */
  draft: Rec;
  error: string | null;
}

export interface MigrationStatus {
  migrationActive: boolean;
  walletAddress: NormalAddress;
  holdings: { legacy: Address | null; new: Address | null };
  settlementV2Address: NormalAddress | null;
  legacyBalances: TokenBalance[];
  newBalances: TokenBalance[];
  v2OperatorApproved: boolean;
  newHoldingsOperatorNonce: bigint | null;
  fundsMigrationPlan: FundsMigrationPlan | null;
  pendingRestorations: PendingRestoration[];
  voidedLegacyOrderCount: number;
  legacyOpenOrderCount: number;
  sponsoredFundsMigrationAvailable: boolean;
  sponsoredRelayerAddress: Address | null;
  sponsoredFundsMigrationStatus: { status: string; userOperationHash: string | null; txHash: string | null; error: string | null } | null;
  canStart: boolean;
  canMigrateFunds: boolean;
  canRestoreOrders: boolean;
  canDismissOrders: boolean;
  migrationComplete: boolean;
}

function balances(o: Rec, k: string, a: At): TokenBalance[] {
  return o[k] === undefined
    ? []
    : arr(o, k, a, (v, ba) => {
        const b = asObject(v, ba);
        return { token: address(b, 'token', ba), balance: big(b, 'balance', ba) };
      });
}

function tokens(o: Rec, a: At): TokenAmount[] {
  return arr(o, 'tokens', a, (v, ta) => {
    const t = asObject(v, ta);
    return { token: address(t, 'token', ta), amount: big(t, 'amount', ta) };
  });
}

function calls(o: Rec): unknown[] {
  return Array.isArray(o.calls) ? o.calls : [];
}

function parsePlan(v: unknown, a: At): FundsMigrationPlan | null {
  if (v === undefined || v === null) return null;
  const p = asObject(v, a);
  return {
    phase: str(p, 'phase', a),
    callCount: int(p, 'callCount', a),
    chunkCount: int(p, 'chunkCount', a),
    calls: calls(p),
    tokens: tokens(p, a),
    chunks: arr(p, 'chunks', a, (cv, ca) => {
      const c = asObject(cv, ca);
      return { callCount: int(c, 'callCount', ca), calls: calls(c), tokens: tokens(c, ca) };
    }),
  };
}

function parseRestoration(v: unknown, a: At): PendingRestoration {
  const r = asObject(v, a);
  return {
    id: int(r, 'id', a),
    legacyOrderId: int(r, 'legacyOrderId', a),
    legacyOrderHash: nstr(r, 'legacyOrderHash', a),
    legacyMarketId: str(r, 'legacyMarketId', a),
    status: str(r, 'status', a),
    draft: asObject(r.draft, sub(a, 'draft')),
    error: nstr(r, 'error', a),
  };
}

function optBool(o: Rec, k: string, a: At): boolean {
  return o[k] === undefined ? false : bool(o, k, a);
}

export function parseMigrationStatus(json: unknown, ep: string): MigrationStatus {
  const a = at(ep);
  const o = asObject(json, a);
  const h = o.holdings && typeof o.holdings === 'object' ? (o.holdings as Rec) : {};
  const sa = sub(a, 'sponsoredFundsMigrationStatus');
  const s = o.sponsoredFundsMigrationStatus === undefined || o.sponsoredFundsMigrationStatus === null ? null : asObject(o.sponsoredFundsMigrationStatus, sa);
  return {
    migrationActive: bool(o, 'migrationActive', a),
    walletAddress: address(o, 'walletAddress', a),
    holdings: { legacy: naddress(h, 'legacy', sub(a, 'holdings')), new: naddress(h, 'new', sub(a, 'holdings')) },
    settlementV2Address: naddress(o, 'settlementV2Address', a),
    legacyBalances: balances(o, 'legacyBalances', a),
    newBalances: balances(o, 'newBalances', a),
    v2OperatorApproved: optBool(o, 'v2OperatorApproved', a),
    newHoldingsOperatorNonce: nbig(o, 'newHoldingsOperatorNonce', a),
    fundsMigrationPlan: parsePlan(o.fundsMigrationPlan, sub(a, 'fundsMigrationPlan')),
    pendingRestorations: arrIfPresent(o, 'pendingRestorations', a, parseRestoration),
    voidedLegacyOrderCount: o.voidedLegacyOrderCount === undefined ? 0 : int(o, 'voidedLegacyOrderCount', a),
    legacyOpenOrderCount: o.legacyOpenOrderCount === undefined ? 0 : int(o, 'legacyOpenOrderCount', a),
    sponsoredFundsMigrationAvailable: optBool(o, 'sponsoredFundsMigrationAvailable', a),
    sponsoredRelayerAddress: naddress(o, 'sponsoredRelayerAddress', a),
    sponsoredFundsMigrationStatus:
      s === null
        ? null
        : { status: str(s, 'status', sa), userOperationHash: nstr(s, 'userOperationHash', sa), txHash: nstr(s, 'txHash', sa), error: nstr(s, 'error', sa) },
    canStart: optBool(o, 'canStart', a),
    canMigrateFunds: optBool(o, 'canMigrateFunds', a),
    canRestoreOrders: optBool(o, 'canRestoreOrders', a),
    canDismissOrders: optBool(o, 'canDismissOrders', a),
    migrationComplete: optBool(o, 'migrationComplete', a),
  };
}

/** GET /account/migration?address. */
export async function getMigrationStatus(ctx: ClientContext, owner?: Address): Promise<MigrationStatus> {
  const ep = 'GET /account/migration';
  const res = await ctx.t.request({ method: 'GET', path: '/account/migration', endpoint: ep, query: { address: checkOptAddress(owner, 'address') } });
  return parseMigrationStatus(res.json, ep);
}

/** EIP-191 authorization for acting on another wallet: `{deadline, signature}` (signing module builds it). */
export interface MigrationAuthorization {
  deadline: string;
  signature: Hex;
}

/** One token's balance in a migration answer (1e-6 units). */
export interface TokenBalance {
  token: Address;
  balance: bigint;
}

export interface StartMigrationResult {
  retiredCount: number;
  restorableCount: number;
  legacyBalances: TokenBalance[];
  newBalances: TokenBalance[];
  fundsMigrationPlan: FundsMigrationPlan | null;
  pendingRestorations: Rec[];
  legacyOpenOrderCount: number;
}

function authBody(owner: Address | undefined, authorization: MigrationAuthorization | undefined): Rec {
  const body: Rec = {};
  if (owner !== undefined) body.address = checkAddress(owner, 'address');
  if (authorization !== undefined) {
    // the SDK refuses to send an authorization without an explicit address: so do we
    if (owner === undefined) throw new BadInputError('address', 'an explicit address when an authorization is given', undefined);
    body.authorization = authorization;
  }
  return body;
}

/** POST /account/migration/start `{address?, authorization?}`. */
export async function startMigration(
  ctx: ClientContext,
  opts: { address?: Address; authorization?: MigrationAuthorization } = {},
): Promise<StartMigrationResult> {
  const ep = 'POST /account/migration/start';
  const { o, a } = await requestObject(ctx, {
    method: 'POST',
    path: '/account/migration/start',
    endpoint: ep,
    body: authBody(opts.address, opts.authorization),
  });
  return {
    retiredCount: int(o, 'retiredCount', a),
    restorableCount: o.restorableCount === undefined ? 0 : int(o, 'restorableCount', a),
    legacyBalances: balances(o, 'legacyBalances', a),
    newBalances: balances(o, 'newBalances', a),
    fundsMigrationPlan: parsePlan(o.fundsMigrationPlan, sub(a, 'fundsMigrationPlan')),
    pendingRestorations: arrIfPresent(o, 'pendingRestorations', a, (v, ra) => asObject(v, ra)),
    legacyOpenOrderCount: o.legacyOpenOrderCount === undefined ? 0 : int(o, 'legacyOpenOrderCount', a),
  };
}

export interface SignedStep {
  nonce: string;
  deadline: string;
  signature: Hex;
}

export interface MigrateFundsInput {
  address?: Address;
  /** one BatchWithdraw per chunk of the plan, in plan order */
  batchWithdraws: SignedStep[];
  setOperator: SignedStep;
}

export interface MigrateFundsResult {
  userOperationHash: string;
  txHash: string;
  executions: { userOperationHash: string; txHash: string }[];
  legacyBalances: TokenBalance[];
  newBalances: TokenBalance[];
  v2OperatorApproved: boolean;
}

/**
 * POST /account/migration/migrate-funds. Exactly one chunk → `{address?, batchWithdraw, setOperator}`;
 * several → `{address?, chunks:[{batchWithdraw}], setOperator}` (docs/venue.md#migration-to-settlement-v2 (step 4)).
 */
export async function migrateFunds(ctx: ClientContext, input: MigrateFundsInput): Promise<MigrateFundsResult> {
  const ep = 'POST /account/migration/migrate-funds';
  if (!Array.isArray(input.batchWithdraws) || input.batchWithdraws.length === 0)
    throw new BadInputError('batchWithdraws', 'at least one signed BatchWithdraw', input.batchWithdraws);
  const body: Rec = {};
  if (input.address !== undefined) body.address = checkAddress(input.address, 'address');
  if (input.batchWithdraws.length === 1) body.batchWithdraw = input.batchWithdraws[0];
  else body.chunks = input.batchWithdraws.map((batchWithdraw) => ({ batchWithdraw }));
  body.setOperator = input.setOperator;
  const { o, a } = await requestObject(ctx, { method: 'POST', path: '/account/migration/migrate-funds', endpoint: ep, body });
  return {
    userOperationHash: str(o, 'userOperationHash', a),
    txHash: str(o, 'txHash', a),
    executions: arrIfPresent(o, 'executions', a, (v, ea) => {
      const e = asObject(v, ea);
      return { userOperationHash: str(e, 'userOperationHash', ea), txHash: str(e, 'txHash', ea) };
    }),
    legacyBalances: balances(o, 'legacyBalances', a),
    newBalances: balances(o, 'newBalances', a),
    v2OperatorApproved: optBool(o, 'v2OperatorApproved', a),
  };
}

export type RestoreItemResult =
  | { legacyOrderId: number; success: true; restoredOrderId: number; restoredOrderHash: string }
  | { legacyOrderId: number; success: false; error: string };

/** POST /account/migration/restore-orders `{address?, restorations:[{legacyOrderId, order}] (1–50)}`. */
export async function restoreOrders(
  ctx: ClientContext,
  restorations: { legacyOrderId: number; order: CreateOrderBody }[],
  owner?: Address,
): Promise<{ restoredCount: number; failedCount: number; results: RestoreItemResult[] }> {
  const ep = 'POST /account/migration/restore-orders';
  if (!Array.isArray(restorations) || restorations.length < 1 || restorations.length > 50)
    throw new BadInputError('restorations', '1 to 50 items', Array.isArray(restorations) ? `${restorations.length} items` : restorations);
  const body: Rec = { restorations };
  if (owner !== undefined) body.address = checkAddress(owner, 'address');
  const { o, a } = await requestObject(ctx, { method: 'POST', path: '/account/migration/restore-orders', endpoint: ep, body });
  return {
    restoredCount: int(o, 'restoredCount', a),
    failedCount: int(o, 'failedCount', a),
    results: arr(o, 'results', a, (v, ra): RestoreItemResult => {
      const r = asObject(v, ra);
      const legacyOrderId = int(r, 'legacyOrderId', ra);
      if (bool(r, 'success', ra))
        return { legacyOrderId, success: true, restoredOrderId: int(r, 'restoredOrderId', ra), restoredOrderHash: str(r, 'restoredOrderHash', ra) };
      return { legacyOrderId, success: false, error: str(r, 'error', ra) };
    }),
  };
}

/** POST /account/migration/dismiss-orders `{address?, authorization?, legacyOrderIds?}` → `{dismissedCount}`. */
export async function dismissOrders(
  ctx: ClientContext,
  opts: { address?: Address; authorization?: MigrationAuthorization; legacyOrderIds?: number[] } = {},
): Promise<{ dismissedCount: number }> {
  const ep = 'POST /account/migration/dismiss-orders';
  const body = authBody(opts.address, opts.authorization);
  if (opts.legacyOrderIds !== undefined) {
    if (!Array.isArray(opts.legacyOrderIds) || !opts.legacyOrderIds.every((x) => Number.isSafeInteger(x) && x >= 0))
      throw new BadInputError('legacyOrderIds', 'a list of order ids', opts.legacyOrderIds);
    body.legacyOrderIds = opts.legacyOrderIds;
  }
  const res = await ctx.t.request({ method: 'POST', path: '/account/migration/dismiss-orders', endpoint: ep, body });
  const a = at(ep);
  return { dismissedCount: int(asObject(res.json, a), 'dismissedCount', a) };
}
