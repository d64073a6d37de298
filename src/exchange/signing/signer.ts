/**
 * A Signer holds one private key for one chain and signs everything the bot sends: V2 orders, market
 * orders, cancels, operator approvals, batch withdrawals, Permit2 permits and the migration
 * authorization. Built once per key and chain; the hot path (signOrder) hashes by hand and signs with
 * native libsecp256k1 when it loads. The key lives only in this closure: no property holds it, and
 * JSON or inspect output shows the address only.
 */
import { inspect } from 'node:util';
import { ConfigError, BadInputError } from '../../model/errors.ts';
import { addressOf, mustAddress } from '../../model/ids.ts';
import {
  MakerRole,
  type Address,
  type Bytes32,
  type CancelBody,
  type Hex,
  type LimitOrder,
  type LimitOrderBody,
  type NormalAddress,
} from '../../model/order.ts';
import type { ChainConfig } from '../chains.ts';
import { registerSecret } from '../../core/logger.ts';
import { addressFromPublicKey, assertAddress } from './address.ts';
import { createAheadNonces } from './ahead-nonces.ts';
import { cryptoBackend, type BackendInfo } from './backend.ts';
import { domainSeparators } from './domains.ts';
import { assertBytes32, bytesToHex, toUint256 } from './hex.ts';
import { marketOrderToLimitOrder, type MarketOrder } from './marketOrder.ts';
import { migrationAuthorizationMessage, type MigrationAction } from './migrationMessage.ts';
import { freshOrderNonce, randomUint } from './nonce.ts';
import { buildLimitOrderBody, type UnsignedLimitOrderBody } from './orderBody.ts';
import { toSettlementV2Order } from './orderMapping.ts';
import { splitTokenAmounts, type TokenAmount } from './tokenAmounts.ts';
import { encodeSignature } from './signatureCodec.ts';
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

/** Deadline of gasless approvals, permits, withdrawals and migration authorizations (docs/venue.md#endpoints, #migration-to-settlement-v2). */
export const DEFAULT_DEADLINE_SECONDS = 3600;

type UintInput = string | number | bigint;

export interface SignerOptions {
  /** 0x + 64 hex (or 64 hex). Never logged; registered as a secret for redaction. */
  privateKey: string;
  chain: ChainConfig;
  /** Force the pure-JS crypto path (default: native when it loads, unless BOOKMAKER_PURE_JS=1). */
  pure?: boolean;
  /** Unix seconds for defaults (expiry, deadlines) when a call gives none. Default: the wall clock. */
  now?: () => number;
}

/** POST /gasless/operator body. */
export interface OperatorApprovalBody {
  user: Address;
  settlementVersion: 1 | 2;
  approved: boolean;
  nonce: string;
  deadline: string;
  signature: Hex;
}

/** `{nonce, deadline, signature}` of one migrate-funds chunk, plus the hash that was signed. */
export interface BatchWithdrawSignature {
  nonce: string;
  deadline: string;
  signature: Hex;
  withdrawsHash: Bytes32;
}

/** POST /gasless/deposit-with-permit body. */
export interface Permit2Body {
  user: Address;
  amount: string;
  nonce: string;
  deadline: string;
  signature: Hex;
}

export interface MigrationAuthorization {
  deadline: string;
  signature: Hex;
  /** The exact five-line message that was signed. */
  message: string;
}

export interface Signer {
  /** the wallet, EIP-55 checksummed: what the signed bodies carry and the logs show */
  readonly address: Address;
  /** the same wallet in normal form (src/model/ids.ts): what the bot compares an address from elsewhere with */
  readonly normalAddress: NormalAddress;
  readonly chain: ChainConfig;
  readonly backend: BackendInfo;
  /** Sign a limit order; defaults: maxFee 1% of notional, expiry now + 365 d, fresh nonce. */
  signOrder(order: LimitOrder, nowSec?: number): LimitOrderBody;
  /** A market order as an IOC limit order with clientOrderType "market". */
  signMarketOrder(order: MarketOrder, nowSec?: number): LimitOrderBody;
  /**
   * Compute ECDSA nonces ahead, in idle time, until `target` are ready (at most `max` now); returns
   * how many are ready. While some are, order signatures use them: two multiplications instead of a
   * point multiplication, valid and low-s, but not RFC 6979's bytes (docs/performance.md#signing-ahead).
   * Other messages always sign with RFC 6979.
   */
  precomputeNonces(target: number, max?: number): number;
  /** ECDSA nonces ready for order signatures. */
  readonly precomputedNonces: number;
  /** Sign an already-built body (e.g. a migration restore reusing nonce, expiry and maxFee). Its trader must be this signer. */
  signOrderBody(body: UnsignedLimitOrderBody): LimitOrderBody;
  signCancel(nonce: Bytes32): CancelBody;
  signOperatorApproval(
    p: { nonce: UintInput; deadline?: UintInput; approved?: boolean; settlementVersion?: 1 | 2; operator?: Address },
    nowSec?: number,
  ): OperatorApprovalBody;
  signBatchWithdraw(p: { to: Address; tokens: readonly TokenAmount[]; nonce?: UintInput; deadline?: UintInput }, nowSec?: number): BatchWithdrawSignature;
  signPermit2(p: { amount: UintInput; token?: Address; spender?: Address; nonce?: UintInput; deadline?: UintInput }, nowSec?: number): Permit2Body;
  signMigrationAuthorization(p: { action: MigrationAction; legacyOrderIds?: readonly number[]; deadline?: number }, nowSec?: number): MigrationAuthorization;
  /** EIP-191 personal_sign of a UTF-8 message. */
  signMessage(message: string): Hex;
}

const KEY = /^(?:0x)?([0-9a-fA-F]{64})$/;

/** Parse a private key; the message never contains the key itself. */
function parsePrivateKey(k: unknown): Buffer {
  const m = typeof k === 'string' ? KEY.exec(k.trim()) : null;
  if (!m) throw new ConfigError('private key: expected 0x followed by 64 hex digits');
  return Buffer.from(m[1]!, 'hex');
}

export function createSigner(opts: SignerOptions): Signer {
  const chain = opts.chain;
  if (!chain || typeof chain.chainId !== 'number') throw new BadInputError('chain', 'a ChainConfig', chain?.name);
  registerSecret(typeof opts.privateKey === 'string' ? opts.privateKey.trim() : undefined);
  const key = parsePrivateKey(opts.privateKey);
  registerSecret(`0x${key.toString('hex')}`); // the normalised spelling too, whatever form was passed in
  const be = cryptoBackend(opts.pure === undefined ? {} : { pure: opts.pure });
  if (!be.ecdsa.isValidPrivateKey(key)) throw new ConfigError('private key: not a valid secp256k1 key (zero or above the curve order)');
  const { keccak256, ecdsa } = be;
  const address = addressFromPublicKey(ecdsa.publicKey(key), keccak256);
  const normalAddress = mustAddress(address, 'signer');
  const domains = domainSeparators(chain);
  const clock = opts.now ?? (() => Math.floor(Date.now() / 1000));
  const nonceSource = (): Bytes32 => freshOrderNonce(keccak256);

  const signDigest = (digest: Uint8Array): Hex => encodeSignature((out) => ecdsa.sign(digest, key, out));
  const signTyped = (domain: Buffer, structHash: Uint8Array): Hex => signDigest(typedDataDigest(domain, structHash, keccak256));
  const ahead = createAheadNonces(ecdsa, key);
  const signOrderDigest = (digest: Uint8Array): Hex =>
    encodeSignature((out) => {
      const recid = ahead.sign(digest, out);
      return recid >= 0 ? recid : ecdsa.sign(digest, key, out);
    });
  const deadlineOf = (d: UintInput | undefined, nowSec: number | undefined, field: string): bigint =>
    d === undefined ? BigInt(Math.floor(nowSec ?? clock()) + DEFAULT_DEADLINE_SECONDS) : toUint256(d, field);

  function signOrderBody(body: UnsignedLimitOrderBody): LimitOrderBody {
    if (body === null || typeof body !== 'object' || addressOf(body.trader) !== normalAddress)
      throw new BadInputError('trader', `this signer's address ${address}`, body?.trader);
    if (body.makerRoleConstraint === MakerRole.MAKER_ONLY) {
      throw new BadInputError('makerRoleConstraint', '0 (ANY) or 2 (TAKER_ONLY); MAKER_ONLY (1) is refused', body.makerRoleConstraint);
    }
    // The struct is rebuilt from the body with the venue's own arithmetic, so what we sign is what it verifies.
    const struct = toSettlementV2Order(body);
    const signature = signOrderDigest(typedDataDigest(domains.settlementV2, hashOrderStruct(struct, keccak256), keccak256));
    return withSignature(body, signature);
  }

  function signOrder(order: LimitOrder, nowSec?: number): LimitOrderBody {
    return signOrderBody(buildLimitOrderBody(order, address, nowSec ?? clock(), nonceSource));
  }

  const signer: Signer = {
    address,
    normalAddress,
    chain,
    backend: be.info,
    signOrder,
    signOrderBody,
    precomputeNonces(target, max = Number.POSITIVE_INFINITY) {
      const want = Math.min(Math.floor(target) - ahead.size, Math.floor(max));
      return want > 0 ? ahead.fill(want) : ahead.size;
    },
    get precomputedNonces() {
      return ahead.size;
    },
    signMarketOrder: (order, nowSec) => signOrder(marketOrderToLimitOrder(order), nowSec),
    signCancel(nonce) {
      assertBytes32(nonce, 'nonce');
      return { trader: address, nonce, signature: signTyped(domains.settlementV2, hashCancelStruct(address, nonce, keccak256)) };
    },
    signOperatorApproval(p, nowSec) {
      const version = p.settlementVersion ?? 2;
      if (version !== 1 && version !== 2) throw new BadInputError('settlementVersion', '1 or 2', version);
      if (p.approved !== undefined && typeof p.approved !== 'boolean') throw new BadInputError('approved', 'a boolean', p.approved);
      const msg = {
        user: address,
        operator: p.operator === undefined ? (version === 1 ? chain.settlementV1 : chain.settlementV2) : assertAddress(p.operator, 'operator', keccak256),
        approved: p.approved ?? true,
        nonce: toUint256(p.nonce, 'nonce'),
        deadline: deadlineOf(p.deadline, nowSec, 'deadline'),
      };
      const domain = version === 1 ? domains.holdingsLegacy : domains.holdingsNew;
      const signature = signTyped(domain, hashOperatorApprovalStruct(msg, keccak256));
      return { user: address, settlementVersion: version, approved: msg.approved, nonce: String(msg.nonce), deadline: String(msg.deadline), signature };
    },
    signBatchWithdraw(p, nowSec) {
      const { tokens, amounts } = splitTokenAmounts(p.tokens);
      const wh = bytesToHex(withdrawsHash(tokens, amounts, keccak256)) as Bytes32;
      const msg = {
        from: address,
        to: assertAddress(p.to, 'to', keccak256),
        withdrawsHash: wh,
        nonce: p.nonce === undefined ? randomUint(16) : toUint256(p.nonce, 'nonce'),
        deadline: deadlineOf(p.deadline, nowSec, 'deadline'),
      };
      // The LEGACY Holdings domain: funds are withdrawn from the old contract (docs/venue.md#migration-to-settlement-v2).
      const signature = signTyped(domains.holdingsLegacy, hashBatchWithdrawStruct(msg, keccak256));
      return { nonce: String(msg.nonce), deadline: String(msg.deadline), signature, withdrawsHash: wh };
    },
    signPermit2(p, nowSec) {
      const msg = {
        token: p.token === undefined ? chain.usdc : assertAddress(p.token, 'token', keccak256),
        amount: toUint256(p.amount, 'amount'),
        spender: p.spender === undefined ? chain.holdingsNew : assertAddress(p.spender, 'spender', keccak256),
        nonce: p.nonce === undefined ? randomUint(8) : toUint256(p.nonce, 'nonce'),
        deadline: deadlineOf(p.deadline, nowSec, 'deadline'),
      };
      const signature = signTyped(domains.permit2, hashPermitTransferFromStruct(msg, keccak256));
      return { user: address, amount: String(msg.amount), nonce: String(msg.nonce), deadline: String(msg.deadline), signature };
    },
    signMigrationAuthorization(p, nowSec) {
      const deadline = p.deadline ?? Math.floor(nowSec ?? clock()) + DEFAULT_DEADLINE_SECONDS;
      const fields = { action: p.action, wallet: address, deadline, ...(p.legacyOrderIds ? { legacyOrderIds: p.legacyOrderIds } : {}) };
      const message = migrationAuthorizationMessage(fields);
      return { deadline: String(deadline), signature: signDigest(personalMessageDigest(message, keccak256)), message };
    },
    signMessage(message) {
      if (typeof message !== 'string') throw new BadInputError('message', 'a string', message);
      return signDigest(personalMessageDigest(message, keccak256));
    },
  };
  // Only public facts in JSON and inspect output; the key is in the closure, not on the object.
  const publicView = () => ({ address, chain: chain.name, backend: be.info });
  Object.defineProperty(signer, 'toJSON', { value: publicView, enumerable: false });
  Object.defineProperty(signer, inspect.custom, { value: () => `Signer ${JSON.stringify(publicView())}`, enumerable: false });
  return Object.freeze(signer);
}

/** The own enumerable keys of a body as buildLimitOrderBody makes it (without buyValue or clientOrderType), in that order. */
const BUILT_BODY_KEYS = [
  'type',
  'marketId',
  'trader',
  'price',
  'size',
  'outcomeIndex',
  'side',
  'nonce',
  'expiry',
  'maxFee',
  'makerRoleConstraint',
  'inventoryModeConstraint',
  'timeInForce',
];

/**
 * `{ ...body, signature }`. A spread followed by a new key gives the objects maps of their own in V8
 * (docs/performance/map-churn.md): one per signed order on the live bot. Bodies with exactly the keys
 * buildLimitOrderBody gives (the usual case) are built as one literal with the same keys in the same order,
 * so the JSON sent is byte-identical; any other body is spread as before.
 */
function withSignature(body: UnsignedLimitOrderBody, signature: Hex): LimitOrderBody {
  const keys = Object.keys(body);
  let built = keys.length === BUILT_BODY_KEYS.length;
  for (let i = 0; built && i < keys.length; i++) built = keys[i] === BUILT_BODY_KEYS[i];
  if (!built) return { ...body, signature };
  const b = body;
  return {
    type: b.type,
    marketId: b.marketId,
    trader: b.trader,
    price: b.price,
    size: b.size,
    outcomeIndex: b.outcomeIndex,
    side: b.side,
    nonce: b.nonce,
    expiry: b.expiry,
    maxFee: b.maxFee,
    makerRoleConstraint: b.makerRoleConstraint,
    inventoryModeConstraint: b.inventoryModeConstraint,
    timeInForce: b.timeInForce,
    signature,
  };
}
