/**
 * Signature recovery for everything the bot signs; the local exchange calls these on its hot path to
 * check that the recovered signer is the trader. Returns EIP-55 checksummed addresses; a malformed or
 * unrecoverable signature is a BadInputError on `signature`, never a crash.
 */
import { BadInputError } from '../../model/errors.ts';
import type { Address, Bytes32, CancelBody, LimitOrderBody } from '../../model/order.ts';
import type { ChainConfig } from '../chains.ts';
import { addressFromPublicKey } from './address.ts';
import { cryptoBackend, type CryptoBackend } from './backend.ts';
import { domainSeparators } from './domains.ts';
import { assertAddressShape, assertBytes32, bytesToHex, toUint256 } from './hex.ts';
import { toSettlementV2Order, type OrderBodyFields } from './orderMapping.ts';
import { decodeSignature } from './signatureCodec.ts';
import { splitTokenAmounts, type TokenAmount } from './tokenAmounts.ts';
import {
  hashBatchWithdrawStruct,
  hashCancelStruct,
  hashOperatorApprovalStruct,
  hashOrderStruct,
  hashPermitTransferFromStruct,
  personalMessageDigest,
  typedDataDigest,
  withdrawsHash,
} from './structHashes.ts';

export interface RecoverOptions {
  /** Force the pure-JS backend (tests); default: native when it loads, unless BOOKMAKER_PURE_JS=1. */
  pure?: boolean;
}

// Traders repeat, so remember their checksummed spelling (bounded; cleared when full).
const addressCache = new Map<string, Address>();

function signerOf(digest: Uint8Array, signature: unknown, be: CryptoBackend): Address {
  const { rs, recid } = decodeSignature(signature);
  let pub: Uint8Array;
  try {
    pub = be.ecdsa.recover(digest, rs, recid);
  } catch (e) {
    throw new BadInputError('signature', 'a valid secp256k1 signature', signature, { cause: e });
  }
  const key = Buffer.from(pub.buffer, pub.byteOffset, pub.byteLength).toString('hex');
  let addr = addressCache.get(key);
  if (!addr) {
    addr = addressFromPublicKey(pub, be.keccak256);
    if (addressCache.size >= 10_000) addressCache.clear();
    addressCache.set(key, addr);
  }
  return addr;
}

/** Signer of a 32-byte digest. */
export function recoverDigestSigner(digest: Uint8Array, signature: string, opts: RecoverOptions = {}): Address {
  return signerOf(digest, signature, cryptoBackend(opts));
}

function orderDigest(body: OrderBodyFields, chain: ChainConfig, be: CryptoBackend): Uint8Array {
  const struct = toSettlementV2Order(body);
  return typedDataDigest(domainSeparators(chain).settlementV2, hashOrderStruct(struct, be.keccak256), be.keccak256);
}

/** The EIP-712 digest of a V2 limit order body; the local exchange uses it as the order hash. */
export function orderHash(body: OrderBodyFields, chain: ChainConfig, opts: RecoverOptions = {}): Bytes32 {
  return bytesToHex(orderDigest(body, chain, cryptoBackend(opts))) as Bytes32;
}

export function recoverOrderSigner(body: LimitOrderBody, chain: ChainConfig, opts: RecoverOptions = {}): Address {
  const be = cryptoBackend(opts);
  return signerOf(orderDigest(body, chain, be), body.signature, be);
}

/** Digest and signer together, for a caller that needs both (one hash instead of two). */
export function recoverOrder(body: LimitOrderBody, chain: ChainConfig, opts: RecoverOptions = {}): { hash: Bytes32; signer: Address } {
  const be = cryptoBackend(opts);
  const d = orderDigest(body, chain, be);
  return { hash: bytesToHex(d) as Bytes32, signer: signerOf(d, body.signature, be) };
}

export function recoverCancelSigner(body: CancelBody, chain: ChainConfig, opts: RecoverOptions = {}): Address {
  if (body === null || typeof body !== 'object') throw new BadInputError('cancel', 'an object', body);
  const be = cryptoBackend(opts);
  const trader = assertAddressShape(body.trader, 'trader');
  const nonce = assertBytes32(body.nonce, 'nonce');
  const d = typedDataDigest(domainSeparators(chain).settlementV2, hashCancelStruct(trader, nonce, be.keccak256), be.keccak256);
  return signerOf(d, body.signature, be);
}

export interface OperatorApprovalSigned {
  user: string;
  /** Default: the Settlement of that version. */
  operator?: string;
  approved?: boolean;
  nonce: string | number | bigint;
  deadline: string | number | bigint;
  /** 2 (default): new Holdings domain; 1: legacy Holdings domain. */
  settlementVersion?: 1 | 2;
  signature: string;
}

export function recoverOperatorApprovalSigner(m: OperatorApprovalSigned, chain: ChainConfig, opts: RecoverOptions = {}): Address {
  const be = cryptoBackend(opts);
  const v1 = m.settlementVersion === 1;
  if (m.settlementVersion !== undefined && m.settlementVersion !== 1 && m.settlementVersion !== 2) {
    throw new BadInputError('settlementVersion', '1 or 2', m.settlementVersion);
  }
  if (m.approved !== undefined && typeof m.approved !== 'boolean') throw new BadInputError('approved', 'a boolean', m.approved);
  const msg = {
    user: assertAddressShape(m.user, 'user'),
    operator: assertAddressShape(m.operator ?? (v1 ? chain.settlementV1 : chain.settlementV2), 'operator'),
    approved: m.approved ?? true,
    nonce: toUint256(m.nonce, 'nonce'),
    deadline: toUint256(m.deadline, 'deadline'),
  };
  const ds = domainSeparators(chain)[v1 ? 'holdingsLegacy' : 'holdingsNew'];
  return signerOf(typedDataDigest(ds, hashOperatorApprovalStruct(msg, be.keccak256), be.keccak256), m.signature, be);
}

export interface BatchWithdrawSigned {
  from: string;
  to: string;
  tokens: readonly TokenAmount[];
  nonce: string | number | bigint;
  deadline: string | number | bigint;
  signature: string;
}

export function recoverBatchWithdrawSigner(m: BatchWithdrawSigned, chain: ChainConfig, opts: RecoverOptions = {}): Address {
  const be = cryptoBackend(opts);
  const { tokens, amounts } = splitTokenAmounts(m.tokens);
  const msg = {
    from: assertAddressShape(m.from, 'from'),
    to: assertAddressShape(m.to, 'to'),
    withdrawsHash: bytesToHex(withdrawsHash(tokens, amounts, be.keccak256)) as Bytes32,
    nonce: toUint256(m.nonce, 'nonce'),
    deadline: toUint256(m.deadline, 'deadline'),
  };
  // BatchWithdraw is signed on the LEGACY Holdings domain (docs/venue.md#eip-712-domains-and-structs, #migration-to-settlement-v2).
  const ds = domainSeparators(chain).holdingsLegacy;
  return signerOf(typedDataDigest(ds, hashBatchWithdrawStruct(msg, be.keccak256), be.keccak256), m.signature, be);
}

export interface Permit2Signed {
  token: string;
  amount: string | number | bigint;
  spender: string;
  nonce: string | number | bigint;
  deadline: string | number | bigint;
  signature: string;
}

export function recoverPermit2Signer(m: Permit2Signed, chain: ChainConfig, opts: RecoverOptions = {}): Address {
  const be = cryptoBackend(opts);
  const msg = {
    token: assertAddressShape(m.token, 'token'),
    amount: toUint256(m.amount, 'amount'),
    spender: assertAddressShape(m.spender, 'spender'),
    nonce: toUint256(m.nonce, 'nonce'),
    deadline: toUint256(m.deadline, 'deadline'),
  };
  const ds = domainSeparators(chain).permit2;
  return signerOf(typedDataDigest(ds, hashPermitTransferFromStruct(msg, be.keccak256), be.keccak256), m.signature, be);
}

/** Signer of an EIP-191 personal_sign message (e.g. the migration authorization). */
export function recoverPersonalMessageSigner(message: string, signature: string, opts: RecoverOptions = {}): Address {
  if (typeof message !== 'string') throw new BadInputError('message', 'a string', message);
  const be = cryptoBackend(opts);
  return signerOf(personalMessageDigest(message, be.keccak256), signature, be);
}
