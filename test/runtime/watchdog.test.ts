/**
 * The watchdog thread's endpoint while the main thread is blocked (the watchdog set never to fire:
 * blockedLimitMs 0). The probes are `curl` processes started before this thread blocks itself, so
 * they run while it cannot.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { test } from 'node:test';
import type { LoopStall } from '../../src/runtime/loop-stall.ts';
import { forwardedAnswer, MetricsPortError, startWatchdog } from '../../src/runtime/watchdog.ts';
import { freePort } from '../e2e/sim-process.ts';

const LOG = { level: 'silent', pretty: false, colors: false };

function curlLater(url: string, delaySeconds: number): Promise<string> {
  const p = spawn('sh', ['-c', `sleep ${delaySeconds}; curl -s -m 10 -w ' %{http_code}' ${url}`], { stdio: ['ignore', 'pipe', 'ignore'] });
  let out = '';
  p.stdout.on('data', (b: Buffer) => (out += b.toString()));
  return new Promise((resolve) => p.on('exit', () => resolve(out)));
}

function blockFor(ms: number): void {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    // the main thread is busy: no timer, no I/O, no message from the watchdog is handled
  }
}

test('blocked main thread: /healthz 503 from the heartbeat, /metrics 503 after the forward timeout; both 200 again once it runs', async () => {
  const port = await freePort();
  const wd = await startWatchdog({ blockedLimitMs: 0, healthzLimitMs: 500, metrics: { port, host: '127.0.0.1' }, log: LOG, forwardTimeoutMs: 1_000 });
  try {
    const rendered: string[] = [];
    wd.serve(async (_m, path) => {
      rendered.push(path);
      return { status: 200, type: 'text/plain', body: `answered ${path}` };
    });
    const base = `http://127.0.0.1:${port}`;
    const healthy = await curlLater(`${base}/healthz`, 0);
    assert.match(healthy, /"status":"ok".* 200$/s);
    const stalls: LoopStall[] = [];
    wd.onStall((s) => stalls.push(s));
    const h = curlLater(`${base}/healthz`, 1.5);
    const m = curlLater(`${base}/metrics`, 1.5);
    blockFor(6_000);
    // while it lasts, the answers say what the main thread does: it runs (or, on a crowded machine, waits for a CPU)
    const hz = await h;
    assert.match(hz, /event loop blocked.* 503$/s);
    assert.match(hz, /"cause":"(busy|cpu-starved)".*"why":"the main thread ran [\d.]+ s and waited [\d.]+ s for a CPU/s);
    assert.match(await m, /the main thread did not answer.*"cause":"(busy|cpu-starved)".* 503$/s);
    // once the loop turns again, the stall is reported to the main thread, once
    for (let i = 0; i < 60 && stalls.length === 0; i++) await new Promise((r) => setTimeout(r, 50));
    assert.equal(stalls.length, 1, JSON.stringify(stalls));
    await new Promise((r) => setTimeout(r, 50));
    assert.deepEqual(rendered, [], 'the scrape answered 503 during the block is not rendered after it (old code: rendered, for nobody)');
    const st = stalls[0]!;
    assert.ok(st.seconds >= 5.9 && st.seconds < 30, `${st.seconds} s`);
    if (st.ranSeconds !== null) {
      assert.ok(st.cause === 'busy' || st.cause === 'cpu-starved', st.cause);
      assert.ok(st.ranSeconds > 0 && st.ranSeconds + st.waitedSeconds! <= st.seconds, JSON.stringify(st));
    }
    assert.match(await curlLater(`${base}/metrics`, 0), /answered \/metrics 200$/);
    assert.deepEqual(rendered, ['/metrics']);
    assert.match(await curlLater(`${base}/healthz`, 0), / 200$/);
    assert.equal(stalls.length, 1, 'a loop that turns is no stall');
  } finally {
    await wd.close();
  }
});

test('a busy metrics port is a MetricsPortError naming the port (a config error: exit 2)', async () => {
  const busy = createServer();
  await new Promise<void>((r) => busy.listen(0, '127.0.0.1', r));
  const port = (busy.address() as { port: number }).port;
  try {
    await assert.rejects(startWatchdog({ blockedLimitMs: 5_000, healthzLimitMs: 2_000, metrics: { port, host: '127.0.0.1' }, log: LOG }), (e: unknown) => {
      assert.ok(e instanceof MetricsPortError);
      assert.equal(e.code, 'CONFIG');
      assert.match(e.message, new RegExp(`metrics port ${port} on 127.0.0.1 cannot be bound \\(EADDRINUSE`));
      return true;
    });
  } finally {
    busy.close();
  }
});

test('metrics off: the watchdog still runs, no socket', async () => {
  const wd = await startWatchdog({ blockedLimitMs: 5_000, healthzLimitMs: 2_000, metrics: null, log: LOG });
  assert.equal(wd.metricsUrl, null);
  await wd.close();
});

test('a forwarded request past its deadline is not answered (the watchdog thread answered 503 already); one in time is', async () => {
  let calls = 0;
  const answer = async () => {
    calls++;
    return { status: 200, type: 'text/plain', body: 'ok' };
  };
  assert.equal(forwardedAnswer({ method: 'GET', path: '/metrics', expiresAt: 1_000 }, answer, 1_001), null);
  assert.equal(calls, 0);
  assert.equal((await forwardedAnswer({ method: 'GET', path: '/metrics', expiresAt: 1_000 }, answer, 1_000))!.status, 200);
  assert.equal((await forwardedAnswer({ method: 'GET', path: '/readyz', expiresAt: 1_000 }, null, 10))!.status, 503, 'not serving yet: starting');
  assert.equal(calls, 1);
});
