/**
 * `bookmaker record -c FILE --out DIR [--duration S] [--base-url URL]`: capture the config's markets
 * (book stream, trades, metadata, oracle, activity) into a recording (src/backtest/recorder.ts). The
 * markets are the ones the bot would quote (recordSelection: the bot's selectMarkets, rank entries ranked
 * now, the rank table on stderr). The venue is
 * the config's, or `--base-url`; a config on the embedded local exchange records a local exchange
 * started in this process (with its simulated counterparties). Stops after --duration or on
 * SIGINT/SIGTERM, then closes the files and writes the binary columns.
 */
import type { CommandSpec } from '../args.ts';
import { BadInputError } from '../../model/errors.ts';
import type { Bytes32 } from '../../model/order.ts';
import { loadConfig } from '../../config/load-config.ts';
import { loadApiKey } from '../../config/secrets.ts';
import { chainByName } from '../../exchange/chains.ts';
import { createVenueClient, type VenueClient } from '../../exchange/venue-client.ts';
import { createLocalExchange } from '../../sim/local-exchange.ts';
import { counterpartyAgents, startCounterparties } from '../../sim/counterparties.ts';
import { startRecorder } from '../../backtest/recorder.ts';
import type { BotConfig, RankTerm } from '../../config/types.ts';
import { shardFromEnv } from '../../config/env-overrides.ts';
import type { Logger } from '../../core/logger.ts';
import { selectMarkets, type MarketsSource } from '../../selection/select-markets.ts';
import { Ranker, type RankReport } from '../../selection/ranker.ts';
import { formatRankTable } from '../../selection/rank-table.ts';
import type { Shard } from '../../selection/shard.ts';
import { configFlag } from '../shared-flags.ts';

/**
 * The markets a recording of this config holds: the bot's own selection (src/selection/select-markets.ts:
 * ids, slugs, filters, `all`, and `rank:` entries ranked as the bot ranks them now, the shard of the
 * config or BOOKMAKER_SHARD, markets.maxMarkets), so a recording holds what the bot would quote.
 * Returns the ids and the rank reports (empty without rank entries) for the terminal.
 */
export async function recordSelection(
  cfg: BotConfig,
  client: MarketsSource,
  opts: { readonly env?: Readonly<Record<string, string | undefined>>; readonly log?: Logger } = {},
): Promise<{ ids: Bytes32[]; reports: RankReport[]; shard: Shard | null }> {
  const shard = shardFromEnv(opts.env ?? {}) ?? cfg.selection.shard;
  const ranker = new Ranker();
  const chosen = await selectMarkets(client, cfg.markets, {
    maxMarkets: cfg.selection.maxMarkets,
    shard,
    ranker,
    allowEmpty: true,
    ...(opts.log ? { log: opts.log } : {}),
  });
  return { ids: chosen.map((m) => m.marketId), reports: ranker.lastReports(), shard };
}

/** A fresh embedded exchange: give its simulated makers a moment (at most 3 s) to quote, so a ranking does not see empty books. */
async function waitForQuotes(client: VenueClient): Promise<void> {
  for (let i = 0; i < 15; i++) {
    const { markets } = await client.markets.list({ status: ['active'], limit: 50 });
    if (markets.some((m) => m.outcomePrices.some((p) => p.bestBid !== null && p.bestAsk !== null))) return;
    await new Promise((r) => setTimeout(r, 200));
  }
}

const command: CommandSpec = {
  name: 'record',
  summary: 'record market data feeds to compressed JSONL',
  usage: 'bookmaker record -c FILE --out DIR [--duration S] [--base-url URL] [--api-key KEY]',
  description: [
    'Captures, for the markets the config selects: the YES book stream (snapshots, deltas, trades), market metadata,',
    'the oracle and market activity, with venue and local timestamps, in integer units and YES terms, into DIR (manifest.json,',
    'events-NNNNNN.jsonl.gz rotated by size and time, book.cols). Re-running into the same DIR resumes the recording.',
  ].join('\n'),
  options: {
    config: configFlag('bot config (venue and markets)'),
    out: { type: 'string', short: 'o', arg: 'DIR', description: 'recording directory' },
    duration: { type: 'duration', arg: 'S', description: 'stop after this long (default: until SIGINT/SIGTERM)' },
    'base-url': { type: 'string', arg: 'URL', description: 'venue base URL (overrides the config venue)' },
    'api-key': { type: 'string', arg: 'KEY', description: 'API key (or BOOKMAKER_API_KEY)' },
    'rotate-mb': { type: 'number', arg: 'MB', description: 'rotate files after this many uncompressed MB', default: 64 },
    'rotate-minutes': { type: 'number', arg: 'MIN', description: 'rotate files after this many minutes', default: 60 },
  },
  async run(args) {
    const o = args.options;
    if (typeof o.config !== 'string' || !o.config) throw new BadInputError('--config', 'a config file', o.config);
    if (typeof o.out !== 'string' || !o.out) throw new BadInputError('--out', 'a recording directory', o.out);
    const rotateMb = o['rotate-mb'] as number;
    const rotateMin = o['rotate-minutes'] as number;
    if (!(rotateMb > 0)) throw new BadInputError('--rotate-mb', 'a size above 0', rotateMb);
    if (!(rotateMin > 0)) throw new BadInputError('--rotate-minutes', 'a time above 0', rotateMin);
    const cfg = await loadConfig(o.config);
    const apiKey = loadApiKey(typeof o['api-key'] === 'string' ? { apiKey: o['api-key'] } : {});
    let baseUrl = typeof o['base-url'] === 'string' ? o['base-url'] : undefined;
    let stopLocal: (() => Promise<void>) | null = null;
    if (!baseUrl) {
      if (cfg.venue.kind === 'local') {
        const l = cfg.venue.local;
        const ex = createLocalExchange({ seed: l.seed, markets: l.markets, apiKeys: [{ key: 'recorder', perms: ['read'] }] });
        const agents = startCounterparties(ex, { seed: l.seed, ...counterpartyAgents(l.agents), flow: l.flow });
        baseUrl = await ex.start(l.port);
        stopLocal = async () => {
          agents.stop();
          await ex.close();
        };
      } else baseUrl = cfg.venue.kind === 'url' ? cfg.venue.baseUrl : chainByName(cfg.venue.chain).apiBase;
    }
    const key = stopLocal ? 'recorder' : apiKey;
    try {
      const client = createVenueClient({ baseUrl, ...(key ? { apiKey: key } : {}), retry: { maxAttempts: 3, maxTotalMs: 15_000 } });
      let markets: Bytes32[];
      try {
        if (stopLocal && cfg.markets.some((m) => m.select.by === 'rank')) await waitForQuotes(client);
        const sel = await recordSelection(cfg, client, { env: process.env });
        markets = sel.ids;
        if (sel.reports.length > 0) {
          const weights = (entry: number): Readonly<Record<RankTerm, number>> => {
            const x = cfg.markets[entry]!.select;
            if (x.by !== 'rank') throw new Error(`markets entry ${entry} is not a rank entry`);
            return x.rank.weights;
          };
          process.stderr.write(formatRankTable(sel.reports, weights, new Set<string>(markets)));
        }
        if (markets.length === 0)
          throw new BadInputError(
            'markets',
            `at least one market to record (the config's selectors match none at the venue${sel.shard ? ` in shard ${sel.shard.index}/${sel.shard.count}` : ''})`,
            0,
          );
      } finally {
        await client.close();
      }
      const rec = await startRecorder({
        baseUrl,
        ...(key ? { apiKey: key } : {}),
        markets,
        out: o.out,
        depth: cfg.feeds.bookDepth,
        oraclePollMs: cfg.feeds.oraclePollMs,
        activityPollMs: cfg.feeds.activityPollMs,
        rotateBytes: rotateMb * 2 ** 20,
        rotateMs: rotateMin * 60_000,
      });
      process.stderr.write(`recording ${markets.length} market(s) from ${baseUrl} into ${o.out}\n`);
      await new Promise<void>((resolve) => {
        const done = () => resolve();
        process.once('SIGINT', done);
        process.once('SIGTERM', done);
        if (typeof o.duration === 'number') setTimeout(done, o.duration * 1000).unref();
      });
      const manifest = await rec.stop();
      const s = rec.stats;
      process.stdout.write(
        `recorded ${s.book} book events, ${s.trades} trades, ${s.market} metadata, ${s.oracle} oracle updates, ${s.activity} activity items (${manifest.files.length} files) → ${o.out}\n`,
      );
    } finally {
      await stopLocal?.();
    }
    return 0;
  },
};
export default command;
