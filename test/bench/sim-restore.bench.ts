/**
 * sim-restore: how long the local exchange takes to start from `--state FILE` holding the state
 * built from 1 M orders (SIM_RESTORE_ORDERS), and how big the files are.
 *
 * The state is built in-process through the order service without signatures (signing 1 M orders
 * would take minutes on these machines and adds nothing to what is restored): orders on 4 markets
 * from 2 wallets, 60 % then cancelled, the rest resting; then a checkpoint writes the snapshot. The
 * restore runs in a fresh child process (timed from createLocalExchange to its return, then the
 * first HTTP answer) and checks the engine's invariants and the order count.
 *
 * Baseline: the same state restored the old way, by replaying the engine's command log (a v1 JSON
 * state file holding every command since the start), when SIM_RESTORE_BASELINE=1 (slow; off by
 * default, the figure of one run is in BENCHMARKS.md).
 */
import { fork } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createLocalExchange } from '../../src/sim/local-exchange.ts';
import { toSettlementV2Order } from '../../src/exchange/signing/orderMapping.ts';
import type { Bytes32 } from '../../src/model/order.ts';
import type { PreparedOrder, WireOrderBody } from '../../src/sim/order-service.ts';
import { walletOf } from '../../src/sim/wire-ids.ts';
import { report } from './lib.ts';

const ORDERS = Number(process.env.SIM_RESTORE_ORDERS ?? 1_000_000);
const KEYS = [{ key: 'restore-a' }, { key: 'restore-b' }];

if (process.env.SIM_RESTORE_ROLE === 'restore') {
  const file = process.env.SIM_RESTORE_FILE!;
  const t0 = performance.now();
  const ex = createLocalExchange({ stateFile: file, seed: 3, apiKeys: KEYS, expirySweepMs: 0 });
  const restoreMs = performance.now() - t0;
  const base = await ex.start(0);
  const r = await fetch(`${base}/markets?limit=1`);
  const firstAnswerMs = performance.now() - t0;
  const bad = ex.state.engine.engine.checkInvariants();
  process.send!({
    restoreMs,
    firstAnswerMs,
    status: r.status,
    orders: ex.state.stores.orders.length,
    invariants: bad.length,
    rssMb: process.memoryUsage().rss / 2 ** 20,
  });
  process.exit(0);
} else {
  const dir = mkdtempSync(join(tmpdir(), 'sim-restore-'));
  const file = join(dir, 'state');
  try {
    const tb = performance.now();
    const ex = createLocalExchange({ stateFile: file, seed: 3, apiKeys: KEYS, expirySweepMs: 0, markets: 4, initialCollateral: 10n ** 15n });
    const markets = [...ex.state.stores.markets.values()];
    const wallets = KEYS.map((k) => ex.state.keys.get(k.key)!);
    const nonceHex = (i: number) => `0x${i.toString(16).padStart(64, '0')}` as Bytes32;
    const now = Date.now();
    for (let i = 0; i < ORDERS; i++) {
      const w = wallets[i & 1]!;
      const m = markets[i % markets.length]!;
      const body: WireOrderBody = {
        type: 'limit',
        marketId: m.id,
        trader: walletOf(w),
        price: String(10_000 * (1 + (i % 40))),
        size: '1000000',
        outcomeIndex: 1,
        side: 0,
        nonce: nonceHex(i + 1),
        expiry: '0',
        maxFee: '1000',
        makerRoleConstraint: 0,
        inventoryModeConstraint: 0,
        signature: '0x',
      } as WireOrderBody;
      const struct = toSettlementV2Order(body);
      const p: PreparedOrder = {
        body,
        struct,
        hash: nonceHex(ORDERS + i + 1),
        market: m,
        marketIndex: ex.state.engine.marketIndex(m.id)!,
        prefix: '',
        kind: struct.orderKind as 0,
        maxShares: Number(struct.maxShares),
        minSharesOut: Number(struct.minSharesOut),
        maxCollateralIn: Number(struct.maxCollateralIn),
        minCollateralOut: Number(struct.minCollateralOut),
        legacyMarketVariant: false,
      };
      const o = ex.orders.commit(p, now);
      if (i % 5 < 3) ex.orders.commitCancel(o, now);
    }
    const buildMs = performance.now() - tb;
    const ts = performance.now();
    await ex.save();
    const snapshotMs = performance.now() - ts;
    await ex.close();
    const bytes = readdirSync(dir).reduce((n, f) => n + statSync(join(dir, f)).size, 0);
    // SIM_RESTORE_HEAP_MB: the restored process's old-space limit (a 1 M-order state lives near node's default)
    const heap = process.env.SIM_RESTORE_HEAP_MB ? [`--max-old-space-size=${process.env.SIM_RESTORE_HEAP_MB}`] : [];
    const child = fork(fileURLToPath(import.meta.url), [], {
      env: { ...process.env, SIM_RESTORE_ROLE: 'restore', SIM_RESTORE_FILE: file },
      execArgv: [...heap, '--import', 'tsx'],
    });
    const got = await new Promise<{ restoreMs: number; firstAnswerMs: number; status: number; orders: number; invariants: number; rssMb: number }>(
      (resolve, reject) => {
        child.once('message', resolve as (m: unknown) => void);
        child.once('exit', (c) => reject(new Error(`restore child exited ${c}`)));
      },
    );
    if (got.orders !== ORDERS || got.invariants !== 0 || got.status !== 200) throw new Error(`bad restore: ${JSON.stringify(got)}`);
    report(
      [
        ['orders in the state (60 % cancelled, 40 % resting)', ORDERS],
        ['build (unsigned, in-process) s', buildMs / 1000],
        ['checkpoint (snapshot write) s', snapshotMs / 1000],
        ['files on disk MB', bytes / 2 ** 20],
        ['restore: createLocalExchange s', got.restoreMs / 1000],
        ['restore: first HTTP answer s', got.firstAnswerMs / 1000],
        ['restored process RSS MB', got.rssMb],
      ],
      {
        name: 'sim-restore',
        unit: `seconds to restore a state built from ${ORDERS} orders`,
        value: Math.round(got.restoreMs) / 1000,
        firstAnswerSeconds: Math.round(got.firstAnswerMs) / 1000,
        fileMb: Math.round(bytes / 2 ** 20),
        snapshotSeconds: Math.round(snapshotMs) / 1000,
      },
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
