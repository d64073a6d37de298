/**
 * Order enums, the high-level limit order, the wire body of POST /orders and the signed
 * Settlement V2 struct (docs/venue.md#encodings-and-enums to #endpoints). Integer units per ./units.ts.
 */
export type Hex = `0x${string}`;
/** An address as written (0x + 40 hex digits, any case: EIP-55 checksummed or not): wire bodies, signed structs, chain constants, the local exchange. */
export type Address = Hex;
declare const normalAddress: unique symbol;
/**
 * An address in normal form, `0x` + 40 lower-case hex digits: the identity the bot compares with ===
 * (the wallet, venue answers' traders and tokens). Made by src/model/ids.ts addressOf where it enters;
 * it is an `Address` too, so it goes wherever one is written (EIP-712 encodes the bytes, not the case).
 */
export type NormalAddress = Address & { readonly [normalAddress]: true };
declare const normalId: unique symbol;
/**
 * A 32-byte value (market id, nonce, hash) in normal form: `0x` + 64 lower-case hex digits. Made by
 * src/model/ids.ts (bytes32Of, where it enters) or by code that produces lower-case hex itself;
 * compare with ===.
 */
export type Bytes32 = Hex & { readonly [normalId]: true };

/** outcomeIndex: 1 = YES, 0 = NO (docs/venue.md#encodings-and-enums; the old spec's "0 = yes" is a known conflict). */
export const Outcome = { NO: 0, YES: 1 } as const;
export type OutcomeIndex = 0 | 1;

export const Side = { BUY: 0, SELL: 1 } as const;
export type SideValue = 0 | 1;

export const MakerRole = { ANY: 0, MAKER_ONLY: 1, TAKER_ONLY: 2 } as const;
export type MakerRoleValue = 0 | 1 | 2;

export const InventoryMode = { ANY: 0, REQUIRE_INVENTORY: 1, REQUIRE_NO_INVENTORY: 2 } as const;
export type InventoryModeValue = 0 | 1 | 2;

export const OrderKind = { BUY: 0, SELL_INVENTORY: 1, SELL_NO_INVENTORY: 2 } as const;
export type OrderKindValue = 0 | 1 | 2;

export const TimeInForce = { GTC: 0, IOC: 1, FOK: 2 } as const;
export type TimeInForceValue = 0 | 1 | 2;

export type OrderStatus = 'open' | 'filled' | 'cancelled' | 'expired' | 'voided';
export const ORDER_STATUSES: readonly OrderStatus[] = ['open', 'filled', 'cancelled', 'expired', 'voided'];

export type VoidReason =
  | 'UNFILLED_MARKET_ORDER'
  | 'IOC_CLOSED'
  | 'UNDER_COLLATERALIZED'
  | 'MISSING_OPERATOR_APPROVAL'
  | 'BELOW_MIN_FILL_SIZE'
  | 'INVALID_SIGNATURE'
  | 'MARKET_RESOLVED'
  | 'ADMIN_VOID'
  | 'MIGRATION_RETIRED';

/**
 * A limit order in integer units, before signing. This is what strategies, the order manager
 * and the CLI produce; the signer turns it into a V2 struct + wire body.
 */
export interface LimitOrder {
  marketId: Bytes32;
  outcomeIndex: OutcomeIndex;
  side: SideValue;
  /** 1e-6 USDC per share, 0 < price < 1e6 */
  price: number;
  /** 1e-6 shares, > 0 */
  size: number;
  inventoryMode?: InventoryModeValue; // default ANY
  makerRole?: MakerRoleValue; // default ANY; MAKER_ONLY is refused (docs/venue.md#encodings-and-enums)
  timeInForce?: TimeInForceValue; // default GTC
  /** Buy budget in 1e-6 USDC (market buys); replaces C in maxCollateralIn. */
  buyValue?: number;
  /** 1e-6 USDC; default max(1, ⌊⌊P·S/100⌋/1e6⌋) */
  maxFee?: number;
  /** absolute unix seconds; default now + 365 days */
  expiry?: number;
  /** bytes32; default fresh from a CSPRNG */
  nonce?: Bytes32;
  clientOrderType?: 'limit' | 'market';
}

/** The signed Settlement V2 Order struct, field order as in the EIP-712 type. uint256 as bigint. */
export interface SettlementV2Order {
  marketId: Bytes32;
  trader: Address;
  maxShares: bigint;
  minSharesOut: bigint;
  maxCollateralIn: bigint;
  minCollateralOut: bigint;
  outcomeIndex: number;
  orderKind: number;
  nonce: Bytes32;
  expiry: bigint;
  maxFee: bigint;
  timeInForce: number;
  makerRoleConstraint: number;
}

/** POST /orders body, `type: "limit"` variant (decimal-int strings for amounts). */
export interface LimitOrderBody {
  type: 'limit';
  marketId: Bytes32;
  trader: Address;
  price: string;
  size: string;
  outcomeIndex: number;
  side: number;
  nonce: Bytes32;
  expiry: string;
  maxFee: string;
  makerRoleConstraint: number;
  inventoryModeConstraint: number;
  signature: Hex;
  buyValue?: string;
  timeInForce?: number;
  clientOrderType?: 'limit' | 'market';
}

/** POST /orders body, `type: "market"` variant (spec; MarketOrderIntent-signed in SDK-0.6). */
export interface MarketOrderBody {
  type: 'market';
  marketId: Bytes32;
  trader: Address;
  maxPrice: string;
  maxSize: string;
  outcomeIndex: number;
  side: number;
  nonce: Bytes32;
  expiry: string;
  maxFee: string;
  signature: Hex;
}

export type CreateOrderBody = LimitOrderBody | MarketOrderBody;

/** { trader, nonce, signature } with a CancelNonce signature on the V2 domain. */
export interface CancelBody {
  trader: Address;
  nonce: Bytes32;
  signature: Hex;
}

/** A venue order as returned by the API, parsed into integer units. */
export interface VenueOrder {
  id?: number | string;
  hash?: Bytes32;
  marketId: Bytes32;
  trader: Address;
  nonce: Bytes32;
  side: SideValue;
  outcomeIndex: OutcomeIndex;
  price: number;
  /** shares for sells; for V2 buys the all-in collateral budget (docs/venue.md#from-a-limit-order-to-a-v2-order) */
  size: number;
  filledSize: number;
  remainingSize: number;
  percentFilled: number;
  type: 'limit' | 'market';
  status: OrderStatus;
  voidReason: VoidReason | null;
  insertedAt: string;
  expiry: number;
  settlementVersion: 1 | 2;
  sv2OrderKind: OrderKindValue | null;
  sv2TimeInForce: TimeInForceValue | null;
  sv2MinSharesOut: bigint | null;
  sv2MaxCollateralIn: bigint | null;
  sv2MinCollateralOut: bigint | null;
  avgFillPrice?: number | null;
}
