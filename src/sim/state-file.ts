/**
 * Save and restore a local exchange's whole state as one JSON file: API keys, markets, orders,
 * activity, route-module data (`ext`), counters and the engine's command log (replayed on
 * restore, which rebuilds books, balances, positions and order ids exactly).
 *
 * bigint values are written as `{"$big":"123"}` and Maps as `{"$map":[[k,v],...]}` so the round
 * trip is lossless. Writes go to a temporary file renamed into place, so a crash mid-write never
 * leaves a truncated state file.
 */
import { readFileSync, renameSync, writeFileSync, existsSync } from 'node:fs';
import type { HostLogEntry } from './engine-host.ts';
import type { ActivityEntry, ApiKeyRecord, MarketRecord, StoredOrder } from './records.ts';

export const STATE_FILE_VERSION = 1;

export interface SavedState {
  version: number;
  seed: number;
  savedAt: number;
  keys: ApiKeyRecord[];
  markets: MarketRecord[];
  orders: StoredOrder[];
  activity: ActivityEntry[];
  ext: Record<string, unknown>;
  counters: Record<string, number>;
  engineLog: HostLogEntry[];
}

export function encodeState(s: SavedState): string {
  return JSON.stringify(s, (_k, v: unknown) => {
    if (typeof v === 'bigint') return { $big: v.toString() };
    if (v instanceof Map) return { $map: [...v.entries()] };
    if (v instanceof Set) return { $set: [...v.values()] };
    return v;
  });
}

export function decodeState(text: string): SavedState {
  const s = JSON.parse(text, (_k, v: unknown) => {
    if (v && typeof v === 'object' && !Array.isArray(v)) {
      const o = v as Record<string, unknown>;
      const keys = Object.keys(o);
      if (keys.length === 1) {
        if (typeof o.$big === 'string' && /^-?\d+$/.test(o.$big)) return BigInt(o.$big);
        if (Array.isArray(o.$map)) return new Map(o.$map as [unknown, unknown][]);
        if (Array.isArray(o.$set)) return new Set(o.$set as unknown[]);
      }
    }
    return v;
  }) as SavedState;
  if (!s || typeof s !== 'object' || s.version !== STATE_FILE_VERSION)
    throw new Error(`state file: unsupported version ${String((s as { version?: unknown })?.version)}`);
  for (const k of ['keys', 'markets', 'orders', 'activity', 'engineLog'] as const) if (!Array.isArray(s[k])) throw new Error(`state file: ${k} is not a list`);
  return s;
}

export function writeStateFile(path: string, s: SavedState): void {
  const tmp = `${path}.tmp-${process.pid}`;
  writeFileSync(tmp, encodeState(s), { mode: 0o600 });
  renameSync(tmp, path);
}

export function readStateFile(path: string): SavedState | undefined {
  if (!existsSync(path)) return undefined;
  return decodeState(readFileSync(path, 'utf8'));
}
