/**
 * A backtest's configuration: an ordinary bot config file (the same strategy, risk and order-manager
 * sections as live) plus an optional `backtest:` section for the sim venue, removed before the bot
 * config is validated:
 *
 *   backtest:
 *     queueModel: level        # level | risk-averse | probabilistic | none   (none = fast mode)
 *     queuePower: 2            # the probabilistic model's exponent
 *     latency:                 # ms: a number, { samples: [..] } (a recorded distribution), or
 *       feedMs: 0              #   for feedMs, "recorded" = the recording's own lts − vts
 *       entryMs: 50
 *       responseMs: 50
 *       fillPollMs: 1000       #   optional: fill reports reach the bot at the next poll of this period
 *                              #   (+ responseMs), as a live bot that learns its fills by polling
 *     fees: { makerBps: 0, takerBps: 50 }   # whole bps, charged by the matching engine
 *     startingCollateral: 10000   # USDC: the bot's engine account (orders it cannot afford are refused)
 *     sampleSeconds: 1         # report sampling interval (exchange time)
 *     seed: 1                  # nonces and sampled latencies
 *     rankLookbackSeconds: 3600  # rank: entries: the recording read before the rank time (src/backtest/rank-recording.ts)
 *
 * Entry points: `loadBacktestConfig(path, overrides?)`, `parseBacktestSettings(raw)`.
 */
import { readConfigText } from '../config/load-config.ts';
import { parseDocument } from 'yaml';
import { parseBotConfig } from '../config/parse-config.ts';
import { ConfigFieldError, isObj, readNumber, readObject, readOptionalObject, readEnum, type Obj } from '../core/fields.ts';
import type { Overrides } from '../config/env-overrides.ts';
import type { BotConfig } from '../config/types.ts';
import { ConfigError } from '../model/errors.ts';
import { checkFees, type FeeSpec } from '../engine/fee-model.ts';
import type { DelaySpec } from './latency-model.ts';
import { QUEUE_MODELS, type QueueModelName } from './queue-model.ts';

export interface BacktestSettings {
  readonly queueModel: QueueModelName;
  readonly queuePower: number;
  readonly latency: { readonly feedMs: DelaySpec | 'recorded'; readonly entryMs: DelaySpec; readonly responseMs: DelaySpec; readonly fillPollMs?: number };
  readonly fees: FeeSpec;
  /** 1e-6 USDC */
  readonly startingCollateral: bigint;
  readonly sampleMs: number;
  readonly seed: number;
  /** rank: entries: how much of the recording before the rank time the ranking reads, ms (default 1 h) */
  readonly rankLookbackMs?: number;
}

export const DEFAULT_BACKTEST: BacktestSettings = {
  queueModel: 'level',
  queuePower: 2,
  latency: { feedMs: 0, entryMs: 50, responseMs: 50 },
  fees: { makerBps: 0, takerBps: 50 },
  startingCollateral: 10_000_000_000n,
  sampleMs: 1000,
  seed: 1,
};

function readDelay(o: Obj, key: string, path: string, dflt: DelaySpec, allowRecorded: boolean): DelaySpec | 'recorded' {
  const v = o[key];
  const p = `${path}.${key}`;
  if (v === undefined || v === null) return dflt;
  if (allowRecorded && v === 'recorded') return 'recorded';
  if (typeof v === 'number') return readNumber(o, key, path, { min: 0, max: 3_600_000 });
  if (isObj(v)) {
    const s = readObject(v, p, ['samples']).samples;
    if (!Array.isArray(s) || s.length === 0 || s.some((x) => typeof x !== 'number' || !Number.isFinite(x) || x < 0 || x > 3_600_000)) {
      throw new ConfigFieldError(`${p}.samples`, 'a non-empty list of delays in ms (0 … 3600000)', s);
    }
    return { samples: s as number[] };
  }
  throw new ConfigFieldError(p, `a delay in ms or { samples: [...] }${allowRecorded ? ' or "recorded"' : ''}`, v);
}

export function parseBacktestSettings(raw: unknown, path = 'backtest'): BacktestSettings {
  const o = readOptionalObject(raw, path, [
    'queueModel',
    'queuePower',
    'latency',
    'fees',
    'startingCollateral',
    'sampleSeconds',
    'seed',
    'rankLookbackSeconds',
  ]);
  const d = DEFAULT_BACKTEST;
  const lp = `${path}.latency`;
  const l = readOptionalObject(o.latency, lp, ['feedMs', 'entryMs', 'responseMs', 'fillPollMs']);
  const fillPollMs = readNumber(l, 'fillPollMs', lp, { min: 0, max: 3_600_000 }, 0);
  const fp = `${path}.fees`;
  const f = readOptionalObject(o.fees, fp, ['makerBps', 'takerBps']);
  const fees = checkFees({
    makerBps: readNumber(f, 'makerBps', fp, { min: 0, max: 10_000, integer: true }, d.fees.makerBps),
    takerBps: readNumber(f, 'takerBps', fp, { min: 0, max: 10_000, integer: true }, d.fees.takerBps),
  });
  return {
    queueModel: readEnum<QueueModelName>(o, 'queueModel', path, QUEUE_MODELS, d.queueModel),
    queuePower: readNumber(o, 'queuePower', path, { min: 0.1, max: 10 }, d.queuePower),
    latency: {
      feedMs: readDelay(l, 'feedMs', lp, 0, true),
      entryMs: readDelay(l, 'entryMs', lp, 50, false) as DelaySpec,
      responseMs: readDelay(l, 'responseMs', lp, 50, false) as DelaySpec,
      ...(fillPollMs > 0 ? { fillPollMs } : {}),
    },
    fees,
    startingCollateral: BigInt(Math.round(readNumber(o, 'startingCollateral', path, { min: 0, max: 1e9 }, 10_000) * 1e6)),
    sampleMs: Math.round(readNumber(o, 'sampleSeconds', path, { min: 0.01, max: 86_400 }, 1) * 1000),
    seed: readNumber(o, 'seed', path, { min: 0, max: 2 ** 31, integer: true }, 1),
    rankLookbackMs: Math.round(readNumber(o, 'rankLookbackSeconds', path, { min: 60, max: 90 * 86_400 }, 3600) * 1000),
  };
}

export interface LoadedBacktestConfig {
  readonly bot: BotConfig;
  readonly settings: BacktestSettings;
  /** the YAML document without its backtest section (sweeps re-parse it with overrides) */
  readonly doc: Record<string, unknown>;
  readonly backtestRaw: unknown;
}

export async function readYamlDoc(path: string): Promise<Record<string, unknown>> {
  const text = await readConfigText(path);
  const doc = parseDocument(text, { uniqueKeys: true, prettyErrors: true });
  if (doc.errors.length > 0) throw new ConfigError(`${path}: invalid YAML: ${doc.errors[0]!.message.split('\n')[0]}`);
  const data = doc.toJS({ maxAliasCount: 100 }) as unknown;
  if (!isObj(data)) throw new ConfigError(`${path}: expected a mapping at the top level`);
  return { ...data };
}

/** Split off `backtest:`, apply `overrides` (dotted paths, e.g. from a sweep grid) and validate both parts. */
export async function buildBacktestConfig(
  file: string,
  doc: Record<string, unknown>,
  overrides: Overrides = {},
  env: Readonly<Record<string, string | undefined>> = {},
): Promise<LoadedBacktestConfig> {
  const { backtest, ...rest } = doc;
  const btOverrides: Record<string, unknown> = {};
  const botOverrides: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(overrides)) {
    if (k.startsWith('backtest.')) btOverrides[k.slice('backtest.'.length)] = v;
    else botOverrides[k] = v;
  }
  let btRaw: unknown = backtest;
  if (Object.keys(btOverrides).length > 0) {
    const copy = structuredClone(isObj(backtest) ? backtest : {}) as Record<string, unknown>;
    for (const [k, v] of Object.entries(btOverrides)) setDotted(copy, k, v);
    btRaw = copy;
  }
  let settings: BacktestSettings;
  try {
    settings = parseBacktestSettings(btRaw);
  } catch (e) {
    throw new ConfigError(`${file}: ${(e as Error).message}`, { cause: e });
  }
  const bot = await parseBotConfig(rest, { file, env, overrides: botOverrides });
  return { bot, settings, doc: rest, backtestRaw: backtest };
}

export async function loadBacktestConfig(
  file: string,
  overrides: Overrides = {},
  env: Readonly<Record<string, string | undefined>> = process.env,
): Promise<LoadedBacktestConfig> {
  return buildBacktestConfig(file, await readYamlDoc(file), overrides, env);
}

function setDotted(o: Record<string, unknown>, path: string, v: unknown): void {
  const keys = path.split('.');
  let cur = o;
  for (const k of keys.slice(0, -1)) {
    if (k === '__proto__' || k === 'constructor' || k === 'prototype') throw new ConfigError(`refused key "${k}"`);
    if (!isObj(cur[k])) cur[k] = {};
    cur = cur[k] as Record<string, unknown>;
  }
  const last = keys[keys.length - 1]!;
  if (last === '__proto__' || last === 'constructor' || last === 'prototype') throw new ConfigError(`refused key "${last}"`);
  cur[last] = v;
}
