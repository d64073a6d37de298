import { test } from 'node:test';
import assert from 'node:assert/strict';
import { getAddress, keccak256, toBytes, toHex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { addressOfPrivateKey, eip55, keccakHex, keccakText, utf8Hex } from '../../../src/exchange/signing/text-hash.ts';
import { BadInputError } from '../../../src/model/errors.ts';
import { randHex, randInt, rng } from './fixtures.ts';

const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
const key = (k: bigint): `0x${string}` => `0x${k.toString(16).padStart(64, '0')}`;

/** Random strings over ASCII, Latin-1, the BMP, astral planes and lone surrogates (UTF-8 edge cases). */
function randText(r: () => number, len: number): string {
  let s = '';
  for (let i = 0; i < len; i++) {
    const kind = randInt(r, 0, 5);
    if (kind === 0) s += String.fromCharCode(randInt(r, 0, 0x7f));
    else if (kind === 1) s += String.fromCharCode(randInt(r, 0x80, 0x7ff));
    else if (kind === 2) s += String.fromCharCode(randInt(r, 0x800, 0xd7ff));
    else if (kind === 3) s += String.fromCodePoint(randInt(r, 0x10000, 0x10ffff));
    else if (kind === 4)
      s += String.fromCharCode(randInt(r, 0xd800, 0xdfff)); // lone surrogate
    else s += String.fromCharCode(randInt(r, 0xe000, 0xffff));
  }
  return s;
}

const FIXED_TEXTS = [
  '',
  'a',
  '\0',
  'bookmaker-sim:migration-escrow',
  'bookmaker-legacy:42:0',
  '€',
  '😀',
  '\ud800',
  '\udc00x',
  '\ufeff',
  'x'.repeat(135),
  'x'.repeat(136),
  'y'.repeat(1000),
];

test('utf8Hex and keccakText give viem toHex, keccak256(toHex) and keccak256(toBytes) on random and edge-case text', () => {
  const r = rng(11);
  const texts = [...FIXED_TEXTS];
  for (let i = 0; i < 400; i++) texts.push(randText(r, randInt(r, 0, 80)));
  for (const s of texts) {
    assert.equal(utf8Hex(s), toHex(s), JSON.stringify(s));
    assert.equal(keccakText(s), keccak256(toHex(s)), JSON.stringify(s));
    assert.equal(keccakText(s), keccak256(toBytes(s)), JSON.stringify(s));
  }
});

test('keccakHex is lower-case 0x hex equal to viem keccak256 on bytes of every length up to 300', () => {
  const r = rng(12);
  for (let len = 0; len <= 300; len++) {
    const data = Buffer.from(randHex(r, len).slice(2), 'hex');
    const h = keccakHex(data);
    assert.equal(h, keccak256(data), `len ${len}`);
    assert.match(h, /^0x[0-9a-f]{64}$/);
  }
});

test('eip55 equals viem getAddress for random, all-digit, all-letter, upper- and lower-case addresses; a bad shape is a BadInputError', () => {
  const r = rng(13);
  const addrs = ['0x' + '0'.repeat(40), '0x' + 'f'.repeat(40), '0x' + 'F'.repeat(40), '0x' + 'a'.repeat(40), '0x' + '1234567890'.repeat(4)];
  for (let i = 0; i < 300; i++) {
    const a = randHex(r, 20);
    addrs.push(a, '0x' + a.slice(2).toUpperCase(), getAddress(a));
  }
  for (const a of addrs) assert.equal(eip55(a), getAddress(a), a);
  for (const bad of ['', '0x', '0x' + 'a'.repeat(39), '0x' + 'a'.repeat(41), '0X' + 'a'.repeat(40), '0x' + 'g'.repeat(40)]) {
    assert.throws(() => eip55(bad), BadInputError, bad);
  }
});

test('addressOfPrivateKey equals viem privateKeyToAccount for random keys and the ends of the range; invalid keys throw without echoing the key', () => {
  const r = rng(14);
  const keys = [key(1n), key(2n), key(N - 1n), key(N - 2n), key((1n << 255n) + 12345n)];
  for (let i = 0; i < 100; i++) keys.push(randHex(r, 32));
  for (const k of keys) {
    assert.equal(addressOfPrivateKey(k), privateKeyToAccount(k).address, k);
    assert.equal(addressOfPrivateKey(k.toUpperCase().replace('0X', '0x')), privateKeyToAccount(k).address, k);
  }
  const secret = key(N);
  for (const bad of [key(0n), secret, key(N + 1n), '0x' + 'f'.repeat(64), '0x' + '1'.repeat(63), 'nope']) {
    assert.throws(
      () => addressOfPrivateKey(bad),
      (e: unknown) => e instanceof BadInputError && (bad.length < 12 || !e.message.includes(bad.slice(2, 12))),
      bad,
    );
  }
});

test('the ids and wallets derived with these helpers are the ones the viem formulas gave', async () => {
  const { defaultRelayer } = await import('../../../src/sim/migration/install.ts');
  const { demoLegacyAccounts } = await import('../../../src/sim/migration/legacy-seeds.ts');
  const { MIGRATION_ESCROW } = await import('../../../src/sim/routes/account/ledger-of.ts');
  const { importedMarketId } = await import('../../../src/backtest/importers/market-id.ts');
  assert.equal(MIGRATION_ESCROW, '0x' + keccak256(toHex('bookmaker-sim:migration-escrow')).slice(26));
  for (const seed of [0, 1, 42, 2 ** 31 - 1]) {
    assert.equal(defaultRelayer(seed), getAddress(`0x${keccak256(toHex(`bookmaker-sim-relayer:${seed}`)).slice(26)}`));
    for (const [i, d] of demoLegacyAccounts(seed, 3, []).entries()) {
      const k = keccak256(toHex(`bookmaker-legacy:${seed}:${i}`));
      assert.equal(d.privateKey, k);
      assert.equal(d.account.wallet, privateKeyToAccount(k).address);
    }
  }
  for (const origin of ['polymarket:0xabc', 'kalshi:KXBTC-25DEC31-B100000', 'é😀']) assert.equal(importedMarketId(origin), keccak256(toBytes(origin)));
});
