/**
 * Loading secrets: the private key (BOOKMAKER_PRIVATE_KEY or a key file) and the venue API key
 * (--api-key or BOOKMAKER_API_KEY). Loaded values are registered for redaction, and no error message
 * ever contains them (docs/architecture.md#habits (habit 10)). Secret files (the key file, wallet.apiKeyFile) must not be
 * readable by others (checkSecretFile).
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { ConfigError } from '../model/errors.ts';
import { registerSecret } from '../core/logger.ts';
import type { Hex } from '../model/order.ts';

const KEY = /^(?:0x)?([0-9a-fA-F]{64})$/;

export interface PrivateKeySource {
  /** Path of a file holding the key (hex, optional 0x, surrounding whitespace ignored); wins over env. */
  keyFile?: string;
  env?: NodeJS.ProcessEnv;
}

/**
 * The key-file permission rule (PostgreSQL's rule for its SSL key): a key file may be
 *  - owner-only: read/write by its owner and nothing else (0600, 0400), or
 *  - group-readable when root owns it (0640, 0440): what Kubernetes secret volumes (defaultMode 0440
 *    with an fsGroup) and Docker/Compose secrets (mode 0440, root-owned) provide, where the group is the
 *    one the container runs in and only root can change the file.
 * Anything else is refused: world access of any kind, group write or execute, group read on a file a
 * non-root user owns (that user can hand the key to anyone in the group), and execute bits.
 * Returns the reason when refused, or null when the mode is safe. Pure, for the loader and its tests.
 */
export function keyFileModeProblem(mode: number, ownerUid: number): string | null {
  const m = mode & 0o777;
  if ((m & 0o007) !== 0) return 'others can access it';
  if ((m & 0o030) !== 0) return 'its group can write or execute it';
  if ((m & 0o100) !== 0) return 'it is executable';
  if ((m & 0o040) !== 0 && ownerUid !== 0) return 'it is group-readable but not owned by root';
  return null;
}

/**
 * Refuse a secret file (the private key file, wallet.apiKeyFile) that is not a regular file or whose
 * permissions break keyFileModeProblem's rule; `label` names it in the message (never its content).
 */
export function checkSecretFile(path: string, label = 'key file'): void {
  let mode: number;
  let uid: number;
  try {
    const st = statSync(path);
    if (!st.isFile()) throw new ConfigError(`${label} ${path}: not a regular file`);
    mode = st.mode & 0o777;
    uid = st.uid;
  } catch (e) {
    if (e instanceof ConfigError) throw e;
    throw new ConfigError(`${label} ${path}: cannot be read (${(e as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  // Windows has no POSIX modes, so the check only applies where it means something.
  const problem = process.platform === 'win32' ? null : keyFileModeProblem(mode, uid);
  if (problem !== null) {
    throw new ConfigError(
      `${label} ${path}: permissions ${mode.toString(8).padStart(4, '0')} are too open (${problem}); ` +
        `it must be readable by its owner only (run: chmod 600 ${path}), or by its group when owned by root (0640/0440, as Kubernetes and Docker secrets mount it)`,
    );
  }
}

/** Refuse a key file whose permissions break keyFileModeProblem's rule, else read it. */
function readKeyFile(path: string): string {
  checkSecretFile(path);
  try {
    return readFileSync(path, 'utf8');
  } catch (e) {
    throw new ConfigError(`key file ${path}: cannot be read (${(e as NodeJS.ErrnoException).code ?? 'error'})`);
  }
}

/**
 * The config's `wallet.apiKeyFile` is held to the private key file's rule (checkSecretFile), checked when
 * the config is loaded (src/config/load-config.ts), before anything reads the key: `path` as written,
 * relative to the config file's folder as the bot resolves it. A file that does not exist is left to the
 * reader (the bot reads it only when no --api-key or BOOKMAKER_API_KEY is given, and says so then).
 */
export function checkApiKeyFile(path: string | undefined, configFile: string): void {
  if (!path) return;
  const full = resolve(configFile ? dirname(configFile) : process.cwd(), path);
  if (!existsSync(full)) return;
  checkSecretFile(full, 'wallet.apiKeyFile');
}

/** Validate and normalise to 0x + lowercase hex. The message names the source, never the value. */
function normaliseKey(raw: string, source: string): Hex {
  const m = KEY.exec(raw.trim());
  if (!m) throw new ConfigError(`${source}: expected a private key of 0x followed by 64 hex digits`);
  return `0x${m[1]!.toLowerCase()}`;
}

/** The private key from `keyFile` if given, else BOOKMAKER_PRIVATE_KEY. Throws ConfigError when neither is set. */
export function loadPrivateKey(src: PrivateKeySource = {}): Hex {
  const env = src.env ?? process.env;
  let key: Hex;
  if (src.keyFile !== undefined && src.keyFile !== '') {
    const raw = readKeyFile(src.keyFile);
    registerSecret(raw.trim()); // scrub it even if it turns out malformed
    key = normaliseKey(raw, `key file ${src.keyFile}`);
  } else if (env.BOOKMAKER_PRIVATE_KEY) {
    registerSecret(env.BOOKMAKER_PRIVATE_KEY.trim());
    key = normaliseKey(env.BOOKMAKER_PRIVATE_KEY, 'BOOKMAKER_PRIVATE_KEY');
  } else {
    throw new ConfigError('no private key: set BOOKMAKER_PRIVATE_KEY or pass --key-file FILE');
  }
  registerSecret(key);
  return key;
}

export interface ApiKeySource {
  /** From --api-key; wins over env. */
  apiKey?: string;
  env?: NodeJS.ProcessEnv;
}

/** The API key from `apiKey` or BOOKMAKER_API_KEY, or undefined when neither is set (public reads). */
export function loadApiKey(src: ApiKeySource = {}): string | undefined {
  const env = src.env ?? process.env;
  const fromFlag = src.apiKey !== undefined && src.apiKey !== '';
  const raw = fromFlag ? src.apiKey : env.BOOKMAKER_API_KEY;
  if (raw === undefined || raw === '') return undefined;
  registerSecret(raw);
  const key = raw.trim();
  // It goes into an Authorization header: no whitespace or control characters.
  if (key === '' || !/^[\x21-\x7e]+$/.test(key)) {
    throw new ConfigError(`${fromFlag ? '--api-key' : 'BOOKMAKER_API_KEY'}: expected a non-empty key of printable characters without spaces`);
  }
  registerSecret(key);
  return key;
}

/** The API key in `wallet.apiKeyFile` (relative to the config's folder), or undefined when none is configured. */
export function readApiKeyFile(path: string | undefined, configFile: string): string | undefined {
  if (!path) return undefined;
  const full = resolve(configFile ? dirname(configFile) : process.cwd(), path);
  try {
    const v = readFileSync(full, 'utf8').trim();
    registerSecret(v);
    return v || undefined;
  } catch (e) {
    throw new ConfigError(`wallet.apiKeyFile ${full}: cannot be read (${(e as NodeJS.ErrnoException).code ?? 'error'})`);
  }
}
