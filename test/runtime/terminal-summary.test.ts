import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Bytes32 } from '../../src/model/order.ts';
import { formatSummary, formatSummaryLine, startSummary, summaryRows } from '../../src/runtime/terminal-summary.ts';
import { StateStore } from '../../src/state/store.ts';
import { ManualClock } from '../exchange/stream/manual-clock.ts';

const M = ('0x' + 'ab'.repeat(32)) as Bytes32;

test('rows show own best quotes, fills, position and PnL per market', () => {
  const s = new StateStore();
  s.dispatch({ type: 'MarketMetadataUpdated', marketId: M, slug: 'rain-tomorrow', ts: 1 });
  s.dispatch({ type: 'OrderSubmitted', marketId: M, slot: 's1', nonce: ('0x' + '01'.repeat(32)) as Bytes32, order: { marketId: M, outcomeIndex: 1, side: 0, price: 480_000, size: 10_000_000, nonce: ('0x' + '01'.repeat(32)) as Bytes32 }, retry: false, ts: 1 });
  s.dispatch({ type: 'OrderSubmitted', marketId: M, slot: 's2', nonce: ('0x' + '02'.repeat(32)) as Bytes32, order: { marketId: M, outcomeIndex: 0, side: 0, price: 480_000, size: 10_000_000, nonce: ('0x' + '02'.repeat(32)) as Bytes32 }, retry: false, ts: 1 });
  s.dispatch({ type: 'OrderFilled', marketId: M, nonce: null, outcomeIndex: 1, side: 0, price: 400_000, size: 2_000_000, fee: 0, ts: 2 });
  const [r] = summaryRows(s.state, [M], new Map([[M.toLowerCase(), 1]]));
  assert.deepEqual({ ...r!, pnl: String(r!.pnl) }, { market: 'rain-tomorrow', bid: 480_000, ask: 520_000, orders: 2, fills: 1, net: 2_000_000, pnl: '0', stream: '-' });
  const lines = formatSummary([r!], 'header');
  assert.equal(lines[0], 'header');
  assert.match(lines[2]!, /^rain-tomorrow\s+48\.0¢\s+52\.0¢\s+2\s+1\s+2\.00\s+\+0\.00\s+-$/);
  assert.equal(lines.at(-1), 'total pnl +0.00 USDC');
  assert.equal(formatSummaryLine([r!], 'h'), 'h | orders 2 fills 1 pnl +0.00 USDC | rain-tomorrow 48/52¢ pos 2 +0.00');
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
