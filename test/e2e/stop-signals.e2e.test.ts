/**
 * Stop signals while the bot is stopping, as an operator sends them (`bookmaker run` in a child process),
 * the stop held up by a venue that stalls (a proxy in front of the exchange stops answering new requests,
 * streams open stay open). The first SIGTERM starts the stop; the second logs what the stop waits on and does
 * not end it (the cancel is never skipped); the third ends the process at once with exit 9 and an error
 * line saying orders may rest. On the code before, the second and third were ignored and the process went on
 * waiting for the venue.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { join } from 'node:path';
import { test } from 'node:test';
import { BOT_KEY, cli, openOrders, exchangeForFile, waitFor, withTimeout, yaml, type Harness } from './harness.ts';

let h: Harness;
let file: string;

exchangeForFile({}, (x, dir) => {
  h = x;
  file = join(dir, 'bot.yaml');
  writeFileSync(file, yaml(h));
});

/** An HTTP proxy to `target` (streams included) that, once `stall()` is called, leaves every new request unanswered. */
async function stallingProxy(target: string): Promise<{ baseUrl: string; stall(): void; held: () => number; close(): Promise<void> }> {
  const to = new URL(target);
  const prefix = to.pathname.replace(/\/$/, '');
  let stalled = false;
  let held = 0;
  const sockets = new Set<Socket>();
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    if (stalled) {
      held++;
      req.resume();
      return; // never answered: the socket is destroyed at close
    }
    const path = req.url ?? '/';
    const up = request(
      {
        host: to.hostname,
        port: to.port,
        method: req.method,
        path: path.startsWith(prefix) ? path : prefix + path,
        headers: { ...req.headers, host: to.host },
      },
      (r) => {
        res.writeHead(r.statusCode ?? 502, r.headers);
        r.pipe(res);
      },
    );
    up.on('error', () => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
    res.on('close', () => up.destroy());
    req.pipe(up);
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  return {
    baseUrl: `http://127.0.0.1:${port}${prefix}`,
    stall: () => void (stalled = true),
    held: () => held,
    close() {
      for (const s of sockets) s.destroy();
      return new Promise<void>((r) => server.close(() => r()));
    },
  };
}

test('a second SIGTERM while the stop waits on a stalled venue says what it waits on; a third ends the process with exit 9', async () => {
  const proxy = await stallingProxy(h.baseUrl);
  const args = ['run', '-c', file, '--base-url', proxy.baseUrl, '--api-key', BOT_KEY, '--metrics-port', '0', '--log-level', 'info', '--summary-seconds', '0'];
  const c = cli(args, { BOOKMAKER_PRIVATE_KEY: h.bot.privateKey });
  try {
    await waitFor('the bot quotes at the venue', async () => (await openOrders(h.bot)).length >= 4, 120_000);
    proxy.stall();
    c.proc.kill('SIGTERM');
    await waitFor('the stop begins', () => /stopping: cancelling every order/.test(c.out()), 30_000);
    await waitFor('the stop waits on the venue', () => proxy.held() > 0, 30_000);
    c.proc.kill('SIGTERM');
    await waitFor('the second SIGTERM is answered in the log', () => /SIGTERM again while stopping: still /.test(c.out()), 30_000).catch((e: Error) => {
      throw new Error(`${e.message}\n${c.out().slice(-3000)}`);
    });
    const second = c
      .out()
      .split('\n')
      .find((l) => l.includes('SIGTERM again while stopping'))!;
    assert.match(second, /still [a-z].*, for [\d.]+ s \(stopping for [\d.]+ s\)/, 'it names the step and how long');
    assert.match(second, /One more SIGTERM or SIGINT ends the process at once \(exit 9\)/);
    assert.match(second, /orders\.deadManExpirySeconds/);
    assert.equal(c.proc.exitCode, null, 'the second signal does not end the stop');
    assert.ok((await openOrders(h.bot)).length > 0, 'the stalled venue still holds the orders (the stop is really held up)');
    c.proc.kill('SIGTERM');
    const code = await withTimeout(c.exit, 30_000, `no exit after the third SIGTERM:\n${c.out().slice(-3000)}`);
    assert.equal(code, 9, c.out().slice(-3000));
    assert.match(c.out(), /SIGTERM a third time: stop cut short while [^\n]*exiting now \(exit 9\)\. Orders may rest at the venue/);
  } finally {
    c.proc.kill('SIGKILL');
    await proxy.close();
  }
});
