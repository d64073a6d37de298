/** Fill ids kept as numbers (src/core/fill-id-slots.ts): which ids are canonical, and every id read back as it came in. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { FillIdSlots, fillIdHash, parseFillId } from '../../src/core/fill-id-slots.ts';

const NONCE = `0x${'0123456789abcdef'.repeat(4)}`;

test("the feeds' form is canonical; anything else is kept as its string", () => {
  for (const id of [`${NONCE}:0`, `${NONCE}:5000000`, `${NONCE}:${Number.MAX_SAFE_INTEGER}`]) assert.equal(parseFillId(id), true, id);
  for (const id of [
    `${NONCE.toUpperCase().replace('0X', '0x')}:1`,
    `${NONCE}:01`,
    `${NONCE}:`,
    `${NONCE}:${2 ** 53}`,
    `${NONCE}:1.5`,
    `${NONCE}:-1`,
    `${NONCE}x1`,
    `${NONCE.slice(0, 65)}:1`,
    `paper:${NONCE}:1`,
    'sim-1',
    '',
  ])
    assert.equal(parseFillId(id), false, id);
});

test('a slot gives back the id written, matches it alone, and keeps its place through moves', () => {
  const id = fc.oneof(
    fc
      .tuple(fc.array(fc.integer({ min: 0, max: 15 }), { minLength: 64, maxLength: 64 }), fc.nat({ max: Number.MAX_SAFE_INTEGER }))
      .map(([h, n]) => `0x${h.map((d) => d.toString(16)).join('')}:${n}`),
    fc.string({ maxLength: 90 }),
  );
  fc.assert(
    fc.property(fc.array(id, { minLength: 1, maxLength: 12 }), (ids) => {
      const s = new FillIdSlots(2);
      s.grow(ids.length + 1);
      ids.forEach((x, i) => {
        const c = parseFillId(x);
        s.write(i, x, c, fillIdHash(x, c));
      });
      ids.forEach((x, i) => assert.equal(s.idAt(i), x));
      for (const x of ids) {
        const c = parseFillId(x);
        const h = fillIdHash(x, c);
        ids.forEach((y, i) => assert.equal(s.matches(i, x, c, h), y === x));
      }
      s.move(1, 0, ids.length);
      ids.forEach((x, i) => assert.equal(s.idAt(i + 1), x));
    }),
    { numRuns: 200 },
  );
});
