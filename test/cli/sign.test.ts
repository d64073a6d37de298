import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { privateKeyToAccount } from 'viem/accounts';
import { signCancels, signOrdersJson } from '../../src/cli/commands/sign.ts';
import { createSigner } from '../../src/exchange/signing/signer.ts';
import { recoverCancelSigner, recoverOrderSigner } from '../../src/exchange/signing/recover.ts';
import { toSettlementV2Order } from '../../src/exchange/signing/orderMapping.ts';
import { MAINNET, TESTNET } from '../../src/exchange/chains.ts';
import { BadInputError } from '../../src/model/errors.ts';
import type { CancelBody, LimitOrderBody } from '../../src/model/order.ts';

const KEY = '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d';
const ADDRESS = privateKeyToAccount(KEY).address;
const MARKET = '0x' + '3c'.repeat(32);
const NONCE = '0x' + '7d'.repeat(32);
const BIN = fileURLToPath(new URL('../../bin/bookmaker.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'bookmaker-sign-'));
test.after(() => rmSync(dir, { recursive: true, force: true }));

function cli(args: string[], opts: { stdin?: string; env?: Record<string, string> } = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const env = { ...process.env, ...opts.env };
    delete env.BOOKMAKER_PURE_JS;
    if (!opts.env || !('BOOKMAKER_PRIVATE_KEY' in opts.env)) delete env.BOOKMAKER_PRIVATE_KEY;
    const child = spawn(process.execPath, [BIN, 'sign', ...args], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(opts.stdin ?? '');
  });
}

test('sign order JSON (argument): prints one signed body that recovers to the key', async () => {
  const order = { marketId: MARKET, outcome: 'yes', side: 'buy', priceCents: 37, size: 12.345678, nonce: NONCE, expiry: 1_900_000_000 };
  const r = await cli(['order', JSON.stringify(order)], { env: { BOOKMAKER_PRIVATE_KEY: KEY } });
  assert.equal(r.code, 0, r.stderr);
  const body = JSON.parse(r.stdout) as LimitOrderBody;
  assert.equal(body.trader, ADDRESS);
  assert.equal(body.price, '370000');
  assert.equal(body.size, '12345678');
  assert.equal(body.maxFee, '45679');
  assert.equal(toSettlementV2Order(body).maxCollateralIn, 4_613_580n);
  assert.equal(recoverOrderSigner(body, MAINNET), ADDRESS);
  // Deterministic: same order, same key, same chain → the same signature as the library.
  assert.equal(
    body.signature,
    createSigner({ privateKey: KEY, chain: MAINNET }).signOrder({
      marketId: MARKET as never,
      outcomeIndex: 1,
      side: 0,
      price: 370_000,
      size: 12_345_678,
      nonce: NONCE as never,
      expiry: 1_900_000_000,
    }).signature,
  );
  assert.ok(!r.stdout.includes(KEY.slice(2)) && !r.stderr.includes(KEY.slice(2)));
});

test('sign order - (stdin array) on testnet with a key file: prints an array', async () => {
  const keyPath = join(dir, 'k.key');
  writeFileSync(keyPath, KEY + '\n');
  chmodSync(keyPath, 0o600);
  const orders = [
    { marketId: MARKET, outcome: 'no', side: 'sell', priceCents: 62, size: 10, inventoryMode: 'mint' },
    { marketId: MARKET, outcomeIndex: 1, side: 1, price: '610000', size: '7333333' },
  ];
  const r = await cli(['order', '-', '--chain', 'testnet', '--key-file', keyPath], { stdin: JSON.stringify(orders) });
  assert.equal(r.code, 0, r.stderr);
  const bodies = JSON.parse(r.stdout) as LimitOrderBody[];
  assert.equal(bodies.length, 2);
  for (const b of bodies) assert.equal(recoverOrderSigner(b, TESTNET), ADDRESS);
  assert.equal(toSettlementV2Order(bodies[0]!).maxCollateralIn, 3_862_000n);
  assert.equal(toSettlementV2Order(bodies[1]!).minCollateralOut, 4_428_600n);
});

test('sign cancel NONCE prints {trader, nonce, signature}', async () => {
  const r = await cli(['cancel', NONCE, '--compact'], { env: { BOOKMAKER_PRIVATE_KEY: KEY } });
  assert.equal(r.code, 0, r.stderr);
  const c = JSON.parse(r.stdout) as CancelBody;
  assert.equal(r.stdout.trim().split('\n').length, 1);
  assert.equal(c.nonce, NONCE);
  assert.equal(recoverCancelSigner(c, MAINNET), ADDRESS);
});

test('bad input exits 2 naming the field; a too-open key file is refused; the key is never printed', async () => {
  const bad = await cli(['order', JSON.stringify({ marketId: MARKET, outcome: 'yes', side: 'buy', priceCents: 100, size: 1 })], {
    env: { BOOKMAKER_PRIVATE_KEY: KEY },
  });
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /priceCents/);
  assert.equal(bad.stdout, '');
  const open = join(dir, 'open.key');
  writeFileSync(open, KEY);
  chmodSync(open, 0o644);
  const r = await cli(['cancel', NONCE, '--key-file', open]);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /too open/);
  const badKey = KEY.slice(0, 64) + 'xyz';
  const k = await cli(['cancel', NONCE], { env: { BOOKMAKER_PRIVATE_KEY: badKey } });
  assert.equal(k.code, 2);
  for (const out of [bad, r, k]) assert.ok(!(out.stdout + out.stderr).includes(KEY.slice(2, 40)));
});

test('signOrdersJson / signCancels (in process): shapes and validation before any signing', () => {
  const s = createSigner({ privateKey: KEY, chain: MAINNET });
  const one = signOrdersJson({ marketId: MARKET, outcome: 'yes', side: 'buy', priceCents: 50, size: 1 }, s, 1_800_000_000) as LimitOrderBody;
  assert.equal(one.expiry, String(1_800_000_000 + 31_536_000));
  const many = signOrdersJson([{ marketId: MARKET, outcome: 'yes', side: 'buy', priceCents: 50, size: 1 }], s, 1_800_000_000);
  assert.ok(Array.isArray(many) && many.length === 1);
  assert.throws(() => signOrdersJson([], s, 0), BadInputError);
  assert.throws(
    () =>
      signOrdersJson(
        [
          { marketId: MARKET, outcome: 'yes', side: 'buy', priceCents: 50, size: 1 },
          { marketId: MARKET, outcome: 'yes', side: 'buy', priceCents: 50 },
        ],
        s,
        0,
      ),
    (e: unknown) => e instanceof BadInputError && e.field === 'orders[1].size',
  );
  const cs = signCancels([NONCE, '0x' + '01'.repeat(32)], s) as CancelBody[];
  assert.equal(cs.length, 2);
  assert.throws(
    () => signCancels(['0x12'], s),
    (e: unknown) => e instanceof BadInputError && e.field === 'nonce',
  );
  assert.throws(() => signCancels([], s), BadInputError);
});
