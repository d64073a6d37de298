/**
 * Gasless relays (auth): operator approval (spec) and deposit-with-permit (SDK-0.6/CLI only). Signatures come
 * from the signing module. Not retried on 5xx/network: a relay may already have sent the transaction.
 */
import { BadInputError } from '../../model/errors.ts';
import type { Address, Hex } from '../../model/order.ts';
import { requestObject, type ClientContext } from './context.ts';
import { address, big, bytes32, type Rec } from './fields.ts';
import { checkAddress } from './inputs.ts';

const UINT = /^\d+$/;
const SIG = /^0x[0-9a-fA-F]{130}$/;

function uintField(v: unknown, field: string): string {
  if (typeof v !== 'string' || !UINT.test(v)) throw new BadInputError(field, 'a decimal integer string', v);
  return v;
}

function sigField(v: unknown, field: string): Hex {
  if (typeof v !== 'string' || !SIG.test(v)) throw new BadInputError(field, 'a 65-byte 0x signature', '(malformed)');
  return v as Hex;
}

export interface OperatorApprovalInput {
  user: Address;
  settlementVersion?: 1 | 2;
  approved?: boolean;
  nonce: string;
  deadline: string;
  signature: Hex;
}

/** POST /gasless/operator → `{success, txHash, user, operator, relayer}`. */
export async function setOperatorGasless(
  ctx: ClientContext,
  input: OperatorApprovalInput,
): Promise<{ txHash: Hex; user: Address; operator: Address; relayer: Address }> {
  const ep = 'POST /gasless/operator';
  const body: Rec = {
    user: checkAddress(input.user, 'user'),
    nonce: uintField(input.nonce, 'nonce'),
    deadline: uintField(input.deadline, 'deadline'),
    signature: sigField(input.signature, 'signature'),
  };
  if (input.settlementVersion !== undefined) {
    if (input.settlementVersion !== 1 && input.settlementVersion !== 2) throw new BadInputError('settlementVersion', '1 or 2', input.settlementVersion);
    body.settlementVersion = input.settlementVersion;
  }
  if (input.approved !== undefined) body.approved = input.approved;
  const { o, a } = await requestObject(ctx, { method: 'POST', path: '/gasless/operator', endpoint: ep, body });
  return { txHash: bytes32(o, 'txHash', a), user: address(o, 'user', a), operator: address(o, 'operator', a), relayer: address(o, 'relayer', a) };
}

export interface DepositWithPermitInput {
  user: Address;
  /** 1e-6 USDC, decimal integer string */
  amount: string;
  nonce: string;
  deadline: string;
  signature: Hex;
}

/** POST /gasless/deposit-with-permit → `{success, txHash, user, token, amount, relayer}`. */
export async function depositWithPermit(
  ctx: ClientContext,
  input: DepositWithPermitInput,
): Promise<{ txHash: Hex; user: Address; token: Address; amount: bigint; relayer: Address }> {
  const ep = 'POST /gasless/deposit-with-permit';
  const body = {
    user: checkAddress(input.user, 'user'),
    amount: uintField(input.amount, 'amount'),
    nonce: uintField(input.nonce, 'nonce'),
    deadline: uintField(input.deadline, 'deadline'),
    signature: sigField(input.signature, 'signature'),
  };
  const { o, a } = await requestObject(ctx, { method: 'POST', path: '/gasless/deposit-with-permit', endpoint: ep, body });
  return {
    txHash: bytes32(o, 'txHash', a),
    user: address(o, 'user', a),
    token: address(o, 'token', a),
    amount: big(o, 'amount', a),
    relayer: address(o, 'relayer', a),
  };
}
