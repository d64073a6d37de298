/**
 * sim-resources: the local exchange (its own process) under 1,000 unauthenticated connections that
 * stall their request bodies (each declaring a 900 kB body, sending 1 kB, then nothing), while a
 * keyed client creates and cancels signed orders one after another.
 *
 * Figures: the server's RSS before, at its peak during the stall, and after the stalled connections
 * are gone (they get 503 at once past the anonymous body budget, or 408 at the body timeout);
 * the keyed client's create and cancel latencies (p50, p99). Targets: RSS growth under
 * 100 MB that returns afterwards, keyed p99 under 50 ms.
 */
import { fork } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import { createLocalExchange } from '../../src/sim/local-exchange.ts';
import { createSigner } from '../../src/exchange/signing/signer.ts';
import { TESTNET } from '../../src/exchange/chains.ts';
import type { Bytes32 } from '../../src/model/order.ts';
import { percentile, report } from './lib.ts';

const CONNECTIONS = Number(process.env.SIM_RESOURCES_CONNECTIONS ?? 1_000);

function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

if (process.env.SIM_RESOURCES_ROLE === 'server') {
  const ex = createLocalExchange({
    seed: 4,
    apiKeys: [{ key: 'keyed' }],
    expirySweepMs: 0,
    initialCollateral: 10n ** 13n,
    rateLimit: { capacity: 1e6, refillPerSecond: 1e6 },
  });
  const base = await ex.start(0);
  process.send!({ base, pk: ex.state.keys.get('keyed')!.privateKey, market: [...ex.state.stores.markets.values()][0]!.id });
} else {
  const child = fork(fileURLToPath(import.meta.url), [], { env: { ...process.env, SIM_RESOURCES_ROLE: 'server' }, execArgv: ['--import', 'tsx'] });
  try {
    const ready = await new Promise<{ base: string; pk: `0x${string}`; market: Bytes32 }>((r) => child.once('message', r as (m: unknown) => void));
    const signer = createSigner({ privateKey: ready.pk, chain: TESTNET });
    const url = new URL(ready.base);
    const post = async (path: string, body: unknown): Promise<number> => {
      const r = await fetch(ready.base + path, {
        method: 'POST',
        headers: { authorization: 'Bearer keyed', 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      await r.arrayBuffer();
      return r.status;
    };
    // warm the keyed path, then settle
    for (let i = 0; i < 200; i++) {
      const o = signer.signOrder({ marketId: ready.market, outcomeIndex: 1, side: 0, price: 100_000, size: 1_000_000 });
      await post('/orders', o);
      await post('/orders/cancel', signer.signCancel(o.nonce));
    }
    global.gc?.();
    await new Promise((r) => setTimeout(r, 1000));
    const before = rssMb(child.pid!);
    // the stall: 1,000 connections, each a public POST that reads its body, declaring 900 kB, sending 1 kB
    const sockets: Socket[] = [];
    let answered = 0;
    for (let i = 0; i < CONNECTIONS; i++) {
      const s = connect(Number(url.port), '127.0.0.1');
      s.on('error', () => undefined);
      s.on('data', () => answered++);
      s.write(
        `POST /v2/markets/${ready.market}/simulate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 900000\r\n\r\n` +
          '{"x":"' +
          'a'.repeat(1000),
      );
      sockets.push(s);
    }
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, rssMb(child.pid!))), 50);
    const lat: number[] = [];
    const until = performance.now() + 4_000;
    let failures = 0;
    while (performance.now() < until) {
      const o = signer.signOrder({ marketId: ready.market, outcomeIndex: 1, side: 0, price: 100_000, size: 1_000_000 });
      let t = performance.now();
      if ((await post('/orders', o)) !== 201) failures++;
      lat.push(performance.now() - t);
      t = performance.now();
      if ((await post('/orders/cancel', signer.signCancel(o.nonce))) !== 201) failures++;
      lat.push(performance.now() - t);
    }
    const during = rssMb(child.pid!);
    for (const s of sockets) s.destroy();
    await new Promise((r) => setTimeout(r, 3_000));
    clearInterval(sampler);
    const after = rssMb(child.pid!);
    lat.sort((a, b) => a - b);
    const p50 = percentile(lat, 0.5);
    const p99 = percentile(lat, 0.99);
    report(
      [
        ['stalled connections', CONNECTIONS],
        ['  answered at once (503 past the body budget)', answered],
        ['server RSS before MB', before],
        ['server RSS peak during the stall MB', peak],
        ['server RSS at the end of the stall MB', during],
        ['server RSS 3 s after the connections closed MB', after],
        ['RSS growth (peak − before) MB', peak - before],
        ['keyed client requests (create, cancel)', lat.length],
        ['  failures', failures],
        ['  latency p50 ms', p50],
        ['  latency p99 ms', p99],
      ],
      {
        name: 'sim-resources',
        unit: 'MB of server RSS growth under 1,000 stalled-body connections',
        value: Math.round((peak - before) * 10) / 10,
        baseline: 'target 100 MB',
        baselineValue: 100,
        ratio: Math.round(((peak - before) / 100) * 100) / 100,
        p50: Math.round(p50 * 100) / 100,
        p99: Math.round(p99 * 100) / 100,
        rssBeforeMb: Math.round(before),
        rssAfterMb: Math.round(after),
        keyedFailures: failures,
      },
    );
  } finally {
    child.kill();
  }
}
