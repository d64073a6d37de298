/**
 * Every figure from the account (exact books): the risk layer's position and average entry are the
 * books' (a balance read only reconciles against them), and the per-market PnL attribution adds up
 * to the books' per-market PnL to the unit.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Account } from '../../src/account/account.ts';
import { applyToBooks } from '../../src/account/account-fill.ts';
import type { Bytes32 } from '../../src/model/order.ts';
import type { StateEvent } from '../../src/state/events.ts';
import { marketPnl, selectMarketView } from '../../src/state/market-view.ts';
import { marketAttribution } from '../../src/state/edge-view.ts';
import { bandsKernel } from './bands-kernel.ts';
import { M1, M2 } from '../orders/fake-venue.ts';
import { anyFill, positionRead, topOfBook } from '../support/quoting.ts';

const S = 1_000_000;

const book = (marketId: Bytes32, bid: number, ask: number, ts: number): StateEvent => topOfBook(marketId, bid, ask, ts);
const fill = anyFill;
const read = positionRead;

function setup(account = new Account()) {
  const { clock, store, kernel } = bandsKernel([M1, M2], { account });
  const view = (m: Bytes32) => selectMarketView(store.state, m, clock.now(), undefined, account)!;
  return { clock, store, kernel, account, view };
}

test('the risk layer reads the books: a balance read the fills do not explain moves no position and no limit', () => {
  const { clock, kernel, view } = setup();
  const t = clock.now();
  kernel.onEvents([book(M1, 490_000, 510_000, t), book(M2, 490_000, 510_000, t)]);
  kernel.onEvents([fill(M1, 1, 0, 400_000, 10 * S, t, 'a')]);
  const before = view(M1);
  assert.equal(before.position.net, 10 * S);
  // the venue says 30 YES: a read ahead of fills, or fills the books never got: a drift, not a position
  kernel.onEvents([read(M1, 30 * S, 0, t + 1)]);
  const v = view(M1);
  assert.equal(v.position.net, 10 * S, 'the books hold 10 (old code: the read, 30)');
  assert.equal(v.position.yes, 10 * S);
  assert.equal(v.position.avgEntry, 400_000, 'the average entry of the fills, not a rescaled basis');
  assert.equal(v.account.worstCasePosition, view(M2).account.worstCasePosition, 'one account figure for every market');
  kernel.stop();
});

test("the issue's order: sell 10 @ 0.70, the read lands, then the buy 10 @ 0.50: the view is flat either way and realised +2", () => {
  const orders = [
    ['sell', 'read', 'buy'],
    ['buy', 'read', 'sell'],
    ['read', 'buy', 'sell'],
  ] as const;
  for (const order of orders) {
    const { clock, kernel, view, account } = setup();
    const t = clock.now();
    kernel.onEvents([book(M1, 590_000, 610_000, t)]);
    const ev = { sell: fill(M1, 1, 1, 700_000, 10 * S, t + 2, 's'), buy: fill(M1, 1, 0, 500_000, 10 * S, t + 1, 'b'), read: read(M1, 0, 0, t + 3) };
    for (const k of order) kernel.onEvents([ev[k]]);
    const v = view(M1);
    assert.equal(v.position.net, 0, order.join(','));
    assert.equal(v.position.avgEntry, null);
    assert.equal(v.pnl.realised, 2 * S);
    assert.equal(account.marketPnl(M1).realised, 2_000_000n);
    kernel.stop();
  }
});

test('the attribution adds up to the books per market, to the unit: inherited inventory, fees, a half-unit mid, a resolution', () => {
  const account = new Account();
  // inherited: 7 YES at 0.41 (not a fill the store ever saw)
  account.adoptBaseline([{ marketId: M1, outcomeIndex: 1, shares: 7 * S, mark: 410_000 }], 1_800_000_000_000);
  const { clock, store, kernel, view } = setup(account);
  let t = clock.now();
  kernel.onEvents([book(M1, 400_001, 410_000, t), book(M2, 300_000, 310_000, t)]);
  kernel.onEvents([
    fill(M1, 1, 0, 400_001, 3_333_333, ++t, 'x1', 6_667),
    fill(M1, 0, 0, 590_000, 1_234_567, ++t, 'x2', 3_704),
    fill(M2, 1, 1, 310_000, 5 * S, ++t, 'y1', 7_750),
  ]);
  kernel.onEvents([book(M1, 433_333, 433_334, ++t), book(M2, 250_001, 250_002, t)]);
  kernel.tick(M1);
  kernel.tick(M2);
  kernel.onEvents([fill(M2, 1, 0, 250_002, 2 * S, ++t, 'y2', 1_001)]);
  kernel.onEvents([{ type: 'MarketMetadataUpdated', marketId: M2, status: 'resolved', payoutYes: 1_000_000, ts: ++t }]);
  for (const m of [M1, M2]) {
    const a = marketAttribution(store.state.markets.get(m.toLowerCase())!, account);
    const p = account.marketPnl(m);
    assert.equal(a.spreadCapture + a.inventory + a.fees + a.resolution, p.realised + p.unrealised, `${m}: the four add up to the books' PnL`);
    assert.equal(a.total, p.realised + p.unrealised);
    assert.equal(a.fees, -account.market(m)!.fees, 'every fee the books hold');
    assert.equal(BigInt(view(m).pnl.realised + view(m).pnl.unrealised), a.total, 'the figure the strategy sees');
  }
  // M1's books hold the inherited 7 YES the store's fills never saw (old code: the fills' PnL only)
  const a1 = marketAttribution(store.state.markets.get(M1.toLowerCase())!);
  const p1 = account.marketPnl(M1);
  assert.notEqual(a1.total, p1.realised + p1.unrealised, 'without the books: the store-fills figure differs (the case this guards)');
  kernel.stop();
});

test("a read ahead of its fill, as the trading poll delivers it: the store's position and PnL are the books' once the fill is in", () => {
  const { clock, store, kernel, account, view } = setup();
  let t = clock.now();
  kernel.onEvents([book(M1, 490_000, 510_000, t)]);
  kernel.onEvents([read(M1, 0, 0, ++t)]);
  // poll 1: a buy, then the read that holds it; poll 2: a second buy trades between the orders read
  // and the balance read (only the read shows it); poll 3: the buy, then a read that agrees
  kernel.onEvents([fill(M1, 1, 0, 400_000, 10 * S, ++t, 'a', 2_000), read(M1, 10 * S, 0, ++t)]);
  kernel.onEvents([read(M1, 15 * S, 0, ++t)]);
  kernel.onEvents([fill(M1, 1, 0, 600_000, 5 * S, t - 1, 'b', 3_000), read(M1, 15 * S, 0, ++t)]);
  kernel.tick(M1);
  const m = store.state.markets.get(M1.toLowerCase())!;
  const books = account.positionOf(M1)!;
  assert.equal(m.position.yes, 15 * S);
  // old code: the basis rescaled at the read's average (the read counted the second buy before the fill did)
  for (const k of ['yes', 'no', 'net', 'basis', 'realised', 'fees'] as const) assert.equal(m.position[k], books[k], `the store's ${k} is the books'`);
  assert.equal(account.agrees(M1), true);
  // the store's own PnL and attribution (tools without the books) are the books' figures
  const p = account.marketPnl(M1);
  assert.deepEqual(marketPnl(m), p);
  assert.equal(marketAttribution(m).total, marketAttribution(m, account).total);
  assert.equal(BigInt(view(M1).pnl.realised + view(M1).pnl.unrealised), p.realised + p.unrealised, 'the figure the strategy sees');
  kernel.stop();
});

test('the attribution of a market the books never traded is zero, and of an unknown market too', () => {
  const { clock, store, kernel, account } = setup();
  kernel.onEvents([book(M1, 490_000, 510_000, clock.now())]);
  const a = marketAttribution(store.state.markets.get(M1.toLowerCase())!, account);
  assert.deepEqual(a, { spreadCapture: 0n, inventory: 0n, fees: 0n, resolution: 0n, total: 0n });
  kernel.stop();
});

test('applyToBooks: a read is reconciled, never written: the books keep their holdings', () => {
  const account = new Account();
  applyToBooks(account, fill(M1, 1, 0, 400_000, 5 * S, 1, 'z'));
  const d = applyToBooks(account, read(M1, 9 * S, 0, 2));
  assert.equal(d.length, 1);
  assert.equal(account.holdingsOf(M1).yes, 5 * S);
  assert.equal(account.agrees(M1), false);
  applyToBooks(account, fill(M1, 1, 0, 400_000, 4 * S, 1, 'z2'));
  assert.equal(account.agrees(M1), true, 'the fill that explains the read settles it');
});

test('a sale of kind "without inventory" mints every share, whatever is held: the books settle it as the venue does', () => {
  const a = new Account();
  const base = { marketId: M1, outcomeIndex: 1 as const, fee: 0, feeSource: 'venue' as const, origin: 'own' as const };
  a.applyFill({ ...base, fillId: 'buy', side: 0, price: 400_000, size: 10 * S, ts: 1 });
  // the ask went out as a YES sale without inventory (placed while flat); the buy filled first
  a.applyFill({ ...base, fillId: 'sell', side: 1, price: 450_000, size: 10 * S, ts: 2, orderKind: 2 });
  assert.deepEqual(
    a.positions(),
    [
      { marketId: M1.toLowerCase(), outcomeIndex: 1, shares: 10 * S },
      { marketId: M1.toLowerCase(), outcomeIndex: 0, shares: 10 * S },
    ],
    'the venue keeps the 10 YES and mints 10 NO (old code: flat)',
  );
  // paid 4.00 for the YES, paid 0.55 × 10 for the minted sets' other side
  assert.equal(a.figures().cash, -4_000_000n - 5_500_000n);
  assert.equal(a.marketPnl(M1).realised, 500_000n, 'the PnL is the same round trip: +0.50');
  // without the kind (older records): from inventory as far as held
  const b = new Account();
  b.applyFill({ ...base, fillId: 'buy', side: 0, price: 400_000, size: 10 * S, ts: 1 });
  b.applyFill({ ...base, fillId: 'sell', side: 1, price: 450_000, size: 10 * S, ts: 2 });
  assert.deepEqual(b.positions(), []);
  assert.equal(b.figures().cash, 500_000n);
  // the store's position follows the kind too (the same arithmetic)
  const { clock, store, kernel } = setup();
  kernel.onEvents([
    fill(M1, 1, 0, 400_000, 10 * S, clock.now(), 'x'),
    { ...fill(M1, 1, 1, 450_000, 10 * S, clock.now() + 1, 'y'), orderKind: 2 } as StateEvent,
  ]);
  const p = store.state.markets.get(M1.toLowerCase())!.position;
  assert.deepEqual({ yes: p.yes, no: p.no, net: p.net }, { yes: 10 * S, no: 10 * S, net: 0 });
  kernel.stop();
});
