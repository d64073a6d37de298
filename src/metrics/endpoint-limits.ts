/**
 * Limits of the metrics port's HTTP server (/metrics, /healthz, /readyz), wherever it runs (the watchdog's
 * thread, src/runtime/watchdog-worker.ts, or the main thread, src/metrics/metrics-server.ts), so a client
 * that stalls or floods costs neither file descriptors nor the quoting loop's time:
 * - a connection that neither sends nor reads for ENDPOINT_IDLE_MS is closed (a client that sent a request
 *   and never reads the answer, one that never finishes its headers): before, such a socket stayed open for
 *   good, one file descriptor each, until the process ran out of them (and of venue connections);
 * - at most ENDPOINT_MAX_CONNECTIONS at once: more are closed as they arrive (a scraper and a few probes
 *   need a handful);
 * - a request's headers within 5 s, the whole request within 10 s.
 */
import type { Server } from 'node:http';

export const ENDPOINT_MAX_CONNECTIONS = 64;
export const ENDPOINT_IDLE_MS = 10_000;

export function limitEndpointServer(server: Server, idleMs = ENDPOINT_IDLE_MS): Server {
  server.maxConnections = ENDPOINT_MAX_CONNECTIONS;
  server.headersTimeout = Math.min(5_000, idleMs);
  server.requestTimeout = Math.min(10_000, idleMs);
  server.setTimeout(idleMs, (socket) => socket.destroy());
  return server;
}
