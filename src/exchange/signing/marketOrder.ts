/**
 * SDK-style market orders: sent as IOC limit orders labelled clientOrderType "market", priced at the
 * worst acceptable price (docs/venue.md#from-a-limit-order-to-a-v2-order). A buy spends a USDC budget B: S = ⌊B·1e6/P⌋ shares and the
 * body carries buyValue = B; a sell offers S shares.
 */
import { BadInputError } from '../../model/errors.ts';
import {
  Side,
  TimeInForce,
  type Bytes32,
  type InventoryModeValue,
  type LimitOrder,
  type MakerRoleValue,
  type OutcomeIndex,
  type SideValue,
} from '../../model/order.ts';

export interface MarketOrder {
  marketId: Bytes32;
  outcomeIndex: OutcomeIndex;
  side: SideValue;
  /** Worst price, 1e-6 USDC per share (the signed limit price). */
  maxPrice: number;
  /** Buys: the budget in 1e-6 USDC. */
  buyValue?: number;
  /** Sells: 1e-6 shares. */
  size?: number;
  inventoryMode?: InventoryModeValue;
  makerRole?: MakerRoleValue;
  maxFee?: number;
  expiry?: number;
  nonce?: Bytes32;
}

function safeUint(v: unknown, field: string): number {
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v <= 0) throw new BadInputError(field, 'a positive safe integer', v);
  return v;
}

export function marketOrderToLimitOrder(m: MarketOrder): LimitOrder {
  if (m === null || typeof m !== 'object') throw new BadInputError('order', 'an object', m);
  const price = safeUint(m.maxPrice, 'maxPrice');
  if (price >= 1_000_000) throw new BadInputError('maxPrice', 'an integer strictly between 0 and 1000000 (0–100 cents)', m.maxPrice);
  let size: number;
  let buyValue: number | undefined;
  if (m.side === Side.BUY) {
    buyValue = safeUint(m.buyValue, 'buyValue');
    const s = (BigInt(buyValue) * 1_000_000n) / BigInt(price);
    if (s <= 0n) throw new BadInputError('buyValue', 'a budget that buys at least one share unit at maxPrice', m.buyValue);
    size = Number(s);
  } else {
    if (m.buyValue !== undefined) throw new BadInputError('buyValue', 'no buyValue on a sell', m.buyValue);
    size = safeUint(m.size, 'size');
  }
  const out: LimitOrder = {
    marketId: m.marketId,
    outcomeIndex: m.outcomeIndex,
    side: m.side,
    price,
    size,
    timeInForce: TimeInForce.IOC,
    clientOrderType: 'market',
  };
  if (buyValue !== undefined) out.buyValue = buyValue;
  if (m.inventoryMode !== undefined) out.inventoryMode = m.inventoryMode;
  if (m.makerRole !== undefined) out.makerRole = m.makerRole;
  if (m.maxFee !== undefined) out.maxFee = m.maxFee;
  if (m.expiry !== undefined) out.expiry = m.expiry;
  if (m.nonce !== undefined) out.nonce = m.nonce;
  return out;
}
