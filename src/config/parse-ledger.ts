/** `ledger:` and `admin:` sections, both optional. */
import { isAbsolute, resolve, dirname } from 'node:path';
import { readNumber, readOptionalObject, readOptionalString } from '../core/fields.ts';
import { checkFees } from '../engine/fee-model.ts';
import type { LedgerSettings } from './types.ts';

export function parseLedger(raw: unknown, path: string, file: string): LedgerSettings {
  const o = readOptionalObject(raw, path, ['path', 'flushSeconds', 'markSeconds', 'fees', 'unwritableGraceSeconds', 'retainDays']);
  const p = readOptionalString(o, 'path', path);
  const abs = p === undefined || p === '' ? null : p === ':memory:' || isAbsolute(p) ? p : resolve(file ? dirname(file) : process.cwd(), p);
  return {
    path: abs,
    flushMs: Math.round(readNumber(o, 'flushSeconds', path, { min: 0.01, max: 60 }, 0.2) * 1000),
    markMs: Math.round(readNumber(o, 'markSeconds', path, { min: 1, max: 86_400 }, 10) * 1000),
    fees: parseFees(o.fees, `${path}.fees`),
    unwritableGraceMs: Math.round(readNumber(o, 'unwritableGraceSeconds', path, { min: 0, max: 3_600 }, 10) * 1000),
    retainDays: readNumber(o, 'retainDays', path, { min: 0, max: 36_500 }, 90),
  };
}

/**
 * `ledger.fees: { makerBps, takerBps }`: the fee model recorded for fills the venue states no fee
 * for (src/engine/fill-fee.ts). The default is the local exchange's schedule (maker 0, taker 50 bps).
 */
function parseFees(raw: unknown, path: string): { makerBps: number; takerBps: number } {
  const f = readOptionalObject(raw, path, ['makerBps', 'takerBps']);
  return checkFees({
    makerBps: readNumber(f, 'makerBps', path, { min: 0, max: 10_000, integer: true }, 0),
    takerBps: readNumber(f, 'takerBps', path, { min: 0, max: 10_000, integer: true }, 50),
  });
}

export function parseAdmin(raw: unknown, path: string): { port: number } {
  const o = readOptionalObject(raw, path, ['port']);
  return { port: readNumber(o, 'port', path, { min: 0, max: 65535, integer: true }, 9465) };
}
