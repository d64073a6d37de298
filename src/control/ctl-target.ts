/**
 * What `bookmaker ctl` reads from a config file: the admin port and the ledger file,
 * nothing else. The rest of the file is not validated here, so an error elsewhere in it (a strategy
 * parameter mid-edit, a missing key file) never blocks an emergency `ctl halt`. The environment
 * overrides apply as for `run` (BOOKMAKER_ADMIN_PORT, BOOKMAKER_LEDGER_PATH, BOOKMAKER_VENUE …).
 *
 *   const t = await readCtlTarget(file, process.env)   // { file, adminPort, ledger }
 */
import { readConfigText } from '../config/load-config.ts';
import { parseDocument } from 'yaml';
import { applyOverrides } from '../config/env-overrides.ts';
import { isObj } from '../core/fields.ts';
import { parseAdmin, parseLedger } from '../config/parse-ledger.ts';
import { ledgerPath } from '../ledger/bot-ledger.ts';
import { ConfigError } from '../model/errors.ts';

export interface CtlTarget {
  readonly file: string;
  /** admin.port (0 = the endpoint is off in this config) */
  readonly adminPort: number;
  /** the ledger file the bot of this config writes, or ':memory:' (nothing to clear offline) */
  readonly ledger: string;
}

export async function readCtlTarget(file: string, env: Readonly<Record<string, string | undefined>>): Promise<CtlTarget> {
  const text = await readConfigText(file);
  // YAML syntax is needed to find anything at all; duplicate keys elsewhere are the bot's concern
  const doc = parseDocument(text, { uniqueKeys: false, prettyErrors: true });
  if (doc.errors.length > 0) {
    const err = doc.errors[0]!;
    const line = err.linePos?.[0]?.line;
    throw new ConfigError(`${file}${line ? `:${line}` : ''}: invalid YAML, so the admin port cannot be read (pass --port): ${err.message.split('\n')[0]}`);
  }
  let data: unknown;
  try {
    data = doc.toJS({ maxAliasCount: 100 });
  } catch (e) {
    throw new ConfigError(`${file}: invalid YAML, so the admin port cannot be read (pass --port): ${(e as Error).message.split('\n')[0]}`, { cause: e });
  }
  const over = applyOverrides(data ?? {}, env, {}).doc;
  const o: Record<string, unknown> = isObj(over) ? over : {};
  const admin = parseAdmin(o.admin, 'admin');
  const ledger = parseLedger(o.ledger, 'ledger', file);
  // the bot keeps a `local` venue's books in memory unless ledger.path names a file (BotLedger.open)
  const v = o.venue;
  const local = v === 'local' || (isObj(v) && v.local !== undefined && v.baseUrl === undefined);
  return { file, adminPort: admin.port, ledger: ledgerPath({ ledger, file }, local) };
}
