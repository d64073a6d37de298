/**
 * Human-readable log lines from pino's JSON (the `logging.pretty` mode), a small formatter of our own
 * rather than pino-pretty (no transport thread, no dependency):
 *
 *   20:41:07.123 WARN  bot: start-up step failed transiently; retrying step="select markets" attempt=2 code="ECONNREFUSED"
 *
 * Entry points: `formatPretty(jsonLine, { colors })` → one or more lines ending in "\n" (an error's
 * stack follows, indented); `prettyStream(out, { colors })` → a pino destination that formats.
 * A line that is not JSON is passed through untouched (never lost).
 */

const LEVELS: Record<number, { name: string; color: string }> = {
  10: { name: 'TRACE', color: '\x1b[90m' },
  20: { name: 'DEBUG', color: '\x1b[36m' },
  30: { name: 'INFO ', color: '\x1b[32m' },
  40: { name: 'WARN ', color: '\x1b[33m' },
  50: { name: 'ERROR', color: '\x1b[31m' },
  60: { name: 'FATAL', color: '\x1b[41m\x1b[97m' },
};
const RESET = '\x1b[0m';
const DIM = '\x1b[2m';
const OMIT = new Set(['level', 'time', 'pid', 'hostname', 'name', 'msg', 'component', 'v']);

export interface PrettyOptions {
  colors?: boolean;
}

function clock(ms: number): string {
  const d = new Date(ms);
  const p = (n: number, w = 2): string => String(n).padStart(w, '0');
  return `${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}.${p(d.getMilliseconds(), 3)}`;
}

function value(v: unknown): string {
  if (typeof v === 'string') return /^[\w.:/@+-]+$/.test(v) ? v : JSON.stringify(v);
  if (typeof v === 'bigint') return v.toString();
  try {
    return JSON.stringify(v) ?? String(v);
  } catch {
    return String(v);
  }
}

export function formatPretty(line: string, o: PrettyOptions = {}): string {
  let rec: Record<string, unknown>;
  try {
    const parsed: unknown = JSON.parse(line);
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return line.endsWith('\n') ? line : line + '\n';
    rec = parsed as Record<string, unknown>;
  } catch {
    return line.endsWith('\n') ? line : line + '\n';
  }
  const lv = LEVELS[Number(rec.level)] ?? {
    name: String(rec.level ?? '?')
      .toUpperCase()
      .padEnd(5),
    color: '',
  };
  const c = o.colors === true;
  const time = typeof rec.time === 'number' ? clock(rec.time) : '--:--:--.---';
  const comp = typeof rec.component === 'string' ? `${rec.component}: ` : '';
  const msg = typeof rec.msg === 'string' ? rec.msg : '';
  const extras: string[] = [];
  let stack = '';
  for (const [k, v] of Object.entries(rec)) {
    if (OMIT.has(k) || v === undefined) continue;
    if ((k === 'err' || k === 'error') && v !== null && typeof v === 'object') {
      const e = v as { message?: unknown; stack?: unknown; type?: unknown; code?: unknown };
      const rest = Object.fromEntries(Object.entries(e).filter(([n]) => n !== 'stack' && n !== 'message' && n !== 'type'));
      extras.push(`${k}=${value(typeof e.message === 'string' ? e.message : e)}`);
      for (const [n, x] of Object.entries(rest)) extras.push(`${k}.${n}=${value(x)}`);
      if (typeof e.stack === 'string')
        stack = e.stack
          .split('\n')
          .slice(1)
          .map((l) => `    ${l.trim()}`)
          .join('\n');
      continue;
    }
    extras.push(`${k}=${value(v)}`);
  }
  const head = c ? `${DIM}${time}${RESET} ${lv.color}${lv.name}${RESET} ${comp}${msg}` : `${time} ${lv.name} ${comp}${msg}`;
  const tail = extras.length ? (c ? ` ${DIM}${extras.join(' ')}${RESET}` : ` ${extras.join(' ')}`) : '';
  return `${head}${tail}\n${stack ? stack + '\n' : ''}`;
}

/** A pino destination: each JSON line pino writes is formatted, then handed to `out`. */
export function prettyStream(out: { write(s: string): unknown }, o: PrettyOptions = {}): { write(s: string): void } {
  return {
    write(s: string): void {
      // pino writes one line per call; split defensively in case several arrive together
      const lines = s.split('\n');
      let text = '';
      for (const l of lines) if (l.length > 0) text += formatPretty(l, o);
      if (text) out.write(text);
    },
  };
}

/** `logging.pretty` resolved: 'auto' means pretty exactly when the log stream is a terminal. */
export function resolvePretty(setting: 'auto' | boolean, isTTY: boolean): boolean {
  return setting === 'auto' ? isTTY : setting;
}
