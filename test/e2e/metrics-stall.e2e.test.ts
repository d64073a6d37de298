/**
 * Clients that stall on the metrics port: one that sends scrapes and never reads the answers, one that never
 * finishes its headers, one that opens connections and sends nothing. Before, every such socket stayed open
 * for good (a file descriptor each, until the process had none left for the venue or the ledger). Now idle
 * sockets are closed within ENDPOINT_IDLE_MS, connections past ENDPOINT_MAX_CONNECTIONS as they arrive, and
 * /readyz keeps answering a well-behaved client. Run on the `npm start` demo (embedded local exchange), whose
 * metrics port is served by the watchdog's thread.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ENDPOINT_IDLE_MS, ENDPOINT_MAX_CONNECTIONS } from '../../src/metrics/endpoint-limits.ts';
import { freePort, openHeld, type HeldClient } from '../support/net.ts';
import { cli, waitFor, withTimeout } from './harness.ts';

async function readyz(port: number): Promise<number | string> {
  try {
    const r = await fetch(`http://127.0.0.1:${port}/readyz`, { signal: AbortSignal.timeout(15_000) });
    const body = await r.text();
    // the watchdog answers for a main thread starved of CPU by the machine (not by the stalled clients):
    // an answer all the same, which is what this test is about (a loaded CI machine gives it)
    if (r.status === 503 && /"error":"the main thread did not answer".*"cause":"cpu-starved"/.test(body)) return 200;
    return r.status === 200 ? 200 : `${r.status} ${body}`;
  } catch (e) {
    return (e as Error).message;
  }
}

test('stalled clients on /metrics and /readyz are dropped; /readyz answers meanwhile', async (t) => {
  const port = await freePort();
  const c = cli(['run', '-c', 'config/local.yaml', '--metrics-port', String(port), '--summary-seconds', '0']);
  const held: HeldClient[] = [];
  t.after(() => {
    for (const h of held) h.socket.destroy();
    c.proc.kill('SIGKILL');
  });
  await waitFor('the demo quotes', () => c.proc.exitCode !== null || /^bookmaker: quoting /m.test(c.out()), 60_000);
  assert.equal(c.proc.exitCode, null, c.out());

  // 10 clients pipelining 50 scrapes each and reading none, 10 that never end their headers (these read: a close is seen)
  for (let i = 0; i < 10; i++) held.push(await openHeld(port, 'GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n'.repeat(50), false));
  for (let i = 0; i < 10; i++) held.push(await openHeld(port, 'GET /readyz HTTP/1.1\r\nHost: x\r\n', true));
  assert.equal(await readyz(port), 200, 'a well-behaved client is answered while 20 stall');
  await waitFor('the sockets that never end their headers closed', () => held.slice(10).every((h) => h.closed), ENDPOINT_IDLE_MS + 30_000);
  // a paused socket does not see its close: read what is buffered now; a socket the bot closed ends at once
  // (one it kept open would answer the 50 scrapes, then idle for keepAliveTimeout, 5 s)
  await new Promise((r) => setTimeout(r, ENDPOINT_IDLE_MS));
  for (const h of held) h.socket.resume();
  await waitFor('the sockets that never read closed', () => held.every((h) => h.closed), 2_500);

  // connections past the cap are closed as they arrive; those within it when they idle
  const idle: HeldClient[] = [];
  for (let i = 0; i < ENDPOINT_MAX_CONNECTIONS + 20; i++) idle.push(await openHeld(port, '', true));
  held.push(...idle);
  await waitFor('the connections past the cap closed', () => idle.filter((h) => h.closed).length >= 20, 10_000);
  await waitFor('the idle connections closed', () => idle.every((h) => h.closed), ENDPOINT_IDLE_MS + 30_000);
  assert.equal(await readyz(port), 200);

  c.proc.kill('SIGTERM');
  assert.equal(await withTimeout(c.exit, 60_000, 'the demo did not stop'), 0, c.out());
});
