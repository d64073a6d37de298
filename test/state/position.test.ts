import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { fillTerms } from './fill-arbitrary.ts';
import { applyFill, FLAT, syncHoldings, toMicro, unrealisedScaled, yesTermsTrade, type FillTerms, type PositionState } from '../../src/state/position.ts';

const S = 1_000_000; // one share
const fill = (outcomeIndex: 0 | 1, side: 0 | 1, price: number, size: number, fee = 0): FillTerms => ({ outcomeIndex, side, price, size, fee });
const run = (fills: FillTerms[]): PositionState => fills.reduce(applyFill, FLAT);
const micro = (p: PositionState): bigint => toMicro(p.realised);

describe('position and PnL (exact integers)', () => {
  it('YES round trip: buy 10 @ 37¢, sell 10 @ 61¢ → +2.4 USDC', () => {
    const p = run([fill(1, 0, 370_000, 10 * S), fill(1, 1, 610_000, 10 * S)]);
    assert.equal(p.net, 0);
    assert.equal(p.basis, 0n);
    assert.equal(micro(p), 2_400_000n);
  });

  it('YES/NO netting: buy 10 YES @ 40¢ and 10 NO @ 55¢ is flat with +0.5 USDC (10 sets cost 9.5)', () => {
    const p = run([fill(1, 0, 400_000, 10 * S), fill(0, 0, 550_000, 10 * S)]);
    assert.deepEqual([p.yes, p.no, p.net], [10 * S, 10 * S, 0]);
    assert.equal(micro(p), 500_000n);
  });

  it('selling NO from inventory is buying YES at the complement', () => {
    assert.deepEqual(yesTermsTrade(fill(0, 1, 620_000, S)), { qty: S, price: 380_000 });
    assert.deepEqual(yesTermsTrade(fill(0, 0, 620_000, S)), { qty: -S, price: 380_000 });
  });

  it('selling YES without inventory mints: we end up holding NO', () => {
    const p = run([fill(1, 0, 500_000, 2 * S), fill(1, 1, 600_000, 5 * S)]);
    assert.deepEqual([p.yes, p.no, p.net], [0, 3 * S, -3 * S]);
    assert.equal(micro(p), 200_000n); // 2 shares closed at +10¢
  });

  it('average cost over several buys, partial close, then a flip short', () => {
    // buy 3 @ 30¢, buy 1 @ 50¢ → avg 35¢; sell 2 @ 45¢ → +0.2; sell 4 @ 45¢ → closes 2 (+0.2), opens short 2 @ 45¢
    const p = run([fill(1, 0, 300_000, 3 * S), fill(1, 0, 500_000, S), fill(1, 1, 450_000, 2 * S), fill(1, 1, 450_000, 4 * S)]);
    assert.equal(p.net, -2 * S);
    assert.equal(p.basis, -2n * BigInt(S) * 450_000n);
    assert.equal(micro(p), 400_000n);
  });

  it('fees reduce realised PnL', () => {
    const p = run([fill(1, 0, 370_000, 10 * S, 1000), fill(1, 1, 610_000, 10 * S, 2000)]);
    assert.equal(micro(p), 2_397_000n);
    assert.equal(p.fees, 3000n);
  });

  it('odd sizes: the rounding remainder stays in the basis, so a closed position realises exactly its cash', () => {
    const p = run([fill(1, 0, 333_333, 3), fill(1, 0, 1, 7), fill(1, 1, 500_000, 4), fill(1, 1, 999_999, 6)]);
    assert.equal(p.net, 0);
    assert.equal(p.realised, -(333_333n * 3n) - 7n + 500_000n * 4n + 999_999n * 6n);
  });

  it('property: after any fills, closing flat realises exactly the cash flows plus complete sets held', () => {
    const arbFill = fc.record(fillTerms(50_000_000, 10_000));
    fc.assert(
      fc.property(fc.array(arbFill, { maxLength: 40 }), fc.integer({ min: 1, max: 999_999 }), (fills, closePrice) => {
        const open = run(fills);
        const all = open.net === 0 ? fills : [...fills, fill(1, open.net > 0 ? 1 : 0, closePrice, Math.abs(open.net))];
        const p = run(all);
        // Independent cash ledger: a sell beyond the held inventory first mints complete sets at 1 USDC each.
        let cash = 0n;
        let fees = 0n;
        const held = { 0: 0, 1: 0 };
        for (const f of all) {
          const px = BigInt(f.price) * BigInt(f.size);
          if (f.side === 0) {
            cash -= px;
            held[f.outcomeIndex] += f.size;
          } else {
            const minted = Math.max(0, f.size - held[f.outcomeIndex]);
            cash += px - BigInt(minted) * 1_000_000n;
            held[f.outcomeIndex] += minted - f.size;
            held[f.outcomeIndex === 1 ? 0 : 1] += minted;
          }
          fees += BigInt(f.fee);
        }
        assert.equal(p.net, 0);
        assert.equal(p.yes, p.no);
        assert.deepEqual([held[1], held[0]], [p.yes, p.no]);
        assert.equal(p.realised, cash + BigInt(p.yes) * 1_000_000n - fees * 1_000_000n);
      }),
      { numRuns: 2000 },
    );
  });

  it('unrealised marks the net at mid, exact at half units', () => {
    const p = run([fill(1, 0, 400_000, 10 * S)]);
    assert.equal(toMicro(unrealisedScaled(p, 2 * 450_000)), 500_000n);
    const q = run([fill(1, 0, 400_000, 1)]);
    assert.equal(unrealisedScaled(q, 800_001), 0n); // mid 400 000.5 on 1 unit: floor of half a scaled unit
    const short = run([fill(0, 0, 600_000, 10 * S)]); // short YES @ 40¢ via NO
    assert.equal(toMicro(unrealisedScaled(short, 2 * 300_000)), 1_000_000n);
  });

  it('toMicro rounds toward minus infinity', () => {
    assert.equal(toMicro(1_500_000n), 1n);
    assert.equal(toMicro(-1n), -1n);
    assert.equal(toMicro(-1_000_000n), -1n);
  });

  it('a holdings sync keeps the average cost', () => {
    const p = syncHoldings(run([fill(1, 0, 400_000, 10 * S)]), 5 * S, 0);
    assert.equal(p.net, 5 * S);
    assert.equal(p.basis, 5n * BigInt(S) * 400_000n);
  });
});
