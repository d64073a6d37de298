import { test } from 'node:test';
import assert from 'node:assert/strict';
import { keccak256 } from 'viem';
import { nativeKeccak256, pureKeccak256 } from '../../../src/exchange/signing/keccak.ts';
import { checksumAddress, assertAddress } from '../../../src/exchange/signing/address.ts';
import { getAddress } from 'viem';
import { BadInputError } from '../../../src/model/errors.ts';
import { randHex, randInt, rng } from './fixtures.ts';

test('native and pure keccak256 agree with viem on random inputs of every length up to 600 bytes', (t) => {
  if (!nativeKeccak256) return t.skip('native keccak did not load');
  const r = rng(1);
  for (let len = 0; len <= 600; len++) {
    const data = Buffer.from(randHex(r, len).slice(2), 'hex');
    const expected = keccak256(data);
    assert.equal('0x' + Buffer.from(nativeKeccak256(data)).toString('hex'), expected, `len ${len}`);
    assert.equal('0x' + Buffer.from(pureKeccak256(data)).toString('hex'), expected, `len ${len}`);
  }
});

test('the native hasher keeps no state between calls', (t) => {
  if (!nativeKeccak256) return t.skip('native keccak did not load');
  const a = Buffer.from(nativeKeccak256(Buffer.from('abc'))).toString('hex');
  nativeKeccak256(Buffer.alloc(1000, 1));
  assert.equal(Buffer.from(nativeKeccak256(Buffer.from('abc'))).toString('hex'), a);
});

test('EIP-55 checksums match viem getAddress', () => {
  const r = rng(2);
  for (let i = 0; i < 200; i++) {
    const a = randHex(r, 20);
    assert.equal(checksumAddress(a, pureKeccak256), getAddress(a));
    assert.equal(checksumAddress(a.toUpperCase().replace('0X', '0x'), nativeKeccak256 ?? pureKeccak256), getAddress(a));
  }
});

test('assertAddress: lowercase and checksummed pass, a broken checksum or shape fails naming the field', () => {
  const r = rng(4);
  const a = getAddress(randHex(r, 20));
  assert.equal(assertAddress(a, 'to', pureKeccak256), a);
  assert.equal(assertAddress(a.toLowerCase(), 'to', pureKeccak256), a.toLowerCase());
  // Flip the case of one letter so the checksum breaks.
  const i = [...a].findIndex((c, k) => k > 1 && /[a-fA-F]/.test(c));
  const broken = a.slice(0, i) + (a[i] === a[i]!.toLowerCase() ? a[i]!.toUpperCase() : a[i]!.toLowerCase()) + a.slice(i + 1);
  assert.throws(
    () => assertAddress(broken, 'to', pureKeccak256),
    (e: unknown) => e instanceof BadInputError && e.field === 'to',
  );
  assert.throws(() => assertAddress('0x' + 'a'.repeat(39), 'to', pureKeccak256), BadInputError);
  assert.throws(() => assertAddress(randInt(r, 1, 9), 'to', pureKeccak256), BadInputError);
});
