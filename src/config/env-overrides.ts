/**
 * Environment and programmatic overrides, applied to the parsed YAML document before validation so
 * that overridden values get the same checks and messages (plus the variable's name).
 *
 * Named variables (documented in src/config/README.md):
 *   BOOKMAKER_VENUE          mainnet | testnet | local | <base URL>   → venue
 *   BOOKMAKER_BASE_URL       <base URL>                               → venue.baseUrl (keeps venue.chain)
 *   BOOKMAKER_CHAIN          mainnet | testnet                        → venue.chain
 *   BOOKMAKER_METRICS_PORT   0–65535 (0 = off)                        → metrics.port
 *   BOOKMAKER_METRICS_HOST                                            → metrics.host
 *   BOOKMAKER_LOG_LEVEL      trace … silent                           → logging.level
 *   BOOKMAKER_LOG_PRETTY     true | false | auto                      → logging.pretty
 *   BOOKMAKER_STRATEGY       built-in name or module path             → defaults.strategy.name
 *   BOOKMAKER_HALTED         true | false                             → defaults.risk.halted
 *   BOOKMAKER_REDUCE_ONLY    true | false                             → defaults.risk.reduceOnly
 *   BOOKMAKER_BATCH_LIMIT    2–50                                     → orders.batchLimit
 *   BOOKMAKER_KEY_FILE       path                                     → wallet.keyFile
 *   BOOKMAKER_LEDGER_PATH    path or :memory:                         → ledger.path
 *   BOOKMAKER_ADMIN_PORT     0–65535 (0 = off)                        → admin.port
 *   BOOKMAKER_SHARD          I/N (e.g. 1/3)                           → selection.shard, applied to the parsed
 *                            config (shardFromEnv below; `run --shard` wins over it)
 * Generic: BOOKMAKER__a__b__c=value sets a.b.c (value read as a YAML scalar), e.g.
 *   BOOKMAKER__defaults__risk__maxPosition=50
 * BOOKMAKER_PRIVATE_KEY and BOOKMAKER_API_KEY are secrets: read by src/config/secrets.ts, never here.
 */
import { parse as parseYaml } from 'yaml';
import { ConfigError } from '../model/errors.ts';
import { isObj } from '../core/fields.ts';
import { parseShardText } from './parse-markets.ts';

const NAMED: Record<string, string> = {
  BOOKMAKER_METRICS_PORT: 'metrics.port',
  BOOKMAKER_METRICS_HOST: 'metrics.host',
  BOOKMAKER_LOG_LEVEL: 'logging.level',
  BOOKMAKER_LOG_PRETTY: 'logging.pretty',
  BOOKMAKER_STRATEGY: 'defaults.strategy.name',
  BOOKMAKER_HALTED: 'defaults.risk.halted',
  BOOKMAKER_REDUCE_ONLY: 'defaults.risk.reduceOnly',
  BOOKMAKER_BATCH_LIMIT: 'orders.batchLimit',
  BOOKMAKER_KEY_FILE: 'wallet.keyFile',
  BOOKMAKER_LEDGER_PATH: 'ledger.path',
  BOOKMAKER_ADMIN_PORT: 'admin.port',
  BOOKMAKER_CHAIN: 'venue.chain',
  BOOKMAKER_BASE_URL: 'venue.baseUrl',
};

/** path → the variable (or "override") that set it, for error messages */
export type OverrideSources = Map<string, string>;

export type Overrides = Readonly<Record<string, unknown>>;

/** Scalars from the environment: numbers and booleans as YAML reads them, else the string. */
function scalar(s: string): unknown {
  if (/^0x[0-9a-fA-F]+$/.test(s)) return s; // ids and keys stay text (YAML would read hex as a number)
  try {
    const v: unknown = parseYaml(s);
    return v === null || typeof v === 'object' ? s : v;
  } catch {
    return s;
  }
}

function setPath(doc: Record<string, unknown>, path: string, value: unknown, source: string): void {
  const keys = path.split('.');
  let cur: Record<string, unknown> = doc;
  for (const k of keys.slice(0, -1)) {
    if (k === '__proto__' || k === 'constructor' || k === 'prototype') throw new ConfigError(`${source}: refused key "${k}"`);
    const next = cur[k];
    if (typeof next === 'string' && k === 'venue') cur[k] = venueObject(next);
    else if (typeof next === 'string' && k === 'strategy') cur[k] = { name: next };
    else if (!isObj(next)) cur[k] = {};
    cur = cur[k] as Record<string, unknown>;
  }
  const last = keys[keys.length - 1]!;
  if (last === '__proto__' || last === 'constructor' || last === 'prototype') throw new ConfigError(`${source}: refused key "${last}"`);
  cur[last] = value;
}

/** Expand the venue short form so a chain or base URL can be set on it. */
function venueObject(short: string): Record<string, unknown> {
  if (short === 'mainnet' || short === 'testnet') return { chain: short };
  if (short === 'local') return { local: {} };
  return { baseUrl: short };
}

/**
 * Apply env then explicit overrides (CLI flags win over env) to a deep copy of the document.
 * Returns the new document and which paths were overridden by what.
 */
export function applyOverrides(
  doc: unknown,
  env: Readonly<Record<string, string | undefined>>,
  overrides: Overrides,
): { doc: unknown; sources: OverrideSources } {
  const sources: OverrideSources = new Map();
  if (!isObj(doc)) return { doc, sources };
  const out = structuredClone(doc) as Record<string, unknown>;
  const set = (path: string, v: unknown, src: string) => {
    setPath(out, path, v, src);
    sources.set(path, src);
    // a base URL replaces the embedded local exchange (docs/architecture.md#stable-interfaces: --base-url overrides any venue)
    if (path === 'venue.baseUrl' && isObj(out.venue)) delete (out.venue as Record<string, unknown>).local;
  };
  const venue = env.BOOKMAKER_VENUE;
  if (venue !== undefined && venue !== '') {
    out.venue = venue;
    sources.set('venue', 'BOOKMAKER_VENUE');
  }
  const strategy = env.BOOKMAKER_STRATEGY;
  if (strategy !== undefined && strategy !== '') switchDefaultStrategy(out, strategy, sources);
  for (const [name, path] of Object.entries(NAMED)) {
    if (name === 'BOOKMAKER_STRATEGY') continue;
    const v = env[name];
    if (v !== undefined && v !== '')
      set(path, name === 'BOOKMAKER_STRATEGY' || name === 'BOOKMAKER_KEY_FILE' || name === 'BOOKMAKER_BASE_URL' ? v : scalar(v), name);
  }
  for (const [name, v] of Object.entries(env)) {
    if (!name.startsWith('BOOKMAKER__') || v === undefined) continue;
    const path = name.slice('BOOKMAKER__'.length).split('__').filter(Boolean).join('.');
    if (path) set(path, scalar(v), name);
  }
  for (const [path, v] of Object.entries(overrides)) set(path, v, `override ${path}`);
  return { doc: out, sources };
}

/** A different default strategy drops the old one's params (they would not fit the new one). */
function switchDefaultStrategy(doc: Record<string, unknown>, name: string, sources: OverrideSources): void {
  const d = isObj(doc.defaults) ? (doc.defaults as Record<string, unknown>) : (doc.defaults = {});
  const cur = d.strategy;
  const curName = typeof cur === 'string' ? cur : isObj(cur) ? cur.name : undefined;
  d.strategy = curName === name && isObj(cur) ? { ...cur } : { name };
  sources.set('defaults.strategy', 'BOOKMAKER_STRATEGY');
}

/** The variable that set `path` or one of its parents, if any. */
export function overrideSourceOf(path: string, sources: OverrideSources): string | undefined {
  const norm = path.replace(/\[(\d+)\]/g, '.$1');
  for (const [p, src] of sources) if (norm === p || norm.startsWith(p + '.')) return src;
  return undefined;
}

/**
 * BOOKMAKER_SHARD=I/N: this instance's shard, which replaces `markets.shard` of the parsed config
 * (the variable cannot be a document override: `markets:` may be a list). undefined when unset or
 * empty; a bad value is a ConfigError naming the variable (exit 2).
 */
export function shardFromEnv(env: Readonly<Record<string, string | undefined>>): { index: number; count: number } | undefined {
  const v = env.BOOKMAKER_SHARD;
  if (v === undefined || v.trim() === '') return undefined;
  return parseShardText(v, 'BOOKMAKER_SHARD');
}
