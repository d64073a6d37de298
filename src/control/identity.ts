/**
 * Which bot answers on an admin port: the running bot states its identity in
 * `GET /admin/status` (`identity`), and `bookmaker ctl` checks it against the config it was given
 * before it acts, so a control meant for one bot never reaches another.
 *
 *   botIdentity({ ... })                         → what the bot reports (paths absolute, symlinks resolved)
 *   identityMismatch(answered, { configFile, ledger })  → null when it is the bot of that config, else why not
 *   describeIdentity(id)                         → one line naming the bot, for messages
 *
 * The bot of a config is the one started with that config file, or the one writing the same ledger
 * file (a copy of the config with the same `ledger.path` keeps the same books). The config hash is
 * reported (it changes when the file is edited, and a reload applies it), never matched on: an edited
 * file must still reach its bot.
 */
import { realpathSync } from 'node:fs';
import { resolve } from 'node:path';

export interface BotIdentity {
  readonly pid: number;
  /** the trading wallet (lower case), or the paper account */
  readonly account: string;
  readonly chain: string;
  /** the config file the bot was started with (absolute, symlinks resolved), '' when none */
  readonly configFile: string;
  /** sha-256 (16 hex digits) of the config file as last applied (start-up or reload) */
  readonly configHash: string;
  /** the ledger file (absolute), or ':memory:' */
  readonly ledger: string;
  /** the admin port the bot is bound to (a reload never moves it) */
  readonly adminPort: number;
  readonly startedAt: string;
}

/** A path made comparable: absolute and with symlinks resolved (as given when it does not exist). */
export function canonicalPath(p: string): string {
  if (p === '' || p === ':memory:') return p;
  const abs = resolve(p);
  try {
    return realpathSync(abs);
  } catch {
    return abs;
  }
}

/** A reported identity as read from an answer: null when the answer carries none (an older bot, or not a bot). */
export function parseIdentity(v: unknown): BotIdentity | null {
  if (typeof v !== 'object' || v === null) return null;
  const o = v as Record<string, unknown>;
  if (typeof o.pid !== 'number' || typeof o.configFile !== 'string' || typeof o.ledger !== 'string') return null;
  return {
    pid: o.pid,
    account: String(o.account ?? ''),
    chain: String(o.chain ?? ''),
    configFile: o.configFile,
    configHash: String(o.configHash ?? ''),
    ledger: o.ledger,
    adminPort: typeof o.adminPort === 'number' ? o.adminPort : 0,
    startedAt: String(o.startedAt ?? ''),
  };
}

export function describeIdentity(id: BotIdentity): string {
  return `pid ${id.pid}, account ${id.account || '?'} on ${id.chain || '?'}, config ${id.configFile || '(none)'}, ledger ${id.ledger}`;
}

/**
 * Null when `id` is the bot of this config (same config file, or the same ledger file), else the
 * reason it is not. Both sides are compared as canonical paths.
 */
export function identityMismatch(id: BotIdentity, expected: { configFile: string; ledger: string | null }): string | null {
  const file = canonicalPath(expected.configFile);
  if (file !== '' && id.configFile !== '' && canonicalPath(id.configFile) === file) return null;
  const ledger = expected.ledger === null ? null : canonicalPath(expected.ledger);
  if (ledger !== null && ledger !== ':memory:' && canonicalPath(id.ledger) === ledger) return null;
  return `the bot answering is not the bot of ${file || 'this config'}${ledger && ledger !== ':memory:' ? ` (ledger ${ledger})` : ''}: it is ${describeIdentity(id)}`;
}
