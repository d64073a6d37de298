/**
 * Orders as people write them (the `sign` command, scripts): either a high-level order
 * `{marketId, outcome: "yes"|"no", side: "buy"|"sell", priceCents, size (shares), ...}` or a raw order in
 * integer units `{marketId, outcomeIndex, side, price, size, ...}` (docs/architecture.md#stable-interfaces). Decimals are exact
 * (no floats in money); unknown fields are errors, so a typo never signs an order with a default.
 */
import { BadInputError } from '../../model/errors.ts';
import { decimalToScaled } from '../../model/units.ts';
import type { LimitOrder } from '../../model/order.ts';
import type { MarketOrder } from './marketOrder.ts';
import { assertBytes32 } from './hex.ts';

export type ParsedOrderInput = { kind: 'limit'; order: LimitOrder } | { kind: 'market'; order: MarketOrder };

const HIGH_LEVEL = new Set([
  'type',
  'marketId',
  'outcome',
  'side',
  'priceCents',
  'size',
  'inventoryMode',
  'timeInForce',
  'makerRole',
  'buyValue',
  'maxFee',
  'expiry',
  'expirySeconds',
  'nonce',
]);
const RAW = new Set([
  'type',
  'marketId',
  'outcomeIndex',
  'side',
  'price',
  'size',
  'inventoryModeConstraint',
  'timeInForce',
  'makerRoleConstraint',
  'buyValue',
  'maxFee',
  'expiry',
  'expirySeconds',
  'nonce',
  'clientOrderType',
]);

function pick<T>(v: unknown, field: string, table: Record<string, T>): T {
  if (typeof v !== 'string' || !Object.hasOwn(table, v.toLowerCase())) throw new BadInputError(field, `one of ${Object.keys(table).join(', ')}`, v);
  return table[v.toLowerCase()]!;
}

/** A decimal amount (JSON number or string) scaled by 10^decimals, exact; more decimals is an error. */
function scaled(v: unknown, decimals: number, field: string): number {
  let n: bigint;
  if (typeof v === 'number') n = checkExact(v, decimals, field);
  else if (typeof v === 'string') n = decimalToScaled(v, decimals, field);
  else throw new BadInputError(field, 'a decimal number', v);
  if (n > BigInt(Number.MAX_SAFE_INTEGER)) throw new BadInputError(field, 'a smaller amount', v);
  return Number(n);
}

/** A JSON number through its shortest decimal spelling, refusing more than `decimals` places. */
function checkExact(v: number, decimals: number, field: string): bigint {
  if (!Number.isFinite(v) || v < 0) throw new BadInputError(field, 'a finite non-negative number', v);
  const s = String(v);
  if (s.includes('e')) throw new BadInputError(field, `a plain decimal with at most ${decimals} places`, v);
  return decimalToScaled(s, decimals, field);
}

/** Parse an optional field: absent stays absent. */
function opt<T>(v: unknown, parse: (v: unknown) => T): T | undefined {
  return v === undefined ? undefined : parse(v);
}

/** A raw enum given as a JSON number. */
function enumValue<T extends number>(v: unknown, field: string, allowed: readonly T[], expected: string): T {
  if (typeof v !== 'number' || !(allowed as readonly number[]).includes(v)) throw new BadInputError(field, expected, v);
  return v as T;
}

/** An integer in base units, as a JSON number or a decimal-integer string. */
function units(v: unknown, field: string): number {
  if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) return v;
  if (typeof v === 'string' && /^\d+$/.test(v) && Number.isSafeInteger(Number(v))) return Number(v);
  throw new BadInputError(field, 'a non-negative integer (number or decimal string) in base units', v);
}

function expiryOf(o: Record<string, unknown>, nowSec: number, prefix: string): number | undefined {
  if (o.expiry !== undefined && o.expirySeconds !== undefined)
    throw new BadInputError(`${prefix}expirySeconds`, 'either expiry or expirySeconds, not both', o.expirySeconds);
  if (o.expiry !== undefined) {
    const at = units(o.expiry, `${prefix}expiry`);
    // an order that expired before it was signed can only be refused by the venue
    if (at <= nowSec) throw new BadInputError(`${prefix}expiry`, `a unix time in seconds after now (${Math.floor(nowSec)})`, o.expiry);
    return at;
  }
  if (o.expirySeconds !== undefined) {
    const secs = units(o.expirySeconds, `${prefix}expirySeconds`);
    if (secs <= 0) throw new BadInputError(`${prefix}expirySeconds`, 'a number of seconds above 0', o.expirySeconds);
    return Math.floor(nowSec) + secs;
  }
  return undefined;
}

function checkFields(o: Record<string, unknown>, allowed: Set<string>, prefix: string, form: string): void {
  for (const k of Object.keys(o)) if (!allowed.has(k)) throw new BadInputError(`${prefix}${k}`, `no such field in a ${form} order`, o[k]);
}

function price(o: Record<string, unknown>, key: string, prefix: string, isCents: boolean): number {
  const p = isCents ? scaled(o[key], 4, `${prefix}${key}`) : units(o[key], `${prefix}${key}`);
  if (p <= 0 || p >= 1_000_000)
    throw new BadInputError(`${prefix}${key}`, isCents ? 'a price strictly between 0 and 100 cents' : 'an integer strictly between 0 and 1000000', o[key]);
  return p;
}

/** Parse one order object; `prefix` (e.g. "orders[2].") goes in front of field names in errors. */
export function parseOrderInput(input: unknown, nowSec: number, prefix = ''): ParsedOrderInput {
  if (input === null || typeof input !== 'object' || Array.isArray(input))
    throw new BadInputError(prefix ? prefix.slice(0, -1) : 'order', 'an order object', input);
  const o = input as Record<string, unknown>;
  const highLevel = 'priceCents' in o || 'outcome' in o;
  checkFields(o, highLevel ? HIGH_LEVEL : RAW, prefix, highLevel ? 'high-level (priceCents, outcome)' : 'raw (price, outcomeIndex)');
  const type = o.type === undefined ? 'limit' : pick(o.type, `${prefix}type`, { limit: 'limit', market: 'market' } as const);
  const marketId = assertBytes32(o.marketId, `${prefix}marketId`);
  const outcomeIndex = highLevel
    ? pick(o.outcome, `${prefix}outcome`, { yes: 1, no: 0 } as const)
    : enumValue(o.outcomeIndex, `${prefix}outcomeIndex`, [0, 1] as const, '0 (NO) or 1 (YES)');
  const side =
    highLevel || typeof o.side === 'string'
      ? pick(o.side, `${prefix}side`, { buy: 0, sell: 1 } as const)
      : enumValue(o.side, `${prefix}side`, [0, 1] as const, '0 (buy), 1 (sell), "buy" or "sell"');
  const p = price(o, highLevel ? 'priceCents' : 'price', prefix, highLevel);
  const sizeOf = (): number => {
    const s = highLevel ? scaled(o.size, 6, `${prefix}size`) : units(o.size, `${prefix}size`);
    if (s <= 0) throw new BadInputError(`${prefix}size`, 'a size above 0', o.size);
    return s;
  };
  const f = (k: string) => `${prefix}${k}`;
  const buyValue = opt(o.buyValue, (v) => (highLevel ? scaled(v, 6, f('buyValue')) : units(v, f('buyValue'))));
  const inventoryMode = highLevel
    ? opt(o.inventoryMode, (v) => pick(v, f('inventoryMode'), { any: 0, hold: 1, mint: 2 } as const))
    : opt(o.inventoryModeConstraint, (v) => enumValue(v, f('inventoryModeConstraint'), [0, 1, 2] as const, '0 (any), 1 (hold) or 2 (mint)'));
  const makerRole = highLevel
    ? opt(o.makerRole, (v) => pick(v, f('makerRole'), { any: 0, taker: 2 } as const))
    : opt(o.makerRoleConstraint, (v) => enumValue(v, f('makerRoleConstraint'), [0, 2] as const, '0 (any) or 2 (taker only); 1 (maker only) is refused'));
  const timeInForce = opt(o.timeInForce, (v) =>
    typeof v === 'string'
      ? pick(v, f('timeInForce'), { gtc: 0, ioc: 1, fok: 2 } as const)
      : enumValue(v, f('timeInForce'), [0, 1, 2] as const, '0 (gtc), 1 (ioc), 2 (fok) or their names'),
  );
  const maxFee = opt(o.maxFee, (v) => units(v, f('maxFee')));
  const expiry = expiryOf(o, nowSec, prefix);
  const nonce = opt(o.nonce, (v) => assertBytes32(v, f('nonce')));

  if (type === 'market' || o.clientOrderType === 'market') {
    if (timeInForce !== undefined && timeInForce !== 1)
      throw new BadInputError(`${prefix}timeInForce`, 'IOC (market orders are immediate-or-cancel)', o.timeInForce);
    const m: MarketOrder = { marketId, outcomeIndex, side, maxPrice: p };
    if (side === 0) {
      if (buyValue === undefined) throw new BadInputError(`${prefix}buyValue`, 'the budget of a market buy', undefined);
      m.buyValue = buyValue;
      if (o.size !== undefined) throw new BadInputError(`${prefix}size`, 'no size on a market buy (it follows from buyValue)', o.size);
    } else {
      m.size = sizeOf();
    }
    if (inventoryMode !== undefined) m.inventoryMode = inventoryMode;
    if (makerRole !== undefined) m.makerRole = makerRole;
    if (maxFee !== undefined) m.maxFee = maxFee;
    if (expiry !== undefined) m.expiry = expiry;
    if (nonce !== undefined) m.nonce = nonce;
    return { kind: 'market', order: m };
  }
  const order: LimitOrder = { marketId, outcomeIndex, side, price: p, size: sizeOf() };
  if (buyValue !== undefined) order.buyValue = buyValue;
  if (inventoryMode !== undefined) order.inventoryMode = inventoryMode;
  if (makerRole !== undefined) order.makerRole = makerRole;
  if (timeInForce !== undefined) order.timeInForce = timeInForce;
  if (maxFee !== undefined) order.maxFee = maxFee;
  if (expiry !== undefined) order.expiry = expiry;
  if (nonce !== undefined) order.nonce = nonce;
  if (o.clientOrderType === 'limit') order.clientOrderType = 'limit';
  else if (o.clientOrderType !== undefined) throw new BadInputError(`${prefix}clientOrderType`, '"limit" or "market"', o.clientOrderType);
  return { kind: 'limit', order };
}
