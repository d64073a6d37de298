import { test } from 'node:test';
import assert from 'node:assert/strict';
import { applyRisk } from '../../src/risk/apply-risk.ts';
import { exposureOf, marketWorstCase, worstNotional } from '../../src/risk/exposure.ts';
import { RISK_REASONS, type RiskState } from '../../src/risk/types.ts';
import { makeView, NOW } from '../strategy/make-view.ts';
import type { Bytes32 } from '../../src/model/order.ts';
import type { DesiredQuote, WorkingQuote } from '../../src/strategy/types.ts';
import { limits, S } from './limits.ts';

const bid = (price: number, size: number, level = 0): DesiredQuote => ({ side: 'bid', price, size, level });
const ask = (price: number, size: number, level = 0): DesiredQuote => ({ side: 'ask', price, size, level });
const own = (q: DesiredQuote, state: WorkingQuote['state'] = 'working'): WorkingQuote => ({
  ...q,
  state,
  outcomeIndex: 1,
  venueSide: q.side === 'bid' ? 'buy' : 'sell',
  placedAt: NOW - 1000,
});
const two = [bid(470_000, 10 * S), ask(530_000, 10 * S)];

test('clean pass', () => {
  const r = applyRisk(makeView(), two, limits());
  assert.equal(r.action, 'quote');
  assert.deepEqual(r.quotes, two);
  assert.deepEqual(
    r.decisions.map((d) => d.kind),
    ['pass', 'pass'],
  );
  assert.equal(r.denied.length, 0);
});

test('market-wide guards pull every quote with one reason', () => {
  const rows: [string, ReturnType<typeof makeView>, ReturnType<typeof limits>, string][] = [
    ['halted', makeView(), limits({ halted: true }), 'HALTED'],
    ['resolved', makeView({ status: 'resolved' }), limits(), 'MARKET_NOT_ACTIVE'],
    ['closed', makeView({ status: 'closed' }), limits(), 'MARKET_NOT_ACTIVE'],
    ['deadline pause', makeView({ deadline: NOW + 60_000 }), limits({ pauseBeforeDeadlineMs: 120_000 }), 'DEADLINE'],
    ['deadline passed', makeView({ deadline: NOW - 1 }), limits(), 'DEADLINE'],
    ['migration', makeView({ flags: { migrationActive: true } }), limits(), 'MIGRATION'],
    ['no book', makeView({ book: null }), limits(), 'STALE_BOOK'],
    ['old polled book', makeView({ book: { ...makeView().book!, updatedAt: NOW - 10_001 }, streamLastEventAt: null }), limits(), 'STALE_BOOK'],
    [
      'old book, stream quiet as long',
      makeView({ book: { ...makeView().book!, updatedAt: NOW - 10_001 }, streamLastEventAt: NOW - 10_001 }),
      limits({ maxStreamSilenceMs: 60_000 }),
      'STALE_BOOK',
    ],
    ['silent stream', makeView({ streamLastEventAt: NOW - 20_000 }), limits(), 'STREAM_SILENT'],
  ];
  for (const [name, view, lim, reason] of rows) {
    const r = applyRisk(view, two, lim);
    assert.equal(r.action, 'pull', name);
    assert.deepEqual(r.quotes, [], name);
    assert.equal(r.decisions.length, 1, name);
    assert.equal(r.decisions[0]!.kind === 'deny' && r.decisions[0]!.reason, reason, name);
    assert.equal(r.denied[0]!.reason, reason, name);
    assert.equal(r.denied[0]!.type, 'QuoteDenied');
  }
  // boundaries: exactly at the limits is still fine; a polled book (no stream) skips the silence check
  assert.equal(applyRisk(makeView({ book: { ...makeView().book!, updatedAt: NOW - 10_000 } }), two, limits()).action, 'quote');
  assert.equal(applyRisk(makeView({ streamLastEventAt: null }), two, limits()).action, 'quote');
  // a quiet market on a live stream: the book has not changed for a minute, the keep-alives say it is current
  assert.equal(applyRisk(makeView({ book: { ...makeView().book!, updatedAt: NOW - 60_000 }, streamLastEventAt: NOW - 1_000 }), two, limits()).action, 'quote');
  assert.equal(applyRisk(makeView({ deadline: NOW + 120_001 }), two, limits({ pauseBeforeDeadlineMs: 120_000 })).action, 'quote');
});

test('strategy null pulls without denial events, reporting the guard that stands if any', () => {
  const r = applyRisk(makeView(), null, limits());
  assert.equal(r.action, 'pull');
  assert.equal(r.denied.length, 0);
  assert.deepEqual(r.decisions, []);
  const halted = applyRisk(makeView(), null, limits({ halted: true }));
  assert.equal(halted.action, 'pull');
  assert.equal(halted.denied.length, 0, 'nothing was wanted: no event');
  assert.deepEqual(
    halted.decisions.map((d) => d.kind === 'deny' && d.quote === null && d.reason),
    ['HALTED'],
  );
});

test('price checks', () => {
  const view = makeView({ quotes: [own(ask(600_000, S, 3))] }); // book 48/52, own ask at 60
  const rows: [DesiredQuote, string | null, Partial<ReturnType<typeof limits>>?][] = [
    [bid(470_000, S), null],
    [bid(475_000, S), 'PRICE_OUT_OF_RANGE'], // off grid
    [bid(0, S), 'PRICE_OUT_OF_RANGE'],
    [ask(1_000_000, S), 'PRICE_OUT_OF_RANGE'],
    [ask(1_000_000 - 10_000, S), null],
    [bid(520_000, S), 'CROSSES_BOOK'],
    [ask(480_000, S), 'CROSSES_BOOK'],
    [bid(520_000, S), null, { allowCrossing: true }],
    [bid(600_000, S), 'SELF_TRADE', { allowCrossing: true }],
    [bid(400_000, S), 'FAR_FROM_FAIR', { maxDistanceFromFair: 50_000 }],
    [bid(460_000, S), null, { maxDistanceFromFair: 50_000 }],
    [{ side: 'bid', price: 470_000, size: 0 }, 'BAD_QUOTE'],
    [{ side: 'bid', price: 470_000.5, size: S }, 'BAD_QUOTE'],
  ];
  for (const [q, reason, lim] of rows) {
    const r = applyRisk(view, [q], limits(lim));
    const d = r.decisions[0]!;
    const label = `${JSON.stringify(q)} ${JSON.stringify(lim)}`;
    if (reason === null) assert.equal(d.kind, 'pass', label);
    else {
      assert.equal(d.kind === 'deny' && d.reason, reason, label);
      assert.equal(r.denied.length, 1);
      assert.deepEqual(r.quotes, [], label);
    }
  }
});

test('a quote flagged reduce may cross the book only while it reduces the position, at most its size', () => {
  const decide = (net: number, q: DesiredQuote, lim: Partial<ReturnType<typeof limits>> = {}) => {
    const d = applyRisk(makeView({ net: net * S }), [q], limits(lim)).decisions[0]!;
    return d.kind === 'deny' ? d.reason : d.kind;
  };
  // book 48/52; long 3: an ask of 3 at their bid crosses, as a reduction
  assert.equal(decide(3, { ...ask(480_000, 3 * S), reduce: true }), 'pass');
  assert.equal(decide(3, { ...ask(480_000, 2 * S), reduce: true }), 'pass');
  // unflagged, larger than the position, on the adding side, or flat: crossing stays closed
  assert.equal(decide(3, ask(480_000, 3 * S)), 'CROSSES_BOOK');
  assert.equal(decide(3, { ...ask(480_000, 4 * S), reduce: true }), 'CROSSES_BOOK');
  assert.equal(decide(3, { ...bid(520_000, S), reduce: true }), 'CROSSES_BOOK');
  assert.equal(decide(0, { ...ask(480_000, S), reduce: true }), 'CROSSES_BOOK');
  // short 2: a bid of 2 at their ask
  assert.equal(decide(-2, { ...bid(520_000, 2 * S), reduce: true }), 'pass');
  assert.equal(decide(-2, { ...ask(480_000, S), reduce: true }), 'CROSSES_BOOK');
});

test('crossing reduce quotes together take off at most the position: a second one that would flip it is denied', () => {
  const r = applyRisk(
    makeView({ net: 3 * S }),
    [
      { ...ask(480_000, 2 * S), reduce: true },
      { ...ask(470_000, 2 * S), reduce: true, level: 1 },
    ],
    limits(),
  );
  assert.equal(r.decisions[0]!.kind, 'pass');
  const d = r.decisions[1]!;
  assert.equal(d.kind === 'deny' && d.reason, 'CROSSES_BOOK');
  // a reduce quote that does not cross uses none of the room
  const resting = applyRisk(
    makeView({ net: 3 * S }),
    [
      { ...ask(530_000, 3 * S), reduce: true },
      { ...ask(480_000, 3 * S), reduce: true, level: 1 },
    ],
    limits(),
  );
  assert.deepEqual(
    resting.decisions.map((x) => x.kind),
    ['pass', 'pass'],
  );
});

test('self-trade: the desired set must not cross itself, and the venue warning blocks new orders', () => {
  const r = applyRisk(makeView(), [bid(500_000, S), ask(500_000, S)], limits({ allowCrossing: true }));
  assert.deepEqual(
    r.decisions.map((d) => d.kind === 'deny' && d.reason),
    ['SELF_TRADE', 'SELF_TRADE'],
  );
  const existing = bid(470_000, 10 * S);
  const v = makeView({ flags: { selfTradeWarning: true }, quotes: [own(existing)] });
  const r2 = applyRisk(v, [existing, ask(530_000, S)], limits());
  assert.deepEqual(
    r2.decisions.map((d) => (d.kind === 'deny' ? d.reason : d.kind)),
    ['pass', 'SELF_TRADE'],
  );
});

test('max order size trims', () => {
  const r = applyRisk(makeView(), [bid(470_000, 50 * S)], limits({ maxOrderSize: 20 * S }));
  assert.deepEqual(r.decisions[0], { kind: 'trim', quote: bid(470_000, 50 * S), size: 20 * S, reason: 'ORDER_SIZE' });
  assert.equal(r.quotes[0]!.size, 20 * S);
});

test('position limit counts working AND in-flight orders at worst case', () => {
  // net +30, working bid 20, in-flight bid 25, cancelling bid 10 → worst long 85 of 100: room 15
  const view = makeView({
    net: 30 * S,
    quotes: [own(bid(460_000, 20 * S, 1)), own(bid(450_000, 25 * S, 2), 'in-flight'), own(bid(440_000, 10 * S, 3), 'cancelling')],
  });
  const r = applyRisk(view, [bid(470_000, 40 * S, 0), ask(530_000, 40 * S, 0)], limits({ maxPosition: 100 * S }));
  assert.deepEqual(r.decisions[0], { kind: 'trim', quote: bid(470_000, 40 * S, 0), size: 15 * S, reason: 'POSITION_LIMIT' });
  assert.equal(r.decisions[1]!.kind, 'pass', 'asks reduce the long side');
  // a second bid gets nothing: denied, not trimmed to zero
  const r2 = applyRisk(view, [bid(470_000, 15 * S, 0), bid(410_000, 5 * S, 1)], limits({ maxPosition: 100 * S }));
  assert.deepEqual(
    r2.decisions.map((d) => (d.kind === 'deny' ? d.reason : d.kind)),
    ['pass', 'POSITION_LIMIT'],
  );
  // the worst case never exceeds the limit
  const after = exposureOf(view.position.net, [...view.quotes, ...r.quotes]);
  assert.ok(after.long <= 100 * S && after.short <= 100 * S);
});

test('a desired quote identical to a live order is not double counted', () => {
  const q = bid(470_000, 60 * S);
  const view = makeView({ net: 30 * S, quotes: [own(q)] }); // worst long 90 of 100
  const r = applyRisk(view, [q], limits({ maxPosition: 100 * S }));
  assert.equal(r.decisions[0]!.kind, 'pass');
  // moving it: old still live until cancelled, so the new one only gets the 10 of room
  const r2 = applyRisk(view, [bid(460_000, 60 * S)], limits({ maxPosition: 100 * S }));
  assert.equal(r2.decisions[0]!.kind === 'trim' && r2.decisions[0]!.size, 10 * S);
});

test('working quotes left past the limit by a moved position are pulled, farthest level first', () => {
  // a positions read says short 50 (the feed had said 40): the working asks 10 + 5 now reach 65 of 60
  const near = ask(530_000, 10 * S, 0);
  const far = ask(550_000, 5 * S, 1);
  const view = makeView({ net: -50 * S, quotes: [own(near), own(far)] });
  const r = applyRisk(view, [near, far], limits({ maxPosition: 60 * S }));
  assert.deepEqual(
    r.decisions.map((d) => (d.kind === 'deny' ? d.reason : d.kind)),
    ['pass', 'POSITION_LIMIT'],
  );
  assert.deepEqual(r.quotes, [near]);
  // short 53: both go (53 + 10 is still past 60)
  const r2 = applyRisk(makeView({ net: -53 * S, quotes: [own(near), own(far)] }), [near, far], limits({ maxPosition: 60 * S }));
  assert.deepEqual(
    r2.decisions.map((d) => d.kind),
    ['deny', 'deny'],
  );
  assert.deepEqual(r2.quotes, []);
  // an order already cancelling is not matched and not shed again; the bids are untouched
  const b = bid(470_000, 10 * S);
  const r3 = applyRisk(makeView({ net: -50 * S, quotes: [own(near), own(far, 'cancelling'), own(b)] }), [b, near], limits({ maxPosition: 60 * S }));
  assert.deepEqual(
    r3.decisions.map((d) => d.kind),
    ['pass', 'pass'],
    '50 + 10 staying fits',
  );
});

test('a live order identical to a quote but in another slot is not that quote: the quote is counted', () => {
  // the ladder moved up one rung: the new level-0 ask has the old level-1 ask's price and size.
  // The order manager replaces both slots; were the old level-1 order to fill while its replace is
  // on the way, a new level-0 order taken as "already counted" would be exposure nobody checked.
  const old0 = ask(560_000, 10 * S, 0);
  const old1 = ask(570_000, 10 * S, 1);
  const view = makeView({ quotes: [own(old0), own(old1)] });
  const r = applyRisk(view, [ask(570_000, 10 * S, 0), ask(580_000, 10 * S, 1)], limits({ maxPosition: 20 * S }));
  assert.deepEqual(
    r.decisions.map((d) => (d.kind === 'deny' ? d.reason : d.kind)),
    ['POSITION_LIMIT', 'POSITION_LIMIT'],
    'both counted on top of the 20 working',
  );
  // in its own slot the same quote is the order: it passes without being counted again, and the
  // result names the order it keeps (the order manager never places a new order for it)
  const n0 = ('0x' + '0a'.repeat(32)) as Bytes32;
  const kept = makeView({ quotes: [{ ...own(old0), nonce: n0 }, own(old1)] });
  const same = applyRisk(kept, [old0, old1, ask(590_000, 5 * S, 2)], limits({ maxPosition: 25 * S }));
  assert.deepEqual(
    same.decisions.map((d) => d.kind),
    ['pass', 'pass', 'pass'],
  );
  assert.deepEqual(same.keeps, [n0, null, null], 'an own order without a known nonce keeps nothing; a new quote keeps nothing');
});

test('short side and minimum size', () => {
  const view = makeView({ net: -95 * S, minSize: 10 * S });
  const r = applyRisk(view, [ask(530_000, 10 * S)], limits({ maxPosition: 100 * S }));
  assert.equal(r.decisions[0]!.kind === 'deny' && r.decisions[0]!.reason, 'POSITION_LIMIT', '5 of room is under the 10 minimum');
});

test('notional limit values the long at the mark and the short at 1 − mark', () => {
  // mark = 50¢ (symmetric book): 100 USDC allows 200 shares either way
  const r = applyRisk(makeView(), [bid(470_000, 300 * S), ask(530_000, 300 * S)], limits({ maxNotional: 100 * S }));
  assert.deepEqual(
    r.decisions.map((d) => d.kind === 'trim' && [d.size, d.reason]),
    [
      [200 * S, 'NOTIONAL_LIMIT'],
      [200 * S, 'NOTIONAL_LIMIT'],
    ],
  );
  // mark 80¢: long 125 shares, short 500
  const v = makeView({ bids: [{ price: 790_000, size: S }], asks: [{ price: 810_000, size: S }] });
  const r2 = applyRisk(v, [bid(780_000, 600 * S), ask(820_000, 600 * S)], limits({ maxNotional: 100 * S }));
  assert.deepEqual(
    r2.decisions.map((d) => d.kind === 'trim' && d.size),
    [125 * S, 500 * S],
  );
  assert.ok(worstNotional(exposureOf(0, r2.quotes), 800_000) <= 100 * S);
});

test('total limits subtract this market’s current share from the account figures', () => {
  const view = makeView({ net: 10 * S, account: { collateral: 0n, pnl: 0, worstCasePosition: 90 * S, worstCaseNotional: 0 } });
  assert.equal(marketWorstCase(view).position, 10 * S);
  // others hold 80 → this market may reach 20 long: room 10
  const r = applyRisk(view, [bid(470_000, 50 * S)], limits({ maxTotalPosition: 100 * S }));
  assert.deepEqual(r.decisions[0], { kind: 'trim', quote: bid(470_000, 50 * S), size: 10 * S, reason: 'TOTAL_POSITION_LIMIT' });
  const v2 = makeView({ account: { collateral: 0n, pnl: 0, worstCasePosition: 0, worstCaseNotional: 95 * S } });
  const r2 = applyRisk(v2, [bid(470_000, 50 * S)], limits({ maxTotalNotional: 100 * S }));
  assert.deepEqual(r2.decisions[0], { kind: 'trim', quote: bid(470_000, 50 * S), size: 10 * S, reason: 'TOTAL_NOTIONAL_LIMIT' });
});

test('reduce-only lets only the reducing side through, up to flat', () => {
  const long = makeView({ net: 30 * S });
  const r = applyRisk(long, [bid(470_000, 10 * S), ask(530_000, 50 * S)], limits({ reduceOnly: true }));
  assert.equal(r.decisions[0]!.kind === 'deny' && r.decisions[0]!.reason, 'REDUCE_ONLY');
  assert.deepEqual(r.decisions[1], { kind: 'trim', quote: ask(530_000, 50 * S), size: 30 * S, reason: 'REDUCE_ONLY' });
  const flat = applyRisk(makeView(), two, limits({ reduceOnly: true }));
  assert.ok(flat.decisions.every((d) => d.kind === 'deny' && d.reason === 'REDUCE_ONLY'));
});

test('rate budget: new slots first, then big near moves; denied moves keep the working order', () => {
  const working = [own(bid(470_000, 10 * S, 0)), own(ask(530_000, 10 * S, 0)), own(bid(400_000, 10 * S, 3)), own(ask(600_000, 10 * S, 3))];
  const view = makeView({ quotes: working });
  const desired = [
    bid(460_000, 10 * S, 0), // near move of 1 tick: value 1
    ask(530_000, 10 * S, 0), // unchanged: free
    bid(390_000, 10 * S, 3), // far move of 1 tick: value 0.25
    ask(620_000, 10 * S, 3), // far move of 2 ticks: value 0.5
    bid(440_000, 10 * S, 1), // new slot: value ∞
  ];
  const st: RiskState = { tokens: 2, refilledAt: NOW };
  const r = applyRisk(view, desired, limits({ orderRate: { capacity: 10, refillPerSecond: 1 } }), st);
  const kinds = r.decisions.map((d) => (d.kind === 'deny' ? d.reason : d.kind));
  assert.deepEqual(kinds, ['pass', 'pass', 'RATE_LIMIT', 'RATE_LIMIT', 'pass']);
  // the far working orders stay as they are instead of being cancelled
  assert.ok(r.quotes.some((q) => q.side === 'bid' && q.price === 400_000 && q.level === 3));
  assert.ok(r.quotes.some((q) => q.side === 'ask' && q.price === 600_000 && q.level === 3));
  assert.equal(r.quotes.length, 5);
  assert.equal(r.state.tokens, 0);
  // one second later one token is back: the next most valuable move (ask level 3) goes
  const r2 = applyRisk(view, desired, limits({ orderRate: { capacity: 10, refillPerSecond: 1 } }), { ...r.state, refilledAt: NOW - 1000 });
  assert.equal(r2.decisions.filter((d) => d.kind === 'deny').length, 3);
  assert.equal(r2.decisions[3]!.kind, 'deny');
});

test('rate budget refill is capped and starts full', () => {
  const lim = limits({ orderRate: { capacity: 3, refillPerSecond: 1 } });
  const r = applyRisk(makeView(), [bid(470_000, S, 0), bid(460_000, S, 1), bid(450_000, S, 2), bid(440_000, S, 3)], lim);
  assert.deepEqual(
    r.decisions.map((d) => d.kind),
    ['pass', 'pass', 'pass', 'deny'],
  );
  assert.equal(r.state.tokens, 0);
  const later = applyRisk(
    makeView({ now: NOW + 3_600_000, deadline: null, book: { ...makeView().book!, updatedAt: NOW + 3_600_000 }, streamLastEventAt: null }),
    [],
    lim,
    r.state,
  );
  assert.equal(later.state.tokens, 3);
});

test('reason codes are a stable documented list', async () => {
  const { readFileSync } = await import('node:fs');
  const doc = readFileSync(new URL('../../src/risk/README.md', import.meta.url), 'utf8');
  for (const r of RISK_REASONS) assert.ok(doc.includes('`' + r + '`'), `${r} documented`);
});

test('rate pressure gauge', async () => {
  const { ratePressure } = await import('../../src/risk/rate-budget.ts');
  assert.equal(ratePressure(10, { capacity: 10, refillPerSecond: 1 }), 0);
  assert.equal(ratePressure(2.5, { capacity: 10, refillPerSecond: 1 }), 0.75);
  assert.equal(ratePressure(Number.NaN, { capacity: 10, refillPerSecond: 1 }), 0);
});

test('the outputs line up whatever mix of pass, trim, deny, keep and rate-limited kept order', () => {
  // every quote passes as it is: the list is the strategy's own, no copy
  const clean = applyRisk(makeView(), two, limits());
  assert.equal(clean.quotes, two);
  assert.deepEqual(clean.keeps, [null, null]);
  // a trim (order size), a denial (crossing), a pass that is a live order, and a move the budget denies
  // (its working order stays, appended after the quotes)
  const live = own(bid(460_000, 5 * S, 1));
  const moved = own(ask(560_000, 5 * S, 1));
  const view = makeView({
    quotes: [
      { ...live, nonce: ('0x' + '01'.repeat(32)) as Bytes32 },
      { ...moved, nonce: ('0x' + '02'.repeat(32)) as Bytes32 },
    ],
  });
  const wanted = [bid(470_000, 30 * S, 0), bid(530_000, 10 * S, 2), bid(460_000, 5 * S, 1), ask(550_000, 5 * S, 1)];
  const r = applyRisk(view, wanted, limits({ maxOrderSize: 20 * S, orderRate: { capacity: 1, refillPerSecond: 0 } }), { tokens: 1, refilledAt: NOW });
  assert.deepEqual(
    r.decisions.map((d) => (d.kind === 'deny' ? d.reason : d.kind)),
    ['trim', 'CROSSES_BOOK', 'pass', 'RATE_LIMIT'],
  );
  assert.notEqual(r.quotes, wanted);
  assert.deepEqual(r.quotes, [{ ...wanted[0]!, size: 20 * S }, wanted[2]!, { side: 'ask', price: 560_000, size: 5 * S, level: 1 }]);
  assert.deepEqual(r.keeps, [null, '0x' + '01'.repeat(32), '0x' + '02'.repeat(32)]);
  // packed: no holes left by the denied quote
  assert.equal(Object.keys(r.quotes).length, r.quotes.length);
  assert.equal(Object.keys(r.keeps).length, r.keeps.length);
  assert.equal(r.state.tokens, 0);
});
