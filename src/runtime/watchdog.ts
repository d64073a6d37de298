/**
 * The event-loop watchdog, main-thread side (the thread itself is watchdog-worker.ts).
 *
 *   const wd = await startWatchdog({ blockedLimitMs: 5_000, healthzLimitMs: 2_000, metrics: { port, host }, log });
 *       // rejects with MetricsPortError when the metrics port cannot be bound (exit 2)
 *   wd.metricsUrl                       // 'http://127.0.0.1:9464' or null (metrics off)
 *   wd.serve(answer)                    // the main thread's answer to forwarded /metrics, /readyz…
 *   wd.arm({ kind: 'live', baseUrl, chain, apiKey, privateKey, batchLimit })   // or embedded / paper
 *   wd.onStall((s) => …)                // the loop turned again after a stall of ≥ stallReportMs (loop-stall.ts)
 *   await wd.close()
 *
 * The main thread bumps a SharedArrayBuffer counter every `heartbeatMs` (an unref'd timer); the
 * watchdog thread reads it with Atomics. A loop blocked longer than `blockedLimitMs` makes the
 * watchdog cancel every open order of the wallet with its own client and signer, log fatal and end
 * the process with exit code 5 (EXIT_WATCHDOG). /healthz is answered by the watchdog thread from the
 * heartbeat, so it fails (503) while the loop is blocked; until `serve` is called (start-up) the
 * forwarded paths answer 503 "starting". Every stall the watchdog sees (the fatal one, one still going on
 * that /healthz reports, one the loop came back from) is judged by one function from the main thread's
 * scheduler figures: it ran, or it waited for a CPU (src/runtime/loop-stall.ts).
 */
import { Worker } from 'node:worker_threads';
import { COMPILED } from '../core/source-ext.ts';
import { ConfigError } from '../model/errors.ts';
import type { EndpointAnswer } from '../metrics/metrics-server.ts';
import type { FromWorker, ToWorker, WatchdogVenue, WatchdogWorkerData } from './watchdog-worker.ts';
import type { Bytes32 } from '../model/order.ts';
import type { LoopStall } from './loop-stall.ts';

export { EXIT_WATCHDOG } from './watchdog-worker.ts';
export type { WatchdogVenue } from './watchdog-worker.ts';

export interface WatchdogOptions {
  /** 0 = never fire (the thread still serves /healthz from the heartbeat) */
  blockedLimitMs: number;
  healthzLimitMs: number;
  /** null = no metrics endpoint */
  metrics: { port: number; host: string } | null;
  log: { level: string; pretty: boolean; colors: boolean };
  heartbeatMs?: number;
  forwardTimeoutMs?: number;
  /** a loop that turns again after a stall at least this long is told to onStall listeners (default 1 000) */
  stallReportMs?: number;
}

/** A loop that did not turn for at least this long is reported once it turns again. */
export const STALL_REPORT_MS = 1_000;

export interface Watchdog {
  readonly metricsUrl: string | null;
  serve(answer: (method: string, path: string) => Promise<EndpointAnswer>): void;
  arm(venue: WatchdogVenue): void;
  /** limit the cancel-all to these markets (orders.reconcileScope: markets, a wallet shared with others) */
  scope(markets: readonly Bytes32[]): void;
  /** called on the main thread once the loop turns again after a stall (what it was: loop-stall.ts) */
  onStall(listener: (s: LoopStall) => void): void;
  /**
   * Never fire from now on (the stop's cancel-all left nothing open): a loop blocked past the limit while the ledger
   * writes its last rows is no reason to end the process with exit 5. /healthz still answers. Resolves once the
   * thread has it (or after a second).
   */
  standDown(): Promise<void>;
  close(): Promise<void>;
}

/** The metrics port could not be bound: a start-up error (CONFIG → exit 2) unless metrics.optional. */
export class MetricsPortError extends ConfigError {
  readonly port: number;
  constructor(port: number, host: string, code: string, detail: string) {
    super(
      `metrics port ${port} on ${host} cannot be bound (${code}: ${detail}); free it, pick another with --metrics-port or metrics.port (0 = off), or set metrics.optional: true to run without metrics`,
    );
    this.port = port;
  }
}

/**
 * The main thread's answer to a request the watchdog thread forwarded, or null when its answer is no
 * longer awaited: the thread answered 503 once `forwardTimeoutMs` passed. After a stall of the loop the
 * scrapes that came during it wait in the port; rendering each of them (thousands of series at 2,000
 * markets) would only lengthen the catch-up, so they are dropped.
 */
export function forwardedAnswer(
  m: { readonly method: string; readonly path: string; readonly expiresAt?: number },
  answer: ((method: string, path: string) => Promise<EndpointAnswer>) | null,
  now: number,
): Promise<EndpointAnswer> | null {
  if (m.expiresAt !== undefined && now > m.expiresAt) return null;
  if (!answer) return Promise.resolve({ status: 503, type: 'application/json', body: JSON.stringify({ ready: false, starting: true }) + '\n' });
  return answer(m.method, m.path);
}

export async function startWatchdog(o: WatchdogOptions): Promise<Watchdog> {
  const heartbeat = new SharedArrayBuffer(4);
  const beat = new Int32Array(heartbeat);
  const heartbeatMs = o.heartbeatMs ?? 100;
  const data: WatchdogWorkerData = {
    heartbeat,
    blockedLimitMs: o.blockedLimitMs,
    healthzLimitMs: o.healthzLimitMs,
    checkMs: Math.max(20, Math.min(250, Math.floor(heartbeatMs))),
    forwardTimeoutMs: o.forwardTimeoutMs ?? 3_000,
    stallReportMs: o.stallReportMs ?? STALL_REPORT_MS,
    metrics: o.metrics && o.metrics.port !== 0 ? o.metrics : null,
    log: o.log,
  };
  // from sources the thread needs tsx registered in it (the bootstrap); the build runs as is
  const worker = new Worker(new URL(COMPILED ? './watchdog-worker.js' : './watchdog-worker-bootstrap.mjs', import.meta.url), {
    workerData: data,
    stdout: false,
    stderr: false,
  });
  const tick = setInterval(() => Atomics.add(beat, 0, 1), heartbeatMs);
  tick.unref();
  let answer: ((method: string, path: string) => Promise<EndpointAnswer>) | null = null;
  let closed: Promise<void> | null = null;
  const post = (m: ToWorker): void => worker.postMessage(m);

  const url = await new Promise<string | null>((resolve, reject) => {
    const onMsg = (m: FromWorker): void => {
      if (m.type === 'listening') {
        worker.off('message', onMsg);
        worker.off('error', onErr);
        resolve(m.url);
      } else if (m.type === 'listen-error') {
        worker.off('message', onMsg);
        worker.off('error', onErr);
        void worker.terminate();
        clearInterval(tick);
        reject(new MetricsPortError(o.metrics!.port, o.metrics!.host, m.code, m.message));
      }
    };
    const onErr = (e: Error): void => {
      clearInterval(tick);
      reject(e);
    };
    worker.on('message', onMsg);
    worker.once('error', onErr);
  });

  const stallListeners: ((s: LoopStall) => void)[] = [];
  worker.on('message', (m: FromWorker) => {
    if (m.type === 'stall') {
      for (const l of stallListeners) l(m.stall);
      return;
    }
    if (m.type !== 'req') return;
    const reply = (a: EndpointAnswer): void => post({ type: 'res', id: m.id, status: a.status, contentType: a.type, body: a.body });
    const a = forwardedAnswer(m, answer, Date.now());
    if (a) a.then(reply, () => reply({ status: 500, type: 'text/plain', body: 'metrics collection failed\n' }));
  });
  // the watchdog must not keep a finished process alive
  worker.unref();

  return {
    metricsUrl: url,
    serve(fn) {
      answer = fn;
    },
    arm(venue) {
      post({ type: 'arm', venue });
    },
    scope(markets) {
      post({ type: 'scope', markets: [...markets] });
    },
    onStall(listener) {
      stallListeners.push(listener);
    },
    standDown() {
      if (closed) return Promise.resolve();
      return new Promise<void>((resolve) => {
        const t = setTimeout(done, 1_000);
        function done(): void {
          clearTimeout(t);
          worker.off('message', onMsg);
          worker.off('exit', done);
          resolve();
        }
        const onMsg = (m: FromWorker): void => {
          if (m.type === 'stood-down') done();
        };
        worker.on('message', onMsg);
        worker.once('exit', done);
        post({ type: 'stand-down' });
      });
    },
    close() {
      if (closed) return closed;
      clearInterval(tick);
      closed = new Promise<void>((resolve) => {
        const t = setTimeout(() => void worker.terminate().then(() => resolve()), 2_000);
        worker.on('message', (m: FromWorker) => {
          if (m.type !== 'closed') return;
          clearTimeout(t);
          void worker.terminate().then(() => resolve());
        });
        worker.once('exit', () => {
          clearTimeout(t);
          resolve();
        });
        post({ type: 'close' });
      });
      return closed;
    },
  };
}
