/**
 * A YES-terms bid held as a NO sale from inventory keeps one venue form while the tokens of its
 * cancelled predecessor are parked (seen in the backtest's parity check): before the fix, a moved NO sale
 * went out again as a NO sale (the old one's tokens counted as free), and the next 250 ms tick —
 * which counts the parked old sale — flipped it to a YES buy: a create and a cancel wasted, and for
 * a moment two NO sales of one set of tokens.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import bands from '../../strategies/bands/index.ts';
import { DEFAULT_RISK } from '../../src/config/parse-risk.ts';
import { Outcome, Side, type Bytes32 } from '../../src/model/order.ts';
import type { PlannedOrder } from '../../src/model/venue.ts';
import type { StateEvent } from '../../src/state/events.ts';
import { StateStore } from '../../src/state/store.ts';
import { OrderManager } from '../../src/orders/order-manager.ts';
import { QuotingKernel } from '../../src/kernel/quoting-kernel.ts';
import { ManualClock } from '../exchange/stream/manual-clock.ts';
import { FakeVenue, M1 } from '../orders/fake-venue.ts';
import { ONE_BAND, topOfBook } from '../support/quoting.ts';

const params = bands.parseConfig(ONE_BAND, 'strategy');
const risk = { ...DEFAULT_RISK, maxBookAgeMs: 60_000, maxStreamSilenceMs: 60_000 };
const HELD_NO = 10_000_000; // exactly one bid's size

const book = (marketId: Bytes32, bid: number, ask: number, ts: number): StateEvent => topOfBook(marketId, bid, ask, ts);

/** The venue form of a YES-terms bid: a NO sale or a YES buy (asks are NO buys here). */
const bidForm = (p: PlannedOrder): 'no-sale' | 'yes-buy' | null =>
  p.outcomeIndex === Outcome.NO && p.side === Side.SELL ? 'no-sale' : p.outcomeIndex === Outcome.YES && p.side === Side.BUY ? 'yes-buy' : null;

/**
 * The NO held: a fill the books count (the risk layer's position is the books': a balance read
 * alone only reconciles against them, docs/books-and-pnl.md) and the read that agrees.
 */
function holdNo(ts: number): StateEvent[] {
  return [
    { type: 'OrderFilled', marketId: M1, nonce: null, outcomeIndex: Outcome.NO, side: Side.BUY, price: 500_000, size: HELD_NO, fee: 0, fillId: 'held-no', ts },
    { type: 'PositionSynced', marketId: M1, yes: 0, no: HELD_NO, ts },
  ];
}

function setup(settleMs: number) {
  const clock = new ManualClock(1_800_000_000_000);
  const venue = new FakeVenue();
  const store = new StateStore();
  let kernel!: QuotingKernel;
  const om = new OrderManager({ venue, clock, tolerances: { price: 0, sizeFraction: 0.1 }, settleMs, emit: (e) => kernel.onOrderManagerEvent(e) });
  kernel = new QuotingKernel({
    clock,
    venue,
    store,
    markets: [{ marketId: M1, strategy: bands, params, risk }],
    orderManager: om,
    requoteIntervalMs: 250,
    housekeepingMs: 250,
  });
  /** every bid create and every cancel, in order, with the NO sales not yet known closed at each NO-sale create */
  const bids: { form: 'no-sale' | 'yes-buy'; price: number; noSalesOut: number }[] = [];
  let cancels = 0;
  // NO sales sent and not yet known closed (a cancelled one stays out until the positions read settles it)
  const out = new Map<string, number>();
  const closed = (nonce: string) => out.delete(nonce.toLowerCase());
  const record = () => {
    for (const c of venue.calls.splice(0)) {
      if (c.kind === 'open-orders') continue;
      const creates = c.kind === 'batch' ? c.creates : [c.create];
      cancels += c.kind === 'batch' ? c.cancels.length : 1;
      for (const p of creates) {
        const form = bidForm(p);
        if (form === null) continue;
        let noSalesOut = 0;
        for (const s of out.values()) noSalesOut += s;
        bids.push({ form, price: p.price, noSalesOut });
        if (form === 'no-sale') out.set(p.nonce.toLowerCase(), p.size);
      }
    }
  };
  const tick = async (bid: number, ask: number) => {
    clock.advance(250);
    kernel.onEvent(book(M1, bid, ask, clock.now()));
    await kernel.flush();
    record();
  };
  return { clock, venue, kernel, om, bids, out, closed, record, tick, cancels: () => cancels };
}

test('a moved NO sale does not flip to a YES buy and back while its cancelled predecessor is parked', async () => {
  const s = setup(3_000);
  s.kernel.onEvents(holdNo(s.clock.now()));
  await s.tick(480_000, 520_000);
  await s.tick(480_000, 520_000);
  assert.deepEqual(
    s.bids.map((b) => b.form),
    ['no-sale'],
    'the bid is a NO sale from the NO held',
  );
  const first = [...s.out.keys()][0]!;

  // the book moves: the NO sale is cancelled (answered: parked until a positions read settles it),
  // then the requote throttle ticks every 250 ms before the next own-orders poll
  await s.tick(490_000, 530_000);
  for (let i = 0; i < 6; i++) await s.tick(490_000 + (i % 2) * 1_000, 530_000 + (i % 2) * 1_000);
  assert.ok(s.om.parkedCount >= 1, 'the cancelled NO sale is still parked (no poll yet)');
  assert.deepEqual(
    s.bids.map((b) => b.form),
    ['no-sale', 'yes-buy'],
    'one change of form while the tokens are parked, straight to the YES buy (old code: no-sale, no-sale, yes-buy)',
  );
  for (const b of s.bids) if (b.form === 'no-sale') assert.equal(b.noSalesOut, 0, 'no NO sale while the held NO are promised to another (old code: 10 shares)');
  const cancelsWhileParked = s.cancels();
  assert.equal(
    cancelsWhileParked,
    2,
    'the move replaces both quotes once; the wobble inside the bands moves nothing (old code: 3, the NO sale placed at the move cancelled again)',
  );

  // the positions read begun settleMs after the cancel lands: the parked sale stops counting, and
  // the bid may go back to a NO sale of tokens that are now known free
  s.closed(first);
  s.clock.advance(3_000);
  s.kernel.onEvents([{ type: 'PositionSynced', marketId: M1, yes: 0, no: HELD_NO, ts: s.clock.now(), readStartedAt: s.clock.now() }]);
  for (let i = 0; i < 4; i++) await s.tick(490_000, 530_000);
  const after = s.bids.slice(2).map((b) => b.form);
  assert.deepEqual(after, ['no-sale'], 'after the read the bid is a NO sale again (once) and stays one');
  for (const b of s.bids) if (b.form === 'no-sale') assert.equal(b.noSalesOut, 0, 'never two NO sales of the same tokens');
  s.kernel.stop();
});

test('with settleMs 0 (fills known at an order end) a moved NO sale stays a NO sale', async () => {
  const s = setup(0);
  s.kernel.onEvents(holdNo(s.clock.now()));
  await s.tick(480_000, 520_000);
  await s.tick(480_000, 520_000);
  await s.tick(490_000, 530_000);
  await s.tick(500_000, 540_000);
  await s.tick(500_000, 540_000);
  assert.equal(s.om.parkedCount, 0);
  const forms = s.bids.map((b) => `${b.form}@${b.price}`);
  assert.ok(
    forms.length >= 2 && s.bids.every((b) => b.form === 'no-sale'),
    `the cancel frees the tokens at once: each move is a NO sale again (${forms.join(',')})`,
  );
  s.kernel.stop();
});
