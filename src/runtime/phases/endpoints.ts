/**
 * The endpoints phase of the live start-up (src/runtime/bot.ts): /readyz and bookmaker_ready, and the
 * metrics endpoint on 127.0.0.1 (or behind the watchdog's thread, which owns the socket so /healthz fails
 * while this loop is blocked). The watchdog's stall reports are counted, logged and shown on /readyz
 * (src/runtime/stall-report.ts).
 */
import { respond, startMetricsEndpoint, type MetricsEndpoint } from '../../metrics/metrics-server.ts';
import { botReadiness } from '../../metrics/readiness.ts';
import { outputReasons } from '../output-guard.ts';
import { watchStalls } from '../stall-report.ts';
import { MetricsPortError } from '../watchdog.ts';
import type { CorePhase } from './core.ts';
import type { LedgerPhase } from './ledger.ts';
import type { SelectPhase } from './select.ts';
import type { StartContext } from './start-context.ts';

export interface EndpointsPhase {
  /** the checks of /readyz (all true: ready) */
  readonly ready: () => Record<string, boolean>;
  /** what /readyz says besides its checks: the process state, the reasons, the markets */
  readonly readyDetails: () => Record<string, unknown>;
  readonly endpoint: MetricsEndpoint | null;
}

/**
 * The checks of /readyz (all true: ready) from the order manager's readiness, the health model's, the
 * operator's holds in the kernel and the ledger watch. An operator's halt or pause is a deliberate stop,
 * but not ready: the bot does not quote what it should.
 */
export function readyChecks(
  r: { readonly reconciled: boolean; readonly notHalted: boolean; readonly killSwitchClear?: boolean },
  h: { readonly process: string; readonly reasons: readonly string[] },
  operator: { readonly halted: boolean; readonly paused: number },
  ledgerDown: string | null,
): Record<string, boolean> {
  return {
    reconciled: r.reconciled,
    notHalted: r.notHalted && h.process !== 'halted' && !operator.halted,
    running: h.process === 'running' || h.process === 'halted',
    marketsQuoting: !h.reasons.some((x) => x.startsWith('market ')),
    notPaused: operator.paused === 0,
    // the books and the venue's balance reads agree (within the grace)
    booksAgree: !h.reasons.some((x) => x.startsWith('books-drift')),
    ledgerWritable: ledgerDown == null,
    // a kill-switch latch from an earlier run stands in the ledger (cleared by `bookmaker ctl clear-kill`)
    ...(r.killSwitchClear === undefined ? {} : { killSwitchClear: r.killSwitchClear }),
  };
}

export async function endpointsPhase(c: StartContext, { lists }: SelectPhase, { bookLedger }: LedgerPhase, cp: CorePhase): Promise<EndpointsPhase> {
  const { cfg, metrics, log } = c;
  const { kernel: k, orderManager: om, store } = cp.core;
  const { healthModel, ledgerWatch, operator } = cp;
  const readiness = botReadiness({
    orderManager: om,
    state: () => store.state,
    clock: c.clock,
    markets: lists.live,
    staleMs: cfg.feeds.streamIdleTimeoutMs * 2,
    halted: () => k.killed !== null,
    killSwitchLatched: () => bookLedger.latch !== null,
  });
  // /readyz and bookmaker_ready: reconciled, not halted, and no market that should quote without a
  // live quote past the grace (health model); a stale feed is a named reason there, after the grace
  const ready = (): Record<string, boolean> => {
    const r = readiness();
    healthModel.evaluateOncePerTurn();
    return readyChecks(r, healthModel.readiness(), { halted: k.halted, paused: k.pausedList().length }, ledgerWatch.down);
  };
  metrics.setReadiness(ready);
  // the event loop's stalls of the last minute (the watchdog judges each: ran, or waited for a CPU)
  const stalls = c.o.watchdog ? watchStalls(c.o.watchdog, metrics, c.o.logger.child({ component: 'event-loop' }), c.clock) : null;
  if (stalls) c.life.add(() => stalls.close());
  const readyDetails = (): Record<string, unknown> => {
    const h = healthModel.readiness();
    const loop = stalls?.recent();
    // logs that cannot be written are named but fail no check: the bot quotes on (outputReasons)
    const reasons = [...operator.reasons(), ...h.reasons, ...outputReasons()];
    return { process: h.process, reasons, markets: h.markets, ...(loop ? { eventLoopStalls: loop } : {}) };
  };
  const port = c.o.metricsPort ?? cfg.metrics.port;
  let endpoint: MetricsEndpoint | null = null;
  if (c.o.watchdog) {
    // the watchdog thread owns the socket (so /healthz fails while this loop is blocked) and
    // forwards everything else here
    c.o.watchdog.serve((method, path) => respond({ registry: metrics.registry, readiness: ready, readyDetails }, method, path));
    endpoint = c.o.watchdog.metricsUrl ? { url: c.o.watchdog.metricsUrl, close: async () => undefined } : null;
  } else {
    try {
      endpoint = await startMetricsEndpoint({ registry: metrics.registry, port, host: cfg.metrics.host, readiness: ready, readyDetails });
    } catch (e) {
      const err = e as NodeJS.ErrnoException;
      if (!cfg.metrics.optional) throw new MetricsPortError(port, cfg.metrics.host, err.code ?? 'ERROR', err.message);
      log.warn({ port, err: err.message }, 'metrics endpoint could not start; continuing without it (metrics.optional: true)');
    }
  }
  if (endpoint) {
    const ep = endpoint;
    c.life.add(() => ep.close());
  }
  return { ready, readyDetails, endpoint };
}
