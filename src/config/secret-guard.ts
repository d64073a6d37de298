/**
 * Secrets never live in config files (docs/architecture.md#habits (habit 10)). Any key named like a secret, or any string
 * that looks like a private key outside the fields that legitimately hold 32-byte ids, is refused.
 * The message names the path and where the secret must come from — never the value.
 */
import { ConfigError } from '../model/errors.ts';
import { at, isObj } from '../core/fields.ts';

const SECRET_NAMES = new Set([
  'privatekey',
  'apikey',
  'apisecret',
  'secret',
  'secretkey',
  'password',
  'passphrase',
  'mnemonic',
  'seedphrase',
  'authorization',
  'bearer',
  'token',
  'accesstoken',
  'signingkey',
  'walletkey',
]);
const SECRET_SUFFIXES = ['privatekey', 'apikey', 'secret', 'password', 'mnemonic'];
/** 32 bytes of hex: a private key, or a market id / hash where the schema expects one */
const HEX32 = /^(0x)?[0-9a-fA-F]{64}$/;
/** keys whose values are 32-byte public identifiers */
const ID_KEYS = new Set(['id', 'marketId', 'ids', 'hash']);

function normalise(key: string): string {
  return key.toLowerCase().replace(/[_\-\s.]/g, '');
}

export function isSecretKeyName(key: string): boolean {
  const k = normalise(key);
  return SECRET_NAMES.has(k) || SECRET_SUFFIXES.some((s) => k.endsWith(s));
}

/** Throws ConfigError at the first secret-looking entry. */
export function rejectSecrets(doc: unknown, file: string): void {
  walk(doc, '', '', file);
}

function fail(file: string, path: string, what: string): never {
  throw new ConfigError(
    `${file}: ${path || '(root)'}: ${what}: secrets are not allowed in config files; set BOOKMAKER_PRIVATE_KEY / BOOKMAKER_API_KEY in the environment or use a key file (--key-file, wallet.keyFile)`,
  );
}

function walk(v: unknown, path: string, key: string, file: string): void {
  if (typeof v === 'string') {
    if (HEX32.test(v.trim()) && !ID_KEYS.has(key)) fail(file, path, 'a value that looks like a private key');
    return;
  }
  if (Array.isArray(v)) {
    v.forEach((x, i) => walk(x, at(path, i), key, file));
    return;
  }
  if (isObj(v)) {
    for (const [k, x] of Object.entries(v)) {
      const p = at(path, k);
      if (isSecretKeyName(k)) fail(file, p, 'a secret-named key');
      walk(x, p, k, file);
    }
  }
}
