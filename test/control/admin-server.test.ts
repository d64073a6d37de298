/** The admin endpoint: token, methods, bodies, and what reaches the controls. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { request } from 'undici';
import { silentLogger } from '../../src/core/logger.ts';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { Registry } from 'prom-client';
import { signRequest } from '../../src/control/admin-auth.ts';
import { registerControlMetrics } from '../../src/control/control-metrics.ts';
import { AdminPortError, DeferredControls, startAdminEndpoint, type Controls } from '../../src/control/admin-server.ts';

const TOKEN = 'unit-admin-token-0123';

function fakeControls(calls: string[]): Controls {
  const ok = (what: string) => {
    calls.push(what);
    return { status: 200, body: { ok: what } };
  };
  return {
    status: () => ({ latched: false }),
    clearKill: (reason) => ok(`clear-kill:${reason}`),
    pause: (m, r) => ok(`pause:${m}:${r}`),
    resume: (m, r) => ok(`resume:${m}:${r}`),
    halt: (r) => ok(`halt:${r}`),
    reload: (r) => ok(`reload:${r}`),
  };
}

test('admin endpoint: 127.0.0.1 only, bearer token, POST bodies checked before anything runs', async () => {
  const calls: string[] = [];
  const ep = await startAdminEndpoint({ port: 0, token: TOKEN, controls: fakeControls(calls), logger: silentLogger });
  const call = async (method: 'GET' | 'POST', path: string, body?: string, token = TOKEN) => {
    const r = await request(`${ep.url}${path}`, {
      method,
      headers: token ? { authorization: `Bearer ${token}` } : {},
      ...(body !== undefined ? { body } : {}),
    });
    return { status: r.statusCode, text: await r.body.text() };
  };
  try {
    assert.match(ep.url, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.equal((await call('POST', '/admin/halt', '{}', '')).status, 401);
    assert.equal((await call('POST', '/admin/halt', '{}', 'wrong')).status, 401);
    assert.equal(ep.refused(), 2, 'refused requests are counted');
    const registry = new Registry();
    registerControlMetrics(registry, { halted: false }, { pauses: () => [] }, 'bookmaker_', () => ep.refused());
    assert.match(await registry.metrics(), /^bookmaker_admin_requests_refused_total 2$/m);
    assert.equal((await call('GET', '/admin/status')).text.trim(), '{"latched":false}');
    assert.equal((await call('GET', '/admin/halt')).status, 405);
    assert.equal((await call('POST', '/admin/status')).status, 405);
    assert.equal((await call('POST', '/admin/nope', '{}')).status, 404);
    assert.equal((await call('POST', '/admin/pause', 'not json')).status, 400);
    assert.equal((await call('POST', '/admin/pause', '[1]')).status, 400);
    assert.equal((await call('POST', '/admin/pause', JSON.stringify({ market: 7 }))).status, 400);
    assert.equal((await call('POST', '/admin/pause', 'x'.repeat(20_000))).status, 400);
    const notAnId = await call('POST', '/admin/pause', JSON.stringify({ market: '0xabc' }));
    assert.equal(notAnId.status, 400);
    assert.match(notAnId.text, /market: expected a 0x market id \(64 hex digits\)/);
    const noReason = await call('POST', '/admin/clear-kill', '{}');
    assert.equal(noReason.status, 400);
    assert.match(noReason.text, /reason: required/);
    assert.deepEqual(calls, [], 'nothing refused reached the controls');
    assert.equal((await call('POST', '/admin/clear-kill', JSON.stringify({ reason: 'ok' }))).status, 200);
    // the id as the operator typed it reaches the controls in its one form (lower-case hex)
    assert.equal((await call('POST', '/admin/pause', JSON.stringify({ market: `0x${'AbC1'.repeat(16)}`, reason: 'news' }))).status, 200);
    assert.equal((await call('POST', '/admin/resume')).status, 200);
    assert.equal((await call('POST', '/admin/halt', JSON.stringify({ reason: 'stop' }))).status, 200);
    assert.equal((await call('POST', '/admin/reload', '')).status, 200);
    assert.deepEqual(calls, ['clear-kill:ok', `pause:0x${'abc1'.repeat(16)}:news`, 'resume:null:null', 'halt:stop', 'reload:null']);
  } finally {
    await ep.close();
  }
});

test('a token shorter than 16 characters is refused; a port held by another process stops the start, naming it', async () => {
  await assert.rejects(startAdminEndpoint({ port: 0, token: 'short-token', controls: fakeControls([]), logger: silentLogger }), (e: Error) => {
    assert.equal((e as { code?: string }).code, 'CONFIG');
    assert.match(e.message, /BOOKMAKER_ADMIN_TOKEN is too short \(11 characters; at least 16\)/);
    assert.ok(!e.message.includes('short-token'), 'the token is never in the message');
    return true;
  });
  // a foreign listener on the port (this test process)
  const foreign = createServer();
  await new Promise<void>((r) => foreign.listen(0, '127.0.0.1', () => r()));
  const port = (foreign.address() as AddressInfo).port;
  try {
    await assert.rejects(startAdminEndpoint({ port, token: TOKEN, controls: fakeControls([]), logger: silentLogger }), (e: Error) => {
      assert.ok(e instanceof AdminPortError, String(e));
      assert.equal((e as AdminPortError).code, 'CONFIG', 'a config error: exit 2');
      assert.match(e.message, new RegExp(`admin port ${port} on 127\\.0\\.0\\.1 cannot be bound \\(EADDRINUSE; held by pid ${process.pid} \\(`));
      return true;
    });
  } finally {
    await new Promise<void>((r) => foreign.close(() => r()));
  }
});

test('the endpoint binds before the bot is wired; until then status names the phase, a halt is held (written once the ledger is open), other actions are 503', async () => {
  const deferred = new DeferredControls();
  deferred.phase('select markets');
  deferred.identity({ pid: 1, configFile: '/x.yaml', ledger: '/x.sqlite' });
  const ep = await startAdminEndpoint({ port: 0, token: TOKEN, controls: deferred, logger: silentLogger });
  const call = async (method: 'GET' | 'POST', path: string, token = TOKEN, body?: string) => {
    const r = await request(`${ep.url}${path}`, { method, headers: { authorization: `Bearer ${token}` }, ...(body ? { body } : {}) });
    return { status: r.statusCode, json: (await r.body.json()) as Record<string, unknown> };
  };
  try {
    assert.equal((await call('GET', '/admin/status', 'wrong-token-but-long-enough')).status, 401, 'the token first');
    const st = await call('GET', '/admin/status');
    assert.equal(st.status, 200);
    assert.equal(st.json.starting, true);
    assert.equal(st.json.phase, 'select markets');
    assert.deepEqual(st.json.identity, { pid: 1, configFile: '/x.yaml', ledger: '/x.sqlite' });
    assert.equal(st.json.halted, false);
    const resume = await call('POST', '/admin/resume');
    assert.equal(resume.status, 503);
    assert.match(String(resume.json.error), /the bot is starting \(select markets\)/);
    assert.equal((await call('POST', '/admin/clear-kill', TOKEN, JSON.stringify({ reason: 'r' }))).status, 503);
    const early = await call('POST', '/admin/halt', TOKEN, JSON.stringify({ reason: 'first' }));
    assert.equal(early.status, 200);
    assert.deepEqual(early.json, { halted: true, starting: true, phase: 'select markets', persisted: false });
    // the ledger opens: the held halt is written, and a later one at once
    const written: (string | null)[] = [];
    deferred.phase('ledger and catch-up');
    deferred.bindLedger((reason) => (written.push(reason), true));
    assert.deepEqual(written, ['first']);
    const later = await call('POST', '/admin/halt', TOKEN, JSON.stringify({ reason: 'second' }));
    assert.equal(later.json.persisted, true);
    assert.deepEqual(written, ['first', 'second']);
    assert.deepEqual(deferred.startupHalt, { reason: 'second', at: deferred.startupHalt!.at, persisted: true });
    const halted = await call('GET', '/admin/status');
    assert.equal(halted.json.halted, true);
    assert.equal(halted.json.phase, 'ledger and catch-up');
    const calls: string[] = [];
    deferred.attach(fakeControls(calls));
    assert.equal((await call('POST', '/admin/halt')).status, 200);
    assert.deepEqual(calls, ['halt:null']);
  } finally {
    await ep.close();
  }
});

test('ctl proves the token without sending it: a one-time HMAC bound to method, path and body', async () => {
  const calls: string[] = [];
  const ep = await startAdminEndpoint({ port: 0, token: TOKEN, controls: fakeControls(calls), logger: silentLogger });
  const post = async (path: string, body: string, auth: string) => {
    const r = await request(`${ep.url}${path}`, { method: 'POST', headers: { authorization: auth }, body });
    return { status: r.statusCode, text: await r.body.text() };
  };
  try {
    const body = JSON.stringify({ reason: 'incident 7' });
    const auth = signRequest(TOKEN, 'POST', '/admin/halt', body);
    assert.ok(!auth.includes(TOKEN), 'the header never holds the token');
    assert.equal((await post('/admin/halt', body, auth)).status, 200);
    assert.equal((await post('/admin/halt', body, auth)).status, 401, 'a replayed proof is refused');
    assert.equal((await post('/admin/halt', JSON.stringify({ reason: 'other' }), signRequest(TOKEN, 'POST', '/admin/halt', body))).status, 401, 'another body');
    assert.equal((await post('/admin/resume', body, signRequest(TOKEN, 'POST', '/admin/halt', body))).status, 401, 'another path');
    assert.equal((await post('/admin/halt', body, signRequest('another-token-of-length', 'POST', '/admin/halt', body))).status, 401, 'another token');
    assert.equal((await post('/admin/halt', body, signRequest(TOKEN, 'POST', '/admin/halt', body, Date.now() - 120_000))).status, 401, 'a stale proof');
    assert.deepEqual(calls, ['halt:incident 7']);
  } finally {
    await ep.close();
  }
});
