/** Network helpers for tests and benches. */
import { connect, createServer, type Socket } from 'node:net';

/** A free TCP port on 127.0.0.1 (bound and released). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/** A client held open by a test (a stalled one); `closed` turns true when its socket closes. */
export interface HeldClient {
  readonly socket: Socket;
  closed: boolean;
}

/**
 * Open a connection, send `send` (nothing when empty), and either read what comes (`read`: a close is
 * then seen at once) or pause (a client that never reads its answers). Resolves once connected or closed.
 */
export async function openHeld(port: number, send: string, read: boolean): Promise<HeldClient> {
  const socket = connect(port, '127.0.0.1');
  const h: HeldClient = { socket, closed: false };
  socket.on('close', () => (h.closed = true));
  socket.on('error', () => undefined);
  await new Promise<void>((r) => {
    socket.once('connect', () => r());
    socket.once('close', () => r());
  });
  if (send) socket.write(send);
  if (read) socket.resume();
  else socket.pause();
  return h;
}
