/**
 * Settlement of a backtest market at its resolution, by hand: a YES holding and a NO holding, each
 * resolved at 0 and at 1. The exchange voids the bot's resting orders there (MARKET_RESOLVED) and
 * refuses new ones; the collector pays the position out (nothing held, the payout realised, exact to
 * 1e-6 USDC), books the jump from the last mid to the payout as `resolution`, and the live books
 * (src/account/account.ts) realise the same PnL.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Account } from '../../src/account/account.ts';
import { RunCollector } from '../../src/backtest/run-collector.ts';
import type { OutcomeIndex } from '../../src/model/order.ts';
import { book, M, order, simOver } from './helpers.ts';

const S = 1_000_000;

describe('a resolved market settles at its payout', () => {
  // the book: 0.40 bid, 0.60 offered (mid 0.50); taker fee 50 bps
  const cases: { held: 'YES' | 'NO'; payoutYes: number }[] = [
    { held: 'YES', payoutYes: S },
    { held: 'YES', payoutYes: 0 },
    { held: 'NO', payoutYes: S },
    { held: 'NO', payoutYes: 0 },
  ];
  for (const { held, payoutYes } of cases) {
    it(`10 ${held} shares bought at 0.60, the market resolving ${payoutYes === S ? 'YES' : 'NO'}`, () => {
      const { x, fills, until, c } = simOver([book(0, [[400_000, 100 * S]], [[600_000, 100 * S]])], { fees: { makerBps: 0, takerBps: 50 } });
      until(0);
      const collector = new RunCollector(c.markets, () => x);
      collector.onMid(0, 0, x.mid(0));
      const outcomeIndex: OutcomeIndex = held === 'YES' ? 1 : 0;
      // buy 10 of the held outcome at 0.60 (NO at 0.60 is YES sold at 0.40: it takes the bid)
      assert.equal(x.place(order({ outcomeIndex, side: 0, price: 600_000, size: 10 * S }), 100).ok, true);
      assert.equal(fills.length, 1);
      const fee = fills[0]!.fee;
      assert.ok(fee > 0);
      for (const f of fills) collector.onFill(f);
      // a quote left resting below the market, and the mid moving before the resolution
      const resting = x.place(order({ outcomeIndex: 1, side: 0, price: 300_000, size: S }), 200);
      assert.ok(resting.ok);
      collector.onMid(0, 300, 550_000);

      assert.equal(x.resolve(0, payoutYes, 1_000), true);
      assert.equal(resting.order.state, 'voided');
      assert.equal(resting.order.voidReason, 'MARKET_RESOLVED');
      assert.deepEqual(x.openOrders(0), []);
      const late = x.place(order({ outcomeIndex: 1, side: 0, price: 300_000, size: S }), 1_100);
      assert.ok(!late.ok && late.code === 'MARKET_NOT_OPEN', JSON.stringify(late));
      assert.equal(x.resolve(0, payoutYes, 1_200), false, 'once');
      assert.deepEqual(x.checkInvariants(), []);

      collector.onResolved(0, 1_000, payoutYes);
      collector.onMid(0, 1_500, 500_000); // a book row after the resolution moves nothing
      const pays = (held === 'YES') === (payoutYes === S) ? S : 0;
      // 10 × (what a held share pays − 0.60) − fee, exact
      const expected = BigInt(10 * (pays - 600_000) - fee);
      const p = collector.positions[0]!;
      assert.deepEqual({ yes: p.yes, no: p.no, net: p.net, basis: p.basis }, { yes: 0, no: 0, net: 0, basis: 0n }, 'paid out: nothing held');
      assert.deepEqual(collector.pnlOf(0), { realised: expected, unrealised: 0n });
      assert.equal(collector.midAt(0, 2_000), payoutYes, 'the payout is the price from then on');

      // spread: 10 × (0.50 − 0.60) against the mid at the fill; inventory: the mid's move to 0.55 on
      // the YES-terms net; resolution: the jump from 0.55 to the payout
      const net = held === 'YES' ? 10 : -10;
      const spread = -1_000_000n;
      const inventory = BigInt(net * 50_000);
      const resolution = BigInt(net * (payoutYes - 550_000));
      assert.deepEqual(collector.attributionOf(0), { spreadCapture: spread, inventory, fees: BigInt(-fee), resolution, total: expected });
      assert.equal(spread + inventory + BigInt(-fee) + resolution, expected);

      // the live books realise the same figure from the same fill and payout
      const books = new Account();
      const f = fills[0]!;
      books.applyFill({
        fillId: 'f1',
        marketId: M,
        outcomeIndex: f.outcomeIndex,
        side: f.side,
        price: f.price,
        size: f.size,
        fee: f.fee,
        feeSource: 'venue',
        ts: 100,
        origin: 'own',
      });
      books.mark(M, 1_100_000, 300);
      books.resolve(M, payoutYes, 1_000);
      const mf = books.market(M)!;
      assert.deepEqual({ realised: mf.realised, unrealised: mf.unrealised }, { realised: expected, unrealised: 0n });
    });
  }
});

describe('reserve(): the series arrays sized once, the same samples as pushed one by one', () => {
  // a collector's whole output after `taken` samples (a fill and mid moves between them), with room made
  // for `room` samples first (null: none); the regime source set before or after the room was made
  const collect = (taken: number, room: number | null, regimeFirst: boolean): unknown => {
    const { x, until, c } = simOver([book(0, [[400_000, 100 * S]], [[600_000, 100 * S]])], { fees: { makerBps: 0, takerBps: 50 } });
    until(0);
    const collector = new RunCollector(c.markets, () => x);
    const regimes = ['quiet', 'trending', 'event'] as const;
    const source = (m: number, t: number): (typeof regimes)[number] => regimes[(m + t) % 3]!;
    if (regimeFirst) collector.regimeSource = source;
    if (room !== null) collector.reserve(room);
    if (!regimeFirst) collector.regimeSource = source;
    for (let k = 0; k < taken; k++) {
      collector.onMid(0, k, 500_000 + 1_000 * k);
      if (k === 2) {
        const placed = x.place(order({ outcomeIndex: 1, side: 0, price: 600_000, size: 10 * S }), k);
        assert.ok(placed.ok);
      }
      collector.sample(k);
    }
    collector.trim();
    collector.restateLast();
    return {
      sampleT: collector.sampleT,
      totalPnl: collector.totalPnl,
      series: collector.series,
      regimes: collector.regimeSeries,
      uptime: collector.uptime(0),
    };
  };
  for (const taken of [0, 1, 5, 9]) {
    for (const room of [1, 5, 7, 20]) {
      it(`${taken} samples, room for ${room}`, () => {
        const want = collect(taken, null, true);
        assert.deepEqual(collect(taken, room, true), want);
        assert.deepEqual(collect(taken, room, false), want);
        // packed, not only equal: no hole is left past the samples taken
        const got = collect(taken, room, true) as { sampleT: number[]; series: { mid: number[] }[] };
        assert.equal(got.sampleT.length, taken);
        assert.equal(Object.keys(got.series[0]!.mid).length, taken);
      });
    }
  }
});
