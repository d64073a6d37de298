/**
 * FastHistogram against prom-client's own Histogram: the same observations give the same /metrics
 * text line for line (labelled and not, every bucket, +Inf, sum, count) and the same get(); values
 * that prom-client would throw on are dropped and counted, never thrown.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Histogram, Registry } from 'prom-client';
import { LATENCY_BUCKETS, createBotMetrics } from '../../src/metrics/bot-metrics.ts';
import { FastHistogram } from '../../src/metrics/fast-histogram.ts';

const API_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

function pair(labelNames: string[], buckets: number[]) {
  const a = new Registry();
  const b = new Registry();
  const opts = { name: 'bookmaker_x_seconds', help: 'x', buckets };
  const slow = new Histogram({ ...opts, labelNames, registers: [a] });
  const fast = new FastHistogram({ ...opts, labelNames, registers: [b] });
  return { a, b, slow, fast };
}

describe('FastHistogram', () => {
  it('exposes exactly what prom-client exposes, without labels (values on, between and beyond the bounds)', async () => {
    const { a, b, slow, fast } = pair([], [0, ...LATENCY_BUCKETS]);
    // before any observation: every bucket at zero, as prom-client shows an unlabelled histogram
    assert.equal(await b.metrics(), await a.metrics());
    assert.match(await b.metrics(), /^bookmaker_x_seconds_bucket\{le="0.00005"\} 0$/m);
    for (const v of [0, 0, 0.00004, 0.00005, 0.000051, 0.0003, 0.0003, 0.0025, 0.7, 10, 11, 1e9]) {
      slow.observe(v);
      fast.observe(v);
    }
    assert.equal(await b.metrics(), await a.metrics());
    assert.deepEqual(await fast.get(), await slow.get());
  });

  it('exposes exactly what prom-client exposes with labels, series in first-seen order, numeric label values as text', async () => {
    const { a, b, slow, fast } = pair(['method', 'endpoint', 'status'], API_BUCKETS);
    const obs: [Record<string, string | number>, number][] = [
      [{ method: 'POST', endpoint: '/orders/bulk', status: 201 }, 0.012],
      [{ method: 'GET', endpoint: '/markets/:id/orderbook', status: '200' }, 0.0009],
      [{ method: 'POST', endpoint: '/orders/bulk', status: 201 }, 0.3],
      [{ method: 'POST', endpoint: '/orders/bulk', status: 'timeout' }, 10],
      [{ method: 'GET', endpoint: '/markets/:id/orderbook', status: '200' }, 42],
      [{ method: 'POST', endpoint: '/orders/bulk', status: 409 }, 0.001],
    ];
    for (const [l, v] of obs) {
      slow.observe(l, v);
      fast.observe(l as Record<'method' | 'endpoint' | 'status', string | number>, v);
    }
    assert.equal(await b.metrics(), await a.metrics());
    assert.deepEqual(await fast.get(), await slow.get());
    const text = await b.metrics();
    assert.match(text, /bookmaker_x_seconds_count\{method="POST",endpoint="\/orders\/bulk",status="201"\} 2/);
    assert.match(text, /bookmaker_x_seconds_bucket\{le="\+Inf",method="GET",endpoint="\/markets\/:id\/orderbook",status="200"\} 2/);
  });

  it('drops and counts what prom-client would throw on; reset empties it', async () => {
    const h = new FastHistogram({ name: 'h_seconds', help: 'h', buckets: [1], labelNames: ['a'] as const });
    h.observe({ a: 'x' }, Number.NaN);
    h.observe({ a: 'x' }, Infinity);
    h.observe({} as { a: string }, 1);
    assert.equal(h.dropped, 3);
    assert.deepEqual((await h.get()).values, []);
    h.observe({ a: 'x' }, 0.5);
    assert.equal((await h.get()).values.length, 4); // le=1, +Inf, sum, count
    h.reset();
    assert.deepEqual((await h.get()).values, []);
    // reset of an unlabelled one: as prom-client (nothing shown until observed again)
    const u = pair([], [1]);
    u.slow.observe(0.5);
    u.fast.observe(0.5);
    u.slow.reset();
    u.fast.reset();
    assert.equal(await u.b.metrics(), await u.a.metrics());
    assert.throws(() => new FastHistogram({ name: 'bad', help: 'b', buckets: [1, 0.5] }), /ascending/);
  });

  it('the bot registry: tick-to-wire, throttle and API latency are fast histograms with the same names and buckets', async () => {
    const m = createBotMetrics({ defaultMetrics: false });
    m.tickToWire.observe(0.0004);
    m.requoteThrottle.observe(0);
    m.apiLatency.observe({ method: 'POST', endpoint: '/orders/bulk', status: '201' }, 0.012);
    const text = await m.registry.metrics();
    assert.match(text, /# TYPE bookmaker_tick_to_wire_seconds histogram/);
    assert.match(text, /bookmaker_tick_to_wire_seconds_bucket\{le="0.0005"\} 1/);
    assert.match(text, /bookmaker_tick_to_wire_seconds_bucket\{le="0.00025"\} 0/);
    assert.match(text, /bookmaker_requote_throttle_seconds_bucket\{le="0"\} 1/);
    assert.match(text, /bookmaker_api_latency_seconds_bucket\{le="0.025",method="POST",endpoint="\/orders\/bulk",status="201"\} 1/);
    assert.ok(m.tickToWire instanceof FastHistogram && m.requoteThrottle instanceof FastHistogram && m.apiLatency instanceof FastHistogram);
  });
});
