/**
 * `bookmaker run -c FILE`: the quoting bot (src/runtime/bot.ts) with a live terminal summary.
 * Stops on SIGINT/SIGTERM or after --duration: cancels every order, flushes, exits 0 when the venue
 * reports nothing of ours open. The kill switch exits 3, an order-manager halt 4, orders left 1.
 * A bot whose kill-switch latch is set in the ledger does not quote and, when stopped, exits 3.
 * SIGHUP reloads the config (src/control/bot-control.ts).
 */
import type { CommandSpec, ParsedArgs } from '../args.ts';
import { systemClock } from '../../core/clock.ts';
import { createLogger } from '../../core/logger.ts';
import { loadConfig } from '../../config/load-config.ts';
import { LOG_LEVELS } from '../../config/types.ts';
import { BadInputError } from '../../model/errors.ts';
import { startBot, type Bot } from '../../runtime/bot.ts';
import { formatSummary, formatSummaryLine, startSummary, summaryRows } from '../../runtime/terminal-summary.ts';

const command: CommandSpec = {
  name: 'run',
  summary: 'run the quoting bot (live venue, testnet, a base URL, or the embedded local exchange)',
  usage: 'bookmaker run -c FILE [--base-url URL] [--duration S] [--paper] [--metrics-port P] [--api-key K] [--key-file F] [--log-level L]',
  description:
    'Quotes the configured markets until SIGINT/SIGTERM or --duration, then cancels every order and exits 0. ' +
    'A config with a `local` venue starts the embedded local exchange (no keys, no network); --base-url points at any venue instead. ' +
    '--paper quotes on live data with simulated fills (no order is sent). Keys: BOOKMAKER_PRIVATE_KEY or --key-file, BOOKMAKER_API_KEY or --api-key.',
  options: {
    config: { type: 'string', short: 'c', description: 'YAML config file', arg: 'FILE' },
    'base-url': { type: 'string', description: 'venue API base (overrides the config, including the embedded local exchange)', arg: 'URL' },
    duration: { type: 'duration', description: 'stop after this long (30, 30s, 10m, 2h), exactly as on SIGTERM', arg: 'S' },
    paper: { type: 'boolean', description: 'live data, simulated fills: no order reaches the venue', default: false },
    'metrics-port': { type: 'number', description: 'serve /metrics, /healthz, /readyz on 127.0.0.1:PORT (0 = off; default from the config, 9464)', arg: 'PORT' },
    'api-key': { type: 'string', description: 'venue API key (default BOOKMAKER_API_KEY)', arg: 'KEY' },
    'key-file': { type: 'string', description: 'file holding the private key (mode 0600; default BOOKMAKER_PRIVATE_KEY)', arg: 'FILE' },
    'log-level': { type: 'string', description: 'log level (logs go to stderr)', choices: LOG_LEVELS, arg: 'LEVEL' },
    'summary-seconds': { type: 'number', description: 'terminal summary interval (0 = off)', default: 3, arg: 'S' },
  },
  run,
};
export default command;

type Stop = { kind: 'signal'; name: string } | { kind: 'duration' } | { kind: 'exit'; code: number };

async function run(args: ParsedArgs): Promise<number> {
  const o = args.options;
  const file = o.config as string | undefined;
  if (!file) throw new BadInputError('--config', 'a config file (-c config/local.yaml)', file);
  const metricsPort = o['metrics-port'] as number | undefined;
  if (metricsPort !== undefined && (!Number.isInteger(metricsPort) || metricsPort < 0 || metricsPort > 65535)) throw new BadInputError('--metrics-port', 'an integer from 0 to 65535', metricsPort);
  const summaryEvery = (o['summary-seconds'] as number) * 1000;
  if (!Number.isFinite(summaryEvery) || summaryEvery < 0) throw new BadInputError('--summary-seconds', 'a number ≥ 0', o['summary-seconds']);

  // signals that arrive while starting are honoured once the bot is up
  let stopRequest: ((s: Stop) => void) | null = null;
  let early: Stop | null = null;
  const onSignal = (name: string) => () => {
    const s: Stop = { kind: 'signal', name };
    if (stopRequest) stopRequest(s);
    else early ??= s;
  };
  const sigint = onSignal('SIGINT');
  const sigterm = onSignal('SIGTERM');
  process.on('SIGINT', sigint);
  process.on('SIGTERM', sigterm);
  try {
    const config = await loadConfig(file, { env: process.env });
    const tty = process.stdout.isTTY === true;
    const embedded = config.venue.kind === 'local' && !o['base-url'];
    // on a terminal the summary is the interface: keep info logs out of its way unless asked
    const level = (o['log-level'] as string | undefined) ?? (tty && embedded ? 'warn' : config.logging.level);
    const logger = createLogger({ level });
    const bot = await startBot({
      config,
      logger,
      paper: o.paper === true,
      ...(o['base-url'] ? { baseUrl: o['base-url'] as string } : {}),
      ...(o['api-key'] ? { apiKey: o['api-key'] as string } : {}),
      ...(o['key-file'] ? { keyFile: o['key-file'] as string } : {}),
      ...(metricsPort !== undefined ? { metricsPort } : {}),
    });
    process.stdout.write(
      `bookmaker: quoting ${bot.markets.length} market(s) on ${bot.baseUrl}${embedded ? ' (embedded local exchange)' : ''}${bot.paper ? ' [paper]' : ''}\n` +
        `metrics: ${bot.metricsUrl ? `${bot.metricsUrl}/metrics  (${bot.metricsUrl}/healthz, ${bot.metricsUrl}/readyz)` : 'off'}\n`,
    );
    // ---- issue 16: SIGHUP reloads the config (a bad file is refused, the running config stays) ----
    const sighup = (): void => void bot.reload('SIGHUP').then((r) => process.stderr.write(`bookmaker: reload (SIGHUP): ${JSON.stringify(r.body)}\n`));
    process.on('SIGHUP', sighup);
    const stopSighup = (): void => void process.off('SIGHUP', sighup);
    const stopSummary = summaryEvery > 0 ? startSummary({ clock: systemClock, everyMs: summaryEvery, write: (s) => process.stdout.write(s), tty, render: () => render(bot).table, renderLine: () => render(bot).line }) : () => undefined;
    const reason = await new Promise<Stop>((resolve) => {
      stopRequest = resolve;
      if (early) resolve(early);
      const secs = o.duration as number | undefined;
      if (secs !== undefined) systemClock.setTimeout(() => resolve({ kind: 'duration' }), secs * 1000);
      void bot.exit.then((code) => resolve({ kind: 'exit', code }));
    });
    const code = reason.kind === 'exit' ? reason.code : await bot.stop(reason.kind === 'signal' ? reason.name : 'duration');
    stopSummary();
    stopSighup();
    process.stdout.write(`bookmaker: stopped (${reason.kind === 'signal' ? reason.name : reason.kind}), exit ${code}\n`);
    await new Promise<void>((r) => logger.flush(() => r()));
    // anything still holding the event loop (a socket in TIME_WAIT, a stray timer) must not keep us alive
    setTimeout(() => process.exit(code), 2_000).unref();
    return code;
  } finally {
    process.off('SIGINT', sigint);
    process.off('SIGTERM', sigterm);
  }
}

function render(bot: Bot): { table: string[]; line: string } {
  const rows = summaryRows(bot.store.state, bot.markets, bot.fills);
  const s = bot.store.state;
  const collateral = s.collateral === null ? '-' : (Number(s.collateral) / 1e6).toFixed(2);
  const stale = bot.health.stale(systemClock.now()).filter((n) => !n.startsWith('book:'));
  const header = `${new Date().toISOString().slice(11, 19)} collateral ${collateral} USDC ${bot.kernel.killed ? `KILLED (${bot.kernel.killed}) ` : ''}${stale.length ? `stale: ${stale.join(',')}` : 'feeds ok'}`;
  return { table: formatSummary(rows, header), line: formatSummaryLine(rows, header) };
}
