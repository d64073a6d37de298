/**
 * Rotation in the summary line and the end-of-run report: exact text of the summary line, the
 * report's rotation section and a retired market's row.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Bytes32 } from '../../../src/model/order.ts';
import { buildRunReport, formatRunReport } from '../../../src/runtime/run-report.ts';
import { NO_RUN_TRADES } from '../../../src/account/run-figures.ts';
import { formatRotationLine } from '../../../src/runtime/terminal-summary.ts';
import { STOPPED_RUN } from '../../support/run-report.ts';

const base = {
  active: 12,
  retiring: 0,
  stuck: 0,
  windowMs: 600_000,
  startedInWindow: 3,
  retiredInWindow: 2,
  retiredByReason: { resolved: 2 },
  retired: 5,
  lastRefreshError: null,
};

test('the summary line: counts in the window, reasons, retiring and a failing refresh', () => {
  assert.equal(formatRotationLine(base, true), 'rotation: 12 active, +3 started, −2 retired (resolved 2) in the last 10 min');
  assert.equal(
    formatRotationLine({ ...base, retiring: 2, stuck: 1, lastRefreshError: 'EIO' }, true),
    'rotation: 12 active, +3 started, −2 retired (resolved 2) in the last 10 min, 2 retiring (1 stuck), refresh failing: EIO',
  );
  // refresh off and nothing retired: no line; something retired (a resolution): a line
  assert.equal(formatRotationLine({ ...base, retired: 0, retiredInWindow: 0, retiredByReason: {} }, false), null);
  assert.ok(formatRotationLine(base, false));
  assert.equal(
    formatRotationLine({ ...base, retiredByReason: { resolved: 1, 'filtered-out': 1 } }, true),
    'rotation: 12 active, +3 started, −2 retired (resolved 1, filtered-out 1) in the last 10 min',
  );
  const long = formatRotationLine({ ...base, lastRefreshError: 'x'.repeat(300) }, true)!;
  assert.equal(long.length, 120);
});

test('the run report: a rotation section, a line, and retired markets named', () => {
  const M = `0x${'ab'.repeat(32)}` as Bytes32;
  const r = buildRunReport({
    ...STOPPED_RUN,
    startedAt: Date.UTC(2026, 10, 25, 12),
    stoppedAt: Date.UTC(2026, 10, 25, 13),
    markets: [
      {
        time: { marketId: M, label: 'rain-tomorrow', observedMs: 60_000, liveMs: 60_000, states: { quoting: 60_000 } },
        ledger: NO_RUN_TRADES,
        unrealised: 0n,
        net: 0,
        retired: 'resolved',
      },
    ],
    rotation: {
      summary: { active: 3, started: 7, retired: 4, refreshes: 60, refreshFailures: 1 },
      totals: { started: { startup: 2, selected: 5 }, retired: { resolved: 3, 'filtered-out': 1 } },
      retiring: [{ marketId: M, reason: 'closed', seconds: 12.345, stuck: true }],
    },
  });
  assert.deepEqual(r.rotation, {
    active: 3,
    started: 7,
    retired: 4,
    startedBy: { startup: 2, selected: 5 },
    retiredBy: { resolved: 3, 'filtered-out': 1 },
    refreshes: 60,
    refreshFailures: 1,
    retiringAtStop: [{ marketId: M, reason: 'closed', seconds: 12.3, stuck: true }],
  });
  assert.equal(r.markets[0]!.retired, 'resolved');
  const lines = formatRunReport(r);
  assert.ok(lines.includes('  rotation: 3 active at stop, 7 started (startup 2, selected 5), 4 retired (resolved 3, filtered-out 1)'), lines.join('\n'));
  assert.ok(lines.includes('    still retiring at stop 1 (cancelled by the stop), failed refreshes 1'), lines.join('\n'));
  assert.ok(lines.includes('  rain-tomorrow (retired: resolved)'));
  // nothing beyond the start-up set: the section is in the JSON, no line is printed
  const quiet = buildRunReport({
    ...STOPPED_RUN,
    rotation: {
      summary: { active: 2, started: 2, retired: 0, refreshes: 3, refreshFailures: 0 },
      totals: { started: { startup: 2 }, retired: {} },
      retiring: [],
    },
  });
  assert.equal(quiet.rotation?.started, 2);
  assert.ok(!formatRunReport(quiet).some((l) => l.includes('rotation')));
  // without rotation input the report has no section (older callers)
  const plain = buildRunReport(STOPPED_RUN);
  assert.equal(plain.rotation, undefined);
});

test('retired rows past the bound fold into one row whose figures add up exactly', async () => {
  const { foldRetired } = await import('../../../src/runtime/retired-rows.ts');
  const M = `0x${'cd'.repeat(32)}` as Bytes32;
  const row = (fills: number, realised: bigint) => ({
    time: { marketId: M, label: 'x', observedMs: 1_000, liveMs: 500, states: { quoting: 500, 'market-paused': 500 } },
    ledger: { fills, shares: fills * 1_000_000, volume: BigInt(fills) * 500_000n, fees: BigInt(fills), realised: realised, book: 1 },
    unrealised: 1n,
    net: 7,
    retired: 'resolved',
  });
  const acc: { count: number; row: ReturnType<typeof row> | null } = { count: 0, row: null };
  foldRetired(acc, row(2, -3n));
  foldRetired(acc, row(3, 10n));
  assert.equal(acc.count, 2);
  assert.deepEqual(acc.row, {
    time: { marketId: M, label: '(2 earlier retired markets)', observedMs: 2_000, liveMs: 1_000, states: { quoting: 1_000, 'market-paused': 1_000 } },
    ledger: { fills: 5, shares: 5_000_000, volume: 2_500_000n, fees: 5n, realised: 7n, book: 1 },
    // valued now in '(markets not listed)', not as of the releases
    unrealised: 0n,
    net: 0,
    retired: 'various',
  });
});

test('weeks of rotation: the retired rows stay a few hundred KB; the oldest fold, rows of markets still holding a position stay, totals exact', async () => {
  const { keepRetiredRows, RETIRED_ROWS_MAX } = await import('../../../src/runtime/retired-rows.ts');
  type Row = Parameters<typeof keepRetiredRows>[0][number];
  const idOf = (i: number) => `0x${i.toString(16).padStart(64, '0')}` as Bytes32;
  const row = (i: number): Row => ({
    time: {
      marketId: idOf(i),
      label: `btc-close-above-${i}-at-12-00`,
      observedMs: 300_000,
      liveMs: 250_000,
      states: { quoting: 250_000, 'market-paused': 30_000, 'stale-book': 20_000 },
    },
    ledger: { fills: 3, shares: 15_000_000, volume: 7_500_000n, fees: 12_345n, realised: BigInt(i), book: i + 1 },
    unrealised: -1n,
    net: 0,
    retired: 'resolved',
    attribution: { spreadCapture: 123_456n, inventory: -23_456n, fees: -12_345n, resolution: 0n, total: 87_655n },
  });
  const rows: Row[] = [];
  const acc: { count: number; row: Row | null } = { count: 0, row: null };
  // market 7 still holds a position (its payout unknown): its row is not folded away
  const held = idOf(7);
  const N = 5_000;
  for (let i = 0; i < N; i++) {
    rows.push(row(i));
    keepRetiredRows(rows, acc, RETIRED_ROWS_MAX, (id) => id === held);
  }
  assert.equal(rows.length, RETIRED_ROWS_MAX);
  assert.equal(acc.count, N - RETIRED_ROWS_MAX);
  assert.ok(
    rows.some((r) => r.time.marketId === held),
    'the held market keeps its row',
  );
  assert.equal(rows.at(-1)!.time.marketId, idOf(N - 1), 'the newest rows are kept');
  // exact totals: listed + folded = every row
  const fills = rows.reduce((a, r) => a + r.ledger.fills, 0) + acc.row!.ledger.fills;
  // the run's realised PnL of each row (its ledger figure), as the report shows it
  const realised = rows.reduce((a, r) => a + r.ledger.realised, 0n) + acc.row!.ledger.realised;
  assert.equal(fills, 3 * N);
  assert.equal(realised, BigInt((N * (N - 1)) / 2));
  // small: the kept rows serialize to a few hundred KB at most (memory flat over weeks)
  const bytes = JSON.stringify(rows, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v)).length;
  assert.ok(bytes <= 200_000, `kept rows ${bytes} bytes`);
});
