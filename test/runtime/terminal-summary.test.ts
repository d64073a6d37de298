import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { BookSnapshot } from '../../src/model/book.ts';
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
  s.dispatch({
    type: 'OrderSubmitted',
    marketId: M,
    slot: 's1',
    nonce: n1,
    order: { marketId: M, outcomeIndex: 1, side: 0, price: 480_000, size: 10_000_000, nonce: n1 },
    retry: false,
    ts: 1,
  });
  s.dispatch({
    type: 'OrderSubmitted',
    marketId: M,
    slot: 's2',
    nonce: n2,
    order: { marketId: M, outcomeIndex: 0, side: 0, price: 480_000, size: 10_000_000, nonce: n2 },
    retry: false,
    ts: 1,
  });
  // a third create still in flight: not at the venue yet, so not counted
  s.dispatch({
    type: 'OrderSubmitted',
    marketId: M,
    slot: 's3',
    nonce: n3,
    order: { marketId: M, outcomeIndex: 1, side: 0, price: 470_000, size: 10_000_000, nonce: n3 },
    retry: false,
    ts: 1,
  });
  s.dispatch({ type: 'OrderAccepted', marketId: M, nonce: n1, duplicate: false, ts: 1 });
  s.dispatch({ type: 'OrderAccepted', marketId: M, nonce: n2, duplicate: false, ts: 1 });
  s.dispatch({ type: 'OrderFilled', marketId: M, nonce: null, outcomeIndex: 1, side: 0, price: 400_000, size: 2_000_000, fee: 0, ts: 2 });
  const [r] = summaryRows(s.state, [M], new Map([[M.toLowerCase(), 1]]), () => 'quoting', 2);
  const { attribution, ...rest } = r!;
  assert.deepEqual(
    { ...rest, pnl: String(r!.pnl) },
    {
      market: 'rain-tomorrow',
      bid: 480_000,
      ask: 520_000,
      orders: 2,
      fills: 1,
      net: 2_000_000,
      pnl: '0',
      stream: '-',
      state: 'quoting',
      regime: 'quiet',
      toxicity: null,
      score: null,
    },
  );
  assert.equal(attribution.total, 0n, 'no mid yet: nothing to attribute');
  const lines = formatSummary([r!], 'header');
  assert.equal(lines[0], 'header');
  assert.match(lines[2]!, /^rain-tomorrow\s+48\.0¢\s+52\.0¢\s+2\s+1\s+2\.00\s+\+0\.00\s+-\s+quoting$/);
  assert.match(lines[3]!, /^market\s+regime\s+tox¢\/sh\s+spread\s+inventory\s+fees\s+resolution$/);
  assert.match(lines[4]!, /^rain-tomorrow\s+quiet\s+-\s+\+0\.00\s+\+0\.00\s+\+0\.00\s+\+0\.00$/);
  assert.equal(lines.at(-1), 'total pnl +0.00 USDC');
  assert.equal(
    formatSummaryLine([r!], 'h'),
    'h | orders 2 fills 1 pnl +0.00 USDC\n  rain-tomorrow 48/52¢ ord 2 fills 1 pos 2 +0.00 quoting | quiet tox -¢ sifr +0.00/+0.00/+0.00/+0.00',
  );
});

test('rows carry the edge: regime, toxicity (¢ per share) and the attribution summing to the PnL, from the store', () => {
  const s = new StateStore();
  const C = 10_000;
  const book = (ts: number, bidCents: number, askCents: number) => {
    const b: BookSnapshot = {
      marketId: M,
      outcomeIndex: 1,
      bids: [{ price: bidCents * C, size: 100_000_000 }],
      asks: [{ price: askCents * C, size: 100_000_000 }],
      venueTs: ts,
    };
    s.dispatch({ type: 'BookEventReceived', event: { type: 'snapshot', book: b, seq: ts, localTs: ts, source: 'stream' }, ts });
  };
  s.dispatch({ type: 'MarketMetadataUpdated', marketId: M, slug: 'rain-tomorrow', status: 'active', ts: 1 });
  book(1_000, 49, 51);
  // bought 10 YES at 49¢ with the mid at 50¢ (fee 0.02 USDC): spread capture +0.10
  s.dispatch({
    type: 'OrderFilled',
    marketId: M,
    nonce: null,
    outcomeIndex: 1,
    side: 0,
    price: 49 * C,
    size: 10_000_000,
    fee: 20_000,
    fillId: 'f1',
    ts: 1_000,
  });
  // the mid falls 4¢ and stays there: every markout horizon up to 60 s is −3¢ per share, inventory −0.40
  book(1_500, 45, 47);
  book(70_000, 45, 47);
  const [r] = summaryRows(s.state, [M], new Map([[M.toLowerCase(), 1]]), () => 'quoting', 70_000);
  assert.equal(r!.toxicity, -30_000, 'the 10 s markout: −3¢ per share');
  assert.deepEqual(r!.attribution, { spreadCapture: 100_000n, inventory: -400_000n, fees: -20_000n, resolution: 0n, total: -320_000n });
  assert.equal(r!.attribution.total, r!.pnl, 'the components sum to the row PnL');
  assert.equal(r!.regime, 'trending', 'the mid is 4¢ from where it was 60 s ago');
  const lines = formatSummary([r!], 'h');
  assert.match(lines[4]!, /^rain-tomorrow\s+trending\s+-3\.0\s+\+0\.10\s+-0\.40\s+-0\.02\s+\+0\.00$/);
  assert.match(formatSummaryLine([r!], 'h').split('\n')[1]!, /\| trending tox -3\.0¢ sifr \+0\.10\/-0\.40\/-0\.02\/\+0\.00$/);
  // the regime is read at `now`: 20 s after the 4¢ jump the market was still in its event hold; an unknown market has no edge
  const [earlier, unknown] = summaryRows(s.state, [M, ('0x' + 'ef'.repeat(32)) as Bytes32], new Map(), () => null, 20_000);
  assert.equal(earlier!.regime, 'event');
  assert.equal(unknown!.regime, '-');
  assert.equal(unknown!.toxicity, null);
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
    regime: 'reduce-only',
    toxicity: -123_456,
    attribution: { spreadCapture: 12_345_678_900n, inventory: -111_111_111_000n, fees: -9_999_999_999n, resolution: 0n, total: -98_765_432_099n },
    score: null,
  }));
  const out = formatSummaryLine(rows, `12:00:00 collateral 123456789.00 USDC quoting 3/6 stale: balances,activity,oracle,markets,fills ${'x'.repeat(80)}`);
  const lines = out.split('\n');
  assert.equal(lines.length, 7, 'a header line and one line per market');
  for (const l of lines) assert.ok(l.length <= 120, `${l.length} columns: ${l}`);
  assert.match(
    lines[1]!,
    /^  a-very .* stream-silent \| reduce-only tox -12\.3¢ sifr \+12\.3k/,
    'absurd figures: cut at 120 columns, the name given way first',
  );
  assert.match(lines[2]!, /quoting \| reduce-only/);
  // ordinary figures on a long name: the name is shortened, every figure stays whole
  const ordinary = {
    ...rows[1]!,
    fills: 1234,
    net: -250_000_000,
    pnl: -12_340_000n,
    toxicity: -8_000,
    regime: 'trending',
    attribution: { spreadCapture: 3_210_000n, inventory: -15_000_000n, fees: -550_000n, resolution: 0n, total: -12_340_000n },
  };
  const one = formatSummaryLine([ordinary], 'h').split('\n')[1]!;
  assert.ok(one.length <= 120, one);
  assert.match(
    one,
    /^  a-very-long-market-\S* 48\/52¢ ord 4 fills 1234 pos -250 -12\.34 quoting \| trending tox -0\.8¢ sifr \+3\.21\/-15\.00\/-0\.55\/\+0\.00$/,
  );
  for (const l of formatSummary(rows, 'x'.repeat(200))) assert.ok(l.length <= 120, `table: ${l.length} columns: ${l}`);
});

test('a market a rank entry selected shows its score (table column and line), others a dash; no column without rank', () => {
  const s = new StateStore();
  const [plain] = summaryRows(s.state, [('0x' + 'ab'.repeat(32)) as Bytes32], new Map());
  assert.equal(plain!.score, null);
  assert.ok(!formatSummary([plain!], 'h').some((l) => /\brank\b/.test(l)), 'no rank column when nothing is ranked');
  const [ranked, other] = summaryRows(
    s.state,
    [('0x' + 'ab'.repeat(32)) as Bytes32, ('0x' + 'cd'.repeat(32)) as Bytes32],
    new Map(),
    () => 'quoting',
    0,
    (id) => (id.startsWith('0xab') ? 0.37125 : null),
  );
  assert.equal(ranked!.score, 0.37125);
  const table = formatSummary([ranked!, other!], 'h');
  assert.match(table[table.length - 4]!, /\s+rank$/);
  assert.match(table[table.length - 3]!, /\s0\.371$/);
  assert.match(table[table.length - 2]!, /\s-$/);
  const line = formatSummaryLine([ranked!, other!], 'h').split('\n');
  assert.match(line[1]!, / rank 0\.371$/);
  assert.doesNotMatch(line[2]!, /rank/);
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

test('the table: the rows PnL add up to the total as shown (cents; the total rounded as it is)', () => {
  const row = (market: string, pnl: bigint) => ({
    market,
    bid: 480_000,
    ask: 520_000,
    orders: 2,
    fills: 1,
    net: 0,
    pnl,
    stream: 'live',
    state: 'quoting',
    regime: 'event',
    toxicity: null,
    attribution: { spreadCapture: 0n, inventory: 0n, fees: 0n, resolution: 0n, total: 0n },
    score: null,
  });
  // rounded each on its own: +2.45 and +1.24 over a total of +3.68
  const lines = formatSummary([row('a', 2_446_000n), row('b', 1_236_000n)], 'h');
  const pnl = (m: string) => lines.find((l) => l.startsWith(`${m}  `) && l.includes('live'))?.split(/\s+/)[6];
  assert.deepEqual([pnl('a'), pnl('b')], ['+2.45', '+1.23']);
  assert.equal(lines.at(-1), 'total pnl +3.68 USDC');
});
