/**
 * The IPC protocol between the chaos orchestrator and the bot child (src/chaos/bot-child.ts). The child
 * runs the real runtime (startBot) and reports facts the referee cannot see from the exchange: its own
 * view of its orders at each reconcile, the orders it submits, and any unhandled error.
 */
import type { BotOrderView } from './invariants.ts';

export type ChildMessage =
  | { type: 'ready'; trader: string; markets: number; metricsUrl: string | null; pid: number }
  /** right after a reconcile completed; `listedAt` is when its venue list came back */
  | { type: 'reconciled'; marketId: string | null; listedAt: number; at: number; orders: BotOrderView[] }
  /** one create sent (a resend of the same signed body has `retry: true`) */
  | { type: 'submitted'; nonce: string; body: string; retry: boolean }
  | { type: 'unhandled'; kind: 'unhandledRejection' | 'uncaughtException'; message: string }
  | { type: 'stats'; stats: ChildStats }
  /** the health model's state per market (lower-case id → state), every second */
  | { type: 'health'; at: number; markets: Record<string, string> }
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
export type ParentMessage = { type: 'stop' } | { type: 'stats' } | { type: 'reset-lag' };
