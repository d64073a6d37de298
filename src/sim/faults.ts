/**
 * Fault injection for chaos tests: a settings object (all off by default), named profiles, and an
 * injector that makes the seeded random decisions and counts every fault it injects, by kind.
 *
 * Kinds and where they act:
 * - latency            every HTTP request waits `latencyMs + U(0, latencyJitterMs)` before handling
 * - error5xx           a request answers 500/503 `{message, code}` instead of running (state untouched)
 * - burst429           a request starts a burst: this and the next `burst429Length - 1` requests of the key get 429
 * - slowBody           a response body is written in small chunks with pauses
 * - streamDrop         an event stream is closed by the server after an event
 * - streamStall        an event stream goes silent (no events, no heartbeats) with the connection open
 * - streamDuplicate    an event is sent twice (same id)
 * - streamReorder      an event is held back and sent after the next one
 * - restart            the HTTP server closed and reopened on the same port, state kept
 */
import type { Rng } from './rng.ts';
import { createRng } from './rng.ts';

export interface FaultSettings {
  latencyMs: number;
  latencyJitterMs: number;
  /** probability per request */
  errorRate: number;
  /** probability per request of starting a 429 burst */
  burst429Rate: number;
  burst429Length: number;
  /** probability per response of a slow body; bytes per chunk and pause between chunks */
  slowBodyRate: number;
  slowBodyChunkBytes: number;
  slowBodyPauseMs: number;
  /** probabilities per stream event */
  streamDropRate: number;
  streamStallRate: number;
  streamDuplicateRate: number;
  streamReorderRate: number;
}

export type FaultKind = 'latency' | 'error5xx' | 'burst429' | 'slowBody' | 'streamDrop' | 'streamStall' | 'streamDuplicate' | 'streamReorder' | 'restart';
export const FAULT_KINDS: readonly FaultKind[] = ['latency', 'error5xx', 'burst429', 'slowBody', 'streamDrop', 'streamStall', 'streamDuplicate', 'streamReorder', 'restart'];

export const NO_FAULTS: FaultSettings = {
  latencyMs: 0,
  latencyJitterMs: 0,
  errorRate: 0,
  burst429Rate: 0,
  burst429Length: 5,
  slowBodyRate: 0,
  slowBodyChunkBytes: 256,
  slowBodyPauseMs: 20,
  streamDropRate: 0,
  streamStallRate: 0,
  streamDuplicateRate: 0,
  streamReorderRate: 0,
};

/** Named profiles for `--faults PROFILE` and the chaos command. */
export const FAULT_PROFILES: Record<string, FaultSettings> = {
  off: NO_FAULTS,
  latency: { ...NO_FAULTS, latencyMs: 20, latencyJitterMs: 80 },
  flaky: { ...NO_FAULTS, latencyMs: 5, latencyJitterMs: 30, errorRate: 0.03, burst429Rate: 0.01, burst429Length: 4 },
  'stream-chaos': { ...NO_FAULTS, streamDropRate: 0.01, streamStallRate: 0.005, streamDuplicateRate: 0.02, streamReorderRate: 0.02 },
  slow: { ...NO_FAULTS, latencyMs: 100, latencyJitterMs: 200, slowBodyRate: 0.2 },
  /** the chaos soak of issue 6: ~5 % 5xx, 429 bursts, 0–500 ms latency, stream drops, stalls, duplicates, reordering */
  heavy: {
    ...NO_FAULTS,
    latencyMs: 0,
    latencyJitterMs: 500,
    errorRate: 0.05,
    burst429Rate: 0.01,
    burst429Length: 5,
    slowBodyRate: 0.02,
    streamDropRate: 0.005,
    streamStallRate: 0.002,
    streamDuplicateRate: 0.02,
    streamReorderRate: 0.02,
  },
  chaos: {
    ...NO_FAULTS,
    latencyMs: 5,
    latencyJitterMs: 50,
    errorRate: 0.05,
    burst429Rate: 0.02,
    burst429Length: 5,
    slowBodyRate: 0.05,
    streamDropRate: 0.01,
    streamStallRate: 0.005,
    streamDuplicateRate: 0.02,
    streamReorderRate: 0.02,
  },
};

export function faultProfile(name: string): FaultSettings {
  const p = FAULT_PROFILES[name];
  if (!p) throw new Error(`unknown fault profile '${name}': expected one of ${Object.keys(FAULT_PROFILES).join(', ')}`);
  return { ...p };
}

export class FaultInjector {
  settings: FaultSettings;
  readonly counts: Record<FaultKind, number>;
  private readonly rng: Rng;
  /** remaining 429s of an active burst, per rate-limit id */
  private readonly bursts = new Map<string, number>();

  constructor(settings: Partial<FaultSettings> | undefined, seed: number) {
    this.settings = { ...NO_FAULTS, ...(settings ?? {}) };
    this.rng = createRng(seed ^ 0x5eed_fa17);
    this.counts = Object.fromEntries(FAULT_KINDS.map((k) => [k, 0])) as Record<FaultKind, number>;
  }

  /** Replace the settings at run time (chaos tests turn faults on and off). */
  configure(settings: Partial<FaultSettings>): void {
    this.settings = { ...NO_FAULTS, ...settings };
  }

  count(kind: FaultKind): void {
    this.counts[kind]++;
  }

  /** ms to delay this request (0 = none). */
  latency(): number {
    const s = this.settings;
    if (s.latencyMs <= 0 && s.latencyJitterMs <= 0) return 0;
    this.count('latency');
    return s.latencyMs + (s.latencyJitterMs > 0 ? this.rng.next() * s.latencyJitterMs : 0);
  }

  /** 0 = no fault, else the status to answer (500 or 503). */
  serverError(): 0 | 500 | 503 {
    if (!this.rng.chance(this.settings.errorRate)) return 0;
    this.count('error5xx');
    return this.rng.chance(0.5) ? 503 : 500;
  }

  /** Should this request of `id` be refused with a burst 429? */
  burst429(id: string): boolean {
    const left = this.bursts.get(id) ?? 0;
    if (left > 0) {
      this.bursts.set(id, left - 1);
      this.count('burst429');
      return true;
    }
    if (this.rng.chance(this.settings.burst429Rate)) {
      this.bursts.set(id, Math.max(0, this.settings.burst429Length - 1));
      this.count('burst429');
      return true;
    }
    return false;
  }

  slowBody(): boolean {
    if (!this.rng.chance(this.settings.slowBodyRate)) return false;
    this.count('slowBody');
    return true;
  }

  /** One decision per stream event, in priority order (a dropped stream cannot also stall). */
  streamEvent(): 'none' | 'drop' | 'stall' | 'duplicate' | 'reorder' {
    const s = this.settings;
    if (this.rng.chance(s.streamDropRate)) return this.counted('streamDrop', 'drop');
    if (this.rng.chance(s.streamStallRate)) return this.counted('streamStall', 'stall');
    if (this.rng.chance(s.streamDuplicateRate)) return this.counted('streamDuplicate', 'duplicate');
    if (this.rng.chance(s.streamReorderRate)) return this.counted('streamReorder', 'reorder');
    return 'none';
  }

  private counted<T>(kind: FaultKind, v: T): T {
    this.count(kind);
    return v;
  }
}
