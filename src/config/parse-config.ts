/**
 * A YAML document (already parsed) → BotConfig. Order: refuse secrets, apply env and explicit
 * overrides, then validate section by section. Any failure is a ConfigError whose message starts
 * with the file name and the exact path, and names the variable when an override set the value:
 *   config/live.yaml: markets[2].strategy.params.spread: expected a number in (0, 0.5], got "wide"
 */
import { ConfigError } from '../model/errors.ts';
import { applyOverrides, overrideSourceOf, type Overrides } from './env-overrides.ts';
import { ConfigFieldError, readObject } from '../core/fields.ts';
import { parseHealth } from './parse-health.ts';
import { parseEdge } from './parse-edge.ts';
import { parseMarkets, parseSelection } from './parse-markets.ts';
import { parseFeeds, parseLogging, parseMetrics, parseOrders, parseWallet, parseWatchdog } from './parse-settings.ts';
import { parseVenue } from './parse-venue.ts';
import { parseAdmin, parseLedger } from './parse-ledger.ts';
import { parseAccount } from './parse-account.ts';
import { rejectSecrets } from './secret-guard.ts';
import type { BotConfig } from './types.ts';

export const TOP_KEYS = [
  'venue',
  'markets',
  'defaults',
  'orders',
  'feeds',
  'metrics',
  'logging',
  'wallet',
  'health',
  'watchdog',
  'edge',
  'ledger',
  'admin',
  'account',
];

export interface ParseOptions {
  /** file name used in messages and as the base for strategy module paths ('' = none) */
  readonly file?: string;
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** dotted path → value, applied after env (CLI flags) */
  readonly overrides?: Overrides;
}

export async function parseBotConfig(doc: unknown, opts: ParseOptions = {}): Promise<BotConfig> {
  const file = opts.file ?? '';
  const label = file || '(config)';
  rejectSecrets(doc, label);
  const { doc: merged, sources } = applyOverrides(doc ?? {}, opts.env ?? {}, opts.overrides ?? {});
  // again after overrides: a key pasted into an env override must not be echoed by a later message
  if (sources.size > 0) rejectSecrets(merged, `${label} (after environment overrides)`);
  try {
    const o = readObject(merged, '', TOP_KEYS);
    const venue = parseVenue(o.venue, 'venue');
    return {
      file,
      venue,
      markets: await parseMarkets(o, { file, local: venue.kind === 'local' }),
      selection: parseSelection(o),
      orders: parseOrders(o.orders, 'orders'),
      feeds: parseFeeds(o.feeds, 'feeds'),
      metrics: parseMetrics(o.metrics, 'metrics'),
      watchdog: parseWatchdog(o.watchdog, 'watchdog'),
      logging: parseLogging(o.logging, 'logging'),
      wallet: parseWallet(o.wallet, 'wallet'),
      health: parseHealth(o.health, 'health'),
      edge: parseEdge(o.edge, 'edge'),
      account: parseAccount(o.account, 'account'),
      ledger: parseLedger(o.ledger, 'ledger', file),
      admin: parseAdmin(o.admin, 'admin'),
    };
  } catch (e) {
    if (e instanceof ConfigFieldError) {
      const src = overrideSourceOf(e.path, sources);
      throw new ConfigError(`${label}: ${src ? `(set by ${src}) ` : ''}${e.message}`, { cause: e });
    }
    if (e instanceof ConfigError) throw new ConfigError(`${label}: ${e.message}`, { cause: e });
    // a strategy's parser may throw anything: still a config problem, never a crash
    throw new ConfigError(`${label}: ${(e as Error)?.message ?? String(e)}`, { cause: e });
  }
}
