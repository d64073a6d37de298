import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Bytes32 } from '../../src/model/order.ts';
import { formatSummary, formatSummaryLine, startSummary, summaryRows } from '../../src/runtime/terminal-summary.ts';
import { StateStore } from '../../src/state/store.ts';
import { ManualClock } from '../exchange/stream/manual-clock.ts';

const M = ('0x' + 'ab'.repeat(32)) as Bytes32;

test('rows show own best quotes (resting at the venue only), fills, position, PnL and the health state per market', () => {
  const s = new StateStore();
  const n1 = ('0x' + '01'.repeat(32)) as Bytes32;
  const n2 = ('0x' + '02'.repeat(32)) as Bytes32;
  const n3 = ('0x' + '03'.repeat(32)) as Bytes32;
  s.dispatch({ type: 'MarketMetadataUpdated', marketId: M, slug: 'rain-tomorrow', ts: 1 });
  s.dispatch({ type: 'OrderSubmitted', marketId: M, slot: 's1', nonce: n1, order: { marketId: M, outcomeIndex: 1, side: 0, price: 480_000, size: 10_000_000, nonce: n1 }, retry: false, ts: 1 });
  s.dispatch({ type: 'OrderSubmitted', marketId: M, slot: 's2', nonce: n2, order: { marketId: M, outcomeIndex: 0, side: 0, price: 480_000, size: 10_000_000, nonce: n2 }, retry: false, ts: 1 });
  // a third create still in flight: not at the venue yet, so not counted
  s.dispatch({ type: 'OrderSubmitted', marketId: M, slot: 's3', nonce: n3, order: { marketId: M, outcomeIndex: 1, side: 0, price: 470_000, size: 10_000_000, nonce: n3 }, retry: false, ts: 1 });
  s.dispatch({ type: 'OrderAccepted', marketId: M, nonce: n1, duplicate: false, ts: 1 });
  s.dispatch({ type: 'OrderAccepted', marketId: M, nonce: n2, duplicate: false, ts: 1 });
  s.dispatch({ type: 'OrderFilled', marketId: M, nonce: null, outcomeIndex: 1, side: 0, price: 400_000, size: 2_000_000, fee: 0, ts: 2 });
  const [r] = summaryRows(s.state, [M], new Map([[M.toLowerCase(), 1]]), () => 'quoting');
  assert.deepEqual({ ...r!, pnl: String(r!.pnl) }, { market: 'rain-tomorrow', bid: 480_000, ask: 520_000, orders: 2, fills: 1, net: 2_000_000, pnl: '0', stream: '-', state: 'quoting' });
  const lines = formatSummary([r!], 'header');
  assert.equal(lines[0], 'header');
  assert.match(lines[2]!, /^rain-tomorrow\s+48\.0¢\s+52\.0¢\s+2\s+1\s+2\.00\s+\+0\.00\s+-\s+quoting$/);
  assert.equal(lines.at(-1), 'total pnl +0.00 USDC');
  assert.equal(formatSummaryLine([r!], 'h'), 'h | orders 2 fills 1 pnl +0.00 USDC\n  rain-tomorrow 48/52¢ ord 2 fills 1 pos 2 +0.00 quoting');
});

test('the line summary wraps per market and never exceeds 120 columns', () => {
  const rows = Array.from({ length: 6 }, (_, i) => ({
    market: `a-very-long-market-slug-that-goes-on-and-on-number-${i}-and-more-words-still`,
    bid: 480_000,
    ask: 520_000,
    orders: 4,
    fills: 12_345,
    net: -123_456_000_000,
    pnl: -98_765_432_100n,
    stream: 'live',
    state: i % 2 ? 'quoting' : 'stream-silent',
  }));
  const out = formatSummaryLine(rows, `12:00:00 collateral 123456789.00 USDC quoting 3/6 stale: balances,activity,oracle,markets,fills ${'x'.repeat(80)}`);
  const lines = out.split('\n');
  assert.equal(lines.length, 7, 'a header line and one line per market');
  for (const l of lines) assert.ok(l.length <= 120, `${l.length} columns: ${l}`);
  assert.match(lines[1]!, /stream-silent$/);
  assert.match(lines[2]!, /quoting$/);
});

test('the printer redraws in place on a TTY and appends otherwise; stop prints a last frame', () => {
  const clock = new ManualClock();
  const out: string[] = [];
  const stop = startSummary({ clock, everyMs: 3000, write: (x) => out.push(x), tty: true, render: () => ['a', 'b'] });
  clock.advance(1000);
  clock.advance(3000);
  stop();
  assert.equal(out.length, 3);
  assert.equal(out[0], '\x1b[2Ka\n\x1b[2Kb\n');
  assert.ok(out[1]!.startsWith('\x1b[2A'), 'moves up over the previous frame');
  const plain: string[] = [];
  const stop2 = startSummary({ clock, everyMs: 3000, write: (x) => plain.push(x), tty: false, render: () => ['x', 'y'], renderLine: () => 'one line' });
  clock.advance(1000);
  stop2();
  assert.deepEqual(plain, ['one line\n', 'one line\n']);
});
