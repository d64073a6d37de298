/**
 * Typed errors with a stable `code`, a short message and a `cause` (docs/architecture.md#habits (habit 5)).
 * Messages never contain secrets: callers pass field names and public values only.
 */
export type ErrorCode =
  | 'BAD_INPUT'
  | 'BAD_RESPONSE'
  | 'VENUE_ERROR'
  | 'NETWORK'
  | 'TIMEOUT'
  | 'RATE_LIMITED'
  | 'SIGNING'
  | 'CONFIG'
  | 'INVARIANT'
  | 'MIGRATION_REQUIRED'
  | 'DUPLICATE'
  | 'STREAM';

export class BookmakerError extends Error {
  readonly code: ErrorCode;
  constructor(code: ErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    this.name = new.target.name;
  }
}

/** Show a value in an error without dumping huge or secret-looking payloads. */
export function describeValue(v: unknown): string {
  if (v === undefined) return 'undefined';
  if (typeof v === 'string') {
    return JSON.stringify(v.length > 80 ? v.slice(0, 77) + '...' : v);
  }
  if (typeof v === 'bigint') return `${v}n`;
  try {
    const s = JSON.stringify(v);
    if (s === undefined) return String(v);
    return s.length > 80 ? s.slice(0, 77) + '...' : s;
  } catch {
    return Object.prototype.toString.call(v);
  }
}

/** Input from a user, config or CLI flag is invalid. Names the field, what was expected and what was got. */
export class BadInputError extends BookmakerError {
  readonly field: string;
  readonly expected: string;
  constructor(field: string, expected: string, got: unknown, options?: { cause?: unknown }) {
    super('BAD_INPUT', `${field}: expected ${expected}, got ${describeValue(got)}`, options);
    this.field = field;
    this.expected = expected;
  }
}

/** A venue (or stream) answer failed validation at the boundary. */
export class BadResponseError extends BookmakerError {
  readonly field: string;
  readonly endpoint: string;
  constructor(endpoint: string, field: string, expected: string, got: unknown, options?: { cause?: unknown }) {
    super('BAD_RESPONSE', `${endpoint}: response field ${field}: expected ${expected}, got ${describeValue(got)}`, options);
    this.field = field;
    this.endpoint = endpoint;
  }
}

/** A broken invariant: the bot must stop safely (cancel all, exit non-zero). */
export class InvariantError extends BookmakerError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('INVARIANT', message, options);
  }
}

export class ConfigError extends BookmakerError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('CONFIG', message, options);
  }
}

export class SigningError extends BookmakerError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('SIGNING', message, options);
  }
}

/**
 * The exit code of a command that failed with `e` (src/cli/main.ts): 2 for bad input (flags, config,
 * a missing key), 1 for anything else. `bookmaker run`'s start-up adds its own (src/runtime/startup-exit.ts).
 */
export function commandExitCode(e: unknown): 1 | 2 {
  return e instanceof BookmakerError && (e.code === 'BAD_INPUT' || e.code === 'CONFIG') ? 2 : 1;
}
