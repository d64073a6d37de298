/**
 * `risk:` settings in human units → RiskLimits in integer units and ms. Every key is optional and
 * falls back to `base` (the defaults section, itself over DEFAULT_RISK), so a market lists only what
 * it changes.
 */
import type { RiskLimits } from '../risk/types.ts';
import { refuseMovedKeys } from './parse-account.ts';
import { at, readBoolean, readNumber, readOptionalObject, type Obj } from '../core/fields.ts';

const S = 1_000_000;

export const DEFAULT_RISK: RiskLimits = {
  maxPosition: 100 * S,
  maxNotional: 50 * S,
  maxTotalPosition: 0,
  maxTotalNotional: 0,
  maxOrderSize: 50 * S,
  maxDistanceFromFair: 200_000,
  allowCrossing: false,
  reduceOnly: false,
  halted: false,
  maxBookAgeMs: 30_000,
  maxStreamSilenceMs: 20_000,
  pauseBeforeDeadlineMs: 300_000,
  orderRate: { capacity: 20, refillPerSecond: 5 },
};

export const RISK_KEYS = [
  'maxPosition',
  'maxNotional',
  'maxTotalPosition',
  'maxTotalNotional',
  'maxOrderSize',
  'maxDistanceFromFair',
  'allowCrossing',
  'reduceOnly',
  'halted',
  'maxBookAgeSeconds',
  'maxStreamSilenceSeconds',
  'pauseBeforeDeadlineSeconds',
  'orderRate',
];

const BIG = 1e9; // shares or USDC: far above any sane limit, far below 2^53 in 1e-6 units

function units(o: Obj, key: string, path: string, min: number, scale: number, dflt: number, gt = false): number {
  const v = readNumber(o, key, path, { min, gt, max: BIG }, dflt / scale);
  return Math.round(v * scale);
}

export function parseRisk(raw: unknown, path: string, base: RiskLimits = DEFAULT_RISK): RiskLimits {
  // the account limits moved to `account:`: say where, rather than "unknown key"
  refuseMovedKeys(raw, path);
  const o = readOptionalObject(raw, path, RISK_KEYS);
  const rate = readOptionalObject(o.orderRate, at(path, 'orderRate'), ['capacity', 'refillPerSecond']);
  const ratePath = at(path, 'orderRate');
  return {
    maxPosition: units(o, 'maxPosition', path, 0, S, base.maxPosition, true),
    maxNotional: units(o, 'maxNotional', path, 0, S, base.maxNotional, true),
    maxTotalPosition: units(o, 'maxTotalPosition', path, 0, S, base.maxTotalPosition),
    maxTotalNotional: units(o, 'maxTotalNotional', path, 0, S, base.maxTotalNotional),
    maxOrderSize: units(o, 'maxOrderSize', path, 0, S, base.maxOrderSize, true),
    maxDistanceFromFair: Math.round(readNumber(o, 'maxDistanceFromFair', path, { min: 0, max: 1 }, base.maxDistanceFromFair / S) * S),
    allowCrossing: readBoolean(o, 'allowCrossing', path, base.allowCrossing),
    reduceOnly: readBoolean(o, 'reduceOnly', path, base.reduceOnly),
    halted: readBoolean(o, 'halted', path, base.halted),
    maxBookAgeMs: ms(o, 'maxBookAgeSeconds', path, base.maxBookAgeMs, true),
    maxStreamSilenceMs: ms(o, 'maxStreamSilenceSeconds', path, base.maxStreamSilenceMs, true),
    pauseBeforeDeadlineMs: ms(o, 'pauseBeforeDeadlineSeconds', path, base.pauseBeforeDeadlineMs, false),
    orderRate: {
      capacity: readNumber(rate, 'capacity', ratePath, { min: 1, max: 1e6 }, base.orderRate.capacity),
      refillPerSecond: readNumber(rate, 'refillPerSecond', ratePath, { min: 0, gt: true, max: 1e6 }, base.orderRate.refillPerSecond),
    },
  };
}

function ms(o: Obj, key: string, path: string, dfltMs: number, positive: boolean): number {
  return Math.round(readNumber(o, key, path, { min: 0, gt: positive, max: 31_536_000 }, dfltMs / 1000) * 1000);
}
