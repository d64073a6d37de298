/**
 * The IPC protocol between the chaos orchestrator and the bot child (src/chaos/bot-child.ts). The child
 * runs the real runtime (startBot) and reports facts the referee cannot see from the exchange: its own
 * view of its orders at each reconcile, the orders it submits, and any unhandled error.
 */
import { bytes32Of } from '../model/ids.ts';
import type { Bytes32 } from '../model/order.ts';
import type { BotOrderView } from './invariants.ts';

export type ChildMessage =
  | { type: 'ready'; trader: string; markets: number; metricsUrl: string | null; pid: number }
  /** right after a reconcile completed; `listedAt` is when its venue list came back */
  | { type: 'reconciled'; marketId: Bytes32 | null; listedAt: number; at: number; orders: BotOrderView[] }
  /** one create sent (a resend of the same signed body has `retry: true`) */
  | { type: 'submitted'; nonce: Bytes32; body: string; retry: boolean }
  | { type: 'unhandled'; kind: 'unhandledRejection' | 'uncaughtException'; message: string }
  | { type: 'stats'; stats: ChildStats }
  /** the health model's state per market (market id → state), every second */
  | { type: 'health'; at: number; markets: Record<Bytes32, string> }
  /** a fills poll completed: its fills, then its balance read, are in the bot's state and books */
  | { type: 'polled'; at: number }
  | { type: 'stopped'; code: number };

/** Load figures the child measures on itself (the load benchmark). */
export interface ChildStats {
  readonly atMs: number;
  readonly cpuUserMs: number;
  readonly cpuSystemMs: number;
  readonly rssBytes: number;
  /** the V8 heap in use, and memory outside it (buffers), at the same moment */
  readonly heapUsedBytes: number;
  /** V8's heap as reserved (used + free pages + the young generation's semi-spaces) */
  readonly heapTotalBytes: number;
  readonly externalBytes: number;
  readonly lagP50Ms: number;
  readonly lagP99Ms: number;
  readonly lagMaxMs: number;
  /** book events the store received (snapshots, deltas, trades) */
  readonly bookEvents: number;
  readonly bookDeltas: number;
  /** snapshots that replaced a book after a gap or a reconnect (source resync or poll) */
  readonly resyncs: number;
  /** book events whose local receive time was more than 1 s after the venue time */
  readonly lateEvents: number;
  /** venue calls completed (every kind) */
  readonly venueCalls: number;
  readonly streamReconnects: number;
}

/** `reset-lag` starts a fresh event-loop delay histogram (after a warm-up). */
/** `block`: the child's event loop runs a synchronous loop for `ms` (the load benchmark's stalled-loop case) */
export type ParentMessage = { type: 'stop' } | { type: 'stats' } | { type: 'reset-lag' } | { type: 'block'; ms: number };

/**
 * A message from the child as the orchestrator reads it (the IPC boundary): its market ids and nonces
 * in normal form (docs/architecture.md#ids-at-the-boundary), so the referee compares them with ===.
 * A message whose ids are not ids is a fault of the child: it comes back as an `unhandled` report,
 * which the referee counts as a crash.
 */
export function readChildMessage(m: ChildMessage): ChildMessage {
  const bad = (what: string, v: unknown): ChildMessage => ({
    type: 'unhandled',
    kind: 'uncaughtException',
    message: `the bot child sent a ${m.type} message whose ${what} is not a 32-byte id: ${JSON.stringify(v)}`,
  });
  switch (m.type) {
    case 'submitted': {
      const nonce = bytes32Of(m.nonce);
      return nonce === null ? bad('nonce', m.nonce) : { ...m, nonce };
    }
    case 'reconciled': {
      const marketId = m.marketId === null ? null : bytes32Of(m.marketId);
      if (m.marketId !== null && marketId === null) return bad('marketId', m.marketId);
      const orders: BotOrderView[] = [];
      for (const o of m.orders) {
        const nonce = bytes32Of(o.nonce);
        const market = bytes32Of(o.marketId);
        if (nonce === null) return bad('order nonce', o.nonce);
        if (market === null) return bad('order marketId', o.marketId);
        orders.push({ ...o, nonce, marketId: market });
      }
      return { ...m, marketId, orders };
    }
    case 'health': {
      const markets: Record<Bytes32, string> = {};
      for (const [k, state] of Object.entries(m.markets)) {
        const id = bytes32Of(k);
        if (id === null) return bad('market', k);
        markets[id] = state;
      }
      return { ...m, markets };
    }
    default:
      return m;
  }
}
