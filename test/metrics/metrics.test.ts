import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { describe, it } from 'node:test';
import type { Bytes32 } from '../../src/model/order.ts';
import { bindStoreMetrics } from '../../src/metrics/bind-store-metrics.ts';
import { createBotMetrics } from '../../src/metrics/bot-metrics.ts';
import { OWN_ORDERS_READ_KINDS } from '../../src/feeds/own-orders-feed.ts';
import { createMetricsServer, listen, startMetricsEndpoint } from '../../src/metrics/metrics-server.ts';
import { ENDPOINT_IDLE_MS, ENDPOINT_MAX_CONNECTIONS, limitEndpointServer } from '../../src/metrics/endpoint-limits.ts';
import { StateStore } from '../../src/state/store.ts';
import { ManualClock } from '../orders/fake-venue.ts';

const M = ('0x' + 'cd'.repeat(32)) as Bytes32;
const S = 1_000_000;
const nonce = ('0x' + '01'.repeat(32)) as Bytes32;

function line(text: string, prefix: string): string | undefined {
  return text.split('\n').find((l) => l.startsWith(prefix));
}

describe('bot metrics', () => {
  it('counts events and computes per-market gauges from the store at scrape time', async () => {
    const store = new StateStore();
    const clock = new ManualClock(10_000);
    const metrics = createBotMetrics({ labelBySlug: true });
    metrics.setStateSource(() => store.state, clock);
    const unbind = bindStoreMetrics(metrics, store, true);
    const bid = { marketId: M, outcomeIndex: 1 as const, side: 0 as const, price: 440_000, size: 10 * S, nonce };
    const ask = { marketId: M, outcomeIndex: 0 as const, side: 0 as const, price: 530_000, size: 10 * S, nonce: ('0x' + '02'.repeat(32)) as Bytes32 };
    store.dispatchAll([
      { type: 'MarketMetadataUpdated', marketId: M, slug: 'rain-tomorrow', ts: 1 },
      {
        type: 'BookEventReceived',
        event: {
          type: 'snapshot',
          book: { marketId: M, outcomeIndex: 1, bids: [{ price: 440_000, size: S }], asks: [{ price: 460_000, size: S }], venueTs: 0 },
          seq: 1,
          localTs: 7_000,
          source: 'stream',
        },
        ts: 7_000,
      },
      { type: 'OrderSubmitted', marketId: M, slot: 'b', nonce, order: bid, retry: false, ts: 1 },
      { type: 'OrderSubmitted', marketId: M, slot: 'b', nonce, order: bid, retry: true, ts: 1 },
      { type: 'OrderAccepted', marketId: M, nonce, duplicate: true, ts: 1 },
      { type: 'OrderAdopted', marketId: M, slot: 'a', nonce: ask.nonce, order: ask, remaining: ask.size, ts: 1 },
      {
        type: 'OrderRejected',
        marketId: M,
        slot: 'x',
        nonce: ('0x' + '03'.repeat(32)) as Bytes32,
        reason: 'bad-request',
        retryable: false,
        mayHaveLanded: false,
        status: 400,
        venueCode: 'INSUFFICIENT_BALANCE',
        message: 'not enough collateral',
        ts: 1,
      },
      {
        type: 'OrderRejected',
        marketId: M,
        slot: 'y',
        nonce: ('0x' + '04'.repeat(32)) as Bytes32,
        reason: 'bad-request',
        retryable: false,
        mayHaveLanded: false,
        status: 400,
        venueCode: 'SOMETHING_NEW',
        message: 'a code we do not know',
        ts: 1,
      },
      { type: 'OrderFilled', marketId: M, nonce: null, outcomeIndex: 1, side: 0, price: 400_000, size: 10 * S, fee: 2_000, ts: 1 },
      { type: 'QuoteDenied', marketId: M, reason: 'POSITION_LIMIT', detail: 'x', quote: null, ts: 1 },
      { type: 'VenueBackedOff', until: 5, shed: 3, ts: 1 },
      { type: 'VenueCallCompleted', call: 'batch', ok: false, ms: 3, ts: 1 },
      { type: 'BalanceUpdated', collateral: 123_450_000n, ts: 1 },
    ] as const);
    metrics.apiLatency.observe({ method: 'POST', endpoint: '/orders/bulk', status: '201' }, 0.012);
    metrics.tickToWire.observe(0.0004);
    metrics.rateBudgetPressure.set(0.25);
    const text = await metrics.registry.metrics();
    unbind();

    const expect: [string, string][] = [
      ['bookmaker_orders_sent_total{market="rain-tomorrow",action="create"}', '1'],
      ['bookmaker_orders_sent_total{market="rain-tomorrow",action="resend"}', '1'],
      ['bookmaker_orders_accepted_total{market="rain-tomorrow",duplicate="true"}', '1'],
      // the venue's code is the label; a code outside the bounded set is 'other'
      ['bookmaker_orders_rejected_total{market="rain-tomorrow",reason="INSUFFICIENT_BALANCE"}', '1'],
      ['bookmaker_orders_rejected_total{market="rain-tomorrow",reason="other"}', '1'],
      ['bookmaker_fills_total{market="rain-tomorrow",side="buy"}', '1'],
      ['bookmaker_fill_volume_shares_total{market="rain-tomorrow"}', '10'],
      ['bookmaker_fill_volume_usdc_total{market="rain-tomorrow"}', '4'],
      ['bookmaker_risk_denials_total{market="rain-tomorrow",reason="POSITION_LIMIT"}', '1'],
      ['bookmaker_requotes_shed_total', '3'],
      ['bookmaker_venue_calls_total{call="batch",ok="false"}', '1'],
      ['bookmaker_position_shares{market="rain-tomorrow"}', '10'],
      ['bookmaker_pnl_usdc{market="rain-tomorrow",kind="realised"}', '-0.002'],
      ['bookmaker_pnl_usdc{market="rain-tomorrow",kind="unrealised"}', '0.5'],
      ['bookmaker_quoted_spread_usdc{market="rain-tomorrow"}', '0.03'],
      ['bookmaker_open_orders{market="rain-tomorrow"}', '2'],
      ['bookmaker_stream_staleness_seconds{market="rain-tomorrow"}', '3'],
      ['bookmaker_collateral_usdc', '123.45'],
      ['bookmaker_api_latency_seconds_count{method="POST",endpoint="/orders/bulk",status="201"}', '1'],
      ['bookmaker_tick_to_wire_seconds_count', '1'],
      ['bookmaker_rate_budget_pressure', '0.25'],
    ];
    for (const [series, value] of expect) {
      const l = line(text, series + ' ');
      assert.ok(l, `missing ${series}`);
      assert.equal(Number(l!.slice(series.length + 1)), Number(value), series);
    }
  });

  it('counts a fill once (a second report of it is skipped, as the books skip it), and its stated collateral as its volume', async () => {
    const store = new StateStore();
    const metrics = createBotMetrics();
    const unbind = bindStoreMetrics(metrics, store);
    const f = { type: 'OrderFilled', marketId: M, nonce, outcomeIndex: 1, side: 0, price: 400_000, size: 10 * S, fee: 2_000, ts: 1 } as const;
    store.dispatch({ ...f, fillId: 'a', notional: 3_999_990 });
    store.dispatch({ ...f, fillId: 'a', notional: 3_999_990 });
    store.dispatch({ ...f, fillId: 'b', ts: 2 });
    const text = await metrics.registry.metrics();
    unbind();
    const value = (series: string): number => Number(line(text, series + ' ')?.slice(series.length + 1));
    assert.equal(value(`bookmaker_fills_total{market="${M}",side="buy"}`), 2);
    assert.equal(value(`bookmaker_fees_usdc_total{market="${M}"}`), 0.004);
    // 3.99999 stated + 10 × 0.40
    assert.equal(value(`bookmaker_fill_volume_usdc_total{market="${M}"}`), 7.99999);
  });

  it('orders_cancelled_total counts the cancels the venue carried out, not an order it had already ended (alreadyCancelled: filled, expired)', async () => {
    const store = new StateStore();
    const metrics = createBotMetrics();
    const unbind = bindStoreMetrics(metrics, store);
    store.dispatch({ type: 'OrderCancelled', marketId: M, nonce, alreadyCancelled: false, ts: 1 });
    store.dispatch({ type: 'OrderCancelled', marketId: M, nonce: ('0x' + '02'.repeat(32)) as Bytes32, alreadyCancelled: true, ts: 2 });
    const text = await metrics.registry.metrics();
    unbind();
    assert.equal(line(text, `bookmaker_orders_cancelled_total{market="${M}"} `), `bookmaker_orders_cancelled_total{market="${M}"} 1`);
  });

  it('the fill counters hold the exact decimal of the fills, not a drifting sum of floats; a released market starts again from 0', async () => {
    const store = new StateStore();
    const metrics = createBotMetrics({ defaultMetrics: false });
    const unbind = bindStoreMetrics(metrics, store);
    const f = { type: 'OrderFilled', marketId: M, nonce, outcomeIndex: 1, side: 0, price: 100_000, ts: 1 } as const;
    // 0.1 + 0.2 USDC of collateral, 1.1 + 2.2 shares, fees 0.1 + 0.2: a float sum says 0.30000000000000004
    store.dispatch({ ...f, fillId: 'a', size: 1_100_000, fee: 100_000, notional: 100_000 });
    store.dispatch({ ...f, fillId: 'b', size: 2_200_000, fee: 200_000, notional: 200_000 });
    // 7.000003 × 0.123457 = 0.864199370371: floored to 1e-6 as the books round a market's volume
    store.dispatch({ ...f, fillId: 'c', size: 7_000_003, fee: 0, price: 123_457 });
    let text = await metrics.registry.metrics();
    assert.equal(line(text, `bookmaker_fill_volume_usdc_total{market="${M}"} `), `bookmaker_fill_volume_usdc_total{market="${M}"} 1.164199`);
    assert.equal(line(text, `bookmaker_fill_volume_shares_total{market="${M}"} `), `bookmaker_fill_volume_shares_total{market="${M}"} 10.300003`);
    assert.equal(line(text, `bookmaker_fees_usdc_total{market="${M}"} `), `bookmaker_fees_usdc_total{market="${M}"} 0.3`);
    // released: its series go (rotation removes them); a later fill starts them again from 0
    store.dispatch({ type: 'MarketReleased', marketId: M, keepPosition: true, ts: 2 });
    metrics.registry.getSingleMetric('bookmaker_fees_usdc_total')!.reset();
    store.dispatch({ ...f, fillId: 'd', size: 1_000_000, fee: 50_000, notional: 100_000 });
    text = await metrics.registry.metrics();
    unbind();
    assert.equal(line(text, `bookmaker_fees_usdc_total{market="${M}"} `), `bookmaker_fees_usdc_total{market="${M}"} 0.05`);
  });

  it('exposes every kind of own-orders read at 0 before the first read (rate() over it works from the start)', async () => {
    const text = await createBotMetrics().registry.metrics();
    for (const kind of OWN_ORDERS_READ_KINDS)
      assert.equal(line(text, `bookmaker_own_orders_reads_total{kind="${kind}"} `), `bookmaker_own_orders_reads_total{kind="${kind}"} 0`);
    assert.deepEqual([...OWN_ORDERS_READ_KINDS].sort(), ['ended', 'full', 'market', 'sweep']);
  });

  it('uses a private registry: two instances do not collide', async () => {
    const a = createBotMetrics();
    const b = createBotMetrics();
    a.reconciles.inc();
    assert.match(await a.registry.metrics(), /bookmaker_reconciles_total 1/);
    assert.match(await b.registry.metrics(), /bookmaker_reconciles_total 0/);
  });
});

describe('metrics server', () => {
  it('serves /metrics, /healthz and /readyz (503 with the failing checks until ready)', async () => {
    const metrics = createBotMetrics();
    let reconciled = false;
    const ep = await listen(createMetricsServer({ registry: metrics.registry, readiness: () => ({ feedsLive: true, reconciled, notHalted: true }) }), 0);
    try {
      assert.match(ep.url, /^http:\/\/127\.0\.0\.1:\d+$/);
      const m = await fetch(`${ep.url}/metrics`);
      assert.equal(m.status, 200);
      assert.match(m.headers.get('content-type') ?? '', /text\/plain/);
      assert.match(await m.text(), /# TYPE bookmaker_orders_sent_total counter/);
      assert.equal((await fetch(`${ep.url}/healthz`)).status, 200);
      const r1 = await fetch(`${ep.url}/readyz`);
      assert.equal(r1.status, 503);
      assert.deepEqual(await r1.json(), { ready: false, checks: { feedsLive: true, reconciled: false, notHalted: true } });
      reconciled = true;
      assert.equal((await fetch(`${ep.url}/readyz`)).status, 200);
      assert.equal((await fetch(`${ep.url}/nope`)).status, 404);
      assert.equal((await fetch(`${ep.url}/metrics`, { method: 'POST' })).status, 405);
    } finally {
      await ep.close();
    }
  });

  it('port 0 turns the endpoint off', async () => {
    assert.equal(await startMetricsEndpoint({ registry: createBotMetrics().registry, port: 0 }), null);
  });
});

describe('grafana dashboard', () => {
  it('uses only metric names the bot exports', async () => {
    const { readFileSync } = await import('node:fs');
    const dash = JSON.parse(readFileSync(new URL('../../config/grafana-dashboard.json', import.meta.url), 'utf8')) as {
      panels: { targets: { expr: string }[] }[];
    };
    const metrics = createBotMetrics();
    // the health model's metrics are registered by the runtime beside the bot's (src/metrics/health-metrics.ts)
    const { registerHealthMetrics } = await import('../../src/metrics/health-metrics.ts');
    registerHealthMetrics(metrics.registry, () => null);
    // and market rotation's (src/runtime/rotation/rotation-metrics.ts)
    const { registerRotationMetrics } = await import('../../src/runtime/rotation/rotation-metrics.ts');
    registerRotationMetrics(metrics.registry, () => null);
    const exported = new Set((await metrics.registry.getMetricsAsJSON()).map((x) => x.name));
    const used = new Set<string>();
    for (const p of dash.panels)
      for (const t of p.targets)
        for (const name of t.expr.match(/\b(?:bookmaker|process|nodejs)_[a-z0-9_]+/g) ?? []) used.add(name.replace(/_(bucket|count|sum)$/, ''));
    assert.ok(used.size >= 15);
    const healthModel = [
      'bookmaker_market_state',
      'bookmaker_market_not_quoting_seconds',
      'bookmaker_kill_switch_active',
      'bookmaker_strategy_errors_total',
      'bookmaker_strategy_slow_total',
    ];
    for (const name of used) assert.ok(exported.has(name), `dashboard uses unknown metric ${name}`);
    // every health-model metric (added or renamed with it) has a panel (process/Node.js defaults included)
    for (const name of [
      'bookmaker_api_latency_seconds',
      'bookmaker_tick_to_wire_seconds',
      'bookmaker_requote_throttle_seconds',
      'bookmaker_orders_rejected_total',
      'process_start_time_seconds',
      'process_resident_memory_bytes',
      'process_cpu_seconds_total',
      'nodejs_eventloop_lag_p99_seconds',
      'nodejs_heap_size_used_bytes',
      'nodejs_gc_duration_seconds',
      ...healthModel,
      'bookmaker_markets_active',
      'bookmaker_markets_retiring_stuck',
      'bookmaker_markets_started_total',
      'bookmaker_markets_retired_total',
      'bookmaker_market_retire_seconds',
    ]) {
      assert.ok(used.has(name), `no dashboard panel uses ${name}`);
    }
    const exprs = dash.panels.flatMap((p) => p.targets.map((t) => t.expr)).join('\n');
    assert.match(exprs, /sum by \(le, method, endpoint\) \(rate\(bookmaker_api_latency_seconds_bucket/, 'API latency by endpoint');
  });
});

describe('readiness', () => {
  it('feeds live, reconciled and not halted; drives the ready and halted gauges', async () => {
    const { botReadiness } = await import('../../src/metrics/readiness.ts');
    const store = new StateStore();
    const clock = new ManualClock(100_000);
    const om = { reconciled: false, isHalted: false };
    let killed = false;
    const ready = botReadiness({ orderManager: om, state: () => store.state, clock, markets: () => [M], staleMs: 5_000, halted: () => killed });
    assert.deepEqual(ready(), { feedsLive: false, reconciled: false, notHalted: true });
    store.dispatch({ type: 'BookEventReceived', event: { type: 'status', marketId: M, outcomeIndex: 1, state: 'live', localTs: 99_000 }, ts: 99_000 });
    om.reconciled = true;
    assert.deepEqual(ready(), { feedsLive: true, reconciled: true, notHalted: true });
    const metrics = createBotMetrics();
    metrics.setReadiness(ready);
    assert.match(await metrics.registry.metrics(), /bookmaker_ready 1/);
    clock.t += 10_000;
    assert.equal(ready().feedsLive, false, 'a silent stream is not live');
    killed = true;
    const text = await metrics.registry.metrics();
    assert.match(text, /bookmaker_ready 0/);
    assert.match(text, /bookmaker_halted 1/);
  });
});

describe('metrics server limits', () => {
  it('closes a socket that never ends its headers (a stalled client holds no file descriptor for good)', async () => {
    const srv = limitEndpointServer(createMetricsServer({ registry: createBotMetrics().registry, readiness: () => ({ reconciled: true }) }), 300);
    const ep = await listen(srv, 0);
    try {
      const s = connect(Number(new URL(ep.url).port), '127.0.0.1');
      s.on('error', () => undefined);
      const closed = new Promise<boolean>((r) => {
        s.once('close', () => r(true));
        setTimeout(() => r(false), 10_000).unref();
      });
      s.write('GET /metrics HTTP/1.1\r\nHost: x\r\n');
      assert.equal(await closed, true, 'the idle socket was closed');
      s.destroy();
    } finally {
      await ep.close();
    }
  });

  it('createMetricsServer applies the endpoint limits', () => {
    const srv = createMetricsServer({ registry: createBotMetrics().registry, readiness: () => ({ reconciled: true }) });
    assert.equal(srv.maxConnections, ENDPOINT_MAX_CONNECTIONS);
    assert.equal(srv.timeout, ENDPOINT_IDLE_MS);
  });
});
