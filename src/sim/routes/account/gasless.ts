/**
 * Gasless relays: POST /gasless/operator (setOperatorBySig) and POST /gasless/deposit-with-permit
 * (a Permit2 transfer of the wallet's own USDC into Holdings; not in the current API spec).
 *
 * The relay needs no permission beyond a key: the user's signature is the authority, whoever sends
 * it. Nonces behave as on chain: the operator nonce must equal `operatorNonce(user)` and then
 * increments (so a replay fails); a Permit2 nonce can be used once per owner.
 */
import { checksumOf } from '../../checksum.ts';
import type { RequestContext } from '../../context.ts';
import { HttpError, badRequest, invalidSignature } from '../../http-errors.ts';
import { json, type Router } from '../../router.ts';
import { address, bool, object, signature as parseSignature, uintString } from '../../validate.ts';
import type { Address } from '../../../model/order.ts';
import { migrationData } from '../../migration/install.ts';
import { applyOperatorApproval, operatorState } from '../../migration/migration-machine.ts';
import { isOperatorApprovalSigner, isPermitSigner } from '../../migration/verify-signatures.ts';
import { nextAccountTxHash } from './account-data.ts';
import { accountLedger } from './ledger-of.ts';
import { debitWalletUsdc, requireWalletUsdc } from './wallet-usdc.ts';

/** Largest single permit deposit we relay (1e12 USDC in 1e-6 units): beyond is surely a mistake. */
const MAX_DEPOSIT = 10n ** 18n;

function relayer(ctx: RequestContext): Address {
  return migrationData(ctx.state).relayer;
}

function requireFuture(deadline: bigint, field: string, nowMs: number): void {
  if (deadline * 1000n < BigInt(nowMs)) throw badRequest(field, 'the deadline has passed');
}

function postOperator(ctx: RequestContext) {
  const body = object(ctx.body, 'body');
  const user = address(body.user, 'user');
  let version: 1 | 2 = 2;
  if (body.settlementVersion !== undefined) {
    if (body.settlementVersion !== 1 && body.settlementVersion !== 2) throw badRequest('settlementVersion', 'expected 1 or 2');
    version = body.settlementVersion;
  }
  const approved = body.approved === undefined ? true : bool(body.approved, 'approved');
  const nonce = uintString(body.nonce, 'nonce');
  const deadline = uintString(body.deadline, 'deadline');
  const sig = parseSignature(body.signature, 'signature');
  const data = migrationData(ctx.state);
  if (version === 1 && data.active) throw badRequest('settlementVersion', 'legacy settlement (1) is retired while migration is active');
  requireFuture(deadline, 'deadline', ctx.now);
  const current = operatorState(data, version, user);
  if (nonce !== current.nonce) throw new HttpError(400, 'VALIDATION_ERROR', `nonce: expected the current operator nonce ${current.nonce}`, { field: 'nonce' });
  if (!isOperatorApprovalSigner({ chain: ctx.state.chain, version, user, approved, nonce, deadline, signature: sig })) throw invalidSignature('signature');
  applyOperatorApproval(data, version, user, approved);
  const chain = ctx.state.chain;
  return json(200, {
    success: true,
    txHash: nextAccountTxHash(ctx.state, 'set-operator', user),
    user: checksumOf(user),
    operator: version === 1 ? chain.settlementV1 : chain.settlementV2,
    relayer: relayer(ctx),
  });
}

function postDepositWithPermit(ctx: RequestContext) {
  const body = object(ctx.body, 'body');
  const user = address(body.user, 'user');
  const amount = uintString(body.amount, 'amount');
  if (amount <= 0n || amount > MAX_DEPOSIT) throw badRequest('amount', 'expected a positive amount in 1e-6 USDC');
  const nonce = uintString(body.nonce, 'nonce');
  const deadline = uintString(body.deadline, 'deadline');
  const sig = parseSignature(body.signature, 'signature');
  requireFuture(deadline, 'deadline', ctx.now);
  const data = migrationData(ctx.state);
  const nonceKey = `${user}:${nonce}`;
  if (data.usedPermitNonces[nonceKey]) throw new HttpError(409, 'CONFLICT', 'nonce: this Permit2 nonce was already used', { field: 'nonce' });
  const chain = ctx.state.chain;
  // The SDK that introduced this path signed for the Holdings of its day (legacy); today's is the
  // new one. Either is a Holdings contract the relay deposits into, so accept both spenders.
  const signedFor = [chain.holdingsNew, chain.holdingsLegacy].find((spender) =>
    isPermitSigner({ chain, owner: user, token: chain.usdc, amount, spender, nonce, deadline, signature: sig }),
  );
  if (!signedFor) throw invalidSignature('signature');
  // A deposit moves USDC from the wallet into Holdings: it creates none. The wallet is checked
  // first; then the credit: should the ledger refuse it, neither the wallet nor the permit's nonce
  // has changed (all or nothing).
  requireWalletUsdc(ctx.state, user, amount);
  accountLedger(ctx.state).depositCollateral(user, amount);
  debitWalletUsdc(ctx.state, user, amount);
  data.usedPermitNonces[nonceKey] = true;
  return json(200, {
    success: true,
    txHash: nextAccountTxHash(ctx.state, 'deposit-with-permit', user),
    user: checksumOf(user),
    token: chain.usdc,
    amount: amount.toString(),
    relayer: relayer(ctx),
  });
}

export function register(router: Router): void {
  router.add({ method: 'POST', path: '/gasless/operator', auth: true, handler: postOperator });
  router.add({ method: 'POST', path: '/gasless/deposit-with-permit', auth: true, handler: postDepositWithPermit });
}
