/**
 * The bot as a child process of the chaos orchestrator and the load benchmark: the real runtime
 * (startBot, the same code as `bookmaker run`) plus a reporter over IPC. Being a separate process is
 * what lets the orchestrator kill -9 it and start it again.
 *
 *   node --import tsx src/chaos/bot-child.ts CONFIG BASE_URL      (with an IPC channel; keys in env)
 *
 * Reports (src/chaos/child-messages.ts): ready, its order view at every reconcile, every create it
 * submits and every fills poll it completes (all off with BOOKMAKER_CHAOS_ORDER_REPORTS=0), unhandled errors (counted, not fatal, so
 * one run can report them all), load stats on request; SIGTERM or a `stop` message stops it exactly
 * like `bookmaker run` (cancel all, exit code).
 *
 * A stop works from the first moment: during start-up it ends the start-up (anything placed is
 * cancelled; exit 0, as `bookmaker run`). An orchestrator that is gone (killed, crashed: the IPC
 * channel closed, even before this process listened for it) stops it the same way, with nobody left to
 * wait for it or to SIGKILL it: such a stop, and a stop under way when a SIGTERM comes (or comes
 * again), is given ORPHAN_STOP_MS; past it the child exits 1 (orders may be left; its ledger lock
 * goes with the process), instead of waiting on a venue that no longer answers.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { createLogger, scrubSecrets } from '../core/logger.ts';
import { loadConfig } from '../config/load-config.ts';
import { BadInputError } from '../model/errors.ts';
import { startBot, type Bot } from '../runtime/bot.ts';
import { startWatchdog } from '../runtime/watchdog.ts';
import type { StateEvent } from '../state/events.ts';
import type { ChildMessage, ChildStats, ParentMessage } from './child-messages.ts';
import { EXIT_ORDERS_LEFT } from '../runtime/exit-codes.ts';
import { startupExitCode } from '../runtime/startup-exit.ts';

/** how long a stop may take once the orchestrator is gone or a SIGTERM comes while it runs; then exit 1 */
const ORPHAN_STOP_MS = 10_000;

function send(m: ChildMessage): void {
  if (process.connected) process.send?.(m);
}

process.on('unhandledRejection', (e) => send({ type: 'unhandled', kind: 'unhandledRejection', message: scrubSecrets(String((e as Error)?.stack ?? e)) }));
process.on('uncaughtException', (e) => send({ type: 'unhandled', kind: 'uncaughtException', message: scrubSecrets(String(e?.stack ?? e)) }));

// 1 ms sampling: the histogram counts the sampling interval itself, so a coarse one would inflate every figure
const lag = monitorEventLoopDelay({ resolution: 1 });
lag.enable();
const counters = { bookEvents: 0, bookDeltas: 0, resyncs: 0, lateEvents: 0, venueCalls: 0 };
let lastListedAt = 0;
// BOOKMAKER_CHAOS_ORDER_REPORTS=0: no message per create and per reconcile (the load benchmark reads
// none of them; at thousands of markets they are the harness's cost, not the bot's)
const orderReports = process.env.BOOKMAKER_CHAOS_ORDER_REPORTS !== '0';

function onEvent(bot: Bot, e: StateEvent): void {
  switch (e.type) {
    case 'BookEventReceived': {
      counters.bookEvents++;
      const ev = e.event;
      if (ev.type === 'delta')
        counters.bookDeltas += ev.merged ?? 1; // a coalesced backlog counts its deltas
      else if (ev.type === 'snapshot' && ev.source !== 'stream') counters.resyncs++;
      const venueTs = ev.type === 'snapshot' ? ev.book.venueTs : ev.type === 'status' ? 0 : ev.venueTs;
      if (venueTs > 0 && 'localTs' in ev && ev.localTs - venueTs > 1_000) counters.lateEvents++;
      return;
    }
    case 'VenueCallCompleted':
      counters.venueCalls++;
      if (e.call === 'open-orders' && e.ok) lastListedAt = Date.now();
      return;
    case 'OrdersReconciled':
      if (!orderReports) return;
      send({
        type: 'reconciled',
        marketId: e.marketId,
        listedAt: lastListedAt,
        at: Date.now(),
        orders: bot.orderManager.tracked().map((t) => ({ nonce: t.planned.nonce, marketId: t.planned.marketId, state: t.state, sentAt: t.sentAt })),
      });
      return;
    case 'BalanceUpdated':
      // the trading poll's balance read, after its fills (src/feeds/trading-feed.ts): one a completed poll
      if (orderReports) send({ type: 'polled', at: Date.now() });
      return;
    case 'OrderSubmitted': {
      if (!orderReports) return;
      const o = e.order;
      send({ type: 'submitted', nonce: e.nonce, body: `${o.marketId}:${o.outcomeIndex}:${o.side}:${o.price}:${o.size}`, retry: e.retry });
      return;
    }
    default:
      return;
  }
}

function memory(): { rssBytes: number; heapUsedBytes: number; heapTotalBytes: number; externalBytes: number } {
  const m = process.memoryUsage();
  return { rssBytes: m.rss, heapUsedBytes: m.heapUsed, heapTotalBytes: m.heapTotal, externalBytes: m.external };
}

function stats(bot: Bot): ChildStats {
  const cpu = process.cpuUsage();
  const reconnects = (bot.metrics.streamReconnects as unknown as { hashMap?: Record<string, { value: number }> }).hashMap;
  return {
    atMs: Date.now(),
    cpuUserMs: cpu.user / 1000,
    cpuSystemMs: cpu.system / 1000,
    ...memory(),
    lagP50Ms: lag.percentile(50) / 1e6,
    lagP99Ms: lag.percentile(99) / 1e6,
    lagMaxMs: lag.max / 1e6,
    bookEvents: counters.bookEvents,
    bookDeltas: counters.bookDeltas,
    resyncs: counters.resyncs,
    lateEvents: counters.lateEvents,
    venueCalls: counters.venueCalls,
    streamReconnects: reconnects ? Object.values(reconnects).reduce((a, v) => a + v.value, 0) : 0,
  };
}

/** A stop asked for (SIGTERM, a `stop` message, the orchestrator gone): of the start-up, then of the bot. */
const startup = new AbortController();
let stopBot: (() => void) | null = null;
let stopAsked = false;
let bounded = false;

function requestStop(why: 'SIGTERM' | 'stop' | 'orchestrator gone'): void {
  // nobody waits for an orphan, and a SIGTERM during a stop means "end it": the stop gets ORPHAN_STOP_MS at most
  if (!bounded && (why === 'orchestrator gone' || (why === 'SIGTERM' && stopAsked))) {
    bounded = true;
    setTimeout(() => {
      process.stderr.write(`bot-child: the stop did not finish within ${ORPHAN_STOP_MS} ms (${why}): exit 1, orders may be left\n`);
      send({ type: 'stopped', code: EXIT_ORDERS_LEFT });
      process.exit(EXIT_ORDERS_LEFT);
    }, ORPHAN_STOP_MS).unref();
  }
  stopAsked = true;
  if (stopBot) stopBot();
  else startup.abort(why);
}

process.on('SIGTERM', () => requestStop('SIGTERM'));
// the orchestrator is gone (killed, crashed): stop instead of quoting on unwatched
process.on('disconnect', () => requestStop('orchestrator gone'));
process.on('message', (m: ParentMessage) => {
  if (m.type === 'stop') requestStop('stop');
});
// ...gone before this listened: the event has passed
if (process.send !== undefined && !process.connected) requestStop('orchestrator gone');

async function main(): Promise<void> {
  const [configPath, baseUrl] = process.argv.slice(2);
  if (!configPath || !baseUrl) throw new BadInputError('arguments', 'CONFIG BASE_URL (usage: bot-child.ts CONFIG BASE_URL)', process.argv.slice(2).join(' '));
  const config = await loadConfig(configPath, { env: process.env });
  const logger = createLogger({ level: process.env.BOOKMAKER_LOG_LEVEL ?? config.logging.level });
  const metricsPort = Number(process.env.BOOKMAKER_CHAOS_METRICS_PORT ?? 0);
  // the event-loop watchdog as `bookmaker run` starts it (it owns the metrics socket when there is one)
  const watchdog =
    config.watchdog.blockedLimitMs > 0
      ? await startWatchdog({
          blockedLimitMs: config.watchdog.blockedLimitMs,
          healthzLimitMs: config.watchdog.healthzLimitMs,
          metrics: metricsPort > 0 ? { port: metricsPort, host: config.metrics.host } : null,
          log: { level: process.env.BOOKMAKER_LOG_LEVEL ?? config.logging.level, pretty: false, colors: false },
        })
      : null;
  // BOOKMAKER_CHAOS_STARTUP_DEADLINE_MS: run's --startup-deadline (default the bot's 300 s)
  const deadline = Number(process.env.BOOKMAKER_CHAOS_STARTUP_DEADLINE_MS ?? 0);
  const bot = await startBot({
    config,
    logger,
    baseUrl,
    metricsPort,
    warmupMs: 3_000,
    signal: startup.signal,
    ...(deadline > 0 ? { startupDeadlineMs: deadline } : {}),
    ...(watchdog ? { watchdog } : {}),
  });
  bot.store.changes$.subscribe(({ events }) => {
    for (const e of events) onEvent(bot, e);
  });
  let stopping: Promise<number> | null = null;
  stopBot = (): void => {
    stopping ??= bot.stop('SIGTERM').then((code) => {
      send({ type: 'stopped', code });
      logger.flush();
      // give the IPC message a moment to leave before exiting
      setTimeout(() => process.exit(code), 200);
      return code;
    });
  };
  // a stop asked for while the bot started, after its start-up could no longer be ended
  if (stopAsked) stopBot();
  process.on('message', (m: ParentMessage) => {
    if (m.type === 'stats') send({ type: 'stats', stats: stats(bot) });
    else if (m.type === 'reset-lag') lag.reset();
    else if (m.type === 'block') {
      // a turn of work that holds the loop in its I/O phase (where a burst of socket data is handled):
      // what comes meanwhile waits in the sockets, and the loop's next timers run before those reads
      const end = performance.now() + m.ms;
      while (performance.now() < end) {
        // busy
      }
    }
  });
  void bot.exit.then((code) => {
    if (stopping) return;
    send({ type: 'stopped', code });
    setTimeout(() => process.exit(code), 200);
  });
  send({ type: 'ready', trader: bot.trader, markets: bot.markets.length, metricsUrl: bot.metricsUrl, pid: process.pid });
  // the health model's verdict for the referee's no-silent-not-quoting check, once a second (the
  // referee judges reports up to 2 s old; every report costs an evaluation of every market and an
  // IPC message of every market's state, charged to the bot's CPU in the load benchmark)
  const health = setInterval(() => {
    if (stopping) return;
    bot.healthModel.evaluateOncePerTurn();
    const markets: Record<string, string> = {};
    for (const m of bot.healthModel.markets()) markets[m.marketId] = m.state;
    send({ type: 'health', at: Date.now(), markets });
  }, 1_000);
  health.unref();
}

main().catch((e) => {
  // the bot's own code for the error, as `bookmaker run` exits (a venue unreachable past the start-up deadline: 8)
  const code = startupExitCode(e);
  process.stderr.write(`bot-child: ${scrubSecrets(String((e as Error)?.message ?? e))} (exit ${code})\n`);
  send({ type: 'stopped', code });
  setTimeout(() => process.exit(code), 200);
});
