/**
 * Order entry of the local exchange: validate a POST /orders body, verify its EIP-712 signature by
 * rebuilding the Settlement V2 struct from the body (the recovered signer must be the trader),
 * enforce the per-trader nonce uniqueness, and hand the order to the matching engine. Also cancels
 * (CancelNonce signature) and the order indices (by id, hash, trader+nonce, engine id).
 *
 * The `type:"market"` body variant is accepted and verified as the V2 limit order it maps to:
 * price = maxPrice, size = maxSize, inventoryModeConstraint 0, makerRoleConstraint 0, IOC,
 * clientOrderType "market" (the SDK's own market orders already arrive as such limit bodies; how
 * the venue verifies the legacy variant after the migration is not documented, docs/venue.md#from-a-limit-order-to-a-v2-order).
 */
import { recoverCancelSigner, recoverDigestSigner } from '../exchange/signing/recover.ts';
import { toSettlementV2Order } from '../exchange/signing/orderMapping.ts';
import { cryptoBackend, pureForcedByEnv } from '../exchange/signing/backend.ts';
import { domainSeparators } from '../exchange/signing/domains.ts';
import { bytesToHex } from '../exchange/signing/hex.ts';
import { hashOrderStruct, typedDataDigest } from '../exchange/signing/structHashes.ts';
import type { ChainConfig } from '../exchange/chains.ts';
import { BadInputError } from '../model/errors.ts';
import type {
  Address,
  Bytes32,
  CancelBody,
  LimitOrderBody,
  OrderKindValue,
  OutcomeIndex,
  SettlementV2Order,
  SideValue,
  TimeInForceValue,
  VoidReason,
} from '../model/order.ts';
import type { RejectCode, SubmitOrder } from '../engine/types.ts';
import { bytes32Of } from '../model/ids.ts';
import type { ExchangeState } from './context.ts';
import type { EngineHost } from './engine-host.ts';
import { HttpError, badRequest, forbidden, invalidSignature, nonceUsed, notFound } from './http-errors.ts';
import type { ApiKeyRecord, MarketRecord, StoredOrder } from './records.ts';
import * as v from './validate.ts';
import { addressOf, walletOf, type LowerAddress } from './wire-ids.ts';

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/** Prefix a field path: ('orders[2]', 'price') → 'orders[2].price'; ('', 'price') → 'price'. */
export function fieldPath(prefix: string, field: string): string {
  return prefix ? `${prefix}.${field}` : field;
}

/** Turn the signing module's BadInputError into a 400 naming the (prefixed) field. */
function rethrowBadInput(e: unknown, prefix: string): never {
  if (e instanceof BadInputError) throw badRequest(fieldPath(prefix, e.field), `expected ${e.expected}`);
  throw e;
}

/** An order body as checked: its trader, market id and nonce normalised (./wire-ids.ts). */
export type WireOrderBody = LimitOrderBody & { trader: LowerAddress };

/** A cancel body as checked: its trader and nonce normalised. */
export type WireCancelBody = CancelBody & { trader: LowerAddress };

/** A recovered signer in the exchange's spelling (the recover answers it checksummed). */
function signerOf(recovered: Address): LowerAddress {
  return addressOf(recovered)!;
}

/** Normalise either body variant to the V2 limit body that is verified and placed. */
export function toLimitBody(raw: unknown, prefix: string): WireOrderBody {
  const b = v.object(raw, prefix || 'body');
  const type = b.type ?? 'limit';
  if (type !== 'limit' && type !== 'market') throw badRequest(fieldPath(prefix, 'type'), 'expected "limit" or "market"');
  // a market order is a limit order at its maxPrice and maxSize, IOC (clientOrderType says what it was)
  const market = type === 'market';
  const priceKey = market ? 'maxPrice' : 'price';
  const sizeKey = market ? 'maxSize' : 'size';
  const body: WireOrderBody = {
    type: 'limit',
    marketId: v.bytes32(b.marketId, fieldPath(prefix, 'marketId')),
    trader: v.address(b.trader, fieldPath(prefix, 'trader')),
    price: String(v.safeUintString(b[priceKey], fieldPath(prefix, priceKey), { min: 1, max: 999_999 })),
    size: String(v.safeUintString(b[sizeKey], fieldPath(prefix, sizeKey), { min: 1 })),
    outcomeIndex: v.int(b.outcomeIndex, fieldPath(prefix, 'outcomeIndex'), 0, 1),
    side: v.int(b.side, fieldPath(prefix, 'side'), 0, 1),
    nonce: v.bytes32(b.nonce, fieldPath(prefix, 'nonce')),
    expiry: String(v.uintString(b.expiry, fieldPath(prefix, 'expiry'))),
    maxFee: String(v.safeUintString(b.maxFee, fieldPath(prefix, 'maxFee'))),
    makerRoleConstraint: market ? 0 : v.int(b.makerRoleConstraint, fieldPath(prefix, 'makerRoleConstraint'), 0, 2),
    inventoryModeConstraint: market ? 0 : v.int(b.inventoryModeConstraint, fieldPath(prefix, 'inventoryModeConstraint'), 0, 2),
    ...(market ? { timeInForce: 1, clientOrderType: 'market' } : {}),
    signature: v.signature(b.signature, fieldPath(prefix, 'signature')),
  };
  if (market) return body;
  // keep the exact strings the client signed (leading zeros are rejected by the validators above)
  body.price = b.price as string;
  body.size = b.size as string;
  body.expiry = b.expiry as string;
  body.maxFee = b.maxFee as string;
  if (b.buyValue !== undefined && b.buyValue !== null) {
    v.safeUintString(b.buyValue, fieldPath(prefix, 'buyValue'));
    body.buyValue = b.buyValue as string;
  }
  if (b.timeInForce !== undefined && b.timeInForce !== null) body.timeInForce = v.int(b.timeInForce, fieldPath(prefix, 'timeInForce'), 0, 2);
  if (b.clientOrderType !== undefined && b.clientOrderType !== null)
    body.clientOrderType = v.oneOf(b.clientOrderType, fieldPath(prefix, 'clientOrderType'), ['limit', 'market'] as const);
  return body;
}

function toSafe(x: bigint, field: string): number {
  if (x > MAX_SAFE) throw badRequest(field, 'expected a value below 2^53');
  return Number(x);
}

export class OrderService {
  readonly byHash = new Map<Bytes32, StoredOrder>();
  /** by `${trader}|${nonce}` (./order-service.ts nonceKey) */
  readonly byNonce = new Map<string, StoredOrder>();
  readonly byEngineId = new Map<number, StoredOrder>();
  /** each trader's orders in id order, by lower-case address (read with ordersOf) */
  readonly byTrader = new Map<string, StoredOrder[]>();
  /** the order being submitted, so the engine events it triggers find it before its id is known */
  pending: StoredOrder | null = null;
  /**
   * The crypto backend choice, read from the environment once: asked per call, the signing module
   * reads `process.env` (a slow native lookup) three times per order.
   */
  private readonly crypto = { pure: pureForcedByEnv() };

  constructor(
    private readonly state: ExchangeState,
    private readonly host: EngineHost,
    private readonly chain: ChainConfig,
  ) {}

  /** Rebuild the indices from the stored orders (after a restore). */
  reindex(): void {
    this.byHash.clear();
    this.byNonce.clear();
    this.byEngineId.clear();
    this.byTrader.clear();
    for (const o of this.state.stores.orders) this.index(o);
  }

  private index(o: StoredOrder): void {
    this.byHash.set(o.hash, o);
    this.byNonce.set(nonceKey(o.trader, o.nonce), o);
    if (o.engineId !== null && o.status === 'open') this.byEngineId.set(o.engineId, o);
    let list = this.byTrader.get(o.trader);
    if (!list) {
      list = [];
      this.byTrader.set(o.trader, list);
    }
    list.push(o);
  }

  /** A trader's orders in id order (empty when none). */
  ordersOf(trader: LowerAddress): readonly StoredOrder[] {
    return this.byTrader.get(trader) ?? [];
  }

  /** Find by numeric id or 0x hash (any case: a path parameter enters here). */
  find(id: string): StoredOrder | undefined {
    if (/^\d{1,15}$/.test(id)) return this.state.stores.orders[Number(id) - 1];
    const hash = bytes32Of(id);
    return hash === null ? undefined : this.byHash.get(hash);
  }

  /** The order of a trader's nonce, both normalised. */
  nonceOrder(trader: LowerAddress, nonce: Bytes32): StoredOrder | undefined {
    return this.byNonce.get(nonceKey(trader, nonce));
  }

  /** The order of a trader's nonce, both in any spelling (a query for tests and tools). */
  byTraderNonce(trader: string, nonce: string): StoredOrder | undefined {
    const a = addressOf(trader);
    const n = bytes32Of(nonce);
    return a === null || n === null ? undefined : this.nonceOrder(a, n);
  }

  /** Drop the engine-id index entry of a finished order (bounded memory in long runs). */
  forgetEngineId(id: number): void {
    this.byEngineId.delete(id);
  }

  /** The stored order of an engine order id (undefined for the agents' orders). */
  resolveEngineId(id: number): StoredOrder | undefined {
    return this.byEngineId.get(id);
  }

  /**
   * The engine accepted the order being submitted: bind its id now, before the fills that follow
   * in the same command refer to it. Only the `accepted` event binds, so a maker's id can never be
   * mistaken for the incoming order's.
   */
  bindPending(id: number): void {
    const p = this.pending;
    if (p && p.engineId === null) {
      p.engineId = id;
      this.byEngineId.set(id, p);
    }
  }

  /** Validate, verify and place one order body. */
  place(raw: unknown, prefix: string, caller: ApiKeyRecord, now: number): StoredOrder {
    return this.commit(this.prepare(raw, prefix, caller, now), now);
  }

  /**
   * Every check that does not change state: shape, signature, wallet, market, trading guards, nonce.
   * Bulk calls prepare all items first, so a bad item refuses the call before anything is applied.
   * `batchNonces` holds the `trader|nonce` keys already used earlier in the same batch.
   */
  prepare(raw: unknown, prefix: string, caller: ApiKeyRecord, now: number, batchNonces?: Set<string>): PreparedOrder {
    const body = toLimitBody(raw, prefix);
    let struct: SettlementV2Order;
    let rec: { hash: Bytes32; signer: LowerAddress };
    try {
      // one struct build for both the digest and the engine command (recoverOrder would rebuild it)
      struct = toSettlementV2Order(body);
      const be = cryptoBackend(this.crypto);
      const digest = typedDataDigest(domainSeparators(this.chain).settlementV2, hashOrderStruct(struct, be.keccak256), be.keccak256);
      rec = { hash: bytesToHex(digest) as Bytes32, signer: signerOf(recoverDigestSigner(digest, body.signature, this.crypto)) };
    } catch (e) {
      rethrowBadInput(e, prefix);
    }
    if (rec.signer !== body.trader) throw invalidSignature(fieldPath(prefix, 'signature'));
    if (walletOf(caller) !== body.trader) throw forbidden(`${fieldPath(prefix, 'trader')}: orders may only be placed for this API key's wallet`);
    const market = this.state.services.market(body.marketId);
    const mIdx = market ? this.host.marketIndex(market.id) : undefined;
    // messages name the id as the caller spelt it
    if (!market || mIdx === undefined) throw notFound(`market ${(raw as { marketId: string }).marketId}`);
    for (const g of this.state.tradingGuards) g(body.trader, 'create', now);
    const key = nonceKey(body.trader, body.nonce);
    if (this.byNonce.has(key) || batchNonces?.has(key)) throw nonceUsed();
    batchNonces?.add(key);
    const kind = struct.orderKind as OrderKindValue;
    return {
      body,
      struct,
      hash: rec.hash,
      market,
      marketIndex: mIdx,
      prefix,
      kind,
      maxShares: toSafe(struct.maxShares, fieldPath(prefix, 'size')),
      minSharesOut: toSafe(struct.minSharesOut, fieldPath(prefix, 'size')),
      maxCollateralIn: toSafe(struct.maxCollateralIn, fieldPath(prefix, 'size')),
      minCollateralOut: toSafe(struct.minCollateralOut, fieldPath(prefix, 'size')),
      legacyMarketVariant: (raw as { type?: unknown }).type === 'market',
    };
  }

  /** The stored record and the engine command of a prepared order (nothing changed yet). */
  private build(p: PreparedOrder, now: number): { stored: StoredOrder; cmd: SubmitOrder } {
    const { body, struct, market, kind } = p;
    const trader = body.trader;
    const tIdx = this.host.traderIndex(trader) ?? -1;
    const price = Number(body.price);
    const expiryBig = BigInt(body.expiry);
    const expiry = expiryBig > MAX_SAFE ? 0 : Number(expiryBig); // beyond 2^53 s is "never"
    const tif = (body.timeInForce ?? 0) as TimeInForceValue;
    const stored: StoredOrder = {
      id: this.state.stores.orders.length + 1,
      hash: p.hash,
      marketId: market.id,
      trader,
      nonce: body.nonce,
      side: body.side as SideValue,
      outcomeIndex: body.outcomeIndex as OutcomeIndex,
      price,
      size: kind === 0 ? p.maxCollateralIn : Number(body.size),
      filledSize: 0,
      filledShares: 0,
      filledCollateral: 0,
      feesPaid: 0,
      type: p.legacyMarketVariant ? 'market' : 'limit',
      clientOrderType: body.clientOrderType ?? null,
      status: 'open',
      voidReason: null,
      voidedAt: null,
      insertedAt: now,
      expiry,
      maxFee: Number(body.maxFee),
      inventoryModeConstraint: body.inventoryModeConstraint,
      makerRoleConstraint: body.makerRoleConstraint,
      settlementVersion: 2,
      sv2OrderKind: kind,
      sv2TimeInForce: tif,
      sv2MaxShares: struct.maxShares,
      sv2MinSharesOut: kind === 0 ? struct.minSharesOut : null,
      sv2MaxCollateralIn: struct.maxCollateralIn,
      sv2MinCollateralOut: struct.minCollateralOut,
      buyValue: body.buyValue === undefined ? null : Number(body.buyValue),
      engineId: null,
    };
    // every digit of what was signed is reported back (the engine treats such an expiry as none)
    if (expiryBig > MAX_SAFE) stored.expiryText = body.expiry;
    const cmd: SubmitOrder = {
      market: p.marketIndex,
      trader: tIdx,
      outcome: stored.outcomeIndex,
      kind,
      price,
      maxShares: p.maxShares,
      minSharesOut: p.minSharesOut,
      maxCollateralIn: p.maxCollateralIn,
      minCollateralOut: p.minCollateralOut,
      maxFee: stored.maxFee,
      timeInForce: tif,
      makerRole: body.makerRoleConstraint as 0 | 1 | 2,
      expiry,
      marketOrder: body.clientOrderType === 'market',
      nowMs: now,
    };
    return { stored, cmd };
  }

  /**
   * Would the engine accept these prepared orders, placed in order after cancelling `releases`
   * (open orders of the same caller)? Counts what the cancels free and what each earlier order
   * reserves (a conservative bound: fills of earlier orders can only leave more available).
   * Throws the first refusal as the create would get it, with its index; changes nothing.
   */
  precheckAll(creates: PreparedOrder[], now: number, releases: StoredOrder[] = []): void {
    const eng = this.host.engine;
    let collateral = 0;
    const tokens = new Map<string, number>();
    for (const r of releases) {
      if (r.status !== 'open' || r.engineId === null) continue;
      const f = eng.releaseOf(r.engineId);
      if (!f) continue;
      collateral += f.collateral;
      if (f.tokens) tokens.set(`${f.market}|${f.outcome}`, (tokens.get(`${f.market}|${f.outcome}`) ?? 0) + f.tokens);
    }
    for (let i = 0; i < creates.length; i++) {
      const p = creates[i]!;
      const { cmd } = this.build(p, now);
      const tk = `${cmd.market}|${cmd.outcome}`;
      if (cmd.trader < 0) {
        // a wallet new to the engine holds nothing: only an order needing no reservation could pass
        if (cmd.kind === 1 ? cmd.maxShares > 0 : cmd.maxCollateralIn > 0)
          throw withIndex(this.rejection('UNDER_COLLATERALIZED', fieldPath(p.prefix, 'size'), 'not enough collateral to reserve maxCollateralIn'), i);
        continue;
      }
      const r = eng.precheck(cmd, { collateral, tokens: tokens.get(tk) ?? 0 });
      if (r) throw withIndex(this.rejection(r.code, fieldPath(p.prefix, engineField(r.field)), r.message), i);
      if (cmd.kind === 1) tokens.set(tk, (tokens.get(tk) ?? 0) - cmd.maxShares);
      else collateral -= cmd.maxCollateralIn;
    }
  }

  /** Store a prepared order and hand it to the engine. Throws (and stores nothing) when the engine refuses it. */
  commit(p: PreparedOrder, now: number): StoredOrder {
    const { body, market } = p;
    if (this.byNonce.has(nonceKey(body.trader, body.nonce))) throw nonceUsed();
    const trader = body.trader;
    const tIdx = this.host.ensureTrader(trader);
    const { stored, cmd } = this.build(p, now);
    cmd.trader = tIdx;
    const voided = this.voidReasonOf(trader);
    if (voided !== null) {
      // accepted and voided on arrival, as the venue does (e.g. no operator approval): it never
      // reaches the book, reserves nothing, and reads back as voided with its reason
      stored.status = 'voided';
      stored.voidReason = voided;
      stored.voidedAt = now;
      this.state.stores.orders.push(stored);
      this.index(stored);
      return stored;
    }
    // the order is stored before the engine runs, so the fills it takes at once are recorded on it
    this.state.stores.orders.push(stored);
    this.index(stored);
    this.pending = stored;
    let res;
    try {
      res = this.host.submit(cmd);
    } finally {
      this.pending = null;
    }
    if (!res.ok) {
      this.unstore(stored);
      throw this.rejection(res.code, fieldPath(p.prefix, engineField(res.field)), res.message);
    }
    if (stored.engineId === null) {
      stored.engineId = res.id;
      this.byEngineId.set(res.id, stored);
    }
    if (!market.participants.includes(trader)) market.participants.push(trader);
    return stored;
  }

  private voidReasonOf(trader: LowerAddress): VoidReason | null {
    for (const v of this.state.orderVoiders) {
      const r = v(trader);
      if (r !== null) return r;
    }
    return null;
  }

  private unstore(o: StoredOrder): void {
    // only the last order can be unstored (ids stay dense); the engine refused it, so nothing else refers to it
    if (this.state.stores.orders[this.state.stores.orders.length - 1] === o) this.state.stores.orders.pop();
    this.byHash.delete(o.hash);
    this.byNonce.delete(nonceKey(o.trader, o.nonce));
    if (o.engineId !== null) this.byEngineId.delete(o.engineId);
    const list = this.byTrader.get(o.trader);
    if (list && list[list.length - 1] === o) list.pop();
  }

  private rejection(code: RejectCode, field: string, message: string): HttpError {
    switch (code) {
      case 'UNDER_COLLATERALIZED':
        return new HttpError(400, 'INSUFFICIENT_BALANCE', `insufficient balance: ${message}`, { field });
      case 'MARKET_NOT_OPEN':
        return new HttpError(409, 'CONFLICT', `market is not open for trading: ${message}`);
      case 'UNKNOWN_MARKET':
        return notFound('market');
      default:
        return badRequest(field, message);
    }
  }

  cancel(raw: unknown, prefix: string, caller: ApiKeyRecord, now: number): CancelOutcome {
    return this.commitCancel(this.prepareCancel(raw, prefix, caller, now), now);
  }

  /** Checks of a cancel that change nothing: shape, CancelNonce signature, wallet, guards, existence. */
  prepareCancel(raw: unknown, prefix: string, caller: ApiKeyRecord, now: number): StoredOrder {
    const b = v.object(raw, prefix || 'body');
    const body: WireCancelBody = {
      trader: v.address(b.trader, fieldPath(prefix, 'trader')),
      nonce: v.bytes32(b.nonce, fieldPath(prefix, 'nonce')),
      signature: v.signature(b.signature, fieldPath(prefix, 'signature')),
    };
    let signer: LowerAddress;
    try {
      signer = signerOf(recoverCancelSigner(body, this.chain, this.crypto));
    } catch (e) {
      rethrowBadInput(e, prefix);
    }
    if (signer !== body.trader) throw invalidSignature(fieldPath(prefix, 'signature'));
    if (walletOf(caller) !== body.trader) throw forbidden(`${fieldPath(prefix, 'trader')}: orders may only be cancelled by this API key's wallet`);
    for (const g of this.state.tradingGuards) g(body.trader, 'cancel', now);
    const o = this.nonceOrder(body.trader, body.nonce);
    if (!o) throw notFound(`order with nonce ${b.nonce as string}`);
    return o;
  }

  /**
   * Cancel an order that prepareCancel found. An order that is no longer open (cancelled, filled,
   * expired or voided) answers alreadyCancelled: there is nothing left to cancel.
   */
  commitCancel(o: StoredOrder, now: number): CancelOutcome {
    if (o.status !== 'open') return { trader: o.trader, nonce: o.nonce, alreadyCancelled: true, order: o };
    if (o.engineId !== null) this.host.cancel(o.engineId, now);
    if (o.status === 'open') o.status = 'cancelled'; // the engine had closed it already without an event
    return { trader: o.trader, nonce: o.nonce, alreadyCancelled: false, order: o };
  }
}

export interface CancelOutcome {
  trader: LowerAddress;
  nonce: Bytes32;
  alreadyCancelled: boolean;
  order: StoredOrder;
}

export interface PreparedOrder {
  body: WireOrderBody;
  struct: SettlementV2Order;
  hash: Bytes32;
  market: MarketRecord;
  marketIndex: number;
  prefix: string;
  kind: OrderKindValue;
  maxShares: number;
  minSharesOut: number;
  maxCollateralIn: number;
  minCollateralOut: number;
  legacyMarketVariant: boolean;
}

/** The key of the per-trader nonce index. */
function nonceKey(trader: LowerAddress, nonce: Bytes32): string {
  return `${trader}|${nonce}`;
}

/** An HttpError carrying the index of the batch item it refers to. */
export class ItemError extends Error {
  constructor(
    readonly error: HttpError,
    readonly index: number,
  ) {
    super(error.message);
  }
}

function withIndex(e: HttpError, index: number): ItemError {
  return new ItemError(e, index);
}

/** The engine's command field names → the body's. */
function engineField(field: string): string {
  switch (field) {
    case 'maxShares':
    case 'minSharesOut':
    case 'quantity':
      return 'size';
    case 'maxCollateralIn':
    case 'minCollateralOut':
      return 'size';
    case 'market':
      return 'marketId';
    case 'makerRole':
      return 'makerRoleConstraint';
    case 'outcome':
      return 'outcomeIndex';
    default:
      return field;
  }
}
