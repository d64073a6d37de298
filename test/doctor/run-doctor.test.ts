/**
 * runDoctor against a venue that answers slowly or not at all: it finishes within its stated budget
 * (--timeout per check, --total-timeout in all) and reports what it could not check, and why.
 * Local HTTP servers on 127.0.0.1 stand in for the venue.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, test } from 'node:test';
import { parseConfigText } from '../../src/config/load-config.ts';
import { runDoctor } from '../../src/doctor/run-doctor.ts';

const servers: Server[] = [];
const parked: ServerResponse[] = [];
after(() => {
  for (const r of parked) r.destroy();
  for (const s of servers) s.closeAllConnections?.();
  for (const s of servers) s.close();
});

/** A "venue": `answer(path)` says what to do with each request: a JSON body now, after a delay, or never. */
async function venue(answer: (path: string) => { body: unknown; delayMs?: number } | 'stall'): Promise<string> {
  const s = createServer((req, res) => {
    const a = answer(req.url ?? '/');
    if (a === 'stall') return void parked.push(res);
    setTimeout(() => {
      const text = typeof a.body === 'string' ? a.body : JSON.stringify(a.body);
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
      res.end(text);
    }, a.delayMs ?? 0);
  });
  servers.push(s);
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(s.address() as AddressInfo).port}/v2`;
}

async function cfg(baseUrl: string) {
  return parseConfigText(
    `venue:\n  chain: testnet\n  baseUrl: ${baseUrl}\ndefaults:\n  strategy:\n    name: bands\n    params:\n      bands:\n        - { minMargin: 0.01, targetMargin: 0.02, maxMargin: 0.03, size: 10 }\nmarkets:\n  - all: true\nmetrics:\n  port: 0\nledger:\n  path: ':memory:'\n`,
    '',
    { env: {} },
  );
}

const env = { BOOKMAKER_PRIVATE_KEY: `0x${randomBytes(32).toString('hex')}`, BOOKMAKER_API_KEY: 'doctor-test-key-1' };

test('a venue that never answers: the venue check fails within --timeout, every venue check says not checked, local checks still report', {
  timeout: 30_000,
}, async () => {
  const base = await venue(() => 'stall');
  const t0 = Date.now();
  const r = await runDoctor({ config: await cfg(base), env, checkMs: 1_000, totalMs: 3_000 });
  const took = Date.now() - t0;
  // the budget is the contract: 1 s for the one check that waited, far inside the 3 s total
  assert.ok(took < 3_000 + 1_500, `took ${took} ms, budget 3 000 ms`);
  assert.equal(r.exitCode, 1);
  const by = new Map(r.checks.map((c) => [c.name, c]));
  assert.equal(by.get('venue')!.result, 'fail');
  assert.match(by.get('venue')!.detail, /no answer within 1000 ms/);
  for (const n of ['clock', 'api-key', 'wallet', 'permissions', 'migration', 'markets', 'collateral']) {
    assert.equal(by.get(n)!.result, 'fail', n);
    assert.match(by.get(n)!.detail, /^not checked: the venue check failed/, n);
  }
  assert.equal(by.get('limits')!.result, 'ok');
  assert.equal(by.get('metrics')!.result, 'warn'); // port 0: no alert can fire
});

test('a venue whose public reads answer but whose account reads stall: each stalled check fails as not checked within its budget, naming it', {
  timeout: 30_000,
}, async () => {
  const base = await venue((path) => (path.startsWith('/v2/markets?') ? { body: { markets: [], cursor: null } } : 'stall'));
  const t0 = Date.now();
  const r = await runDoctor({ config: await cfg(base), env, checkMs: 1_000, totalMs: 4_000 });
  const took = Date.now() - t0;
  assert.ok(took < 4_000 + 1_500, `took ${took} ms, budget 4 000 ms`);
  const by = new Map(r.checks.map((c) => [c.name, c]));
  assert.equal(by.get('venue')!.result, 'ok', by.get('venue')!.detail);
  assert.equal(by.get('api-key')!.result, 'fail');
  assert.match(by.get('api-key')!.detail, /^not checked: no answer within 1000 ms \(the per-check budget is 1 s\)/);
  assert.match(by.get('wallet')!.detail, /^not checked: the API key check failed/);
  // no market listed: the selection is empty (an answer, not a stall)
  assert.match(by.get('markets')!.detail, /no market at the venue matches the selectors/);
  assert.match(by.get('collateral')!.detail, /^not checked/);
  assert.equal(r.exitCode, 1);
});

test('a slow venue: once the total budget is spent, the remaining checks say so instead of waiting', { timeout: 30_000 }, async () => {
  // every answer takes 700 ms: venue ok (0.7 s), then api-key and markets start with 0.5 s left of 1.2 s
  const base = await venue((path) => ({ body: path.startsWith('/v2/markets?') ? { markets: [], cursor: null } : {}, delayMs: 700 }));
  const t0 = Date.now();
  const r = await runDoctor({ config: await cfg(base), env, checkMs: 1_000, totalMs: 1_200 });
  const took = Date.now() - t0;
  assert.ok(took < 1_200 + 1_500, `took ${took} ms, budget 1 200 ms`);
  const by = new Map(r.checks.map((c) => [c.name, c]));
  assert.equal(by.get('venue')!.result, 'ok');
  assert.match(by.get('api-key')!.detail, /^not checked: no answer within \d+ ms/);
  assert.match(by.get('markets')!.detail, /^not checked: no answer within \d+ ms/);
  assert.equal(r.exitCode, 1);
});

test('bad answers at the venue base: HTML, another chain, a huge page: the venue check fails saying which, nothing crashes', { timeout: 30_000 }, async () => {
  const venueCheck = async (answer: unknown) => {
    const base = await venue(() => ({ body: answer }));
    const r = await runDoctor({ config: await cfg(base), env, checkMs: 2_000, totalMs: 4_000 });
    return r.checks.find((c) => c.name === 'venue')!;
  };
  const html = await venueCheck('<html>a login page</html>');
  assert.equal(html.result, 'fail');
  assert.match(html.detail, /did not answer JSON \(not a venue API base\?\)/);
  const mainnet = await venueCheck({ markets: [{ id: '0x' + '1'.repeat(64), chainId: '8453' }], cursor: null });
  assert.equal(mainnet.result, 'fail');
  assert.match(mainnet.detail, /serves chain 8453, the config says testnet \(84532\)/);
  const huge = await venueCheck({ markets: [], pad: 'x'.repeat(2 << 20) });
  assert.equal(huge.result, 'fail');
  assert.match(huge.detail, /answered more than 1048576 bytes/);
});

test('a venue of the other chain that lists no market: the signature probe and Settlement V2 say so', { timeout: 30_000 }, async () => {
  const { createLocalExchange } = await import('../../src/sim/local-exchange.ts');
  const { MAINNET, TESTNET } = await import('../../src/exchange/chains.ts');
  const { createSigner } = await import('../../src/exchange/signing/signer.ts');
  const wallet = createSigner({ privateKey: env.BOOKMAKER_PRIVATE_KEY, chain: TESTNET }).address;
  const ex = createLocalExchange({ seed: 3, markets: 0, chain: MAINNET, apiKeys: [{ key: env.BOOKMAKER_API_KEY, wallet }] });
  const base = await ex.start(0);
  try {
    const r = await runDoctor({ config: await cfg(base), env, checkMs: 2_000, totalMs: 6_000 });
    const by = new Map(r.checks.map((c) => [c.name, c]));
    assert.equal(by.get('venue')!.result, 'ok'); // nothing listed to compare chains with
    assert.equal(by.get('permissions')!.result, 'fail');
    assert.match(by.get('permissions')!.detail, /the venue refused our signature .*the EIP-712 domain is not the venue's/);
    assert.equal(by.get('migration')!.result, 'fail');
    assert.match(by.get('migration')!.detail, /the venue's Settlement V2 is 0x00000000008c286A2aaa99c6Be3b3D405A929500, testnet's is/i);
  } finally {
    await ex.close();
  }
});

test('a venue that echoes the API key in its refusal: the key never reaches a check (the scrubber)', { timeout: 30_000 }, async () => {
  const key = `echo-me-${randomBytes(8).toString('hex')}`;
  const s = createServer((req, res) => {
    const ok = (req.url ?? '').startsWith('/v2/markets?');
    const text = JSON.stringify(ok ? { markets: [], cursor: null } : { message: `unknown API key ${req.headers.authorization}`, code: 'UNAUTHORIZED' });
    res.writeHead(ok ? 200 : 401, { 'content-type': 'application/json' });
    res.end(text);
  });
  servers.push(s);
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const r = await runDoctor({
    config: await cfg(`http://127.0.0.1:${(s.address() as AddressInfo).port}/v2`),
    env: { ...env, BOOKMAKER_API_KEY: key },
    checkMs: 2_000,
    totalMs: 4_000,
  });
  const apiKey = r.checks.find((c) => c.name === 'api-key')!;
  assert.equal(apiKey.result, 'fail');
  assert.match(apiKey.detail, /unknown API key Bearer \[REDACTED\]/);
  const all = JSON.stringify(r.checks);
  assert.ok(!all.includes(key), 'the key is scrubbed');
  assert.ok(!all.includes(env.BOOKMAKER_PRIVATE_KEY.slice(2)), 'so is the private key');
});
