/**
 * `defaults:` and `markets:` — which markets to quote and with what strategy and risk. Each entry
 * selects by id, slug, filter or all; strategy and risk fall back to `defaults`. A market that
 * names only strategy params (no name) shallow-merges them over the default strategy's params.
 * Strategy modules are loaded here so their params are validated at start-up with exact paths.
 */
import { dirname } from 'node:path';
import { bytes32Of } from '../model/ids.ts';
import type { RiskLimits } from '../risk/types.ts';
import { loadStrategy } from '../strategy/registry.ts';
import type { MarketStatus } from '../strategy/types.ts';
import {
  ConfigFieldError,
  at,
  isObj,
  readBoolean,
  readEnum,
  readNumber,
  readObject,
  readOptionalNumber,
  readOptionalObject,
  readOptionalString,
  readString,
  type Obj,
} from '../core/fields.ts';
import { DEFAULT_RISK, parseRisk } from './parse-risk.ts';
import {
  DEFAULT_WEIGHTS,
  RANK_TERMS,
  type MarketConfig,
  type MarketSelector,
  type RankSettings,
  type RankTerm,
  type SelectionSettings,
  type StrategySettings,
} from './types.ts';

interface RawStrategy {
  readonly ref: string;
  /** the path that names the strategy, for load errors */
  readonly where: string;
  readonly params: Obj | undefined;
  readonly path: string;
}

const STATUSES: readonly MarketStatus[] = ['active', 'pending', 'resolved', 'closed'];

/** `strategy: bands` or `strategy: { name, params }` → name and raw params (not yet validated). */
function rawStrategy(raw: unknown, path: string, inherit: RawStrategy | null): RawStrategy | null {
  if (raw === undefined || raw === null) return inherit;
  if (typeof raw === 'string') return { ref: raw, where: path, params: undefined, path: at(path, 'params') };
  const o = readObject(raw, path, ['name', 'params']);
  const pp = at(path, 'params');
  if (o.params !== undefined && o.params !== null && !isObj(o.params)) throw new ConfigFieldError(pp, 'a mapping', o.params);
  const params = (o.params ?? undefined) as Obj | undefined;
  if (o.name === undefined) {
    if (!inherit) throw new ConfigFieldError(at(path, 'name'), 'a strategy name (bands, avellaneda, oracle-anchored) or module path', undefined);
    return { ref: inherit.ref, where: inherit.where, params: { ...(inherit.params ?? {}), ...(params ?? {}) }, path: pp };
  }
  return { ref: readString(o, 'name', path), where: at(path, 'name'), params, path: pp };
}

async function resolveStrategy(s: RawStrategy, baseDir: string): Promise<StrategySettings> {
  const module = await loadStrategy(s.ref, baseDir).catch((e: Error) => {
    throw new ConfigFieldError(s.where, `a loadable strategy (${e.message})`, s.ref);
  });
  return { ref: s.ref, module, params: module.parseConfig(s.params ?? {}, s.path) };
}

const RANK_KEYS = ['top', 'minScore', 'capital', 'hysteresis', 'weights', 'filter', 'feeBps', 'budget'];
const USDC = 1_000_000;

/**
 * `rank: { top, minScore, capital: { perMarket, total }, hysteresis: { enterMargin, minHoldSeconds },
 * weights: { term: w }, filter: { category, minVolume }, feeBps, budget: { requests, concurrency, shortlist } }`
 * (src/selection/ documents the terms and the budget). Amounts in USDC.
 */
function parseRank(raw: unknown, path: string): RankSettings {
  const o = readObject(raw ?? {}, path, RANK_KEYS);
  const cp = at(path, 'capital');
  const c = readOptionalObject(o.capital, cp, ['perMarket', 'total']);
  const hp = at(path, 'hysteresis');
  const h = readOptionalObject(o.hysteresis, hp, ['enterMargin', 'minHoldSeconds']);
  const wp = at(path, 'weights');
  const w = readOptionalObject(o.weights, wp, RANK_TERMS);
  const fp = at(path, 'filter');
  const f = readOptionalObject(o.filter, fp, ['category', 'minVolume']);
  const bp = at(path, 'budget');
  const b = readOptionalObject(o.budget, bp, ['requests', 'concurrency', 'shortlist']);
  const weights = Object.fromEntries(RANK_TERMS.map((t) => [t, readNumber(w, t, wp, { min: -100, max: 100 }, DEFAULT_WEIGHTS[t])])) as Record<RankTerm, number>;
  const minScore = readOptionalNumber(o, 'minScore', path, { min: -1000, max: 1000 });
  const perMarket = readOptionalNumber(c, 'perMarket', cp, { min: 0, max: 1e12, gt: true });
  const total = readOptionalNumber(c, 'total', cp, { min: 0, max: 1e12 });
  const category = readOptionalString(f, 'category', fp);
  const r: RankSettings = {
    top: readNumber(o, 'top', path, { min: 1, max: 10_000, integer: true }, 20),
    minScore: minScore ?? null,
    perMarket: perMarket === undefined ? null : Math.round(perMarket * USDC),
    total: total === undefined ? null : Math.round(total * USDC),
    enterMargin: readNumber(h, 'enterMargin', hp, { min: 0, max: 1000 }, 0.1),
    minHoldMs: Math.round(readNumber(h, 'minHoldSeconds', hp, { min: 0, max: 30 * 86_400 }, 600) * 1000),
    weights,
    minVolume: Math.round(readNumber(f, 'minVolume', fp, { min: 0, max: 1e12 }, 0) * USDC),
    feeBps: readNumber(o, 'feeBps', path, { min: 0, max: 10_000 }, 0),
    maxRequests: readNumber(b, 'requests', bp, { min: 1, max: 100_000, integer: true }, 200),
    concurrency: readNumber(b, 'concurrency', bp, { min: 1, max: 64, integer: true }, 4),
    shortlist: readNumber(b, 'shortlist', bp, { min: 0, max: 10_000, integer: true }, 0),
  };
  // the budget must at least re-score `top` markets in full after the list's share (a quarter), or the
  // markets quoted now would drop out for want of requests and the selection would churn
  const reads = (['depth', 'volatility', 'tradeRate', 'oracleDisagreement'] as const).filter((t) => weights[t] !== 0).length;
  let least = r.top * reads;
  while (least - Math.floor(least / 4) < r.top * reads) least++;
  if (r.maxRequests < least)
    throw new ConfigFieldError(
      at(bp, 'requests'),
      `at least ${least} (a quarter for the market list, then ${reads} read(s) for each of the top ${r.top})`,
      r.maxRequests,
    );
  if (r.perMarket !== null && r.total !== null && r.total > 0 && r.total < r.perMarket)
    throw new ConfigFieldError(at(cp, 'total'), `at least perMarket (${r.perMarket / USDC}) or 0 for no cap`, r.total / USDC);
  return category === undefined ? r : { ...r, category };
}

function parseSelector(o: Obj, path: string): MarketSelector {
  const kinds = ['id', 'slug', 'filter', 'all', 'rank'].filter((k) => o[k] !== undefined);
  if (kinds.length !== 1) {
    throw new ConfigFieldError(
      path,
      'exactly one of id, slug, filter, all or rank',
      kinds.length ? kinds.join(' and ') : 'none',
      kinds.length ? kinds.join(' and ') : 'none',
    );
  }
  if (o.rank !== undefined) return { by: 'rank', rank: parseRank(o.rank, at(path, 'rank')) };
  if (o.id !== undefined) {
    // normalised here, where it enters (src/model/ids.ts)
    const id = bytes32Of(o.id);
    if (id === null) throw new ConfigFieldError(at(path, 'id'), 'a market id (0x + 64 hex digits)', o.id);
    return { by: 'id', id };
  }
  if (o.slug !== undefined) return { by: 'slug', slug: readString(o, 'slug', path) };
  if (o.all !== undefined) {
    if (!readBoolean(o, 'all', path)) throw new ConfigFieldError(at(path, 'all'), 'true (omit the entry to select nothing)', false);
    return { by: 'all' };
  }
  const fp = at(path, 'filter');
  const f = readOptionalObject(o.filter, fp, ['category', 'status', 'minVolume', 'limit']);
  const category = readOptionalString(f, 'category', fp);
  const sel = {
    by: 'filter' as const,
    status: readEnum(f, 'status', fp, STATUSES, 'active'),
    minVolume: Math.round(readNumber(f, 'minVolume', fp, { min: 0, max: 1e12 }, 0) * 1e6),
    limit: readNumber(f, 'limit', fp, { min: 0, max: 10_000, integer: true }, 0),
  };
  return category === undefined ? sel : { ...sel, category };
}

export interface MarketsContext {
  readonly file: string;
  /** the venue is the embedded local exchange: markets may be omitted (= all) */
  readonly local: boolean;
}

export const DEFAULT_SELECTION: SelectionSettings = { refreshMs: 60_000, maxMarkets: 200, shard: null };
const SELECTION_KEYS = ['refreshSeconds', 'maxMarkets', 'shard', 'select'];

/** `I/N` → this instance's shard (N from 1 to 10 000, I from 0 to N − 1); `path` names the source in errors. */
export function parseShardText(text: unknown, path: string): { index: number; count: number } {
  const m = typeof text === 'string' ? /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(text) : null;
  const index = m ? Number(m[1]) : NaN;
  const count = m ? Number(m[2]) : NaN;
  if (!m || !(count >= 1 && count <= 10_000) || !(index >= 0 && index < count))
    throw new ConfigFieldError(path, 'I/N with N from 1 to 10000 and I from 0 to N − 1 (e.g. 0/2)', text);
  return { index, count };
}

/**
 * The selection settings of `markets:` in its mapping form
 * (`{ refreshSeconds, maxMarkets, shard, select: [entries] }`); the list form and `all` take the
 * defaults: re-evaluated every 60 s, at most 200 markets, no shard.
 */
export function parseSelection(doc: Obj): SelectionSettings {
  const raw = doc.markets;
  if (!isObj(raw)) return DEFAULT_SELECTION;
  const o = readObject(raw, 'markets', SELECTION_KEYS);
  return {
    refreshMs: Math.round(readNumber(o, 'refreshSeconds', 'markets', { min: 0, max: 86_400 }, DEFAULT_SELECTION.refreshMs / 1000) * 1000),
    maxMarkets: readNumber(o, 'maxMarkets', 'markets', { min: 1, max: 10_000, integer: true }, DEFAULT_SELECTION.maxMarkets),
    shard: o.shard === undefined || o.shard === null ? null : parseShardText(o.shard, at('markets', 'shard')),
  };
}

export async function parseMarkets(doc: Obj, ctx: MarketsContext): Promise<MarketConfig[]> {
  const baseDir = ctx.file ? dirname(ctx.file) : process.cwd();
  const d = readOptionalObject(doc.defaults, 'defaults', ['strategy', 'risk']);
  const defaultRisk: RiskLimits = parseRisk(d.risk, 'defaults.risk', DEFAULT_RISK);
  const defaultStrategy = rawStrategy(d.strategy, 'defaults.strategy', null);
  let entries: readonly unknown[];
  let listPath = 'markets';
  if (doc.markets === undefined || doc.markets === null) {
    if (!ctx.local) throw new ConfigFieldError('markets', 'a list of markets (id, slug, filter) or "all"', doc.markets);
    entries = [{ all: true }];
  } else if (doc.markets === 'all') entries = [{ all: true }];
  else if (Array.isArray(doc.markets) && doc.markets.length > 0) entries = doc.markets;
  else if (isObj(doc.markets)) {
    // the mapping form: the entries are under `select` (`all` or a non-empty list)
    const sel = readObject(doc.markets, 'markets', SELECTION_KEYS).select;
    if (sel === 'all' || sel === undefined || sel === null) {
      if (sel !== 'all' && !ctx.local) throw new ConfigFieldError('markets.select', 'a list of markets (id, slug, filter) or "all"', sel);
      entries = [{ all: true }];
    } else if (Array.isArray(sel) && sel.length > 0) entries = sel;
    else throw new ConfigFieldError('markets.select', 'a non-empty list of markets (id, slug, filter) or "all"', sel);
    listPath = 'markets.select';
  } else throw new ConfigFieldError('markets', 'a non-empty list of markets (id, slug, filter), "all", or a mapping with select:', doc.markets);

  const out: MarketConfig[] = [];
  for (let i = 0; i < entries.length; i++) {
    const path = at(listPath, i);
    const o = readObject(entries[i], path, ['id', 'slug', 'filter', 'all', 'rank', 'strategy', 'risk']);
    const select = parseSelector(o, path);
    const strat = rawStrategy(o.strategy, at(path, 'strategy'), defaultStrategy) ?? {
      ref: 'bands',
      where: 'defaults.strategy',
      params: undefined,
      path: at(path, 'strategy.params'),
    };
    const strategy = await resolveStrategy(strat, baseDir);
    out.push({ select, strategy, risk: parseRisk(o.risk, at(path, 'risk'), defaultRisk) });
  }
  return out;
}
