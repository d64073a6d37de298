import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  centsToPrice,
  decimalToScaled,
  notionalCeil,
  notionalFloor,
  numberToScaled,
  parseUintNumber,
  scaledToDecimal,
  sharesToSize,
} from '../../src/model/units.ts';
import { BadInputError } from '../../src/model/errors.ts';

test('cents to price units, half-up, rejects out of (0,100)', () => {
  assert.equal(centsToPrice(45), 450_000);
  assert.equal(centsToPrice(37.5), 375_000);
  assert.equal(centsToPrice(0.29), 2_900);
  assert.throws(() => centsToPrice(0), BadInputError);
  assert.throws(() => centsToPrice(100), BadInputError);
  assert.throws(() => centsToPrice(Number.NaN), BadInputError);
});

test('shares to size floors to 1e-6 and rejects zero', () => {
  assert.equal(sharesToSize(12.345678), 12_345_678);
  assert.equal(sharesToSize('7.3333339'), 7_333_333);
  assert.equal(sharesToSize(0.29), 290_000);
  assert.throws(() => sharesToSize(0), BadInputError);
  assert.throws(() => sharesToSize(-1), BadInputError);
});

test('decimal strings round-trip without floats', () => {
  assert.equal(decimalToScaled('123456789012345.123456', 6, 'x'), 123456789012345123456n);
  assert.equal(scaledToDecimal(123456789012345123456n, 6), '123456789012345.123456');
  assert.equal(scaledToDecimal(1_500_000, 6), '1.5');
  assert.equal(scaledToDecimal(0, 6), '0');
  assert.throws(() => decimalToScaled('1.2345678', 6, 'x'), /at most 6 decimal places/);
  assert.equal(decimalToScaled('1.2345671', 6, 'x', 'ceil'), 1234568n);
  assert.equal(numberToScaled(1e-7, 6, 'x', 'ceil'), 1);
});

test('notional ceil/floor are exact, including above 2^53', () => {
  assert.equal(notionalCeil(370_000, 12_345_678), 4_567_901);
  assert.equal(notionalFloor(610_000, 7_333_333), 4_473_333);
  assert.equal(notionalCeil(500_000, 2_000_000), 1_000_000);
  const big = 9_000_000_000_000_000; // product > 2^53
  assert.equal(notionalFloor(999_999, big), Number((999_999n * BigInt(big)) / 1_000_000n));
});

test('uint parsing rejects negatives, floats, and values beyond 2^53', () => {
  assert.equal(parseUintNumber('42', 'f'), 42);
  assert.throws(() => parseUintNumber('-1', 'f'), /f: expected/);
  assert.throws(() => parseUintNumber('1.5', 'f'), BadInputError);
  assert.throws(() => parseUintNumber('9007199254740993', 'f'), /below 2\^53/);
  assert.throws(() => parseUintNumber(1.5, 'f'), BadInputError);
});
