/** The admin endpoint (issue 16): token, methods, bodies, and what reaches the controls. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { request } from 'undici';
import { silentLogger } from '../../src/core/logger.ts';
import { startAdminEndpoint, type Controls } from '../../src/control/admin-server.ts';

const TOKEN = 'unit-admin-token';

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
    const r = await request(`${ep.url}${path}`, { method, headers: token ? { authorization: `Bearer ${token}` } : {}, ...(body !== undefined ? { body } : {}) });
    return { status: r.statusCode, text: await r.body.text() };
  };
  try {
    assert.match(ep.url, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.equal((await call('POST', '/admin/halt', '{}', '')).status, 401);
    assert.equal((await call('POST', '/admin/halt', '{}', 'wrong')).status, 401);
    assert.equal((await call('GET', '/admin/status')).text.trim(), '{"latched":false}');
    assert.equal((await call('GET', '/admin/halt')).status, 405);
    assert.equal((await call('POST', '/admin/status')).status, 405);
    assert.equal((await call('POST', '/admin/nope', '{}')).status, 404);
    assert.equal((await call('POST', '/admin/pause', 'not json')).status, 400);
    assert.equal((await call('POST', '/admin/pause', '[1]')).status, 400);
    assert.equal((await call('POST', '/admin/pause', JSON.stringify({ market: 7 }))).status, 400);
    assert.equal((await call('POST', '/admin/pause', 'x'.repeat(20_000))).status, 400);
    const noReason = await call('POST', '/admin/clear-kill', '{}');
    assert.equal(noReason.status, 400);
    assert.match(noReason.text, /reason: required/);
    assert.deepEqual(calls, [], 'nothing refused reached the controls');
    assert.equal((await call('POST', '/admin/clear-kill', JSON.stringify({ reason: 'ok' }))).status, 200);
    assert.equal((await call('POST', '/admin/pause', JSON.stringify({ market: '0xabc', reason: 'news' }))).status, 200);
    assert.equal((await call('POST', '/admin/resume')).status, 200);
    assert.equal((await call('POST', '/admin/halt', JSON.stringify({ reason: 'stop' }))).status, 200);
    assert.equal((await call('POST', '/admin/reload', '')).status, 200);
    assert.deepEqual(calls, ['clear-kill:ok', 'pause:0xabc:news', 'resume:null:null', 'halt:stop', 'reload:null']);
  } finally {
    await ep.close();
  }
});
