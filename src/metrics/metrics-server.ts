/**
 * The metrics HTTP endpoint: GET /metrics (Prometheus text), /healthz (process alive) and /readyz
 * (feeds live, orders reconciled, not halted → 200, otherwise 503 with the failing checks).
 *
 * Entry points:
 *   startMetricsEndpoint({ registry, port, host?, readiness }) → Promise<MetricsEndpoint | null>
 *     CLI semantics (docs/architecture.md#stable-interfaces): port 0 turns the endpoint off and returns null.
 *   createMetricsServer({ registry, readiness }).listen(port, host) → the raw server (tests bind
 *     port 0 to get an ephemeral port).
 * Binds 127.0.0.1 unless a host is configured. Answers carry no secrets: only metric values and
 * the names of readiness checks.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { limitEndpointServer } from './endpoint-limits.ts';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';

/** Named readiness checks; every one must be true for /readyz to answer 200. */
export type Readiness = () => Record<string, boolean>;

export interface MetricsServerOptions {
  registry: Registry;
  readiness?: Readiness;
  /** more of the /readyz body (the health model's process state, reasons and per-market states) */
  readyDetails?: () => Record<string, unknown>;
}

export interface MetricsEndpoint {
  readonly url: string;
  close(): Promise<void>;
}

function send(res: ServerResponse, status: number, type: string, body: string): void {
  res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' });
  res.end(body);
}

/** One answer of the endpoint, apart from HTTP (the watchdog thread forwards requests here). */
export interface EndpointAnswer {
  status: number;
  type: string;
  body: string;
}

/** The answer to `method path` (path without the query). */
export async function respond(opts: MetricsServerOptions, method: string, path: string): Promise<EndpointAnswer> {
  if (method !== 'GET' && method !== 'HEAD') return { status: 405, type: 'text/plain', body: 'method not allowed\n' };
  if (path === '/metrics') return { status: 200, type: opts.registry.contentType, body: await opts.registry.metrics() };
  if (path === '/healthz') return { status: 200, type: 'application/json', body: JSON.stringify({ status: 'ok' }) + '\n' };
  if (path === '/readyz') {
    const checks = opts.readiness ? opts.readiness() : {};
    const ready = Object.values(checks).every(Boolean);
    return {
      status: ready ? 200 : 503,
      type: 'application/json',
      body: JSON.stringify({ ready, checks, ...(opts.readyDetails ? opts.readyDetails() : {}) }) + '\n',
    };
  }
  return { status: 404, type: 'text/plain', body: 'not found\n' };
}

async function handle(opts: MetricsServerOptions, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const a = await respond(opts, req.method ?? 'GET', (req.url ?? '/').split('?')[0]!);
  send(res, a.status, a.type, a.body);
}

export function createMetricsServer(opts: MetricsServerOptions): Server {
  const server = createServer((req, res) => {
    handle(opts, req, res).catch(() => {
      if (!res.headersSent) send(res, 500, 'text/plain', 'metrics collection failed\n');
      else res.end();
    });
  });
  server.keepAliveTimeout = 5000;
  return limitEndpointServer(server);
}

export async function startMetricsEndpoint(opts: MetricsServerOptions & { port: number; host?: string }): Promise<MetricsEndpoint | null> {
  if (opts.port === 0) return null;
  return listen(createMetricsServer(opts), opts.port, opts.host ?? '127.0.0.1');
}

/** Listen and resolve with the URL once accepting (port 0 = ephemeral here). */
export function listen(server: Server, port: number, host = '127.0.0.1'): Promise<MetricsEndpoint> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      const a = server.address() as AddressInfo;
      const h = a.family === 'IPv6' ? `[${a.address}]` : a.address;
      resolve({
        url: `http://${h}:${a.port}`,
        close: () =>
          new Promise<void>((done) => {
            server.closeAllConnections();
            server.close(() => done());
          }),
      });
    });
  });
}
