/**
 * Small typed readers for untrusted config objects. Each failure is a ConfigFieldError naming the
 * exact path, what was expected and what was got, e.g.
 *   markets[2].strategy.params.spread: expected a number in (0, 0.5], got "wide"
 * The YAML loader prefixes the file name. Strategy config parsers use the same readers so that
 * every message has one shape.
 */
import { ConfigError, describeValue } from '../model/errors.ts';

export class ConfigFieldError extends ConfigError {
  readonly path: string;
  readonly expected: string;
  constructor(path: string, expected: string, got: unknown, gotText?: string) {
    super(`${path}: expected ${expected}, got ${gotText ?? describeGot(got)}`);
    this.path = path;
    this.expected = expected;
  }
}

function describeGot(v: unknown): string {
  if (v === null) return 'null';
  // YAML's own spelling of the numbers JSON cannot write (JSON.stringify would say null); the
  // environment overrides read their values as YAML scalars too (src/config/env-overrides.ts)
  if (typeof v === 'number' && !Number.isFinite(v)) return Number.isNaN(v) ? '.nan' : v > 0 ? '.inf' : '-.inf';
  if (Array.isArray(v)) return `a list ${describeValue(v)}`;
  if (typeof v === 'object') return `an object ${describeValue(v)}`;
  return describeValue(v);
}

/** `a.b` / `a[2]` path joining; an empty base yields the key alone. */
export function at(base: string, key: string | number): string {
  if (typeof key === 'number') return `${base}[${key}]`;
  return base ? `${base}.${key}` : key;
}

export type Obj = Readonly<Record<string, unknown>>;

export function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A mapping whose keys are all in `allowed`; unknown keys are errors (they are usually typos). */
export function readObject(raw: unknown, path: string, allowed: readonly string[]): Obj {
  if (!isObj(raw)) throw new ConfigFieldError(path || '(root)', 'a mapping', raw);
  for (const k of Object.keys(raw)) {
    if (!allowed.includes(k)) {
      throw new ConfigFieldError(at(path, k), `a known key (one of ${allowed.join(', ')})`, k, 'an unknown key');
    }
  }
  return raw;
}

/** An optional mapping: undefined/null → {} so defaults apply. */
export function readOptionalObject(raw: unknown, path: string, allowed: readonly string[]): Obj {
  if (raw === undefined || raw === null) return {};
  return readObject(raw, path, allowed);
}

export interface NumberRule {
  min?: number;
  max?: number;
  /** min is exclusive */
  gt?: boolean;
  /** max is exclusive */
  lt?: boolean;
  integer?: boolean;
  /** why the bounds are what they are, said after them in the error: "an integer in [2, 50] (why)" */
  why?: string;
}

function ruleText(r: NumberRule): string {
  const bounds = boundsText(r);
  return r.why === undefined ? bounds : `${bounds} (${r.why})`;
}

function boundsText(r: NumberRule): string {
  const kind = r.integer ? 'an integer' : 'a number';
  if (r.min !== undefined && r.max !== undefined) return `${kind} in ${r.gt ? '(' : '['}${r.min}, ${r.max}${r.lt ? ')' : ']'}`;
  if (r.min !== undefined) return `${kind} ${r.gt ? '>' : '>='} ${r.min}`;
  if (r.max !== undefined) return `${kind} ${r.lt ? '<' : '<='} ${r.max}`;
  return kind;
}

export function checkNumber(v: unknown, path: string, rule: NumberRule): number {
  const ok =
    typeof v === 'number' &&
    Number.isFinite(v) &&
    (!rule.integer || Number.isSafeInteger(v)) &&
    (rule.min === undefined || (rule.gt ? v > rule.min : v >= rule.min)) &&
    (rule.max === undefined || (rule.lt ? v < rule.max : v <= rule.max));
  if (!ok) throw new ConfigFieldError(path, ruleText(rule), v);
  return v as number;
}

export function readNumber(o: Obj, key: string, path: string, rule: NumberRule, dflt?: number): number {
  const v = o[key];
  if (v === undefined && dflt !== undefined) return dflt;
  return checkNumber(v, at(path, key), rule);
}

export function readOptionalNumber(o: Obj, key: string, path: string, rule: NumberRule): number | undefined {
  const v = o[key];
  if (v === undefined || v === null) return undefined;
  return checkNumber(v, at(path, key), rule);
}

export function readBoolean(o: Obj, key: string, path: string, dflt?: boolean): boolean {
  const v = o[key];
  if (v === undefined && dflt !== undefined) return dflt;
  if (typeof v !== 'boolean') throw new ConfigFieldError(at(path, key), 'true or false', v);
  return v;
}

export function readString(o: Obj, key: string, path: string, dflt?: string): string {
  const v = o[key];
  if (v === undefined && dflt !== undefined) return dflt;
  if (typeof v !== 'string' || v.length === 0) throw new ConfigFieldError(at(path, key), 'a non-empty string', v);
  return v;
}

export function readOptionalString(o: Obj, key: string, path: string): string | undefined {
  const v = o[key];
  if (v === undefined || v === null) return undefined;
  return readString(o, key, path);
}

export function readEnum<T extends string>(o: Obj, key: string, path: string, values: readonly T[], dflt?: T): T {
  const v = o[key];
  if (v === undefined && dflt !== undefined) return dflt;
  if (typeof v !== 'string' || !values.includes(v as T)) throw new ConfigFieldError(at(path, key), `one of ${values.join(', ')}`, v);
  return v as T;
}

export function readList(o: Obj, key: string, path: string, opts: { min?: number; max?: number } = {}): readonly unknown[] {
  const v = o[key];
  const p = at(path, key);
  if (!Array.isArray(v)) throw new ConfigFieldError(p, 'a list', v);
  if (opts.min !== undefined && v.length < opts.min) throw new ConfigFieldError(p, `a list of at least ${opts.min} item(s)`, v);
  if (opts.max !== undefined && v.length > opts.max) throw new ConfigFieldError(p, `a list of at most ${opts.max} item(s)`, v);
  return v;
}

/** Probability-space price (0..1 exclusive) → integer 1e-6 units, rounded to the unit. */
export function probToUnits(p: number): number {
  return Math.round(p * 1_000_000);
}

/** Shares (decimal) → 1e-6 share units, floored so a config never asks for more than written. */
export function sharesToUnits(s: number): number {
  return Math.floor(s * 1_000_000 + 1e-6);
}
