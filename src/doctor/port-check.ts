/**
 * Whether a TCP port can be bound on a host now: bound and released at once, so the caller knows the
 * bot's own listen will not fail with EADDRINUSE (as far as anyone can know before it tries).
 */
import { createServer } from 'node:net';

export type PortState = { free: true } | { free: false; code: string };

export function probePort(port: number, host: string): Promise<PortState> {
  return new Promise((resolve) => {
    const s = createServer();
    s.once('error', (e: NodeJS.ErrnoException) => resolve({ free: false, code: e.code ?? 'error' }));
    s.listen({ port, host, exclusive: true }, () => s.close(() => resolve({ free: true })));
  });
}

/** A port state in words, for a check's detail. */
export function portProblem(code: string): string {
  if (code === 'EADDRINUSE') return 'already in use by another process';
  if (code === 'EACCES') return 'not permitted for this user (ports below 1024 need privileges)';
  if (code === 'EADDRNOTAVAIL') return 'the host address is not on this machine';
  return `cannot be bound (${code})`;
}
