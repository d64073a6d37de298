/**
 * Venue `Order` → `VenueOrder` (integer units). Used by every order endpoint and by GET /orders/:id, which
 * may answer a bare Order (spec) or `{order}` (SDK tests): both are accepted (`parseOrderAnswer`).
 */
import { BadResponseError } from '../../model/errors.ts';
import { ORDER_STATUSES, type VenueOrder, type VoidReason } from '../../model/order.ts';
import { ONE } from '../../model/units.ts';
import { address, asObject, fieldName, bytes32, nbig, nOneOf, num, oneOf, str, sub, unum, type At, type Rec } from './fields.ts';
import { normalizePrice } from './normalize-orderbook.ts';

export const VOID_REASONS: readonly VoidReason[] = [
  'UNFILLED_MARKET_ORDER',
  'IOC_CLOSED',
  'UNDER_COLLATERALIZED',
  'MISSING_OPERATOR_APPROVAL',
  'BELOW_MIN_FILL_SIZE',
  'INVALID_SIGNATURE',
  'MARKET_RESOLVED',
  'ADMIN_VOID',
  'MIGRATION_RETIRED',
];

/**
 * avgFillPrice is a string|null whose units the spec does not state. An integer string is read as 1e-6 units,
 * like `price` of the same Order (the local exchange does this); a fractional one goes through the order-book
 * 'auto' rule (dollars when ≤ 1, else cents). "0" means no fill yet → null.
 */
function avgFillPrice(o: Rec, a: At): number | null {
  const v = o.avgFillPrice;
  if (v === undefined || v === null) return null;
  if (typeof v !== 'string' && typeof v !== 'number') throw new BadResponseError(a.ep, fieldName(a, 'avgFillPrice'), 'a price string or null', v);
  if (Number(v) === 0) return null;
  try {
    if (typeof v === 'string' && /^\d+$/.test(v)) return normalizePrice(Number(v), 'micro');
    return normalizePrice(v, 'auto');
  } catch (e) {
    throw new BadResponseError(a.ep, fieldName(a, 'avgFillPrice'), 'a price', v, { cause: e });
  }
}

function optId(o: Rec, a: At): number | string | undefined {
  const v = o.id;
  if (v === undefined || v === null) return undefined;
  if ((typeof v === 'number' && Number.isSafeInteger(v)) || typeof v === 'string') return v;
  throw new BadResponseError(a.ep, fieldName(a, 'id'), 'a numeric or string id', v);
}

export function parseOrder(v: unknown, a: At): VenueOrder {
  const o = asObject(v, a);
  const price = unum(o, 'price', a, ONE);
  const order: VenueOrder = {
    marketId: bytes32(o, 'marketId', a),
    trader: address(o, 'trader', a),
    // normalised where it enters (src/model/ids.ts): code inside compares nonces with ===; a nonce is 32 bytes
    nonce: bytes32(o, 'nonce', a),
    side: oneOf(o, 'side', a, [0, 1] as const),
    outcomeIndex: oneOf(o, 'outcomeIndex', a, [0, 1] as const),
    price,
    size: unum(o, 'size', a),
    filledSize: unum(o, 'filledSize', a),
    remainingSize: unum(o, 'remainingSize', a),
    percentFilled: num(o, 'percentFilled', a, 0, 100),
    type: oneOf(o, 'type', a, ['limit', 'market'] as const),
    status: oneOf(o, 'status', a, ORDER_STATUSES),
    voidReason: nOneOf(o, 'voidReason', a, VOID_REASONS),
    insertedAt: str(o, 'insertedAt', a),
    expiry: unum(o, 'expiry', a),
    settlementVersion: oneOf(o, 'settlementVersion', a, [1, 2] as const),
    sv2OrderKind: nOneOf(o, 'sv2OrderKind', a, [0, 1, 2] as const),
    sv2TimeInForce: nOneOf(o, 'sv2TimeInForce', a, [0, 1, 2] as const),
    sv2MinSharesOut: nbig(o, 'sv2MinSharesOut', a),
    sv2MaxCollateralIn: nbig(o, 'sv2MaxCollateralIn', a),
    sv2MinCollateralOut: nbig(o, 'sv2MinCollateralOut', a),
    // the three optional fields are always keys (undefined when the venue did not send them), last and in this
    // order: one object shape for every parsed order. Added only when present they made up to eight shapes,
    // by transitions whose maps died with the last order holding them, and V8 then discarded the optimised
    // code that had embedded them (docs/performance/reoptimisation.md). JSON output is the same (undefined
    // keys are left out); readers test `!== undefined` / `??`, never `in`.
    id: optId(o, a),
    hash: typeof o.hash === 'string' ? bytes32(o, 'hash', a) : typeof o.orderHash === 'string' ? bytes32(o, 'orderHash', a) : undefined,
    avgFillPrice: 'avgFillPrice' in o ? avgFillPrice(o, a) : undefined,
  };
  if (order.filledSize > order.size) throw new BadResponseError(a.ep, fieldName(a, 'filledSize'), `≤ size (${order.size})`, o.filledSize);
  return order;
}

/** GET /orders/:id: a bare Order or `{order}`. */
export function parseOrderAnswer(v: unknown, a: At): VenueOrder {
  const o = asObject(v, a);
  if (o.order !== undefined && o.marketId === undefined) return parseOrder(o.order, sub(a, 'order'));
  return parseOrder(o, a);
}
