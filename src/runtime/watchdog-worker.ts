/**
 * The watchdog thread (started by watchdog.ts through watchdog-worker-bootstrap.mjs). It needs
 * nothing from the main thread's event loop:
 * - it reads the main loop's heartbeat (a SharedArrayBuffer counter the main thread bumps on a
 *   timer) with Atomics every `checkMs`;
 * - it owns the metrics socket: /healthz is answered HERE from the heartbeat (503 once it is older
 *   than `healthzLimitMs`), /metrics, /readyz and anything else are forwarded to the main thread
 *   over the worker port and answered 503 when the main thread does not answer in `forwardTimeoutMs`;
 * - when the heartbeat is older than `blockedLimitMs` it logs fatal (written straight to fd 2 with
 *   fs.writeSync: a worker's process.stderr is relayed by the main thread, which is blocked),
 *   cancels every open order of the bot's wallet at the venue with its OWN HTTP client and signer,
 *   and ends the process with exit code 5 (through the inspector's Runtime.evaluate, which V8
 *   runs as an interrupt even inside a synchronous endless loop; SIGKILL if that fails), without
 *   the inspector's "Waiting for the debugger to disconnect..." (EXIT_EXPRESSION).
 * The key material arrives in one `arm` message and lives only in this thread's memory; it is
 * registered with the logger's scrubber and never logged.
 */
import { writeSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { Session } from 'node:inspector';
import type { AddressInfo } from 'node:net';
import { availableParallelism, loadavg } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { createLogger, registerSecret, type Logger } from '../core/logger.ts';
import { limitEndpointServer } from '../metrics/endpoint-limits.ts';
import type { ChainConfig } from '../exchange/chains.ts';
import type { Bytes32 } from '../model/order.ts';
import { describeStall, judgeStall, mainThreadSched, stallFields, type LoopStall, type ThreadSched } from './loop-stall.ts';

export const EXIT_WATCHDOG = 5;

/**
 * What the main isolate runs to end the process (as an inspector interrupt: see exitProcess). Node
 * prints "Waiting for the debugger to disconnect..." on stderr at exit while a session connected with
 * connectToMainThread is open, and this session cannot be closed first: the exit runs inside its own
 * message dispatch, which is not re-entered, so the worker's disconnect is only handled after it. So the
 * last 'exit' listener (after the bot's own, which still write) points fd 2 at /dev/null, and the
 * operator sees the watchdog's lines only. (process.getBuiltinModule: Node ≥ 20.16; without it the
 * process still exits 5, with the inspector's line.)
 */
export const EXIT_EXPRESSION = [
  `process.once('exit', () => {`,
  `  try { const fs = process.getBuiltinModule?.('node:fs'); if (fs) { fs.closeSync(2); fs.openSync('/dev/null', 'w'); } } catch {}`,
  `});`,
  `process.exit(${EXIT_WATCHDOG});`,
].join(' ');

export interface WatchdogWorkerData {
  heartbeat: SharedArrayBuffer;
  blockedLimitMs: number;
  healthzLimitMs: number;
  checkMs: number;
  forwardTimeoutMs: number;
  /** a loop that turns again after at least this long is reported to the main thread (a `stall` message) */
  stallReportMs: number;
  metrics: { port: number; host: string } | null;
  log: { level: string; pretty: boolean; colors: boolean };
}

/** What the watchdog may cancel with, sent by the runtime once the venue is known. */
export type WatchdogVenue =
  | { kind: 'live'; baseUrl: string; chain: ChainConfig; apiKey: string; privateKey: string; batchLimit: number }
  | { kind: 'embedded' }
  | { kind: 'paper' };

export type ToWorker =
  | { type: 'arm'; venue: WatchdogVenue }
  /** orders.reconcileScope markets: cancel only these markets' orders (lower-case ids); absent: the whole wallet */
  | { type: 'scope'; markets: Bytes32[] }
  | { type: 'res'; id: number; status: number; contentType: string; body: string }
  /** the stop cancelled every order: a blocked loop from now on (the ledger's last writes, the report) is no reason to fire */
  | { type: 'stand-down' }
  | { type: 'close' };

export type FromWorker =
  | { type: 'listening'; url: string | null }
  | { type: 'listen-error'; code: string; message: string }
  /** `expiresAt`: Date.now() past which the answer is no longer awaited (answered 503 here already) */
  | { type: 'req'; id: number; method: string; path: string; expiresAt: number }
  /** the loop turned again after a stall of at least `stallReportMs` (src/runtime/loop-stall.ts) */
  | { type: 'stall'; stall: LoopStall }
  | { type: 'stood-down' }
  | { type: 'closed' };

function run(d: WatchdogWorkerData): void {
  const port = parentPort!;
  const beat = new Int32Array(d.heartbeat);
  // a line that cannot be written (stderr on a full disk: ENOSPC) is dropped: a throw here would end fire() before its cancel-all
  const fd2 = {
    write: (s: string) => {
      try {
        writeSync(2, s);
      } catch {
        // dropped: the cancel-all and the exit matter more than the line
      }
    },
  };
  const log: Logger = createLogger({ level: d.log.level, pretty: d.log.pretty, colors: d.log.colors, destination: fd2 }).child({ component: 'watchdog' });
  let venue: WatchdogVenue | null = null;
  let scope: Set<Bytes32> | null = null;
  let last = Atomics.load(beat, 0);
  let lastChange = performance.now();
  // the main thread's scheduler figures at the last heartbeat seen: what it did since is the stall's
  let schedAtBeat: ThreadSched | null = mainThreadSched();
  let fired = false;
  let stoodDown = false;
  let server: Server | null = null;
  const pending = new Map<number, (a: { status: number; contentType: string; body: string } | null) => void>();
  let nextId = 1;

  /** reads the heartbeat now: true when it moved since the last read */
  const observe = (): boolean => {
    const v = Atomics.load(beat, 0);
    if (v === last) return false;
    const now = performance.now();
    const sched = mainThreadSched();
    const wall = now - lastChange;
    // a late heartbeat: the loop turned again after a stall, judged from the figures at its start
    if (wall >= d.stallReportMs && !fired)
      port.postMessage({ type: 'stall', stall: judgeStall(wall, schedAtBeat, sched, loadavg()[0]!, availableParallelism()) } satisfies FromWorker);
    last = v;
    lastChange = now;
    schedAtBeat = sched;
    return true;
  };
  const age = (): number => performance.now() - lastChange;
  /** the stall going on now (the heartbeat's age), judged so far */
  const stallNow = (): LoopStall => judgeStall(age(), schedAtBeat, mainThreadSched(), loadavg()[0]!, availableParallelism());

  const check = (): void => {
    if (observe()) return;
    if (!fired && !stoodDown && d.blockedLimitMs > 0 && age() > d.blockedLimitMs) void fire();
  };
  const timer = setInterval(check, d.checkMs);

  async function fire(): Promise<void> {
    fired = true;
    const stall = stallNow();
    const why = describeStall(stall);
    log.fatal(
      { blockedSeconds: stall.seconds, limitSeconds: d.blockedLimitMs / 1000, exitCode: EXIT_WATCHDOG, ...stallFields(stall), why },
      'event loop blocked: the watchdog cancels every open order and ends the process',
    );
    try {
      await cancelEverything();
    } catch (e) {
      log.error({ err: (e as Error).message }, 'watchdog: cancel-all failed');
    }
    // the last line says why, after the cancel-all's own lines
    log.fatal(
      { exitCode: EXIT_WATCHDOG, blockedSeconds: stall.seconds, limitSeconds: d.blockedLimitMs / 1000, cause: stall.cause },
      `watchdog: exit ${EXIT_WATCHDOG}: the event loop did not turn for ${stall.seconds} s (limit ${d.blockedLimitMs / 1000} s); ${why}`,
    );
    exitProcess();
  }

  async function cancelEverything(): Promise<void> {
    if (venue === null) {
      log.error('watchdog: no venue armed yet (still starting up): nothing of this run was placed; orders of an earlier run expire by their dead-man expiry');
      return;
    }
    if (venue.kind === 'paper') {
      log.info('watchdog: paper mode, no order is at a venue');
      return;
    }
    if (venue.kind === 'embedded') {
      log.error('watchdog: the embedded local exchange runs inside this blocked process and cannot be reached; its orders end with the process');
      return;
    }
    const v = venue;
    const { createVenueClient } = await import('../exchange/venue-client.ts');
    const { createSigner } = await import('../exchange/signing/signer.ts');
    const client = createVenueClient({ baseUrl: v.baseUrl, chain: v.chain, apiKey: v.apiKey, retry: { maxAttempts: 2, maxTotalMs: 3_000 }, timeoutMs: 3_000 });
    const signer = createSigner({ privateKey: v.privateKey, chain: v.chain });
    let cancelled = 0;
    let remaining = -1;
    try {
      for (let round = 1; round <= 3; round++) {
        const open: Bytes32[] = [];
        for await (const o of client.orders.iterate({ trader: signer.address, status: ['open'], limit: 100 })) {
          if (o.status === 'open' && (scope === null || scope.has(o.marketId))) open.push(o.nonce);
        }
        remaining = open.length;
        if (open.length === 0) break;
        for (let i = 0; i < open.length; i += v.batchLimit) {
          const res = await client.orders.bulkCancel(open.slice(i, i + v.batchLimit).map((n) => signer.signCancel(n)));
          cancelled += res.results.filter((r) => r.ok).length;
        }
      }
    } finally {
      await client.close().catch(() => undefined);
    }
    if (remaining === 0)
      log.warn({ cancelled, scope: scope === null ? 'wallet' : `${scope.size} markets` }, 'watchdog: no order of the bot left open at the venue');
    else log.error({ cancelled, remaining }, 'watchdog: orders may remain open at the venue (their dead-man expiry ends them)');
  }

  function exitProcess(): void {
    // process.exit in a worker ends only the worker: ask the main isolate itself, as an interrupt
    const kill = setTimeout(() => process.kill(process.pid, 'SIGKILL'), 3_000);
    try {
      const s = new Session();
      s.connectToMainThread();
      s.post('Runtime.evaluate', { expression: EXIT_EXPRESSION });
    } catch (e) {
      log.error({ err: (e as Error).message }, 'watchdog: could not reach the main thread; killing the process');
      clearTimeout(kill);
      process.kill(process.pid, 'SIGKILL');
    }
  }

  const json = (o: unknown): string => JSON.stringify(o) + '\n';
  function forward(method: string, path: string): Promise<{ status: number; contentType: string; body: string } | null> {
    const id = nextId++;
    return new Promise((resolve) => {
      const t = setTimeout(() => {
        pending.delete(id);
        resolve(null);
      }, d.forwardTimeoutMs);
      pending.set(id, (a) => {
        clearTimeout(t);
        pending.delete(id);
        resolve(a);
      });
      port.postMessage({ type: 'req', id, method, path, expiresAt: Date.now() + d.forwardTimeoutMs } satisfies FromWorker);
    });
  }

  if (d.metrics) {
    server = createServer((req, res) => {
      const path = (req.url ?? '/').split('?')[0]!;
      const send = (status: number, type: string, body: string): void => {
        res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' });
        res.end(body);
      };
      if (path === '/healthz' && (req.method === 'GET' || req.method === 'HEAD')) {
        observe(); // a loop that runs again is healthy at once, not at the next check
        const a = age();
        const ok = a <= d.healthzLimitMs;
        if (ok) send(200, 'application/json', json({ status: 'ok' }));
        else {
          const s = stallNow();
          send(
            503,
            'application/json',
            json({ status: 'event loop blocked', heartbeatAgeSeconds: Math.round(a) / 1000, ...stallFields(s), why: describeStall(s) }),
          );
        }
        return;
      }
      void forward(req.method ?? 'GET', path).then((a) => {
        if (a) send(a.status, a.contentType, a.body);
        else {
          const s = stallNow();
          send(
            503,
            'application/json',
            json({ error: 'the main thread did not answer', heartbeatAgeSeconds: Math.round(age()) / 1000, ...stallFields(s), why: describeStall(s) }),
          );
        }
      });
    });
    server.keepAliveTimeout = 5_000;
    // a stalled or flooding client: idle sockets closed, connections capped (src/metrics/endpoint-limits.ts)
    limitEndpointServer(server);
    server.once('error', (e: NodeJS.ErrnoException) =>
      port.postMessage({ type: 'listen-error', code: e.code ?? 'ERROR', message: e.message } satisfies FromWorker),
    );
    server.listen(d.metrics.port, d.metrics.host, () => {
      const a = server!.address() as AddressInfo;
      const h = a.family === 'IPv6' ? `[${a.address}]` : a.address;
      port.postMessage({ type: 'listening', url: `http://${h}:${a.port}` } satisfies FromWorker);
    });
  } else {
    port.postMessage({ type: 'listening', url: null } satisfies FromWorker);
  }

  port.on('message', (m: ToWorker) => {
    if (m.type === 'res') pending.get(m.id)?.({ status: m.status, contentType: m.contentType, body: m.body });
    else if (m.type === 'scope') scope = new Set(m.markets);
    else if (m.type === 'stand-down') {
      stoodDown = true;
      port.postMessage({ type: 'stood-down' } satisfies FromWorker);
    } else if (m.type === 'arm') {
      venue = m.venue;
      if (m.venue.kind === 'live') {
        registerSecret(m.venue.privateKey);
        registerSecret(m.venue.apiKey);
        // load (and compile) the client and signer now, while nothing is wrong: firing should only send
        void import('../exchange/venue-client.ts').catch(() => undefined);
        void import('../exchange/signing/signer.ts').catch(() => undefined);
      }
    } else if (m.type === 'close') {
      clearInterval(timer);
      const done = (): void => {
        port.postMessage({ type: 'closed' } satisfies FromWorker);
        port.close();
      };
      if (server) {
        server.closeAllConnections();
        server.close(done);
      } else done();
    }
  });
}

if (parentPort && workerData && (workerData as { heartbeat?: unknown }).heartbeat instanceof SharedArrayBuffer) run(workerData as WatchdogWorkerData);
