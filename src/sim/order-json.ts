/**
 * A stored order → the spec's `Order` JSON (and `OrderWithAvgFillPrice`): amounts as decimal
 * strings, enums as numbers, ISO timestamps, nullable V2 fields; ids lower-case, the trader checksummed.
 */
import { checksumOf } from './checksum.ts';
import type { StoredOrder } from './records.ts';

const str = (v: bigint | null): string | null => (v === null ? null : v.toString());

export function orderJson(o: StoredOrder): Record<string, unknown> {
  const remaining = Math.max(0, o.size - o.filledSize);
  return {
    id: o.id,
    hash: o.hash,
    marketId: o.marketId,
    trader: checksumOf(o.trader),
    nonce: o.nonce,
    side: o.side,
    price: String(o.price),
    size: String(o.size),
    filledSize: String(o.filledSize),
    remainingSize: String(remaining),
    percentFilled: o.size > 0 ? Math.round((o.filledSize / o.size) * 10_000) / 100 : 0,
    insertedAt: new Date(o.insertedAt).toISOString(),
    type: o.type,
    status: o.status,
    voidedAt: o.voidedAt === null ? null : new Date(o.voidedAt).toISOString(),
    voidReason: o.voidReason,
    outcomeIndex: o.outcomeIndex,
    expiry: o.expiryText ?? String(o.expiry),
    settlementVersion: o.settlementVersion,
    sv2OrderKind: o.sv2OrderKind,
    sv2TimeInForce: o.sv2TimeInForce,
    sv2MinSharesOut: str(o.sv2MinSharesOut),
    sv2MaxCollateralIn: str(o.sv2MaxCollateralIn),
    sv2MinCollateralOut: str(o.sv2MinCollateralOut),
    clientOrderType: o.clientOrderType,
  };
}

/** Average fill price in 1e-6 units per share (rounded half up), null before the first fill. */
export function avgFillPrice(o: StoredOrder): string | null {
  if (o.filledShares <= 0) return null;
  const shares = BigInt(o.filledShares);
  return ((BigInt(o.filledCollateral) * 1_000_000n + shares / 2n) / shares).toString();
}

export function orderWithAvgJson(o: StoredOrder): Record<string, unknown> {
  return { ...orderJson(o), avgFillPrice: avgFillPrice(o) };
}
