/**
 * The print pull (src/strategy/print-pull.ts): a taker print pulls the side it printed on for a
 * while, and bands and oracle-anchored apply it when `afterPrint` is set.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { applyPrintPull, parsePrintPull, printLimits, PRINT_PULL_OFF } from '../../src/strategy/print-pull.ts';
import { EDGE_GUARD_DEFAULTS } from '../../src/strategy/edge-adjust.ts';
import { loadStrategy } from '../../src/strategy/registry.ts';
import type { DesiredQuote, ViewTrade } from '../../src/strategy/types.ts';
import { makeView, NOW, S } from './make-view.ts';

const C = 10_000;
const trade = (agoMs: number, takerSide: 'buy' | 'sell', cents: number): ViewTrade => ({ price: cents * C, size: 10 * S, takerSide, ts: NOW - agoMs });
const q = (side: 'bid' | 'ask', cents: number): DesiredQuote => ({ side, price: cents * C, size: 25 * S, level: 0 });
const sides = (qs: DesiredQuote[]) => qs.map((x) => `${x.side}@${x.price / C}`);

describe('printLimits / applyPrintPull', () => {
  const both = [q('bid', 48), q('ask', 52)];
  it('off (seconds 0): nothing pulled', () => {
    assert.deepEqual(sides(applyPrintPull(both, makeView({ trades: [trade(1_000, 'buy', 52)] }), PRINT_PULL_OFF, EDGE_GUARD_DEFAULTS)), ['bid@48', 'ask@52']);
  });
  it('a taker buy within the window pulls the asks, a sale the bids; older prints do not', () => {
    const cfg = parsePrintPull({ seconds: 10 }, 'p');
    assert.deepEqual(sides(applyPrintPull(both, makeView({ trades: [trade(5_000, 'buy', 52)] }), cfg, EDGE_GUARD_DEFAULTS)), ['bid@48']);
    assert.deepEqual(sides(applyPrintPull(both, makeView({ trades: [trade(5_000, 'sell', 48)] }), cfg, EDGE_GUARD_DEFAULTS)), ['ask@52']);
    assert.deepEqual(sides(applyPrintPull(both, makeView({ trades: [trade(10_001, 'buy', 52)] }), cfg, EDGE_GUARD_DEFAULTS)), ['bid@48', 'ask@52']);
    assert.deepEqual(sides(applyPrintPull(both, makeView({ trades: [trade(8_000, 'sell', 48), trade(2_000, 'buy', 52)] }), cfg, EDGE_GUARD_DEFAULTS)), []);
  });
  it('latest: only the newest print in the window pulls its side', () => {
    const cfg = parsePrintPull({ seconds: 10, latest: true }, 'p');
    assert.deepEqual(sides(applyPrintPull(both, makeView({ trades: [trade(8_000, 'sell', 48), trade(2_000, 'buy', 52)] }), cfg, EDGE_GUARD_DEFAULTS)), [
      'bid@48',
    ]);
    assert.deepEqual(sides(applyPrintPull(both, makeView({ trades: [trade(8_000, 'buy', 52), trade(2_000, 'sell', 48)] }), cfg, EDGE_GUARD_DEFAULTS)), [
      'ask@52',
    ]);
    assert.deepEqual(sides(applyPrintPull(both, makeView({ trades: [trade(12_000, 'buy', 52)] }), cfg, EDGE_GUARD_DEFAULTS)), ['bid@48', 'ask@52']);
  });
  it('requirePrint: no print in the window pulls both sides; with latest, one side is quoted behind the newest print', () => {
    const cfg = parsePrintPull({ seconds: 10, latest: true, requirePrint: true }, 'p');
    assert.deepEqual(sides(applyPrintPull(both, makeView({ trades: [] }), cfg, EDGE_GUARD_DEFAULTS)), []);
    assert.deepEqual(sides(applyPrintPull(both, makeView({ trades: [trade(12_000, 'sell', 48)] }), cfg, EDGE_GUARD_DEFAULTS)), []);
    assert.deepEqual(sides(applyPrintPull(both, makeView({ trades: [trade(8_000, 'buy', 52), trade(2_000, 'sell', 48)] }), cfg, EDGE_GUARD_DEFAULTS)), [
      'ask@52',
    ]);
  });
  it('ticks: only quotes within that many ticks past the print are pulled', () => {
    const cfg = parsePrintPull({ seconds: 10, ticks: 1 }, 'p');
    const v = makeView({ trades: [trade(1_000, 'buy', 50)] });
    assert.deepEqual(printLimits(v, cfg), { askAbove: 51 * C, bidBelow: Infinity });
    assert.deepEqual(sides(applyPrintPull([q('bid', 48), q('ask', 51), q('ask', 52)], v, cfg, EDGE_GUARD_DEFAULTS)), ['bid@48', 'ask@52']);
  });
  it('gated: only while the markouts are shown adverse', () => {
    const cfg = parsePrintPull({ seconds: 10, gated: true }, 'p');
    const trades = [trade(1_000, 'buy', 52)];
    const edge = (toxicity: number) => ({
      regime: 'quiet' as const,
      regimeSince: 0,
      regimeCause: null,
      toxicity,
      toxicityWeight: 10,
      flowImbalance: 0,
      flowSize: 0,
      markouts: [],
    });
    assert.deepEqual(sides(applyPrintPull(both, makeView({ trades, edge: edge(1 * C) }), cfg, EDGE_GUARD_DEFAULTS)), ['bid@48', 'ask@52']);
    assert.deepEqual(sides(applyPrintPull(both, makeView({ trades, edge: edge(-2 * C) }), cfg, EDGE_GUARD_DEFAULTS)), ['bid@48']);
    assert.deepEqual(sides(applyPrintPull(both, makeView({ trades }), cfg, EDGE_GUARD_DEFAULTS)), ['bid@48', 'ask@52']);
  });
  it('bad config is refused with its path', () => {
    assert.throws(() => parsePrintPull({ seconds: -1 }, 'p.afterPrint'), /p\.afterPrint\.seconds/);
    assert.throws(() => parsePrintPull({ ticks: 1.5, seconds: 1 }, 'p.afterPrint'), /p\.afterPrint\.ticks/);
    assert.throws(() => parsePrintPull({ second: 1 }, 'p.afterPrint'), /p\.afterPrint\.second/);
  });
});

describe('bands and oracle-anchored with afterPrint', () => {
  for (const [name, params] of [
    ['bands', { bands: [{ minMargin: 0.005, targetMargin: 0.01, maxMargin: 0.02, size: 25 }] }],
    ['oracle-anchored', { halfSpread: 0.01, size: 25 }],
  ] as const) {
    it(`${name}: a recent taker buy leaves the bid only; without afterPrint both sides`, async () => {
      const mod = await loadStrategy(name);
      const view = makeView({ trades: [trade(2_000, 'buy', 52)] });
      const plain = mod.quote(view, mod.parseConfig(params, 'p')) ?? [];
      assert.deepEqual(plain.map((x) => x.side).sort(), ['ask', 'bid']);
      const pulled = mod.quote(view, mod.parseConfig({ ...params, afterPrint: { seconds: 5 } }, 'p')) ?? [];
      assert.deepEqual(
        pulled.map((x) => x.side),
        ['bid'],
      );
    });
  }
});
