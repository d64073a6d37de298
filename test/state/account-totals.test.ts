import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Bytes32, OutcomeIndex } from '../../src/model/order.ts';
import type { StateEvent } from '../../src/state/events.ts';
import { accountTotals, accountTotalsSummed, selectMarketView } from '../../src/state/market-view.ts';
import { PersistentMap } from '../../src/state/persistent-map.ts';
import { Account } from '../../src/account/account.ts';
import { StateStore } from '../../src/state/store.ts';
import { accountFill } from '../../src/account/account-fill.ts';
import type { ViewAccount } from '../../src/strategy/types.ts';

const S = 1_000_000;
const market = (i: number): Bytes32 => `0x${(i + 1).toString(16).padStart(64, 'c')}` as Bytes32;

function rng(seed: number): () => number {
  let x = seed >>> 0;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 2 ** 32;
  };
}

/** The four figures of account totals, as a plain object (a view's are read through getters). */
const figures = (a: ViewAccount): ViewAccount => ({
  collateral: a.collateral,
  pnl: a.pnl,
  worstCasePosition: a.worstCasePosition,
  worstCaseNotional: a.worstCaseNotional,
});

/** Distinct order nonces, counted from 1. */
function nonces(): () => Bytes32 {
  let seq = 0;
  return () => `0x${(++seq).toString(16).padStart(64, '0')}` as Bytes32;
}

/** A random event on one of `markets` markets: books, own orders (submitted, accepted, cancelled, dropped), fills, balances. */
function randomEvent(r: () => number, markets: number, ts: number, nonce: () => Bytes32, live: Map<Bytes32, Bytes32>): StateEvent {
  const M = market(Math.floor(r() * markets));
  const u = r();
  if (u < 0.45) {
    const mid = 100_000 + Math.floor(r() * 80) * 10_000;
    return {
      type: 'BookEventReceived',
      event: {
        type: 'snapshot',
        book: { marketId: M, outcomeIndex: 1, bids: [{ price: mid - 10_000, size: 5 * S }], asks: [{ price: mid + 10_000, size: 5 * S }], venueTs: ts },
        seq: ts,
        localTs: ts,
        source: 'stream',
      },
      ts,
    };
  }
  if (u < 0.65) {
    const n = nonce();
    live.set(n, M);
    const side = r() < 0.5 ? 0 : 1;
    const order = {
      marketId: M,
      outcomeIndex: (r() < 0.5 ? 0 : 1) as OutcomeIndex,
      side: side as 0 | 1,
      price: 100_000 + Math.floor(r() * 80) * 10_000,
      size: (1 + Math.floor(r() * 20)) * S,
      nonce: n,
      inventoryMode: (side === 1 ? 2 : 0) as 0 | 2,
    };
    return { type: 'OrderSubmitted', marketId: M, slot: `${M}:bid:${n.slice(-2)}`, nonce: n, order, retry: false, ts };
  }
  if (u < 0.8 && live.size > 0) {
    const [n, m] = [...live][Math.floor(r() * live.size)]!;
    const k = r();
    if (k < 0.4) return { type: 'OrderAccepted', marketId: m, nonce: n, duplicate: false, ts };
    if (k < 0.7) return { type: 'CancelSubmitted', marketId: m, nonce: n, ts };
    live.delete(n);
    return { type: 'OrderClosed', marketId: m, nonce: n, status: 'cancelled', ts };
  }
  if (u < 0.95)
    return {
      type: 'OrderFilled',
      marketId: M,
      nonce: null,
      outcomeIndex: 1,
      side: r() < 0.5 ? 0 : 1,
      price: 100_000 + Math.floor(r() * 80) * 10_000,
      size: (1 + Math.floor(r() * 10)) * S,
      fee: Math.floor(r() * 1000),
      ts,
    };
  return { type: 'BalanceUpdated', collateral: BigInt(Math.floor(r() * 1e12)), ts };
}

/** `n` stores fed from one random stream: `feed(j, markets, ts)` makes an event for store `j` (its live orders tracked apart), dispatches and returns it. */
function randomStores(seed: number, n: number) {
  const r = rng(seed);
  const nonce = nonces();
  const stores = Array.from({ length: n }, () => new StateStore());
  const live = stores.map(() => new Map<Bytes32, Bytes32>());
  const feed = (j: number, markets: number, ts: number): StateEvent => {
    const e = randomEvent(r, markets, ts, nonce, live[j]!);
    stores[j]!.dispatch(e);
    return e;
  };
  return { r, stores, feed };
}

test('the account totals kept incrementally equal the full sum over every market after every event (3,000 random events, 300 markets, two stores interleaved)', () => {
  const { r, stores, feed } = randomStores(24, 2);
  let moved = 0;
  for (let i = 0; i < 3000; i++) {
    // mostly one store; now and then the other, so the totals meet an unrelated state
    const j = r() < 0.9 ? 0 : 1;
    const before = accountTotals(stores[j]!.state);
    feed(j, j === 0 ? 300 : 40, i + 1);
    const s = stores[j]!.state;
    const got = accountTotals(s);
    assert.deepEqual(got, accountTotalsSummed(s), `event ${i}`);
    if (got.worstCaseNotional !== before.worstCaseNotional) moved++;
    // a market's view shows the same totals
    const M = market(Math.floor(r() * (j === 0 ? 300 : 40)));
    const v = selectMarketView(s, M, i + 1);
    if (v) assert.deepEqual(figures(v.account), figures(got));
  }
  assert.ok(moved > 500, `the totals moved ${moved} times`);
  assert.ok(stores[0]!.state.markets instanceof PersistentMap && stores[0]!.state.markets.size > 250);
});

test('a state with the same markets but a new balance shows the new collateral; unchanged figures keep their object', () => {
  const store = new StateStore();
  const M = market(1);
  store.dispatch({
    type: 'BookEventReceived',
    event: {
      type: 'snapshot',
      book: { marketId: M, outcomeIndex: 1, bids: [{ price: 400_000, size: S }], asks: [{ price: 420_000, size: S }], venueTs: 1 },
      seq: 1,
      localTs: 1,
      source: 'stream',
    },
    ts: 1,
  });
  const a = accountTotals(store.state);
  store.dispatch({ type: 'BalanceUpdated', collateral: 5n, ts: 2 });
  const b = accountTotals(store.state);
  assert.equal(b.collateral, 5n);
  assert.notEqual(a, b);
  store.dispatch({ type: 'VenueCallCompleted', call: 'batch', ok: true, ms: 1, ts: 3 });
  assert.equal(accountTotals(store.state), b);
});

test('with the account books: the incremental totals equal the full sum after every event, fills reaching the books as the live bot applies them', () => {
  const {
    r,
    stores: [store],
    feed,
  } = randomStores(25, 1);
  const books = new Account();
  let fills = 0;
  for (let i = 0; i < 2000; i++) {
    const e = feed(0, 120, i + 1);
    if (e.type === 'OrderFilled') {
      fills++;
      books.applyFill({ ...accountFill(e), fillId: `f${i}`, feeSource: 'venue', origin: 'own' });
    }
    // now and then a fill reaches the books alone (the stop's sweep, a catch-up): no market state changes
    if (r() < 0.05)
      books.applyFill({
        fillId: `b${i}`,
        marketId: market(Math.floor(r() * 120)),
        outcomeIndex: 1,
        side: 0,
        price: 300_000,
        size: 2 * S,
        fee: 0,
        feeSource: 'model',
        ts: i + 1,
        origin: 'own',
      });
    const s = store.state;
    const totals = accountTotals(s, books);
    assert.deepEqual(totals, accountTotalsSummed(s, books), `event ${i}`);
    // with the books the PnL is theirs, as every market's view shows it (not the store's arithmetic)
    assert.equal(totals.pnl, Number(books.pnl()), `event ${i}`);
    if (i % 100 === 0) assert.deepEqual(figures(selectMarketView(s, market(i % 120), i + 1, undefined, books)?.account ?? totals), figures(totals));
  }
  assert.ok(fills > 100);
});

test('two stores keep their own totals: viewing one does not make the other sum every market again', () => {
  const {
    stores: [a, b],
    feed,
  } = randomStores(7, 2);
  for (let i = 0; i < 300; i++) {
    feed(0, 40, i + 1);
    feed(1, 40, i + 1);
  }
  const ta = accountTotals(a.state);
  const tb = accountTotals(b.state);
  assert.notEqual(a.state.memo, b.state.memo, 'each store its own memo');
  // each store's totals are remembered with its states: asking again after the other store answers
  // from what was kept (the same object), and the figures are each store's own full sum
  assert.equal(accountTotals(a.state), ta);
  assert.equal(accountTotals(b.state), tb);
  assert.deepEqual(ta, accountTotalsSummed(a.state));
  assert.deepEqual(tb, accountTotalsSummed(b.state));
  // one more event on each, read alternately: still each store's own sums
  for (let i = 300; i < 400; i++) {
    feed(0, 40, i + 1);
    assert.deepEqual(accountTotals(a.state), accountTotalsSummed(a.state), `a, event ${i}`);
    feed(1, 40, i + 1);
    assert.deepEqual(accountTotals(b.state), accountTotalsSummed(b.state), `b, event ${i}`);
  }
});

test('a view brings the account totals up to date only when its account is read, and then shows the same totals', () => {
  const {
    stores: [store],
    feed,
  } = randomStores(31, 1);
  const books = new Account();
  let read = 0;
  for (let i = 0; i < 400; i++) {
    feed(0, 30, i + 1);
    const s = store.state;
    const v = selectMarketView(s, market(i % 30), i + 1, undefined, books);
    if (!v) continue;
    // not read: the totals are still those of an earlier state (nothing walked for this view)
    assert.notEqual(s.memo.state, s, `event ${i}`);
    if (i % 3 === 0) {
      read++;
      assert.deepEqual(figures(v.account), figures(accountTotalsSummed(s, books)), `event ${i}`);
      assert.equal(s.memo.state, s);
      assert.deepEqual(figures(v.account), figures(accountTotals(s, books)));
    }
  }
  assert.ok(read > 50);
});
