/**
 * A small strict flag parser: declared options only, typed values, clear errors naming the flag.
 * Unknown flags and missing values are errors (exit code 2), never silently ignored.
 */
import { BadInputError } from '../model/errors.ts';

export type OptionType = 'string' | 'number' | 'boolean' | 'duration';

export interface OptionSpec {
  type: OptionType;
  short?: string;
  description: string;
  default?: string | number | boolean;
  /** for 'string': allowed values */
  choices?: readonly string[];
  /** repeatable string option (values collected in an array) */
  multiple?: boolean;
  /** placeholder in help, e.g. FILE */
  arg?: string;
}

export interface CommandSpec {
  name: string;
  summary: string;
  usage: string;
  description?: string;
  options: Record<string, OptionSpec>;
  /** positional arguments shown in help */
  positionals?: string[];
  run(args: ParsedArgs): Promise<number | void>;
}

export interface ParsedArgs {
  options: Record<string, string | number | boolean | string[] | undefined>;
  positionals: string[];
}

/** "90", "90s", "10m", "2h", "1.5m" → seconds. */
export function parseDuration(text: string, field: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(text.trim());
  if (!m) throw new BadInputError(field, 'a duration such as 30, 30s, 10m or 2h', text);
  const v = Number(m[1]);
  const unit = m[2] ?? 's';
  const secs = unit === 'ms' ? v / 1000 : unit === 's' ? v : unit === 'm' ? v * 60 : v * 3600;
  if (!Number.isFinite(secs) || secs <= 0 || secs > 365 * 86400) throw new BadInputError(field, 'a duration above 0 and at most a year', text);
  return secs;
}

function convert(name: string, spec: OptionSpec, raw: string): string | number {
  const field = `--${name}`;
  switch (spec.type) {
    case 'number': {
      // decimal, with an optional exponent (1e9): the command then says the range it accepts
      const v = Number(raw);
      if (!/^-?\d+(\.\d+)?(e[+-]?\d+)?$/i.test(raw) || !Number.isFinite(v)) throw new BadInputError(field, 'a number', raw);
      return v;
    }
    case 'duration':
      return parseDuration(raw, field);
    case 'string':
      if (spec.choices && !spec.choices.includes(raw)) throw new BadInputError(field, `one of ${spec.choices.join(', ')}`, raw);
      return raw;
    default:
      throw new BadInputError(field, 'no value', raw);
  }
}

/** The declared option of that name; own keys only, so `--constructor` or `--__proto__` is an unknown flag. */
function ownOption(options: Record<string, OptionSpec>, name: string): OptionSpec | undefined {
  return Object.hasOwn(options, name) ? options[name] : undefined;
}

export function parseArgs(argv: readonly string[], options: Record<string, OptionSpec>): ParsedArgs {
  const out: ParsedArgs = { options: {}, positionals: [] };
  const byShort = new Map<string, string>();
  for (const [name, spec] of Object.entries(options)) if (spec.short) byShort.set(spec.short, name);
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--') {
      out.positionals.push(...argv.slice(i + 1));
      break;
    }
    let name: string | undefined;
    let inline: string | undefined;
    if (a.startsWith('--')) {
      const eq = a.indexOf('=');
      name = eq >= 0 ? a.slice(2, eq) : a.slice(2);
      inline = eq >= 0 ? a.slice(eq + 1) : undefined;
      if (name.startsWith('no-') && ownOption(options, name.slice(3))?.type === 'boolean' && inline === undefined) {
        out.options[name.slice(3)] = false;
        continue;
      }
    } else if (a.startsWith('-') && a.length === 2 && a !== '-') {
      name = byShort.get(a.slice(1));
      if (!name) throw new BadInputError(a, 'a known option (see --help)', a);
    } else {
      out.positionals.push(a);
      continue;
    }
    const spec = ownOption(options, name);
    if (!spec) throw new BadInputError(`--${name}`, 'a known option (see --help)', a);
    if (spec.type === 'boolean') {
      if (inline !== undefined) {
        if (inline !== 'true' && inline !== 'false') throw new BadInputError(`--${name}`, 'true or false', inline);
        out.options[name] = inline === 'true';
      } else out.options[name] = true;
      continue;
    }
    const raw = inline ?? argv[++i];
    if (raw === undefined) throw new BadInputError(`--${name}`, `a value${spec.arg ? ' ' + spec.arg : ''}`, undefined);
    const v = convert(name, spec, raw);
    if (spec.multiple) {
      const prev = (out.options[name] as string[] | undefined) ?? [];
      prev.push(String(v));
      out.options[name] = prev;
    } else out.options[name] = v;
  }
  for (const [name, spec] of Object.entries(options)) {
    if (out.options[name] === undefined && spec.default !== undefined) out.options[name] = spec.default;
  }
  return out;
}

export function formatHelp(cmd: CommandSpec): string {
  const lines = [`Usage: ${cmd.usage}`, '', cmd.summary];
  if (cmd.description) lines.push('', cmd.description);
  const entries = Object.entries(cmd.options);
  if (entries.length) {
    lines.push('', 'Options:');
    const rows = entries.map(([name, s]) => {
      const flag = `${s.short ? `-${s.short}, ` : '    '}--${name}${s.type === 'boolean' ? '' : ` ${s.arg ?? s.type.toUpperCase()}`}`;
      const extra = [s.choices ? `one of: ${s.choices.join('|')}` : '', s.default !== undefined ? `default: ${s.default}` : ''].filter(Boolean).join('; ');
      return [flag, s.description + (extra ? ` (${extra})` : '')] as const;
    });
    rows.push(['-h, --help', 'show this help']);
    const w = Math.min(34, Math.max(...rows.map((r) => r[0].length)) + 2);
    for (const [f, d] of rows) {
      // a flag too long for the column gets its description on the next line
      if (f.length >= w) lines.push(`  ${f}`, `  ${''.padEnd(w)}${d}`);
      else lines.push(`  ${f.padEnd(w)}${d}`);
    }
  }
  return lines.join('\n') + '\n';
}
