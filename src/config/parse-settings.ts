/** `orders:`, `feeds:`, `metrics:`, `logging:` and `wallet:` sections (all optional, with defaults). */
import type { NoInventoryMode } from '../strategy/to-orders.ts';
import { ConfigFieldError, at, readBoolean, readEnum, readNumber, readOptionalObject, readOptionalString, readString } from '../core/fields.ts';
import { BATCH_LIMIT } from '../exchange/client/orders-write.ts';
import { LOG_LEVELS, type FeedSettings, type LogLevel, type OrderManagerSettings, type WatchdogSettings } from './types.ts';

const secs = (v: number) => Math.round(v * 1000);

export function parseOrders(raw: unknown, path: string): OrderManagerSettings {
  const o = readOptionalObject(raw, path, [
    'priceTolerance',
    'sizeTolerance',
    'batchLimit',
    'requoteIntervalSeconds',
    'deadManExpirySeconds',
    'inFlightTimeoutSeconds',
    'reconcileIntervalSeconds',
    'noInventory',
    'reconcileScope',
  ]);
  const deadMan = readNumber(o, 'deadManExpirySeconds', path, { min: 0, max: 31_536_000 }, 0);
  // below 10 s a refresh could not reliably land before expiry: every order would lapse
  if (deadMan > 0 && deadMan < 10) throw new ConfigFieldError(at(path, 'deadManExpirySeconds'), '0 (off) or a number in [10, 31536000]', deadMan);
  return {
    priceTolerance: Math.round(readNumber(o, 'priceTolerance', path, { min: 0, max: 0.5 }, 0) * 1e6),
    sizeTolerance: readNumber(o, 'sizeTolerance', path, { min: 0, max: 1 }, 0.1),
    batchLimit: readNumber(o, 'batchLimit', path, BATCH_LIMIT_RULE, BATCH_LIMIT),
    requoteIntervalMs: secs(readNumber(o, 'requoteIntervalSeconds', path, { min: 0, max: 3600 }, 0.25)),
    deadManExpiryMs: secs(deadMan),
    inFlightTimeoutMs: secs(readNumber(o, 'inFlightTimeoutSeconds', path, { min: 0.1, max: 3600 }, 10)),
    reconcileIntervalMs: secs(readNumber(o, 'reconcileIntervalSeconds', path, { min: 1, max: 86_400 }, 30)),
    noInventory: readEnum<NoInventoryMode>(o, 'noInventory', path, ['buy-complement', 'sell-no-inventory'], 'buy-complement'),
    reconcileScope: readEnum<'wallet' | 'markets'>(o, 'reconcileScope', path, ['wallet', 'markets'], 'wallet'),
  };
}

/**
 * orders.batchLimit: at most the venue's 50 orders a bulk call (docs/venue.md; the client refuses a longer
 * list before sending it), at least 2 (a replace's cancel and create always share one call).
 */
const BATCH_LIMIT_RULE = {
  min: 2,
  max: BATCH_LIMIT,
  integer: true,
  why: `the venue takes at most ${BATCH_LIMIT} orders a bulk call; a replace's cancel and create share one`,
};

export function parseFeeds(raw: unknown, path: string): FeedSettings {
  const o = readOptionalObject(raw, path, [
    'bookDepth',
    'bookPollSeconds',
    'activityPollSeconds',
    'balancePollSeconds',
    'oraclePollSeconds',
    'marketReadsPerSecond',
    'streamIdleTimeoutSeconds',
    'midHistorySize',
    'tradeHistorySize',
  ]);
  const interval = (k: string, d: number) => secs(readNumber(o, k, path, { min: 0.05, max: 86_400 }, d));
  return {
    bookDepth: readNumber(o, 'bookDepth', path, { min: 1, max: 100, integer: true }, 10),
    bookPollMs: interval('bookPollSeconds', 1),
    activityPollMs: interval('activityPollSeconds', 2),
    balancePollMs: interval('balancePollSeconds', 5),
    oraclePollMs: interval('oraclePollSeconds', 30),
    marketReadsPerSecond: readNumber(o, 'marketReadsPerSecond', path, { min: 0.1, max: 10_000 }, 20),
    streamIdleTimeoutMs: interval('streamIdleTimeoutSeconds', 15),
    midHistorySize: readNumber(o, 'midHistorySize', path, { min: 2, max: 100_000, integer: true }, 120),
    tradeHistorySize: readNumber(o, 'tradeHistorySize', path, { min: 1, max: 100_000, integer: true }, 50),
  };
}

export function parseMetrics(raw: unknown, path: string): { port: number; host: string; optional: boolean } {
  const o = readOptionalObject(raw, path, ['port', 'host', 'optional']);
  return {
    port: readNumber(o, 'port', path, { min: 0, max: 65535, integer: true }, 9464),
    host: readString(o, 'host', path, '127.0.0.1'),
    optional: o.optional === undefined ? false : readBoolean(o, 'optional', path),
  };
}

export function parseWatchdog(raw: unknown, path: string): WatchdogSettings {
  const o = readOptionalObject(raw, path, ['blockedLimitSeconds', 'healthzLimitSeconds']);
  const blocked = readNumber(o, 'blockedLimitSeconds', path, { min: 0, max: 3600 }, 5);
  if (blocked > 0 && blocked < 1) throw new ConfigFieldError(at(path, 'blockedLimitSeconds'), '0 (off) or a number in [1, 3600]', blocked);
  const healthz = readNumber(o, 'healthzLimitSeconds', path, { min: 0.5, max: 3600 }, 2);
  return { blockedLimitMs: secs(blocked), healthzLimitMs: secs(blocked > 0 ? Math.min(healthz, blocked) : healthz) };
}

export function parseLogging(raw: unknown, path: string): { level: LogLevel; pretty: 'auto' | boolean } {
  const o = readOptionalObject(raw, path, ['level', 'pretty']);
  const pretty = o.pretty === undefined || o.pretty === 'auto' ? 'auto' : readBoolean(o, 'pretty', path);
  return { level: readEnum(o, 'level', path, LOG_LEVELS, 'info'), pretty };
}

export function parseWallet(raw: unknown, path: string): { keyFile?: string; apiKeyFile?: string } {
  const o = readOptionalObject(raw, path, ['keyFile', 'apiKeyFile']);
  const out: { keyFile?: string; apiKeyFile?: string } = {};
  const k = readOptionalString(o, 'keyFile', path);
  const a = readOptionalString(o, 'apiKeyFile', path);
  if (k) out.keyFile = k;
  if (a) out.apiKeyFile = a;
  return out;
}
