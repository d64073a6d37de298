import assert from 'node:assert/strict';
import { test } from 'node:test';
import { microOf, usdCents, usdCentsSumming } from '../../src/model/money-text.ts';
import { micro } from '../../src/model/units.ts';

test('cents round half away from zero on the exact integer; no "-0.00"', () => {
  assert.equal(usdCents(3_684_999n), '3.68');
  assert.equal(usdCents(3_685_000n), '3.69');
  assert.equal(usdCents(-3_685_000n), '-3.69');
  assert.equal(usdCents(-4_999n), '0.00');
  assert.equal(usdCents(123_456_789_012_345_678n), '123456789012.35');
  for (const v of [0n, 1n, -1n, -1_500_000n, 999_999n, 123_456_789_012_345_678n]) assert.equal(microOf(micro(v)), v);
});

/** the shown cents as an integer */
const c = (s: string): bigint => BigInt(s.replace('.', ''));

test('a total and its parts shown in cents add up: the total rounded as it is, each part within a cent', () => {
  // rounded each on its own these read "PnL 3.68 (realised 2.45, unrealised 1.24)"
  assert.equal(`${usdCents(3_680_100n)} = ${usdCents(2_445_000n)} + ${usdCents(1_235_100n)}`, '3.68 = 2.45 + 1.24');
  assert.deepEqual(usdCentsSumming(3_680_100n, [2_445_000n, 1_235_100n]), { total: '3.68', parts: ['2.44', '1.24'] });
  // a spread of signs and sizes: always summing, the total exact to the cent, each part floor or ceil of itself
  let seed = 7;
  const rnd = (): bigint => {
    seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
    return BigInt(seed % 20_000_001) - 10_000_000n;
  };
  for (let i = 0; i < 2_000; i++) {
    const parts = Array.from({ length: 1 + (i % 5) }, rnd);
    const total = parts.reduce((a, p) => a + p, 0n);
    const s = usdCentsSumming(total, parts);
    assert.equal(s.total, usdCents(total));
    assert.equal(
      s.parts.reduce((a, p) => a + c(p), 0n),
      c(s.total),
      JSON.stringify({ parts: parts.map(String), s }),
    );
    s.parts.forEach((p, k) => {
      const d = c(p) * 10_000n - parts[k]!;
      assert.ok(d > -10_000n && d < 10_000n, `${p} vs ${parts[k]}`);
    });
  }
  // parts that are not the whole: each rounded on its own
  assert.deepEqual(usdCentsSumming(1n, [2_445_000n]), { total: '0.00', parts: ['2.45'] });
});
