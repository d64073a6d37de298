import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hashDomain, keccak256, toHex } from 'viem';
import { TYPE_HASHES, TYPE_STRINGS } from '../../../src/exchange/signing/typeHashes.ts';
import { chainDomains, domainSeparator, domainSeparators } from '../../../src/exchange/signing/domains.ts';
import { MAINNET, TESTNET } from '../../../src/exchange/chains.ts';

const hex = (b: Uint8Array) => '0x' + Buffer.from(b).toString('hex');

test('V2 Order and CancelNonce type hashes equal the docs/venue.md values', () => {
  assert.equal(hex(TYPE_HASHES.Order), '0x03d465c8fe0a3b37a87df575784bf6493fc3e20ec66f8a93504da05a51bd9a40');
  assert.equal(hex(TYPE_HASHES.CancelNonce), '0xc86859f71ce87c5e18afb1c75e785eeee9f2237530b263475e05502c3d8f337e');
});

test('the other type hashes match the prefixes and suffixes listed in docs/venue.md', () => {
  const cases: [keyof typeof TYPE_HASHES, string, string][] = [
    ['BatchWithdraw', '0xec6f2dcf', 'f8a18'],
    ['OperatorApproval', '0xde5c44d0', '9ee56'],
    ['PermitTransferFrom', '0x939c21a4', '80106'],
  ];
  for (const [name, pre, suf] of cases) {
    const h = hex(TYPE_HASHES[name]);
    assert.ok(h.startsWith(pre) && h.endsWith(suf), `${name}: ${h}`);
  }
});

test('every type hash is keccak256 of its encodeType string (checked with viem)', () => {
  for (const name of Object.keys(TYPE_STRINGS) as (keyof typeof TYPE_STRINGS)[]) {
    assert.equal(hex(TYPE_HASHES[name]), keccak256(toHex(TYPE_STRINGS[name])), name);
  }
});

test('Settlement V2 domain separators equal the docs/venue.md values', () => {
  assert.equal(hex(domainSeparators(MAINNET).settlementV2), '0xf7012f1505d6cb1c30255606ecc66f159d828b4c1d8865aa61106732d25226a5');
  assert.equal(hex(domainSeparators(TESTNET).settlementV2), '0xa1da58029d11e1ecd9c027741ae1ab4a7ab04b69e8e8f77af5967c67aae01a46');
});

test('all five domains of both chains agree with viem hashDomain', () => {
  for (const chain of [MAINNET, TESTNET]) {
    const fields = chainDomains(chain);
    const seps = domainSeparators(chain);
    for (const name of Object.keys(fields) as (keyof typeof fields)[]) {
      const d = fields[name];
      const types = {
        EIP712Domain: [
          { name: 'name', type: 'string' },
          ...(d.version === undefined ? [] : [{ name: 'version', type: 'string' }]),
          { name: 'chainId', type: 'uint256' },
          { name: 'verifyingContract', type: 'address' },
        ],
      };
      const expected = hashDomain({ domain: d, types } as Parameters<typeof hashDomain>[0]);
      assert.equal(hex(seps[name]), expected, `${chain.name} ${name}`);
      assert.equal(hex(domainSeparator(d)), expected);
    }
  }
});

test('domains are distinct: legacy and new Holdings differ only by contract, Permit2 has no version', () => {
  const s = domainSeparators(MAINNET);
  const all = Object.values(s).map(hex);
  assert.equal(new Set(all).size, all.length);
  assert.equal(chainDomains(MAINNET).permit2.version, undefined);
});
