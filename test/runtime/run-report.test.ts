import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Bytes32 } from '../../src/model/order.ts';
import { Account, type AccountFill } from '../../src/account/account.ts';
import { RunFigures } from '../../src/account/run-figures.ts';
import { accountBlock, buildRunReport, formatRunReport } from '../../src/runtime/run-report.ts';
import { micro } from '../../src/model/units.ts';
import { STOPPED_RUN } from '../support/run-report.ts';

const M = ('0x' + 'ab'.repeat(32)) as Bytes32;

/** A run whose books took these fills (own, the venue's fees). */
function runWith(...fills: Omit<AccountFill, 'feeSource' | 'origin'>[]): RunFigures {
  const a = new Account();
  const run = new RunFigures(a);
  for (const f of fills) a.applyFill({ ...f, feeSource: 'venue', origin: 'own' });
  return run;
}

test('micro units print exactly', () => {
  assert.equal(micro(0n), '0.000000');
  assert.equal(micro(1n), '0.000001');
  assert.equal(micro(-1_500_000n), '-1.500000');
  assert.equal(micro(123_456_789_012_345_678n), '123456789012.345678');
  assert.equal(micro(7), '0.000007');
});

test('the report: exact money per market and in total, share of time quoting, reasons longest first, lines within 120 columns', () => {
  const l = runWith({ fillId: 'x', marketId: M, outcomeIndex: 1, side: 0, price: 333_333, size: 3_000_001, fee: 1_234, ts: 1 });
  const r = buildRunReport({
    ...STOPPED_RUN,
    startedAt: Date.UTC(2026, 10, 25, 12),
    stoppedAt: Date.UTC(2026, 10, 25, 12, 1),
    markets: [
      {
        time: {
          marketId: M,
          label: 'rain-tomorrow',
          observedMs: 60_000,
          liveMs: 45_000,
          states: { quoting: 45_000, 'stale-book': 5_000, 'strategy-error': 10_000 },
        },
        ledger: l.market(M),
        unrealised: 2_000_001n,
        net: 3_000_001,
      },
    ],
  });
  const m = r.markets[0]!;
  // 3.000001 × 0.333333 = 0.999999333333 USDC → 0.999999 (exact, rounded once at the end)
  assert.equal(m.volumeUsdc, '0.999999');
  assert.equal(m.volumeShares, '3.000001');
  assert.equal(m.feesUsdc, '0.001234');
  assert.equal(m.realisedPnlUsdc, '-0.001234');
  assert.equal(m.unrealisedPnlUsdc, '2.000001');
  assert.equal(m.quotingShare, 0.75);
  assert.deepEqual(m.notQuoting, [
    { state: 'strategy-error', seconds: 10 },
    { state: 'stale-book', seconds: 5 },
  ]);
  assert.equal(r.totals.fills, 1);
  assert.equal(r.totals.realisedPnlUsdc, '-0.001234');
  assert.equal(r.seconds, 60);
  const lines = formatRunReport(r);
  assert.match(lines[0]!, /^run report: 60 s, stopped by SIGTERM, exit 0$/);
  assert.equal(lines[2], '  rain-tomorrow');
  assert.equal(lines[3], '    quoting 75.0%, fills 1, volume 1.00 USDC, fees 0.00, realised 0.00, unrealised 2.00 USDC');
  assert.equal(lines[4], '    not quoting: strategy-error 10s, stale-book 5s');
  for (const x of lines) assert.ok(x.length <= 120, x);
});

test('the report carries the PnL by source exactly, and prints it for markets with fills', () => {
  const l = runWith({ fillId: 'f', marketId: M, outcomeIndex: 1, side: 0, price: 400_000, size: 10_000_000, fee: 2_000, ts: 1 });
  const base = { ...STOPPED_RUN, stoppedAt: 60_000 };
  const time = { marketId: M, label: 'rain-tomorrow', observedMs: 60_000, liveMs: 60_000, states: { quoting: 60_000 } };
  const attribution = { spreadCapture: 150_001n, inventory: -1_000_000n, fees: -2_000n, resolution: 0n, total: -851_999n };
  const r = buildRunReport({ ...base, markets: [{ time, ledger: l.market(M), unrealised: -851_999n, net: 10_000_000, attribution }] });
  assert.deepEqual(r.markets[0]!.pnlAttributionUsdc, {
    spreadCapture: '0.150001',
    inventory: '-1.000000',
    fees: '-0.002000',
    resolution: '0.000000',
    total: '-0.851999',
  });
  const line = formatRunReport(r).find((x) => x.includes('pnl by source'));
  assert.equal(line, '    pnl by source: spread 0.15, inventory -1.00, fees 0.00, resolution 0.00 = -0.85 USDC');
  // without attribution (an older store) the field is absent and nothing is printed
  const plain = buildRunReport({ ...base, markets: [{ time, ledger: l.market(M), unrealised: 0n, net: 0 }] });
  assert.equal(plain.markets[0]!.pnlAttributionUsdc, undefined);
  assert.ok(!formatRunReport(plain).some((x) => x.includes('pnl by source')));
});

test('on a ledger with history, a row shows the run realised PnL (the books), and the rows add up to the totals', () => {
  const a = new Account();
  const fill = (fillId: string, side: 0 | 1, price: number, ts: number) =>
    a.applyFill({ fillId, marketId: M, outcomeIndex: 1, side, price, size: 10_000_000, fee: 0, ts, feeSource: 'venue', origin: 'own' });
  // an earlier run: bought 10 at 0.40, sold at 0.50 → +1.000000 realised before this run
  fill('a', 0, 400_000, 1);
  fill('b', 1, 500_000, 2);
  const run = new RunFigures(a);
  // this run: bought 10 at 0.40, sold at 0.45 → +0.500000
  fill('c', 0, 400_000, 3);
  fill('d', 1, 450_000, 4);
  const since = a.marketPnl(M).realised;
  assert.equal(since, 1_500_000n, 'the books since inception');
  const time = { marketId: M, label: 'm', observedMs: 1_000, liveMs: 1_000, states: { quoting: 1_000 } };
  const r = buildRunReport({ ...STOPPED_RUN, markets: [{ time, ledger: run.market(M), unrealised: 0n, net: 0 }], run: run.totals() });
  assert.equal(r.totals.realisedPnlUsdc, '0.500000');
  assert.deepEqual(
    r.markets.map((m) => [m.market, m.realisedPnlUsdc]),
    [['m', '0.500000']],
    'one row, the run realised, no "(markets not listed)" row',
  );
});

test("a position held from an earlier run in a market no row lists: its unrealised PnL in '(markets not listed)', so the rows add up to the account's", () => {
  const a = new Account();
  const N = ('0x' + 'cd'.repeat(32)) as Bytes32;
  const fill = (marketId: Bytes32, fillId: string, side: 0 | 1, price: number, ts: number) =>
    a.applyFill({ fillId, marketId, outcomeIndex: 1, side, price, size: 10_000_000, fee: 0, ts, feeSource: 'venue', origin: 'own' });
  // an earlier run bought 10 YES of N at 0.40; this run quotes M only
  fill(N, 'a', 0, 400_000, 1);
  a.mark(N, 2 * 450_000, 2);
  const run = new RunFigures(a);
  fill(M, 'b', 0, 300_000, 3);
  a.mark(M, 2 * 310_000, 4);
  const time = { marketId: M, label: 'm', observedMs: 1_000, liveMs: 1_000, states: { quoting: 1_000 } };
  const r = buildRunReport({
    ...STOPPED_RUN,
    markets: [{ time, ledger: run.market(M), unrealised: a.marketPnl(M).unrealised, net: 10_000_000 }],
    run: run.totals(),
    account: a.figures(),
  });
  assert.equal(r.totals.unrealisedPnlUsdc, '0.600000', "the account's: N +0.50, M +0.10");
  assert.deepEqual(
    r.markets.map((m) => [m.market, m.fills, m.unrealisedPnlUsdc]),
    [
      ['m', 1, '0.100000'],
      ['(markets not listed)', 0, '0.500000'],
    ],
  );
  assert.ok(formatRunReport(r).includes('  (markets not listed): fills 0, volume 0.00 USDC, fees 0.00, realised 0.00, unrealised 0.50 USDC'));
});

test('the account line and the PnL by source add up as shown (cents; the total rounded as it is)', () => {
  const l = runWith({ fillId: 'f', marketId: M, outcomeIndex: 1, side: 0, price: 400_000, size: 10_000_000, fee: 2_000, ts: 1 });
  const base = { ...STOPPED_RUN, stoppedAt: 60_000 };
  const time = { marketId: M, label: 'rain-tomorrow', observedMs: 60_000, liveMs: 60_000, states: { quoting: 60_000 } };
  // each rounded on its own: spread 0.01, inventory 0.01, fees 0.00, resolution 0.00 = 0.01
  const attribution = { spreadCapture: 5_000n, inventory: 5_000n, fees: -1_000n, resolution: 0n, total: 9_000n };
  const r = buildRunReport({ ...base, markets: [{ time, ledger: l.market(M), unrealised: 0n, net: 10_000_000, attribution }] });
  const account = accountBlock({ realised: 2_445_000n, unrealised: 1_235_100n, total: 3_680_100n, fees: 2_000n, markedAt: null } as never);
  const lines = formatRunReport({ ...r, account });
  assert.equal(
    lines.find((x) => x.includes('pnl by source')),
    '    pnl by source: spread 0.01, inventory 0.00, fees 0.00, resolution 0.00 = 0.01 USDC',
  );
  // each rounded on its own this read "PnL 3.68 (realised 2.45, unrealised 1.24)"
  assert.match(lines.find((x) => x.includes('account:')) ?? '', /^ {2}account: PnL 3\.68 USDC \(realised 2\.44, unrealised 1\.24, fees 0\.00\)/);
  assert.equal(account.pnlUsdc, '3.680100', 'the JSON keeps the exact figure');
});

test('the total line and the account line show the same figures alike (one rounding of realised and unrealised)', () => {
  // the figures of an `npm start` run where both lines cover the same fills: 3.166864 read 3.17 in the total
  // line and 3.16 in the account line (which makes realised and unrealised add up to the PnL as shown)
  const r = buildRunReport({ ...STOPPED_RUN, stoppedAt: 60_000, markets: [] });
  const totals = { ...r.totals, realisedPnlUsdc: '3.166864', unrealisedPnlUsdc: '1.798133' };
  const account = accountBlock({ realised: 3_166_864n, unrealised: 1_798_133n, total: 4_964_997n, fees: 0n, markedAt: null } as never);
  const lines = formatRunReport({ ...r, totals, account });
  const total = lines.find((x) => x.startsWith('  total:')) ?? '';
  const acct = lines.find((x) => x.startsWith('  account:')) ?? '';
  assert.match(total, /realised 3\.16, unrealised 1\.80 USDC$/, `total line: ${total}`);
  assert.match(acct, /PnL 4\.96 USDC \(realised 3\.16, unrealised 1\.80,/, `account line: ${acct}`);
});
