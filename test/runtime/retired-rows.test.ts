/**
 * The released markets' rows of the end-of-run report against real books (src/runtime/retired-rows.ts,
 * src/account/run-figures.ts): every fill of the run counts in one row, whatever a market's stretches
 * (quoted, released, quoted again) and however many rows were folded away; the rows add up to the
 * totals with no "(markets not listed)" row.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { Account, type AccountFill } from '../../src/account/account.ts';
import { RunFigures } from '../../src/account/run-figures.ts';
import type { Bytes32 } from '../../src/model/order.ts';
import { RetiredRows } from '../../src/runtime/retired-rows.ts';
import { buildRunReport, UNLISTED } from '../../src/runtime/run-report.ts';
import { STOPPED_RUN } from '../support/run-report.ts';

const S = 1_000_000;
const idOf = (i: number) => `0x${i.toString(16).padStart(64, '0')}` as Bytes32;
const M = idOf(0xa1);

function books() {
  const a = new Account();
  const run = new RunFigures(a);
  let seq = 0;
  let ts = 0;
  const fill = (marketId: Bytes32, side: 0 | 1, price = 500_000, size = S, o: Partial<AccountFill> = {}) =>
    a.applyFill({ fillId: `f${++seq}`, marketId, outcomeIndex: 1, side, price, size, fee: 7, feeSource: 'venue', ts: ++ts, origin: 'own', ...o });
  const active = new Set<Bytes32>();
  const rows = new RetiredRows(run, a, (id) => a.positionOf(id) !== null && a.holdingsOf(id).net !== 0, 3);
  const time = (id: Bytes32) => ({ marketId: id, label: id.slice(-4), observedMs: 1_000, liveMs: 1_000, states: { quoting: 1_000 } });
  /** rotation releases a market: its row, then the books let it go (folded away once flat) */
  const release = (id: Bytes32) => {
    active.delete(id);
    rows.released(id, { time: time(id), unrealised: 0n, net: 0, retired: 'filtered-out' });
    a.release(id);
  };
  const start = (id: Bytes32) => {
    rows.restarted(id);
    active.add(id);
  };
  /** a stretch of a market: quoted, a buy and a sell of one share at 0.50, released */
  const stretch = (id: Bytes32) => {
    start(id);
    fill(id, 0);
    fill(id, 1);
    release(id);
  };
  const report = () =>
    buildRunReport({
      ...STOPPED_RUN,
      markets: [
        ...rows.reportRows((id) => active.has(id)),
        ...[...active].map((id) => ({ time: time(id), ledger: rows.since(id), unrealised: a.marketPnl(id).unrealised, net: a.holdingsOf(id).net })),
      ],
      run: run.totals(),
      account: a.figures(),
    });
  return { a, run, fill, release, start, stretch, report };
}

/** [label, fills] of each row */
const fillsByRow = (r: ReturnType<typeof buildRunReport>) => r.markets.map((m) => [m.market, m.fills]);

describe('released markets in the run report', () => {
  it('a fill between a release and the start again shows in the released row, not the new one', () => {
    const b = books();
    b.stretch(M);
    // an order that ended after the release (its cancel raced a fill)
    b.fill(M, 0, 400_000);
    b.start(M);
    b.fill(M, 1, 600_000);
    const r = b.report();
    assert.deepEqual(fillsByRow(r), [
      ['00a1', 3],
      ['00a1', 1],
    ]);
    assert.equal(r.markets[0]!.volumeUsdc, '1.400000');
    assert.equal(r.totals.fills, 4);
    assert.ok(!r.markets.some((m) => m.market === UNLISTED));
  });

  it('a market that had not traded when released, a fill, then its start again: the fill in its released row', () => {
    const b = books();
    b.start(M);
    b.release(M);
    b.fill(M, 0, 520_000, 5 * S, { origin: 'foreign' });
    b.start(M);
    assert.deepEqual(fillsByRow(b.report()), [
      ['00a1', 1],
      ['00a1', 0],
    ]);
  });

  it('a market released flat (the books fold its book away) and quoted again: its new fills in its new row only', () => {
    const b = books();
    b.stretch(M);
    assert.equal(b.a.market(M), null, 'folded away by the books');
    b.start(M);
    b.fill(M, 0, 450_000);
    const r = b.report();
    assert.deepEqual(fillsByRow(r), [
      ['00a1', 2],
      ['00a1', 1],
    ]);
    assert.ok(!r.markets.some((m) => m.market === UNLISTED));
  });

  it('a market folded into the earlier rows and quoted again counts each fill once', () => {
    const b = books();
    b.stretch(M);
    // three more markets released: the row of M folds away (the bound is 3 here)
    for (let i = 1; i <= 3; i++) {
      b.stretch(idOf(i));
    }
    b.fill(M, 0, 400_000, S, { origin: 'foreign' }); // after its release, before its start again
    b.start(M);
    b.fill(M, 1, 450_000);
    let r = b.report();
    assert.deepEqual(fillsByRow(r), [
      ['(1 earlier retired markets)', 3],
      ['0001', 2],
      ['0002', 2],
      ['0003', 2],
      ['00a1', 1],
    ]);
    assert.equal(r.totals.fills, 10);
    assert.ok(!r.markets.some((m) => m.market === UNLISTED));
    // released again, and again a fill after: its new row has its second stretch, and the late fill
    b.release(M);
    b.fill(M, 0, 300_000);
    r = b.report();
    assert.deepEqual(fillsByRow(r), [
      ['(2 earlier retired markets)', 5],
      ['0002', 2],
      ['0003', 2],
      ['00a1', 2],
    ]);
    const sum = (k: 'volumeUsdc' | 'feesUsdc' | 'realisedPnlUsdc') => r.markets.reduce((x, m) => x + BigInt(m[k].replace('.', '')), 0n);
    assert.deepEqual(
      [r.markets.reduce((x, m) => x + m.fills, 0), sum('volumeUsdc'), sum('feesUsdc'), sum('realisedPnlUsdc')],
      [11, b.run.totals().volume, b.run.totals().fees, b.run.totals().realised],
      'the rows add up to the totals',
    );
  });

  it("a market's newest row shows its position and unrealised PnL now, as the books hold them; the rows add up to the account's", () => {
    const b = books();
    b.start(M);
    b.fill(M, 0, 400_000, 10 * S);
    b.a.mark(M, 2 * 450_000, 1);
    b.release(M);
    // a fill after the release (the market may be gone from the store): the books hold 15 YES now
    b.fill(M, 0, 420_000, 5 * S, { origin: 'foreign' });
    b.a.mark(M, 2 * 500_000, 2);
    let r = b.report();
    assert.deepEqual(
      r.markets.map((m) => [m.fills, m.positionShares, m.unrealisedPnlUsdc]),
      [[2, '15.000000', '1.400000']],
    );
    assert.equal(r.totals.unrealisedPnlUsdc, '1.400000');
    // released again after a start again: the first row keeps its fills, only the newest shows the PnL
    b.start(M);
    b.release(M);
    r = b.report();
    assert.deepEqual(
      r.markets.map((m) => [m.fills, m.unrealisedPnlUsdc]),
      [
        [2, '0.000000'],
        [0, '1.400000'],
      ],
    );
    // quoted again: its active row shows it
    b.start(M);
    assert.deepEqual(
      b.report().markets.map((m) => [m.fills, m.unrealisedPnlUsdc]),
      [
        [2, '0.000000'],
        [0, '0.000000'],
        [0, '1.400000'],
      ],
    );
  });

  it('a market whose every row folded away: its later fills go to the folded row', () => {
    const b = books();
    b.stretch(M);
    for (let i = 1; i <= 3; i++) {
      b.start(idOf(i));
      b.release(idOf(i));
    }
    b.fill(M, 0, 250_000, 2 * S, { origin: 'foreign' });
    const r = b.report();
    assert.deepEqual(fillsByRow(r)[0], ['(1 earlier retired markets)', 3]);
    assert.equal(r.markets[0]!.volumeUsdc, '1.500000');
    assert.ok(!r.markets.some((m) => m.market === UNLISTED));
  });
});

/**
 * The rows are kept for the report (RETIRED_ROWS_MAX of them), so what each costs counts for a bot that
 * retires markets all day: they share hidden classes (V8 maps) instead of holding one each, as
 * `{ ...row, ledger }` made them (~0.25 KB a row more: docs/performance/soak-diff.md). Checked with V8's %HaveSameMap
 * (natives syntax, switched on for one function made here), as test/runtime/immediate-shape.test.ts does.
 */
describe("released markets' rows: their hidden classes", () => {
  setFlagsFromString('--allow-natives-syntax');
  const haveSameMap = new Function('a', 'b', 'return %HaveSameMap(a, b);') as (a: object, b: object) => boolean;
  const distinctMaps = (objects: readonly object[]): number => {
    const maps: object[] = [];
    for (const o of objects) if (!maps.some((m) => haveSameMap(m, o))) maps.push(o);
    return maps.length;
  };

  it('50 markets rotated through, some with an attribution, some started again with fills in between: two maps in all', () => {
    const a = new Account();
    const run = new RunFigures(a);
    const rows = new RetiredRows(run, a, () => false, 40);
    let seq = 0;
    for (let i = 1; i <= 50; i++) {
      const id = idOf(i);
      a.applyFill({ fillId: `f${++seq}`, marketId: id, outcomeIndex: 1, side: 0, price: 500_000, size: S, fee: 7, feeSource: 'venue', ts: seq, origin: 'own' });
      const attribution = i % 3 === 0 ? { spreadCapture: 1n, inventory: 2n, fees: -3n, resolution: 0n, total: 0n } : undefined;
      const time = { marketId: id, label: `m${i}`, observedMs: 1_000 * i, liveMs: 500 * i, states: { quoting: 1_000 * i } };
      rows.released(id, { time, unrealised: BigInt(i), net: i, retired: 'closed', ...(attribution ? { attribution } : {}) });
      if (i % 5 === 0) {
        // a fill after the release, then its start again: its row takes the fill
        a.applyFill({
          fillId: `f${++seq}`,
          marketId: id,
          outcomeIndex: 1,
          side: 1,
          price: 510_000,
          size: S,
          fee: 7,
          feeSource: 'venue',
          ts: seq,
          origin: 'own',
        });
        rows.restarted(id);
      }
    }
    assert.equal(rows.rows.length, 40);
    assert.equal(rows.rows.filter((r) => r.attribution !== undefined).length, 13);
    assert.ok(
      rows.rows.some((r) => r.ledger.fills === 2),
      'a row took a fill after its release',
    );
    assert.equal(distinctMaps(rows.rows), 2, 'one map for the rows with an attribution, one for those without');
    assert.equal(distinctMaps(rows.rows.filter((r) => r.attribution === undefined)), 1);
    // the check tells maps apart
    assert.equal(distinctMaps([{ a: 1 }, { b: 1 }]), 2);
  });
});
