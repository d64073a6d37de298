/**
 * The account's books as a snapshot and back (src/account/account-snapshot.ts): every field, to the
 * unit, whatever the account went through (folds, late fills, re-ordering, baseline, marks,
 * resolution, claims, releases, balance reads that disagree); a snapshot of another shape is refused.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Account } from '../../src/account/account.ts';
import { M, randomFills } from './random-fills.ts';
import { accountShape, restoreAccount, restoreValue, snapshotAccount, snapshotAccountPieces, snapshotValue } from '../../src/account/account-snapshot.ts';

test('a snapshot restores every field of the account, to the unit', () => {
  for (const seed of [1, 2, 3]) {
    const a = new Account({ window: 16, idMemory: 40 });
    a.adoptBaseline([{ marketId: M(0), outcomeIndex: 1, shares: 7_000_000, mark: 430_000 }], 1_799_999_000_000);
    const fills = randomFills(seed, 600);
    for (const [i, f] of fills.entries()) {
      a.applyFill(f);
      if (i % 50 === 0) a.mark(f.marketId, 2 * (100_000 + (i % 800_000)), f.ts);
      if (i === 300) a.reconcile(M(2), 1, 2, f.ts);
    }
    a.applyFill(fills[10]!); // a duplicate: ignored, and the ids remembered must say so after a restore too
    a.resolve(M(3), 1_000_000, 1_800_001_000_000);
    a.claimed(M(3));
    a.release(M(1));
    const s = snapshotAccount(a);
    const b = restoreAccount(JSON.parse(JSON.stringify(s)));
    assert.deepStrictEqual(b, a);
    // the fill ids too (kept as numbers, in private columns a comparison of the objects does not read)
    assert.deepStrictEqual(snapshotAccount(b), s);
    assert.deepStrictEqual(b.figures(), a.figures());
    // and the restored books go on as the original does
    const more = randomFills(seed + 100, 200).map((f) => ({ ...f, fillId: `x${f.fillId}` }));
    for (const f of more) assert.equal(b.applyFill(f), a.applyFill(f));
    assert.equal(b.applyFill(more[199]!), false);
    assert.equal(a.applyFill(more[199]!), false);
    assert.deepStrictEqual(b, a);
  }
});

test('long strings are kept once; a string that begins with "~" survives', () => {
  const v = new Map<string, unknown>([
    ['~7', { s: '~~x', big: -12345678901234567890n, u: undefined, n: [1, 2.5, null] }],
    [M(1), new Set([M(1), M(2)])],
  ]);
  const s = snapshotValue(v);
  assert.equal(s.strings.length, 2);
  assert.deepStrictEqual(restoreValue(JSON.parse(JSON.stringify(s))), v);
});

test('a snapshot of another shape, or damaged, is refused', () => {
  const a = new Account();
  for (const f of randomFills(9, 20)) a.applyFill(f);
  const s = JSON.parse(JSON.stringify(snapshotAccount(a)));
  assert.throws(() => restoreAccount({ ...s, shape: accountShape() + ',resolutions' }), /another shape/);
  const extra = { ...s, account: { ...s.account, resolutions: [] } };
  assert.throws(() => restoreAccount(extra), /other fields/);
  const missing = { ...s, account: { ...s.account } };
  delete missing.account.late;
  assert.throws(() => restoreAccount(missing), /other fields/);
  const bad = JSON.parse(JSON.stringify(s).replace(/"\$b":"(-?\d+)"/, '"$b":"1x"'));
  assert.throws(() => restoreAccount(bad), /damaged/);
});

test('the snapshot built a market at a time (for a checkpoint that yields between them) is the snapshot, and restores the account', async () => {
  const a = new Account({ window: 16, idMemory: 40 });
  a.adoptBaseline([{ marketId: M(0), outcomeIndex: 1, shares: 7_000_000, mark: 430_000 }], 1_799_999_000_000);
  for (const f of randomFills(4, 600)) a.applyFill(f);
  a.resolve(M(3), 1_000_000, 1_800_001_000_000);
  let steps = 0;
  const { shape, pieces } = await snapshotAccountPieces(a, async () => void steps++);
  assert.ok(steps >= 4, 'a step after each market');
  const parsed = JSON.parse(pieces.join('')) as unknown;
  assert.deepStrictEqual(parsed, JSON.parse(JSON.stringify(snapshotAccount(a))));
  assert.equal(shape, accountShape());
  assert.deepStrictEqual(restoreAccount(parsed as ReturnType<typeof snapshotAccount>), a);
});

test("an older bookmaker's snapshot (fill ids without their times) restores: every id still recognised", () => {
  const a = new Account({ window: 16, idMemory: 40 });
  const fills = randomFills(5, 300);
  for (const f of fills) a.applyFill(f);
  const text = JSON.stringify(snapshotAccount(a));
  // $ids as an older bookmaker wrote them: [capacity, head, ids] (its head 0: oldest first)
  const old = JSON.parse(text.replace(/"\$ids":\[(\d+),0,\[[^\]]*\],/g, '"$ids":[$1,0,'));
  assert.notEqual(JSON.stringify(old), text);
  const b = restoreAccount(old);
  assert.deepStrictEqual(b.figures(), a.figures());
  for (const f of fills) assert.equal(b.applyFill(f), a.applyFill(f), f.fillId);
});
