import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Account, type AccountFill } from '../../src/account/account.ts';
import { RunFigures } from '../../src/account/run-figures.ts';
import type { Bytes32 } from '../../src/model/order.ts';

const S = 1_000_000;
const M = ('0x' + 'a1'.repeat(32)) as Bytes32;
const N = ('0x' + 'b2'.repeat(32)) as Bytes32;

let seq = 0;
function fill(marketId: Bytes32, side: 0 | 1, price: number, size: number, ts: number, o: Partial<AccountFill> = {}): AccountFill {
  return { fillId: `f${++seq}`, marketId, outcomeIndex: 1, side, price, size, fee: 0, feeSource: 'venue', ts, origin: 'own', ...o };
}

describe('the run figures read the books', () => {
  it("the run's share: the books now less the books when the run began, per market and in total", () => {
    const a = new Account();
    a.applyFill(fill(M, 0, 400_000, 10 * S, 1, { fee: 1_000 }));
    const run = new RunFigures(a);
    a.applyFill(fill(M, 1, 500_000, 4 * S, 2, { fee: 2_000 }));
    a.applyFill(fill(N, 0, 333_333, 3 * S + 1, 3, { fee: 7 }));
    // a duplicate from a second feed counts once
    assert.equal(a.applyFill({ ...fill(N, 0, 1, 1, 4), fillId: `f${seq - 1}` }), false);
    assert.deepEqual(run.market(M), { fills: 1, volume: 2_000_000n, fees: 2_000n, realised: 400_000n - 2_000n, shares: 4 * S, book: 1 });
    // 3.000001 × 0.333333 = 0.999999333333 → 0.999999 (the books round each market's figure toward −∞ once)
    assert.deepEqual(run.market(N), { fills: 1, volume: 999_999n, fees: 7n, realised: -7n, shares: 3 * S + 1, book: 2 });
    assert.deepEqual(run.totals(), { fills: 2, volume: 2_999_999n, fees: 2_007n, realised: 400_000n - 2_007n });
    assert.equal(run.fills.get(M), 1);
    assert.equal(run.fills.get(('0x' + 'c3'.repeat(32)) as Bytes32), 0);
  });

  it('a released market folded away, then a later fill: its row and the totals keep every fill', () => {
    const a = new Account();
    const run = new RunFigures(a);
    a.applyFill(fill(M, 0, 400_000, 10 * S, 1));
    a.applyFill(fill(M, 1, 450_000, 10 * S, 2, { fee: 3 }));
    const atRelease = run.market(M);
    a.release(M); // flat: the books fold it away (its figures stay in the account's totals)
    assert.equal(a.market(M), null);
    assert.equal(run.after(M, atRelease).fills, 0, 'nothing since the release');
    assert.deepEqual(run.totals(), { fills: 2, volume: 8_500_000n, fees: 3n, realised: 500_000n - 3n });
    // a fill of an order the venue ended after the release (another trader on the wallet, a raced cancel)
    a.applyFill(fill(M, 0, 300_000, 2 * S, 3, { fee: 5, origin: 'foreign' }));
    const since = run.after(M, atRelease);
    assert.deepEqual([since.fills, since.volume, since.fees, since.shares, since.book], [1, 600_000n, 5n, 2 * S, atRelease.book]);
    assert.deepEqual(run.totals(), { fills: 3, volume: 9_100_000n, fees: 8n, realised: 500_000n - 8n });
    // the market started again and retired again: the second stretch counts its own fills only
    a.applyFill(fill(M, 1, 300_000, 1 * S, 4));
    const second = run.market(M);
    assert.deepEqual([run.after(M, atRelease).fills, run.after(M, second).fills, second.fills], [2, 0, 4]);
  });

  it("the account's totals include folded markets: the same figures a replay of every fill gives", () => {
    const live = new Account();
    const replay = new Account();
    const fills = [fill(M, 0, 123_457, 7 * S + 3, 1, { fee: 11 }), fill(M, 1, 223_457, 7 * S + 3, 2, { fee: 13 }), fill(N, 0, 600_001, 3 * S, 3, { fee: 1 })];
    for (const f of fills) {
      live.applyFill(f);
      replay.applyFill(f);
    }
    live.release(M);
    assert.equal(live.market(M), null, 'folded away in the live books');
    const pick = (x: Account) => {
      const f = x.figures();
      return [f.fills, f.volume, f.fees, f.realised, f.cash, f.total];
    };
    assert.deepEqual(pick(live), pick(replay));
    // a fill after the fold continues the market's book: the same figures as a replay, to the unit
    // (a book begun afresh rounded its figures apart: volume 1e-6 short here)
    const late = fill(M, 1, 376_543, 1 * S + 61, 4, { fee: 3, origin: 'foreign' });
    live.applyFill(late);
    replay.applyFill(late);
    assert.deepEqual(pick(live), pick(replay));
    assert.deepEqual([live.market(M)!.fills, live.market(M)!.volume, live.market(M)!.book], [replay.market(M)!.fills, replay.market(M)!.volume, 1]);
    // and a late duplicate of it changes nothing
    assert.equal(live.applyFill({ ...late }), false);
  });

  it('a late fill after its book was dropped (past the kept folded books) still gives the figures of a replay, to the unit', () => {
    const live = new Account();
    const replay = new Account();
    const both = (f: AccountFill) => {
      live.applyFill(f);
      replay.applyFill(f);
    };
    // M's figures each leave a part below 1e-6 USDC: 7.000003 × 0.123457 and × 0.223457
    both(fill(M, 0, 123_457, 7 * S + 3, 1, { fee: 11 }));
    both(fill(M, 1, 223_457, 7 * S + 3, 2, { fee: 13 }));
    const run = new RunFigures(live);
    live.release(M);
    // 300 more markets released flat after it: M's compact book is dropped
    for (let i = 0; i < 300; i++) {
      const id = `0x${(i + 1).toString(16).padStart(64, '0')}` as Bytes32;
      both(fill(id, 0, 500_000, S, 10 + 2 * i));
      both(fill(id, 1, 500_000, S, 11 + 2 * i));
      live.release(id);
    }
    assert.equal(live.keptMarket(M), null, "M's book is gone");
    const pick = (x: Account) => {
      const f = x.figures();
      return { fills: f.fills, volume: f.volume, fees: f.fees, realised: f.realised, cash: f.cash, total: f.total };
    };
    assert.deepEqual(pick(live), pick(replay));
    // fills of M long after (another trader on the wallet): a sale of 1.000061 at 0.3765 and a buy back
    // at 0.376934, whose volume and realised PnL carry M's dropped parts below 1e-6 USDC over a unit
    // (a book begun afresh showed each 1e-6 short)
    const late = [fill(M, 1, 376_500, S + 61, 10_000, { fee: 3, origin: 'foreign' }), fill(M, 0, 376_934, S + 61, 10_001, { fee: 2, origin: 'foreign' })];
    for (const f of late) both(f);
    assert.deepEqual(pick(live), pick(replay), 'the same fills, volume, fees, realised PnL and cash as a replay of every fill');
    // the run's share of M is its new book, whole: what the totals moved by
    const m = run.market(M);
    assert.equal(m.fills, 2);
    assert.deepEqual([m.volume, m.realised], [run.totals().volume - 300n * 1_000_000n, run.totals().realised]);
  });

  it('the remainders of dropped books are bounded (weeks of rotation keep a few MB at most)', () => {
    const a = new Account();
    for (let i = 0; i < 17_000; i++) {
      const id = `0x${(i + 1).toString(16).padStart(64, '0')}` as Bytes32;
      // 1.000001 shares at 0.500001, twice: each book's volume leaves a part below 1e-6 USDC
      a.applyFill(fill(id, 0, 500_001, S + 1, 2 * i));
      a.applyFill(fill(id, 1, 500_001, S + 1, 2 * i + 1));
      a.release(id);
    }
    assert.equal((a as unknown as { remainders: Map<string, bigint> }).remainders.size, 16_384);
  });
});
