/**
 * PnL attribution (src/state/pnl-attribution.ts): exact identities over random fill sequences.
 * For any fills (YES and NO, buys and sells, fees, mids at each fill) and any mark:
 *   - the half-scaled components sum exactly to 2 × (realised + unrealised) of src/state/position.ts
 *     computed without rounding (2·realised + net·mark2 − 2·basis);
 *   - spread capture is Σ qty·(mid2 − 2·price), fees −Σ fee, each independently recomputed;
 *   - rendered to 1e-6 USDC, the four sum exactly to the PnL as reported (realised and unrealised
 *     each floored), and each is within 4 units of its exact value; fees stay exact;
 *   - with a resolution, inventory runs to the last mid and resolution is net × (payout − last mid).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { fillTerms } from './fill-arbitrary.ts';
import { applyFill, FLAT, toMicro, unrealisedScaled, yesTermsTrade, type FillTerms, type PositionState } from '../../src/state/position.ts';
import { addFill, apportion, attributionExact, attributionMicro, NO_ATTRIBUTION, resolveAt, type AttributionState } from '../../src/state/pnl-attribution.ts';

const fillArb = fc.record({
  ...fillTerms(500_000_000, 2_000_000),
  // twice the YES mid just before the fill (odd = a half-unit mid), or none
  mid2: fc.option(fc.integer({ min: 2, max: 1_999_998 }), { nil: null }),
});

function fold(fills: (FillTerms & { mid2: number | null })[]): { pos: PositionState; a: AttributionState } {
  let pos = FLAT;
  let a = NO_ATTRIBUTION;
  for (const f of fills) {
    pos = applyFill(pos, f);
    const y = yesTermsTrade(f);
    a = addFill(a, { qty: y.qty, price: y.price, fee: f.fee }, f.mid2);
  }
  return { pos, a };
}

const SCALE2 = 2_000_000n;
const floorDiv = (x: bigint, d: bigint) => (x % d !== 0n && x < 0n ? x / d - 1n : x / d);

describe('PnL attribution', () => {
  it('sums exactly to realised + unrealised over random fill sequences (property)', () => {
    fc.assert(
      fc.property(fc.array(fillArb, { minLength: 0, maxLength: 40 }), fc.integer({ min: 0, max: 2_000_000 }), (fills, mark2) => {
        const { pos, a } = fold(fills);
        const e = attributionExact(a, mark2);
        // exact: 2·realised + net·mark2 − 2·basis, no truncation
        assert.equal(e.total, 2n * pos.realised + BigInt(pos.net) * BigInt(mark2) - 2n * pos.basis);
        assert.equal(e.spreadCapture + e.inventory + e.fees + e.resolution, e.total);
        // independent recomputation of spread capture and fees
        let spread = 0n;
        let fees = 0n;
        for (const f of fills) {
          const y = yesTermsTrade(f);
          const m2 = f.mid2 === null ? 2 * y.price : f.mid2;
          spread += BigInt(y.qty) * BigInt(m2 - 2 * y.price);
          fees += BigInt(f.fee);
        }
        assert.equal(e.spreadCapture, spread);
        assert.equal(e.fees, -fees * SCALE2);
        assert.equal(e.resolution, 0n);
        // rendered: exactly the reported PnL (each part floored as the summary floors it)
        const reported = toMicro(pos.realised) + toMicro(unrealisedScaled(pos, mark2));
        const m = attributionMicro(a, mark2, reported);
        assert.equal(m.spreadCapture + m.inventory + m.fees + m.resolution, reported);
        assert.equal(m.fees, -fees, 'fees stay exact');
        for (const k of ['spreadCapture', 'inventory', 'resolution'] as const) {
          const exact = floorDiv(e[k], SCALE2);
          assert.ok(m[k] - exact <= 4n && exact - m[k] <= 4n, `${k}: ${m[k]} vs exact ${exact}`);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('without a mark, the open position stays at cost: the components sum to the realised PnL', () => {
    fc.assert(
      fc.property(fc.array(fillArb, { minLength: 1, maxLength: 30 }), (fills) => {
        const { pos, a } = fold(fills);
        const e = attributionExact(a, null, pos.basis);
        assert.equal(e.total, 2n * pos.realised);
        const m = attributionMicro(a, null, toMicro(pos.realised), pos.basis);
        assert.equal(m.spreadCapture + m.inventory + m.fees + m.resolution, toMicro(pos.realised));
      }),
      { numRuns: 200 },
    );
  });

  it('a worked example: spread, inventory, fees and resolution by hand', () => {
    const S = 1_000_000;
    let a = NO_ATTRIBUTION;
    // buy 10 @ 0.48 with the mid at 0.50: +0.20 spread
    a = addFill(a, { qty: 10 * S, price: 480_000, fee: 10_000 }, 1_000_000);
    // mid to 0.40; sell 4 @ 0.42 (mid 0.40): +0.08 spread, inventory 10 × −0.10 = −1.00
    a = addFill(a, { qty: -4 * S, price: 420_000, fee: 0 }, 800_000);
    // last mid 0.45, then YES resolves to 1: inventory 6 × +0.05, resolution 6 × 0.55
    a = resolveAt(a, 900_000, 1_000_000);
    const m = attributionMicro(a, 2_000_000);
    assert.deepEqual(
      { s: m.spreadCapture, i: m.inventory, f: m.fees, r: m.resolution, t: m.total },
      { s: 280_000n, i: -1_000_000n + 300_000n, f: -10_000n, r: 3_300_000n, t: 280_000n - 700_000n - 10_000n + 3_300_000n },
    );
    // = Σ qty·(payout − price) − fees: 10·(1 − 0.48) − 4·(1 − 0.42) − 0.01
    assert.equal(m.total, 5_200_000n - 2_320_000n - 10_000n);
  });

  /** The unit-at-a-time round robin apportion replaced (the reference for small gaps). */
  function apportionByUnits(e: { spreadCapture: bigint; inventory: bigint; fees: bigint; resolution: bigint }, target: bigint) {
    const SCALE2 = 2_000_000n;
    const fl = (x: bigint) => (x % SCALE2 !== 0n && x < 0n ? x / SCALE2 - 1n : x / SCALE2);
    const ks = ['spreadCapture', 'inventory', 'fees', 'resolution'] as const;
    const floors = ks.map((k) => fl(e[k]));
    const rems = ks.map((k, i) => e[k] - floors[i]! * SCALE2);
    let gap = target - floors.reduce((x, y) => x + y, 0n);
    let live = [0, 1, 2, 3].filter((i) => rems[i] !== 0n);
    if (live.length === 0) live = [1];
    const order = live.sort((i, j) => (rems[j]! > rems[i]! ? 1 : rems[j]! < rems[i]! ? -1 : i - j));
    const n = order.length;
    for (let k = 0; gap > 0n; k = (k + 1) % n, gap--) floors[order[k]!]!++;
    for (let k = n - 1; gap < 0n; k = (k + n - 1) % n, gap++) floors[order[k]!]!--;
    return { spreadCapture: floors[0]!, inventory: floors[1]!, fees: floors[2]!, resolution: floors[3]!, total: target };
  }

  it('apportion: the same split as one unit at a time, for any gap up or down', () => {
    const comp = fc.bigInt({ min: -100_000_000_000_000n, max: 100_000_000_000_000n });
    fc.assert(
      fc.property(comp, comp, comp, comp, fc.bigInt({ min: -200n, max: 200n }), (s, i, f, r, d) => {
        const e = { spreadCapture: s, inventory: i, fees: f * 2_000_000n, resolution: r };
        const fl = (x: bigint) => (x % 2_000_000n !== 0n && x < 0n ? x / 2_000_000n - 1n : x / 2_000_000n);
        const target = fl(s) + fl(i) + f + fl(r) + d;
        assert.deepEqual(apportion(e, target), apportionByUnits(e, target));
      }),
      { numRuns: 500 },
    );
  });

  it('apportion: a gap of 1e15 units (a target far from the floors) is split in O(components), exactly', { timeout: 60_000 }, () => {
    const e = { spreadCapture: 3n, inventory: -5n, fees: 0n, resolution: 7n };
    // the old loop ran once per unit of gap: 1e15 iterations (it never finished); now: 2 live components share it
    const a = apportion(e, 1_000_000_000_000_000n + 1n);
    assert.equal(a.spreadCapture + a.inventory + a.fees + a.resolution, 1_000_000_000_000_000n + 1n);
    assert.equal(a.fees, 0n, 'an exact component stays exact');
    const b = apportion(e, -1_000_000_000_000_000n);
    assert.equal(b.spreadCapture + b.inventory + b.fees + b.resolution, -1_000_000_000_000_000n);
  });
});
