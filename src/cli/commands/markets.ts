/**
 * `bookmaker markets list|search|get` — read-only market discovery against mainnet, testnet or any base URL.
 *
 *   bookmaker markets list [--status active,pending] [--sort-by volume] [--limit N] [--all] [--search TEXT]
 *   bookmaker markets search <text> [--limit N]
 *   bookmaker markets get <marketId|slug>
 *   bookmaker markets rank -c FILE [--shard I/N] [--json]   the config's rank entries scored now, without trading
 *                                               (--shard / BOOKMAKER_SHARD / markets.shard as `run` takes them)
 *
 * A compact table by default (YES bid/ask in cents, volume in USDC); `--json` prints the parsed objects
 * (bigints as decimal strings, prices in 1e-6 units). `runMarkets(args, io)` is the testable body.
 */
import type { CommandSpec, ParsedArgs } from '../args.ts';
import { BadInputError } from '../../model/errors.ts';
import type { BookPriceUnits } from '../../model/book.ts';
import { scaledToDecimal } from '../../model/units.ts';
import { loadApiKey } from '../../config/secrets.ts';
import { chainByName } from '../../exchange/chains.ts';
import { createVenueClient, type VenueClient } from '../../exchange/venue-client.ts';
import type { MarketInfo, MarketStatus } from '../../exchange/client/parse-market.ts';
import type { MarketSortBy } from '../../exchange/client/markets.ts';
import { loadConfig } from '../../config/load-config.ts';
import type { BotConfig } from '../../config/types.ts';
import { createLocalExchange } from '../../sim/local-exchange.ts';
import { counterpartyAgents, startCounterparties } from '../../sim/counterparties.ts';
import { selectMarkets } from '../../selection/select-markets.ts';
import { shardFromEnv } from '../../config/env-overrides.ts';
import { parseShardText } from '../../config/parse-markets.ts';
import { shardText, withShard } from '../../selection/shard.ts';
import { Ranker } from '../../selection/ranker.ts';
import { formatRankTable, rankJson } from '../../selection/rank-table.ts';

export interface MarketsIO {
  out: { write(s: string): unknown };
  env?: NodeJS.ProcessEnv;
}

const SORTS: readonly MarketSortBy[] = ['trending', 'new', 'ending', 'chance', 'volume'];
const STATUSES: readonly MarketStatus[] = ['active', 'pending', 'resolved', 'closed'];

const options: CommandSpec['options'] = {
  chain: { type: 'string', choices: ['mainnet', 'testnet'], default: 'mainnet', description: 'venue chain' },
  'base-url': { type: 'string', arg: 'URL', description: 'any venue base, e.g. http://127.0.0.1:8787/v2 (overrides --chain)' },
  'api-key': { type: 'string', arg: 'KEY', description: 'API key (default: BOOKMAKER_API_KEY; reads work without one)' },
  json: { type: 'boolean', description: 'print JSON instead of a table' },
  ids: { type: 'boolean', description: "list, search: the table's first column shows full market ids instead of slugs" },
  limit: { type: 'number', short: 'n', arg: 'N', description: 'markets per page (list: 1-50, search: 1-100)' },
  all: { type: 'boolean', description: 'list: follow the cursor through every page' },
  status: { type: 'string', arg: 'LIST', description: `list: comma list of ${STATUSES.join(', ')}` },
  'sort-by': { type: 'string', choices: SORTS, description: 'list: sort order' },
  search: { type: 'string', arg: 'TEXT', description: 'list: text filter' },
  'price-units': { type: 'string', choices: ['auto', 'cents', 'micro', 'dollars'], default: 'auto', description: 'units of the venue outcome prices' },
  config: {
    type: 'string',
    short: 'c',
    arg: 'FILE',
    description: 'rank: the bot config whose markets: rank entries are scored (its venue, unless --base-url)',
  },
  shard: { type: 'string', arg: 'I/N', description: 'rank: only the markets of shard I of N, as `run --shard` (overrides BOOKMAKER_SHARD and markets.shard)' },
};

function cents(p: number | null | undefined): string {
  return p === null || p === undefined ? '-' : `${scaledToDecimal(p, 4)}¢`;
}

function usdc(v: bigint): string {
  const s = scaledToDecimal(v, 6);
  const [i, f] = s.split('.');
  return `$${i!.replace(/\B(?=(\d{3})+(?!\d))/g, ',')}${f ? '.' + f.slice(0, 2).padEnd(2, '0') : ''}`;
}

function clip(s: string, n: number): string {
  return s.length > n ? s.slice(0, n - 1) + '…' : s;
}

/**
 * One row per market: the market's slug (its full id when it has none, or always with `ids`), status,
 * YES bid/ask, volume, question. The first column is never shortened: it can be pasted into `book`,
 * `markets get` and a config's `markets:` list (`slug:` or `id:`).
 */
export function formatTable(markets: readonly MarketInfo[], ids = false): string {
  if (markets.length === 0) return 'no markets\n';
  const rows = markets.map((m) => {
    const yes = m.outcomePrices.find((p) => p.outcomeIndex === 1);
    return [ids || !m.slug ? m.id : m.slug, m.status, cents(yes?.bestBid), cents(yes?.bestAsk), usdc(m.volume), clip(m.shortQuestion || m.question, 60)];
  });
  const head = ['MARKET', 'STATUS', 'YES BID', 'YES ASK', 'VOLUME', 'QUESTION'];
  const w = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (r: string[]): string => r.map((c, i) => (i === r.length - 1 ? c : i >= 2 && i <= 4 ? c.padStart(w[i]!) : c.padEnd(w[i]!))).join('  ');
  return [line(head), ...rows.map(line)].join('\n') + '\n';
}

function formatDetail(m: MarketInfo): string {
  const lines = [
    `${m.question}`,
    `  id          ${m.id}`,
    `  slug        ${m.slug ?? '-'}`,
    `  status      ${m.status}${m.resolutionStatus ? ` (resolution: ${m.resolutionStatus})` : ''}`,
  ];
  lines.push(`  deadline    ${m.deadline ?? '-'}`, `  volume      ${usdc(m.volume)} (24h ${usdc(m.volume24h)})`);
  for (const p of [...m.outcomePrices].sort((a, b) => b.outcomeIndex - a.outcomeIndex)) {
    lines.push(
      `  ${p.outcomeIndex === 1 ? 'YES' : 'NO '}         bid ${cents(p.bestBid)}  ask ${cents(p.bestAsk)}  mid ${cents(p.midPrice)}  last ${cents(p.lastPrice)}`,
    );
  }
  if (m.outcome !== null) lines.push(`  outcome     ${m.outcome === 1 ? 'YES' : m.outcome === 0 ? 'NO' : m.outcome}`);
  return lines.join('\n') + '\n';
}

function toJson(v: unknown): string {
  return JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? x.toString() : x), 2) + '\n';
}

function makeClient(o: ParsedArgs['options'], env: NodeJS.ProcessEnv): VenueClient {
  const apiKey = loadApiKey({ ...(typeof o['api-key'] === 'string' ? { apiKey: o['api-key'] } : {}), env });
  const baseUrl = o['base-url'] as string | undefined;
  return createVenueClient({
    chain: chainByName(String(o.chain ?? 'mainnet')),
    ...(baseUrl ? { baseUrl } : {}),
    ...(apiKey ? { apiKey } : {}),
    priceUnits: (o['price-units'] as BookPriceUnits | undefined) ?? 'auto',
    retry: { maxAttempts: 3, maxTotalMs: 15_000 },
  });
}

function limitOf(o: ParsedArgs['options'], max: number): number | undefined {
  const v = o.limit;
  if (v === undefined) return undefined;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 1 || v > max) throw new BadInputError('--limit', `an integer from 1 to ${max}`, v);
  return v;
}

function statusesOf(o: ParsedArgs['options']): MarketStatus[] | undefined {
  const v = o.status;
  if (v === undefined) return undefined;
  const list = String(v)
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (const s of list) if (!STATUSES.includes(s as MarketStatus)) throw new BadInputError('--status', `a comma list of ${STATUSES.join(', ')}`, v);
  return list as MarketStatus[];
}

/** Every check of the arguments, before any request (exported for flag-only checks of README commands). */
export function checkMarketsArgs(args: ParsedArgs): {
  sub: 'list' | 'search' | 'get' | 'rank';
  rest: string[];
  limit: number | undefined;
  status: MarketStatus[] | undefined;
} {
  const [sub, ...rest] = args.positionals;
  if (sub !== 'list' && sub !== 'search' && sub !== 'get' && sub !== 'rank') throw new BadInputError('subcommand', 'list, search, get or rank', sub);
  if (sub === 'rank') {
    if (typeof args.options.config !== 'string' || args.options.config === '')
      throw new BadInputError('--config', 'a config file (bookmaker markets rank -c FILE)', args.options.config);
    if (rest.length > 0) throw new BadInputError('rank', 'no positional arguments', rest.join(' '));
    if (args.options.shard !== undefined) parseShardText(args.options.shard, '--shard');
  } else if (args.options.shard !== undefined) throw new BadInputError('--shard', 'only with markets rank', args.options.shard);
  const o = args.options;
  const limit = limitOf(o, sub === 'search' ? 100 : 50);
  const status = statusesOf(o);
  if (sub === 'search' && rest.join(' ').trim() === '') throw new BadInputError('text', 'a search text', undefined);
  if (sub === 'get' && rest.length !== 1) throw new BadInputError('marketId', 'one market id (0x…) or slug', rest.join(' ') || undefined);
  return { sub, rest, limit, status };
}

/**
 * `markets rank -c FILE`: the selection the config makes now (rank entries scored in full, the other
 * entries applied as the bot would), printed without trading. A `venue: local` config gets its
 * embedded exchange (with its simulated traders) unless --base-url names one.
 */
async function runRank(o: ParsedArgs['options'], io: MarketsIO): Promise<number> {
  const env = io.env ?? process.env;
  // the shard as `run` takes it: --shard, else BOOKMAKER_SHARD, else markets.shard of the file
  const shardFlag = o.shard === undefined ? undefined : parseShardText(o.shard, '--shard');
  const loaded: BotConfig = await loadConfig(o.config as string, { env });
  const shard = shardFlag ?? shardFromEnv(env);
  const cfg: BotConfig = shard ? withShard(loaded, shard) : loaded;
  let baseUrl = typeof o['base-url'] === 'string' ? o['base-url'] : undefined;
  let stopLocal: (() => Promise<void>) | null = null;
  let apiKey = loadApiKey({ ...(typeof o['api-key'] === 'string' ? { apiKey: o['api-key'] } : {}), env });
  if (!baseUrl) {
    if (cfg.venue.kind === 'local') {
      const l = cfg.venue.local;
      const ex = createLocalExchange({ seed: l.seed, markets: l.markets, apiKeys: [{ key: 'ranker', perms: ['read'] }] });
      const agents = startCounterparties(ex, { seed: l.seed, ...counterpartyAgents(l.agents), flow: l.flow });
      baseUrl = await ex.start(0);
      apiKey = 'ranker';
      stopLocal = async () => {
        agents.stop();
        await ex.close();
      };
    } else baseUrl = cfg.venue.kind === 'url' ? cfg.venue.baseUrl : chainByName(cfg.venue.chain).apiBase;
  }
  const client = createVenueClient({
    chain: chainByName(cfg.venue.chain),
    baseUrl,
    ...(apiKey ? { apiKey } : {}),
    priceUnits: (o['price-units'] as BookPriceUnits | undefined) ?? 'auto',
    retry: { maxAttempts: 3, maxTotalMs: 15_000 },
  });
  try {
    // a fresh embedded exchange: give its simulated makers a moment (at most 3 s) to quote, so books are not all empty
    for (let i = 0; stopLocal && i < 15; i++) {
      const { markets } = await client.markets.list({ status: ['active'], limit: 50 });
      if (markets.some((m) => m.outcomePrices.some((p) => p.bestBid !== null && p.bestAsk !== null))) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    const ranker = new Ranker();
    const chosen = await selectMarkets(client, cfg.markets, { maxMarkets: cfg.selection.maxMarkets, shard: cfg.selection.shard, ranker, allowEmpty: true });
    const selected = new Set(chosen.map((m) => m.marketId));
    const reports = ranker.lastReports();
    const weights = (entry: number) => {
      const sel = cfg.markets[entry]!.select;
      if (sel.by !== 'rank') throw new Error(`markets entry ${entry} is not a rank entry`);
      return sel.rank.weights;
    };
    if (o.json) io.out.write(toJson({ ...(rankJson(reports, selected) as object), selected: chosen.map((m) => m.marketId), shard: cfg.selection.shard }));
    else
      io.out.write(
        formatRankTable(reports, weights, selected) +
          `${selected.size} market(s) selected by the whole markets: list${cfg.selection.shard ? ` in shard ${shardText(cfg.selection.shard)}` : ''}\n`,
      );
    return 0;
  } finally {
    await client.close();
    await stopLocal?.();
  }
}

export async function runMarkets(args: ParsedArgs, io: MarketsIO): Promise<number> {
  const o = args.options;
  // validate every flag before opening a connection
  const { sub, rest, limit, status } = checkMarketsArgs(args);
  if (sub === 'rank') return runRank(o, io);
  const client = makeClient(o, io.env ?? process.env);
  try {
    let markets: MarketInfo[];
    if (sub === 'get') {
      const m = await client.markets.get(rest[0]!);
      io.out.write(o.json ? toJson(m) : formatDetail(m));
      return 0;
    }
    if (sub === 'search') {
      markets = (await client.markets.search({ q: rest.join(' '), ...(limit ? { limit } : {}) })).markets;
    } else {
      const params = {
        ...(limit ? { limit } : {}),
        ...(status ? { status } : {}),
        ...(o['sort-by'] ? { sortBy: o['sort-by'] as MarketSortBy } : {}),
        ...(typeof o.search === 'string' ? { search: o.search } : {}),
      };
      if (o.all) {
        markets = [];
        for await (const m of client.markets.iterate(params)) markets.push(m);
      } else markets = (await client.markets.list(params)).markets;
    }
    io.out.write(o.json ? toJson(markets) : formatTable(markets, o.ids === true));
    return 0;
  } finally {
    await client.close();
  }
}

const command: CommandSpec = {
  name: 'markets',
  summary: 'list, search, show or rank markets',
  usage:
    'bookmaker markets list|search <text>|get <marketId|slug>|rank -c FILE [--shard I/N] [--chain mainnet|testnet] [--base-url URL] [--api-key KEY] [--json]',
  description:
    "The table's first column is the market's slug (its full 0x id with --ids, or when it has no slug): paste it into `bookmaker book`, `markets get` or a config's markets list. " +
    'Prices are shown in cents (YES outcome) and volume in USDC. --json prints prices in 1e-6 USDC units and amounts as decimal strings. ' +
    "rank -c FILE scores the config's rank: entries now and prints each candidate's score, terms (0..1, - = dropped) and whether it is selected or why not, without trading. With --shard I/N (or BOOKMAKER_SHARD, or markets.shard) it ranks only that shard's markets, as `run --shard` would.",
  positionals: ['list|search|get|rank', 'text|marketId'],
  options,
  run: (args) => runMarkets(args, { out: process.stdout }),
};
export default command;
