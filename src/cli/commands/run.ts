/**
 * `bookmaker run -c FILE`: the quoting bot (src/runtime/bot.ts) with a live terminal summary.
 * Stops on SIGINT/SIGTERM or after --duration: cancels every order, flushes, exits 0 when the venue
 * reports nothing of ours open. The kill switch exits 3, an order-manager halt 4, orders left 1,
 * the watchdog (event loop blocked) 5, a config or start-up error (a busy metrics port) 2, a venue that kept
 * failing transiently (429, 5xx, no connection) until the start-up deadline 8.
 * Signals and --duration count from the first millisecond: during start-up they abort every
 * start-up wait and retry at once (exit 0).
 * A bot whose kill-switch latch is set in the ledger does not quote and, when stopped, exits 3.
 * SIGHUP reloads the config (src/control/bot-control.ts). SIGHUP, SIGTERM and SIGINT are handled from
 * the first millisecond (src/cli/early-signals.ts): a SIGHUP during start-up is logged and deferred to a
 * reload once the bot runs; a stop during start-up ends it at once (exit 0), with a log line.
 * A stop signal while stopping logs what the stop waits on; the next one ends the process at once (exit 9).
 * Re-executed by bin/bookmaker.js with a heap limit, it stops as on SIGTERM when that launcher is gone
 * (killed past its handlers: its IPC channel closes).
 */
import type { CommandSpec, ParsedArgs } from '../args.ts';
import { systemClock } from '../../core/clock.ts';
import { resolvePretty } from '../../core/log-format.ts';
import { createLogger } from '../../core/logger.ts';
import { loadConfig } from '../../config/load-config.ts';
import { shardFromEnv } from '../../config/env-overrides.ts';
import { parseShardText } from '../../config/parse-markets.ts';
import { withShard } from '../../selection/shard.ts';
import { LOG_LEVELS } from '../../config/types.ts';
import { BadInputError } from '../../model/errors.ts';
import { startBot, type Bot } from '../../runtime/bot.ts';
import { LiveTerminal } from '../../runtime/live-terminal.ts';
import { DEFAULT_STARTUP_DEADLINE_MS } from '../../runtime/startup-status.ts';
import { MetricsPortError, startWatchdog, type Watchdog } from '../../runtime/watchdog.ts';
import { formatRunReport } from '../../runtime/run-report.ts';
import { formatRotationLine, formatSummary, formatSummaryLine, startSummary, summaryRows } from '../../runtime/terminal-summary.ts';
import { EXIT_STOP_CUT_SHORT } from '../../runtime/exit-codes.ts';
import { guardProcessOutput } from '../../runtime/output-guard.ts';
import { LAUNCHER_GONE, launcherPid, takeEarlySignals } from '../early-signals.ts';
import { stopAgain } from '../stop-again.ts';
import { startupFailed } from '../startup-failed.ts';
import { metricsPortFlag, requireConfig } from '../shared-flags.ts';
import { checkOutputs, writeOut } from '../write-out.ts';

const command: CommandSpec = {
  name: 'run',
  summary: 'run the quoting bot (live venue, testnet, a base URL, or the embedded local exchange)',
  usage:
    'bookmaker run -c FILE [--base-url URL] [--duration S] [--paper] [--new-ledger] [--cancel-foreign-orders] [--metrics-port P] ' +
    '[--api-key K] [--key-file F] [--log-level L] [--report-json FILE] [--shard I/N] [--startup-deadline S]',
  description:
    'Quotes the configured markets until SIGINT/SIGTERM or --duration, then cancels every order and exits 0. ' +
    'A config with a `local` venue starts the embedded local exchange (no keys, no network); --base-url points at any venue instead. ' +
    '--paper quotes on live data with simulated fills (no order is sent). ' +
    'A new, missing or emptied ledger on a wallet that holds tokens or has order history is refused (exit 2) unless --new-ledger adopts the holdings as its baseline. Keys: BOOKMAKER_PRIVATE_KEY or --key-file, BOOKMAKER_API_KEY or --api-key. ' +
    '--shard I/N (or BOOKMAKER_SHARD, or markets.shard) quotes only the markets of shard I of N (rendezvous hashing of the market id) and keeps reconcile and cancel-all to them, so N instances can share one wallet. ' +
    'Open orders of another trader (a second bot, a person) in its markets refuse the start (exit 7) unless --cancel-foreign-orders; ' +
    'one that appears while it runs halts it until bookmaker ctl resume. ' +
    'A venue that rate-limits (429), fails (5xx) or cannot be reached at start-up is retried with growing pauses (its Retry-After honoured) ' +
    'until --startup-deadline; meanwhile /readyz answers 503 with what start-up waits for. ' +
    'Signals and --duration also end start-up at once. Exit codes: 0 stopped, 1 orders left, 2 config/flags or a busy metrics port, ' +
    '3 kill switch, 4 halt, 5 watchdog (event loop blocked), 6 ledger unwritable, 7 another trader on the wallet, ' +
    '8 the venue unreachable until the start-up deadline, 9 a stop cut short by a third SIGTERM/SIGINT (a second one logs what the stop waits on).',
  options: {
    config: { type: 'string', short: 'c', description: 'YAML config file', arg: 'FILE' },
    'base-url': { type: 'string', description: 'venue API base (overrides the config, including the embedded local exchange)', arg: 'URL' },
    duration: { type: 'duration', description: 'stop after this long (30, 30s, 10m, 2h), exactly as on SIGTERM', arg: 'S' },
    paper: { type: 'boolean', description: 'live data, simulated fills: no order reaches the venue', default: false },
    'new-ledger': {
      type: 'boolean',
      description:
        'a new or empty ledger on a wallet with venue history adopts its holdings at the current marks as the baseline (PnL from 0) instead of refusing to start',
      default: false,
    },
    'cancel-foreign-orders': {
      type: 'boolean',
      description:
        "open orders in this bot's markets that it did not place (left over from a run whose ledger is gone) are cancelled at start-up " +
        'instead of refusing the start (exit 7); stop any other bot on the wallet first',
      default: false,
    },
    'metrics-port': {
      type: 'number',
      description: 'serve /metrics, /healthz, /readyz on 127.0.0.1:PORT (0 = off; default from the config, 9464)',
      arg: 'PORT',
    },
    'api-key': { type: 'string', description: 'venue API key (default BOOKMAKER_API_KEY)', arg: 'KEY' },
    'key-file': {
      type: 'string',
      description: 'file holding the private key (mode 0600/0400, or 0440/0640 owned by root; default BOOKMAKER_PRIVATE_KEY)',
      arg: 'FILE',
    },
    'log-level': { type: 'string', description: 'log level (logs go to stderr)', choices: LOG_LEVELS, arg: 'LEVEL' },
    'summary-seconds': { type: 'number', description: 'terminal summary interval (0 = off)', default: 3, arg: 'S' },
    shard: {
      type: 'string',
      description:
        "this instance's shard I/N of the selected markets (overrides BOOKMAKER_SHARD and markets.shard); reconcile and cancel-all keep to its markets",
      arg: 'I/N',
    },
    'startup-deadline': {
      type: 'duration',
      description: 'give up start-up (exit 8) when the venue still fails transiently (429, 5xx, timeouts, no connection) after this long (30s, 5m)',
      default: DEFAULT_STARTUP_DEADLINE_MS / 1000,
      arg: 'S',
    },
    'report-json': {
      type: 'string',
      description:
        'write the end-of-run report (per market volume, fills, fees, PnL, time quoting, reasons) to FILE as JSON, whole or not at all; ' +
        'a FILE that cannot be written is refused at start (exit 2)',
      arg: 'FILE',
    },
  },
  run,
};
export default command;

type Stop = { kind: 'signal'; name: string } | { kind: 'duration' } | { kind: 'launcher' } | { kind: 'exit'; code: number };

/** A stop's name in the logs, the report and the last line: the signal, `duration` or `launcher-gone`. */
const stopName = (s: Stop): string => (s.kind === 'signal' ? s.name : s.kind === 'launcher' ? LAUNCHER_GONE : s.kind);

async function run(args: ParsedArgs): Promise<number> {
  const o = args.options;
  const file = requireConfig(o, '-c config/local.yaml');
  const metricsPort = metricsPortFlag(o);
  const summaryEvery = (o['summary-seconds'] as number) * 1000;
  if (!Number.isFinite(summaryEvery) || summaryEvery < 0) throw new BadInputError('--summary-seconds', 'a number ≥ 0', o['summary-seconds']);
  const shardFlag = o.shard === undefined ? undefined : parseShardText(o.shard, '--shard');
  const startupDeadlineMs = (o['startup-deadline'] as number) * 1000;
  if (!Number.isFinite(startupDeadlineMs) || startupDeadlineMs <= 0) throw new BadInputError('--startup-deadline', 'a duration > 0', o['startup-deadline']);
  // logs and summaries to a file on a full disk: a line is dropped and counted, never the process ended (exit 1
  // mid-run, orders left resting) by a failed write (src/runtime/output-guard.ts)
  guardProcessOutput();
  // a --report-json that cannot be written is refused now (exit 2), not found out at the end of a run
  checkOutputs(o, ['report-json']);

  // Signals and --duration work from the first millisecond: before the bot is up they abort its
  // start-up (every wait and retry pause ends at once); afterwards they stop it.
  let stopRequest: ((s: Stop) => void) | null = null;
  let early: Stop | null = null;
  /** a stop was asked for (a signal, --duration, the launcher gone): a stop signal from now on is one more */
  let stopAsked = false;
  const startup = new AbortController();
  const request = (s: Stop): void => {
    stopAsked = true;
    if (stopRequest) stopRequest(s);
    else {
      early ??= s;
      startup.abort(stopName(s));
    }
  };
  /** the logger once it exists (start-up messages before it go to stderr) */
  let say: (msg: string) => void = (msg) => void process.stderr.write(`bookmaker: ${msg}\n`);
  let loud: (fields: Record<string, unknown>, msg: string) => void = (_f, msg) => void process.stderr.write(`bookmaker: ${msg}\n`);
  let warn = loud;
  let flushLog: (done: () => void) => void = (done) => done();
  /** the bot once it runs (a stop signal during its stop reads where the stop is); the orders' dead-man expiry */
  let current: Bot | null = null;
  let deadManMs: number | null = null;
  const onSignal = (name: string) => () => {
    if (stopAsked) return stopSignalAgain(name);
    if (!stopRequest) say(`${name} during start-up: stopping (start-up ends at once, anything placed is cancelled)`);
    request({ kind: 'signal', name });
  };
  // a stop signal while stopping: the first one more says where the stop is, the next ends the process (src/cli/stop-again.ts)
  let stopSignals = 1;
  const stopSignalAgain = (name: string): void => {
    const a = stopAgain(++stopSignals, name, current?.stopProgress() ?? null, current !== null, deadManMs);
    if (!a.exit) return warn(a.fields, a.message);
    loud(a.fields, a.message);
    setTimeout(() => process.exit(EXIT_STOP_CUT_SHORT), 1_000).unref();
    flushLog(() => process.exit(EXIT_STOP_CUT_SHORT));
  };
  const sigint = onSignal('SIGINT');
  const sigterm = onSignal('SIGTERM');
  process.on('SIGINT', sigint);
  process.on('SIGTERM', sigterm);
  // the launcher (bin/bookmaker.js's re-executing parent) gone, killed past its handlers (kill -9, the OOM killer,
  // a runtime's timeout): nobody supervises this process any more, so it stops as on SIGTERM instead of quoting on
  const launcher = launcherPid();
  const onLauncherGone = (): void => {
    if (stopAsked) return;
    const why =
      `the launcher process (bin/bookmaker.js, pid ${launcher}) is gone (killed: kill -9, the OOM killer, a supervisor's timeout) ` +
      'and nothing supervises this process any more: stopping as on SIGTERM';
    if (stopRequest) loud({ launcherPid: launcher }, `${why}: every order cancelled, the ledger written`);
    else say(`${why} (start-up ends at once, anything placed is cancelled)`);
    request({ kind: 'launcher' });
  };
  if (launcher !== null) process.on('disconnect', onLauncherGone);
  // SIGHUP: a reload once the bot runs; during start-up it is deferred to then (never Node's exit 129)
  let reloadNow: ((why: string) => void) | null = null;
  let hupDeferred = false;
  const sighup = (): void => {
    if (reloadNow) return reloadNow('SIGHUP');
    if (!hupDeferred) say('SIGHUP during start-up: the reload is deferred until the bot runs');
    hupDeferred = true;
  };
  process.on('SIGHUP', sighup);
  // what came before these handlers (the entry caught it): acted on now, in order
  for (const sig of takeEarlySignals()) {
    if (sig === 'SIGHUP') hupDeferred = true;
    else request(sig === LAUNCHER_GONE ? { kind: 'launcher' } : { kind: 'signal', name: sig });
  }
  const secs = o.duration as number | undefined;
  const cancelDuration = secs !== undefined ? systemClock.setTimeout(() => request({ kind: 'duration' }), secs * 1000) : () => undefined;
  let watchdog: Watchdog | null = null;
  try {
    // the shard: --shard, else BOOKMAKER_SHARD, else markets.shard of the file
    const loaded = await loadConfig(file, { env: process.env });
    const shard = shardFlag ?? shardFromEnv(process.env);
    const config = shard ? withShard(loaded, shard) : loaded;
    const tty = process.stdout.isTTY === true;
    const errTty = process.stderr.isTTY === true;
    const embedded = config.venue.kind === 'local' && !o['base-url'];
    // on a terminal the summary is the interface: keep info logs out of its way unless asked
    const level = (o['log-level'] as string | undefined) ?? (tty && embedded ? 'warn' : config.logging.level);
    const pretty = resolvePretty(config.logging.pretty, errTty);
    // logs above, summary below: one terminal object draws both when both streams are the terminal
    const term = tty && errTty && summaryEvery > 0 ? new LiveTerminal(process.stdout) : null;
    const logger = createLogger({ level, pretty, colors: pretty && errTty, destination: term ? term.sink(process.stderr) : process.stderr });
    say = (msg) => logger.warn(msg);
    loud = (fields, msg) => logger.error(fields, msg);
    warn = (fields, msg) => logger.warn(fields, msg);
    flushLog = (done) => logger.flush(() => done());
    deadManMs = config.orders.deadManExpiryMs;
    const stopFirst = early as Stop | null;
    if (stopFirst) logger.warn({ signal: stopName(stopFirst) }, 'stop requested during start-up: stopping');
    if (hupDeferred) logger.warn('SIGHUP during start-up: the reload is deferred until the bot runs');
    const port = metricsPort ?? config.metrics.port;
    if (config.watchdog.blockedLimitMs > 0) {
      const wdOpts = {
        blockedLimitMs: config.watchdog.blockedLimitMs,
        healthzLimitMs: config.watchdog.healthzLimitMs,
        log: { level, pretty, colors: pretty && errTty },
      };
      try {
        watchdog = await startWatchdog({ ...wdOpts, metrics: port === 0 ? null : { port, host: config.metrics.host } });
      } catch (e) {
        if (!(e instanceof MetricsPortError) || !config.metrics.optional) throw e;
        logger.warn({ port, err: e.message }, 'metrics endpoint could not start; continuing without it (metrics.optional: true)');
        watchdog = await startWatchdog({ ...wdOpts, metrics: null });
      }
    }
    let bot: Bot;
    try {
      bot = await startBot({
        config,
        logger,
        paper: o.paper === true,
        newLedger: o['new-ledger'] === true,
        cancelForeignOrders: o['cancel-foreign-orders'] === true,
        startupDeadlineMs,
        signal: startup.signal,
        ...(watchdog ? { watchdog } : {}),
        ...(o['base-url'] ? { baseUrl: o['base-url'] as string } : {}),
        ...(o['api-key'] ? { apiKey: o['api-key'] as string } : {}),
        ...(o['key-file'] ? { keyFile: o['key-file'] as string } : {}),
        ...(metricsPort !== undefined ? { metricsPort } : {}),
      });
    } catch (e) {
      // why, in the log and on the terminal, and the exit code (src/runtime/startup-exit.ts); bad input and
      // unexpected errors are thrown on to the CLI's entry (2 or 1)
      const code = await startupFailed(e, { logger, startupDeadlineMs });
      setTimeout(() => process.exit(code), 1_000).unref();
      return code;
    }
    current = bot;
    process.stdout.write(
      `bookmaker: quoting ${bot.markets.length} market(s)${config.selection.shard ? ` of shard ${config.selection.shard.index}/${config.selection.shard.count}` : ''} on ${bot.baseUrl}${embedded ? ' (embedded local exchange)' : ''}${bot.paper ? ' [paper]' : ''}\n` +
        `metrics: ${bot.metricsUrl ? `${bot.metricsUrl}/metrics  (${bot.metricsUrl}/healthz, ${bot.metricsUrl}/readyz)` : 'off'}\n`,
    );
    // ---- SIGHUP reloads the config (a bad file is refused, the running config stays) ----
    reloadNow = (why) => void bot.reload(why).then((r) => process.stderr.write(`bookmaker: reload (${why}): ${JSON.stringify(r.body)}\n`));
    if (hupDeferred) reloadNow('SIGHUP during start-up');
    const stopSighup = (): void => {
      reloadNow = null;
    };
    const stopSummary =
      summaryEvery > 0
        ? startSummary({
            clock: systemClock,
            everyMs: summaryEvery,
            write: (s) => process.stdout.write(s),
            tty,
            render: () => render(bot).table,
            renderLine: () => render(bot).line,
            ...(term ? { terminal: term } : {}),
          })
        : () => undefined;
    const reason = await new Promise<Stop>((resolve) => {
      stopRequest = resolve;
      if (early) resolve(early);
      void bot.exit.then((code) => resolve({ kind: 'exit', code }));
    });
    const code = reason.kind === 'exit' ? reason.code : await bot.stop(stopName(reason));
    stopSummary();
    stopSighup();
    const stopReason = reason.kind !== 'exit' ? stopName(reason) : bot.healthModel.killSwitch ? 'kill-switch' : 'halt';
    endOfRunReport(bot, stopReason, code, logger, o['report-json'] as string | undefined);
    // the last word when the ledger could not be written: the books of this run are not on disk
    const lost = bot.booksNotOnDisk();
    if (lost) logger.error({ ledger: lost.path, reason: lost.reason, exitCode: code }, lost.message);
    process.stdout.write(`bookmaker: stopped (${stopName(reason)}), exit ${code}${lost ? ': the books of this run are not on disk (see the log)' : ''}\n`);
    await new Promise<void>((r) => logger.flush(() => r()));
    // anything still holding the event loop (a socket in TIME_WAIT, a stray timer) must not keep us alive
    setTimeout(() => process.exit(code), 2_000).unref();
    return code;
  } finally {
    cancelDuration();
    await watchdog?.close();
    process.off('SIGINT', sigint);
    process.off('SIGTERM', sigterm);
    process.off('SIGHUP', sighup);
    process.off('disconnect', onLauncherGone);
  }
}

/** The end-of-run report: printed, logged (info), and written as JSON with --report-json. */
function endOfRunReport(bot: Bot, stopReason: string, code: number, logger: ReturnType<typeof createLogger>, file: string | undefined): void {
  const report = bot.report(stopReason, code);
  process.stdout.write(formatRunReport(report).join('\n') + '\n');
  logger.info({ report }, 'run report');
  if (!file) return;
  try {
    writeOut(file, JSON.stringify(report, null, 2) + '\n', 'report-json');
  } catch (e) {
    logger.error({ file, err: (e as Error).message }, '--report-json: the report could not be written');
  }
}

function render(bot: Bot): { table: string[]; line: string } {
  bot.healthModel.evaluate();
  const scores = bot.ranker.scores();
  const books = bot.kernel.account;
  const rows = summaryRows(
    bot.store.state,
    bot.markets,
    bot.fills,
    (id) => bot.healthModel.marketState(id),
    systemClock.now(),
    (id) => scores.get(id)?.score ?? null,
    books,
  );
  const s = bot.store.state;
  const collateral = s.collateral === null ? '-' : (Number(s.collateral) / 1e6).toFixed(2);
  const stale = bot.health.stale(systemClock.now()).filter((n) => !n.startsWith('book:'));
  const quoting = rows.filter((r) => r.state === 'quoting').length;
  const proc = bot.healthModel.process === 'running' ? '' : `${bot.healthModel.process.toUpperCase()} `;
  const header =
    `${new Date().toISOString().slice(11, 19)} collateral ${collateral} USDC ${proc}${bot.kernel.killed ? `KILLED (${bot.kernel.killed}) ` : ''}` +
    `quoting ${quoting}/${rows.length}${stale.length ? ` stale: ${stale.join(',')}` : ''}${bot.paper ? ' [paper]' : ''}`;
  // market rotation: one line of its own
  const rotation = formatRotationLine(bot.rotation.summary(), bot.rotation.refreshEnabled);
  const pnl = books.figures().total;
  const table = formatSummary(rows, header, pnl);
  return {
    table: rotation ? [...table, rotation] : table,
    line: formatSummaryLine(rows, header, pnl, bot.runTrades().fills) + (rotation ? `\n${rotation}` : ''),
  };
}
