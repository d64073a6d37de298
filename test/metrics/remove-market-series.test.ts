/**
 * removeMarketSeries drops every label series of one market (counters with more labels, histograms
 * without their `le` samples) and leaves other markets' series alone.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { removeMarketSeries } from '../../src/metrics/remove-market-series.ts';

test('a market leaves every labelled series; others stay', async () => {
  const r = new Registry();
  const c = new Counter({ name: 'x_total', help: 'h', labelNames: ['market'], registers: [r] });
  const d = new Counter({ name: 'y_total', help: 'h', labelNames: ['market', 'action'], registers: [r] });
  const h = new Histogram({ name: 'z_seconds', help: 'h', labelNames: ['market'], buckets: [1, 2], registers: [r] });
  const plain = new Counter({ name: 'w_total', help: 'h', registers: [r] });
  const claimable = new Gauge({ name: 'v_claimable_usdc', help: 'h', labelNames: ['market'], registers: [r] });
  claimable.set({ market: '0xab' }, 10);
  c.inc({ market: '0xab' }, 2);
  c.inc({ market: 'slug-a' });
  c.inc({ market: '0xcd' });
  d.inc({ market: '0xab', action: 'create' });
  d.inc({ market: '0xab', action: 'cancel' });
  h.observe({ market: '0xab' }, 1.5);
  plain.inc();
  assert.equal(await removeMarketSeries(r, ['0xab', 'slug-a']), 5); // the values the series were labelled with (ids in normal form)
  const text = await r.metrics();
  assert.ok(!/^[^v].*(0xab|slug-a)/m.test(text), text);
  assert.match(text, /v_claimable_usdc\{market="0xab"\} 10/, 'what is claimable there stays until claimed');
  assert.match(text, /x_total\{market="0xcd"\} 1/);
  assert.match(text, /w_total 1/);
  assert.equal(await removeMarketSeries(r, ['0xab']), 0);
});
