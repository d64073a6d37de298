/**
 * pino logger with secret redaction. Child loggers are created once per component, never per event.
 */
import { pino, type DestinationStream, type Logger, type LoggerOptions } from 'pino';
import { prettyStream } from './log-format.ts';

export type { Logger };

/** Paths redacted in every log line (docs/architecture.md#habits (habit 10)). */
export const REDACT_PATHS = [
  'privateKey',
  'apiKey',
  'key',
  'secret',
  'authorization',
  'Authorization',
  'headers.authorization',
  'headers.Authorization',
  '*.privateKey',
  '*.apiKey',
  '*.secret',
  '*.authorization',
  '*.headers.authorization',
  'req.headers.authorization',
];

const secrets = new Set<string>();

/** Register a secret value so that it is scrubbed from any log line or error message that contains it. */
export function registerSecret(value: string | undefined): void {
  if (value && value.length >= 8) {
    secrets.add(value);
    if (value.startsWith('0x')) secrets.add(value.slice(2));
  }
}

/** Replace every registered secret inside a string by "[REDACTED]". */
export function scrubSecrets(s: string): string {
  if (secrets.size === 0) return s;
  let out = s;
  for (const v of secrets) if (out.includes(v)) out = out.split(v).join('[REDACTED]');
  return out;
}

export interface LoggerSetup {
  level?: string;
  /** human-readable lines (log-format.ts) instead of JSON; default false */
  pretty?: boolean;
  /** ANSI colours in pretty mode (a terminal); default false */
  colors?: boolean;
  name?: string;
  destination?: NodeJS.WritableStream | { write(s: string): void };
}

export function createLogger(setup: LoggerSetup = {}): Logger {
  const opts: LoggerOptions = {
    level: setup.level ?? process.env.BOOKMAKER_LOG_LEVEL ?? 'info',
    name: setup.name ?? 'bookmaker',
    redact: { paths: REDACT_PATHS, censor: '[REDACTED]' },
    hooks: {
      // Last line of defence: scrub registered secret values from messages and string args.
      logMethod(args, method) {
        if (secrets.size > 0) {
          for (let i = 0; i < args.length; i++) {
            const a = args[i];
            if (typeof a === 'string') args[i] = scrubSecrets(a);
            else if (a instanceof Error) args[i] = { err: { type: a.name, message: scrubSecrets(a.message), code: (a as { code?: unknown }).code } };
          }
        }
        return method.apply(this, args as Parameters<typeof method>);
      },
    },
  };
  const out = setup.destination ?? process.stderr;
  const dest = setup.pretty ? prettyStream(out, { colors: setup.colors ?? false }) : out;
  return pino(opts, dest as DestinationStream);
}

/** A logger that discards everything (tests, benchmarks). */
export const silentLogger: Logger = pino({ level: 'silent' });
