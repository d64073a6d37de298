/**
 * A retired legacy order's restoration draft → the unsigned V2 limit-order body that restores it
 * (docs/venue.md#migration-to-settlement-v2 (step 5)): the legacy nonce, expiry and maxFee are reused unchanged, the size is the
 * remaining size, timeInForce, clientOrderType and both constraints are copied, no buyValue.
 *
 * Entry point: `restorationBody(draft, trader, field)`; throws BadResponseError naming the draft
 * field when the venue's draft is malformed (nothing is signed from a bad draft).
 */
import { BadResponseError } from '../model/errors.ts';
import { addressOf, bytes32Of } from '../model/ids.ts';
import type { Address, Bytes32 } from '../model/order.ts';
import type { UnsignedLimitOrderBody } from '../exchange/signing/orderBody.ts';

const EP = 'GET /account/migration';
const DEC = /^\d+$/;

type Draft = Record<string, unknown>;

function decimal(d: Draft, k: string, field: string): string {
  const v = d[k];
  if (typeof v !== 'string' || !DEC.test(v)) throw new BadResponseError(EP, `${field}.${k}`, 'a decimal integer string', v);
  return v;
}

function enumOf<T extends number>(d: Draft, k: string, field: string, allowed: readonly T[]): T {
  const v = d[k];
  if (typeof v !== 'number' || !allowed.includes(v as T)) throw new BadResponseError(EP, `${field}.${k}`, `one of ${allowed.join(', ')}`, v);
  return v as T;
}

function hex32(d: Draft, k: string, field: string): Bytes32 {
  const v = d[k];
  // normalised where it enters (src/model/ids.ts): the signed bytes are the same in any case
  const id = bytes32Of(v);
  if (id === null) throw new BadResponseError(EP, `${field}.${k}`, '0x and 64 hex digits', v);
  return id;
}

export function restorationBody(draft: Draft, trader: Address, field = 'draft'): UnsignedLimitOrderBody {
  if (draft.type !== undefined && draft.type !== 'limit') throw new BadResponseError(EP, `${field}.type`, '"limit"', draft.type);
  if (typeof draft.trader === 'string' && addressOf(draft.trader) !== addressOf(trader)) {
    throw new BadResponseError(EP, `${field}.trader`, `the migrating wallet ${trader}`, draft.trader);
  }
  const size = decimal(draft, 'remainingSize', field);
  if (size === '0' || /^0+$/.test(size)) throw new BadResponseError(EP, `${field}.remainingSize`, 'above 0', size);
  const body: UnsignedLimitOrderBody = {
    type: 'limit',
    marketId: hex32(draft, 'marketId', field),
    trader,
    price: decimal(draft, 'price', field),
    size,
    outcomeIndex: enumOf(draft, 'outcomeIndex', field, [0, 1] as const),
    side: enumOf(draft, 'side', field, [0, 1] as const),
    nonce: hex32(draft, 'nonce', field),
    expiry: decimal(draft, 'expiry', field),
    maxFee: decimal(draft, 'maxFee', field),
    makerRoleConstraint: enumOf(draft, 'makerRoleConstraint', field, [0, 1, 2] as const),
    inventoryModeConstraint: enumOf(draft, 'inventoryModeConstraint', field, [0, 1, 2] as const),
  };
  if (draft.timeInForce !== undefined && draft.timeInForce !== null) body.timeInForce = enumOf(draft, 'timeInForce', field, [0, 1, 2] as const);
  if (draft.clientOrderType === 'limit' || draft.clientOrderType === 'market') body.clientOrderType = draft.clientOrderType;
  return body;
}
