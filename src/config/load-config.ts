/**
 * Read a YAML config file and validate it (src/config/parse-config.ts). YAML syntax errors,
 * duplicate keys and unreadable files are ConfigErrors naming the file (and line). A `wallet.apiKeyFile`
 * that others can read is refused here, as a key file is (src/config/secrets.ts checkApiKeyFile).
 */
import { readFile } from 'node:fs/promises';
import { parseDocument, visit, type Document } from 'yaml';
import { ConfigError } from '../model/errors.ts';
import { parseBotConfig, type ParseOptions } from './parse-config.ts';
import { checkApiKeyFile } from './secrets.ts';
import type { BotConfig } from './types.ts';

export type LoadOptions = Omit<ParseOptions, 'file'>;

export async function loadConfig(path: string, opts: LoadOptions = {}): Promise<BotConfig> {
  const text = await readConfigText(path);
  const cfg = await parseConfigText(text, path, { env: opts.env ?? process.env, overrides: opts.overrides ?? {} });
  // the API key file is held to the private key file's permission rule (src/config/secrets.ts)
  checkApiKeyFile(cfg.wallet.apiKeyFile, path);
  return cfg;
}

/** A config file's text; an unreadable file is a ConfigError naming it and the reason (ENOENT, EACCES…). */
export async function readConfigText(path: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (e) {
    throw new ConfigError(`${path}: cannot read the config file (${(e as NodeJS.ErrnoException).code ?? 'error'})`, { cause: e });
  }
}

/** YAML text → BotConfig; `file` is used in messages and for strategy module paths. */
export async function parseConfigText(text: string, file: string, opts: LoadOptions = {}): Promise<BotConfig> {
  const doc = parseDocument(text, { uniqueKeys: true, prettyErrors: true, keepSourceTokens: true });
  if (doc.errors.length > 0) {
    const err = doc.errors[0]!;
    const line = err.linePos?.[0]?.line;
    throw new ConfigError(`${file}${line ? `:${line}` : ''}: invalid YAML: ${err.message.split('\n')[0]}`);
  }
  keepHexAsText(doc);
  let data: unknown;
  try {
    data = doc.toJS({ maxAliasCount: 100 });
  } catch (e) {
    throw new ConfigError(`${file}: invalid YAML: ${(e as Error).message.split('\n')[0]}`, { cause: e });
  }
  return parseBotConfig(data, { file, ...opts });
}

/**
 * YAML 1.2 reads an unquoted 0x… literal as an integer, which would turn a market id into a float
 * (and hide a pasted private key from the secret guard). Keep such scalars as the text written.
 */
function keepHexAsText(doc: Document): void {
  visit(doc, {
    Scalar(_key, node) {
      const src = (node.srcToken as { source?: unknown } | undefined)?.source;
      if (typeof node.value === 'number' && typeof src === 'string' && /^0x[0-9a-fA-F]+$/.test(src)) node.value = src;
    },
  });
}
