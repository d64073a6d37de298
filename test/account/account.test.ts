import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { Account, type AccountFill } from '../../src/account/account.ts';
import type { Bytes32 } from '../../src/model/order.ts';

const S = 1_000_000; // one share, or one USDC
const M = ('0x' + 'a1'.repeat(32)) as Bytes32;
const N = ('0x' + 'b2'.repeat(32)) as Bytes32;

let seq = 0;
function fill(outcomeIndex: 0 | 1, side: 0 | 1, price: number, size: number, ts: number, o: Partial<AccountFill> = {}): AccountFill {
  return { fillId: `f${++seq}`, marketId: M, outcomeIndex, side, price, size, fee: 0, feeSource: 'venue', ts, origin: 'own', ...o };
}

describe('account books', () => {
  it('a YES round trip realises its spread, fees net, cash follows the venue legs', () => {
    const a = new Account();
    assert.equal(a.applyFill(fill(1, 0, 500_000, 10 * S, 1, { fee: 10_000 })), true);
    assert.equal(a.applyFill(fill(1, 1, 700_000, 10 * S, 2, { fee: 20_000 })), true);
    const f = a.figures();
    assert.equal(f.realised, BigInt(2 * S - 30_000));
    assert.equal(f.unrealised, 0n);
    assert.equal(f.fees, 30_000n);
    // −5 − 0.01 + 7 − 0.02
    assert.equal(f.cash, BigInt(2 * S - 30_000));
    assert.deepEqual(a.positions(), []);
  });

  it('a duplicate fill id changes nothing', () => {
    const a = new Account();
    const x = fill(1, 0, 400_000, 5 * S, 1);
    assert.equal(a.applyFill(x), true);
    assert.equal(a.applyFill({ ...x }), false);
    assert.deepEqual(a.positions(), [{ marketId: M, outcomeIndex: 1, shares: 5 * S }]);
    assert.equal(a.fillCount, 1);
  });

  it('the issue case: a sale reported before the buy it closes still realises +2.00 (and a read in between changes nothing)', () => {
    const a = new Account();
    const buy = fill(1, 0, 500_000, 10 * S, 1);
    const sell = fill(1, 1, 700_000, 10 * S, 2);
    a.applyFill(sell);
    // the venue's read after both fills: flat
    assert.deepEqual(
      a.reconcile(M, 0, 0, 3),
      [{ marketId: M, outcomeIndex: 0, books: 10 * S, venue: 0, since: 3 }],
      'before the buy arrives the books hold NO from the minted sale',
    );
    a.applyFill(buy);
    assert.equal(a.figures().realised, BigInt(2 * S));
    assert.deepEqual(a.positions(), []);
    assert.deepEqual(a.drifts(), [], 'the buy settles the drift');
  });

  it('unrealised at the mark, then resolution realises it, and a claim moves it to cash', () => {
    const a = new Account();
    a.applyFill(fill(1, 0, 400_000, 10 * S, 1));
    a.mark(M, 2 * 450_000, 5);
    assert.deepEqual([a.figures().realised, a.figures().unrealised, a.figures().markedAt], [0n, 500_000n, 5]);
    a.resolve(M, S, 6);
    assert.deepEqual([a.figures().realised, a.figures().unrealised, a.figures().total], [6n * BigInt(S), 0n, 6n * BigInt(S)]);
    assert.equal(a.figures().cash, BigInt(-4 * S));
    assert.deepEqual(a.positions(), [{ marketId: M, outcomeIndex: 1, shares: 10 * S }], 'resolved, unclaimed: still held');
    a.claimed(M);
    assert.equal(a.figures().cash, BigInt(6 * S));
    assert.deepEqual(a.positions(), []);
    assert.equal(a.figures().total, BigInt(6 * S));
  });

  it('a released market keeps its PnL in the account; once flat it leaves the map, not the totals', () => {
    const a = new Account();
    a.applyFill(fill(1, 0, 400_000, 100 * S, 1));
    a.applyFill(fill(1, 1, 800_000, 100 * S, 2));
    a.release(M);
    assert.equal(a.market(M), null);
    assert.equal(a.figures().total, BigInt(40 * S));
    // a market released while still holding tokens stays, marked
    a.applyFill(fill(1, 0, 500_000, 10 * S, 3, { marketId: N }));
    a.mark(N, 2 * 600_000, 4);
    a.release(N);
    assert.notEqual(a.market(N), null);
    assert.equal(a.figures().total, BigInt(41 * S));
  });

  it('a baseline enters at its mark: PnL starts at 0, later fills close against it', () => {
    const a = new Account();
    a.adoptBaseline(
      [
        { marketId: M, outcomeIndex: 1, shares: 20 * S, mark: 300_000 },
        { marketId: N, outcomeIndex: 0, shares: 5 * S, mark: 600_000 },
      ],
      100,
    );
    assert.equal(a.figures().total, 0n);
    assert.equal(a.figures().markedAt, 100);
    a.applyFill(fill(1, 1, 350_000, 20 * S, 101));
    assert.equal(a.figures().realised, BigInt(S));
    assert.equal(a.figures().cash, BigInt(7 * S), 'cash counts from the baseline');
    assert.deepEqual(a.positions(), [{ marketId: N, outcomeIndex: 0, shares: 5 * S }]);
  });

  it('foreign fills count in the positions and are told apart', () => {
    const a = new Account();
    a.applyFill(fill(1, 0, 500_000, S, 1, { origin: 'foreign' }));
    assert.equal(a.market(M)?.foreignFills, 1);
    assert.deepEqual(a.positions(), [{ marketId: M, outcomeIndex: 1, shares: S }]);
  });

  it('beyond the re-ordering window old fills fold; totals stay exact', () => {
    const a = new Account({ window: 16 });
    const b = new Account();
    for (let i = 0; i < 200; i++) {
      const f = fill(1, (i % 3 === 0 ? 1 : 0) as 0 | 1, 300_000 + (i % 7) * 10_000, (1 + (i % 5)) * S, i);
      a.applyFill(f);
      b.applyFill(f);
    }
    assert.deepEqual(a.figures(), b.figures());
    assert.deepEqual(a.positions(), b.positions());
    assert.equal(a.late, 0);
  });

  // soak-memory: ~5 fills a minute per market; at the old defaults (4 096 fills, 16 384 ids) a busy
  // market's book grew for hours before its bound (and the ledger's checkpoint copy with it)
  it('a busy market keeps at most 256 fills and 1,024 fill ids by default, and still drops a recent duplicate', () => {
    const a = new Account();
    const fills: AccountFill[] = [];
    for (let i = 0; i < 5_000; i++) {
      const f = fill(1, (i % 2) as 0 | 1, 300_000 + (i % 7) * 10_000, S, i);
      fills.push(f);
      a.applyFill(f);
    }
    const kept = a.kept(M);
    assert.ok(kept.fills <= 256, `${kept.fills} fills kept`);
    assert.ok(kept.ids <= 1_024, `${kept.ids} fill ids kept`);
    assert.equal(a.applyFill(fills.at(-500)!), false);
    assert.equal(a.figures().fills, 5_000);
  });
});

/** Fills with distinct venue times (ties broken by id), through zero and sign changes, in two markets. */
const fillsArb = fc.array(
  fc.record({
    market: fc.constantFrom(M, N),
    outcomeIndex: fc.constantFrom<0 | 1>(0, 1),
    side: fc.constantFrom<0 | 1>(0, 1),
    price: fc.integer({ min: 1, max: 99 }).map((c) => c * 10_000),
    size: fc.integer({ min: 1, max: 30 }).map((n) => n * S + (n % 3) * 1),
    fee: fc.integer({ min: 0, max: 5_000 }),
    ts: fc.integer({ min: 0, max: 50 }),
  }),
  { minLength: 1, maxLength: 30 },
);

describe('account books: order independence (property)', () => {
  it('any interleaving of the same fills and balance reads gives the same positions and realised PnL to the unit', () => {
    fc.assert(
      fc.property(fillsArb, fc.array(fc.nat(), { minLength: 60, maxLength: 60 }), fc.array(fc.nat(), { maxLength: 10 }), (raw, perm, reads) => {
        const fills: AccountFill[] = raw.map((r, i) => ({
          fillId: `x${String(i).padStart(3, '0')}`,
          marketId: r.market,
          outcomeIndex: r.outcomeIndex,
          side: r.side,
          price: r.price,
          size: r.size,
          fee: r.fee,
          feeSource: 'venue',
          ts: r.ts,
          origin: 'own',
        }));
        // venue order (ts, then id) against a shuffled arrival with balance reads sprinkled in
        const inOrder = new Account();
        for (const f of [...fills].sort((x, y) => x.ts - y.ts || (x.fillId < y.fillId ? -1 : 1))) inOrder.applyFill(f);
        const shuffled = fills
          .map((f, i) => ({ f, k: perm[i % perm.length]! * 1000 + i }))
          .sort((x, y) => x.k - y.k)
          .map((x) => x.f);
        const other = new Account();
        shuffled.forEach((f, i) => {
          if (reads.includes(i)) other.reconcile(f.marketId, ((i * 7) % 13) * S, 0, i);
          other.applyFill(f);
        });
        assert.deepEqual(other.positions(), inOrder.positions());
        assert.equal(other.figures().realised, inOrder.figures().realised);
        assert.equal(other.figures().cash, inOrder.figures().cash);
        for (const id of [M, N]) assert.deepEqual(other.positionOf(id), inOrder.positionOf(id));
      }),
      { numRuns: 300 },
    );
  });
});

describe('account books: marks between fills (property)', () => {
  it('fills, marks, resolutions and claims in any mix give the figures and pnl() of the same books marked once at the end', () => {
    fc.assert(
      fc.property(fillsArb, fc.array(fc.integer({ min: 1, max: 99 }), { minLength: 30, maxLength: 30 }), fc.nat({ max: 40 }), (raw, marks, resolveAt) => {
        const fills: AccountFill[] = raw.map((r, i) => ({
          fillId: `m${i}`,
          marketId: r.market,
          outcomeIndex: r.outcomeIndex,
          side: r.side,
          price: r.price,
          size: r.size,
          fee: r.fee,
          feeSource: 'venue',
          ts: i,
          origin: 'own',
        }));
        const marked = new Account();
        const plain = new Account();
        const last = new Map<Bytes32, number>();
        fills.forEach((f, i) => {
          marked.applyFill(f);
          plain.applyFill(f);
          marked.pnl();
          // a mark after every fill (a tick), on either market, read back through pnl() as the kill switch does
          const id = i % 2 === 0 ? M : N;
          const mark2 = marks[i]! * 20_000;
          marked.mark(id, mark2, i);
          last.set(id, mark2);
          const pnl = marked.pnl();
          assert.equal(pnl, marked.figures().total);
          if (i === resolveAt) {
            marked.resolve(M, 1_000_000, i);
            plain.resolve(M, 1_000_000, i);
            marked.claimed(M);
            plain.claimed(M);
          }
        });
        // both at the last marks (a mark of a market not traded yet is not kept: marked again here)
        for (const [id, mark2] of last) {
          plain.mark(id, mark2, fills.length);
          marked.mark(id, mark2, fills.length);
        }
        const a = marked.figures();
        const b = plain.figures();
        assert.deepEqual({ ...a, markedAt: null }, { ...b, markedAt: null });
        assert.equal(marked.pnl(), plain.pnl());
        for (const id of [M, N]) assert.deepEqual(marked.marketPnl(id), plain.marketPnl(id));
      }),
      { numRuns: 300 },
    );
  });
});

describe('a fill the books never get: the limits after the drift grace', () => {
  it('past the grace the limits hold the venue’s holdings at the books’ average cost; the books, their PnL and the drift stay; a late fill puts the limits back on the books', () => {
    const a = new Account();
    a.driftGraceMs = 30_000;
    a.applyFill(fill(1, 0, 400_000, 10 * S, 1));
    const booksPos = a.holdingsOf(M);
    // the venue holds 4 more YES than the books: a fill the books have not got (yet)
    assert.equal(a.reconcile(M, 14 * S, 0, 1_000).length, 1);
    assert.equal(a.limitHoldingsOf(M), booksPos, 'within the grace: the books (a read may land before its fill)');
    a.reconcile(M, 14 * S, 0, 30_999);
    assert.equal(a.limitHoldingsOf(M).net, 10 * S);
    const v0 = a.version;
    assert.equal(a.reconcile(M, 14 * S, 0, 31_000).length, 1, 'the drift stays raised');
    assert.ok(a.version > v0, 'the views that cache on the version recompute');
    const lim = a.limitHoldingsOf(M);
    assert.equal(lim.net, 14 * S, "past the grace: the venue's holdings");
    assert.equal(Number(lim.basis) / lim.net, 400_000, "at the books' average cost");
    assert.equal(a.holdingsOf(M).net, 10 * S, 'the books keep what their fills say');
    assert.equal(a.market(M)!.yes, 10 * S);
    assert.equal(a.drifts().length, 1);
    // the fill arrives: the books agree with the venue, the limits are the books' again
    a.applyFill(fill(1, 0, 420_000, 4 * S, 2));
    assert.equal(a.drifts().length, 0);
    assert.equal(a.limitHoldingsOf(M), a.holdingsOf(M));
    assert.equal(a.limitHoldingsOf(M).net, 14 * S);
  });

  it('without a grace (tools, tests) the limits stay on the books whatever the reads say', () => {
    const a = new Account();
    a.applyFill(fill(1, 0, 400_000, 10 * S, 1));
    a.reconcile(M, 14 * S, 0, 1_000);
    a.reconcile(M, 14 * S, 0, 10_000_000);
    assert.equal(a.limitHoldingsOf(M).net, 10 * S);
  });
});
