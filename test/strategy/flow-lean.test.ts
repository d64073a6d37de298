/**
 * flowLean (src/strategy/ladder-config.ts), shared by avellaneda, glft and binary: the quotes'
 * center moves with the decayed taker-flow imbalance by flowLean, and not at all by default.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadStrategy } from '../../src/strategy/registry.ts';
import type { ViewEdge } from '../../src/strategy/types.ts';
import { makeView } from './make-view.ts';

const edge = (flowImbalance: number): ViewEdge => ({
  regime: 'quiet',
  regimeSince: 0,
  regimeCause: null,
  toxicity: null,
  toxicityWeight: 0,
  flowImbalance,
  flowSize: 1e9,
  markouts: [],
});
const prices = (qs: readonly { side: string; price: number }[] | null) => (qs ?? []).map((q) => `${q.side}@${q.price}`).join(' ');
const shifted = (qs: readonly { side: string; price: number }[] | null, by: number) => (qs ?? []).map((q) => `${q.side}@${q.price + by}`).join(' ');

test('flowLean moves avellaneda, glft and binary quotes with the taker flow; off by default', async () => {
  for (const name of ['avellaneda', 'glft', 'binary']) {
    const mod = await loadStrategy(name);
    const plain = mod.parseConfig({ minSpread: 0.04 }, 'p');
    const lean = mod.parseConfig({ minSpread: 0.04, flowLean: 0.02 }, 'p');
    const still = prices(mod.quote(makeView({ edge: edge(0) }), lean));
    assert.equal(prices(mod.quote(makeView({ edge: edge(1) }), plain)), prices(mod.quote(makeView({ edge: edge(0) }), plain)), `${name}: no lean by default`);
    assert.ok(still.length > 0, `${name} quotes`);
    // takers all bought lately: 2¢ up; all sold: 2¢ down (the book's mid 50¢, far from the bounds)
    assert.equal(prices(mod.quote(makeView({ edge: edge(1) }), lean)), shifted(mod.quote(makeView({ edge: edge(0) }), lean), 20_000), `${name}: +2¢`);
    assert.equal(prices(mod.quote(makeView({ edge: edge(-1) }), lean)), shifted(mod.quote(makeView({ edge: edge(0) }), lean), -20_000), `${name}: −2¢`);
  }
  const mod = await loadStrategy('avellaneda');
  assert.throws(() => mod.parseConfig({ flowLean: -0.01 }, 'p'), /p\.flowLean/);
  assert.throws(() => mod.parseConfig({ flowLean: 0.6 }, 'p'), /p\.flowLean/);
});
