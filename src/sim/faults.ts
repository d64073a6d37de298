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

/** The kinds of fault, each named once: the list (report and counter order) and its type. */
export const FAULT_KINDS = ['latency', 'error5xx', 'burst429', 'slowBody', 'streamDrop', 'streamStall', 'streamDuplicate', 'streamReorder', 'restart'] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

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

/**
 * The fault profiles, one vocabulary for config (`venue.local.faults`), `bookmaker sim --faults` and
 * `bookmaker chaos --profile`, from calm to worst.
 */
export const FAULT_PROFILE_NAMES = ['none', 'latency', 'slow', 'flaky', 'streams', 'mixed', 'heavy'] as const;
export type FaultProfileName = (typeof FAULT_PROFILE_NAMES)[number];

/** One line per profile, for `--help` and the README. */
export const FAULT_PROFILE_SUMMARY: Record<FaultProfileName, string> = {
  none: 'no faults',
  latency: '20–100 ms per request',
  slow: '100–300 ms per request, 20 % of bodies written slowly',
  flaky: '5–35 ms, 3 % 5xx, 429 bursts',
  streams: 'stream drops, silent stalls, duplicated and reordered events (requests untouched)',
  mixed: 'every kind at once with short latency (5–55 ms)',
  heavy: "the chaos soak's: 0–500 ms, 5 % 5xx, 429 bursts, slow bodies, stream faults",
};

/** Profile names of earlier versions of the CLI, still accepted (with a deprecation warning) by sim and chaos. */
export const DEPRECATED_FAULT_PROFILES: Readonly<Record<string, FaultProfileName>> = { off: 'none', 'stream-chaos': 'streams', chaos: 'mixed' };

export const FAULT_PROFILES: Readonly<Record<FaultProfileName, FaultSettings>> = {
  none: NO_FAULTS,
  latency: { ...NO_FAULTS, latencyMs: 20, latencyJitterMs: 80 },
  slow: { ...NO_FAULTS, latencyMs: 100, latencyJitterMs: 200, slowBodyRate: 0.2 },
  flaky: { ...NO_FAULTS, latencyMs: 5, latencyJitterMs: 30, errorRate: 0.03, burst429Rate: 0.01, burst429Length: 4 },
  streams: { ...NO_FAULTS, streamDropRate: 0.01, streamStallRate: 0.005, streamDuplicateRate: 0.02, streamReorderRate: 0.02 },
  mixed: {
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
  /** the chaos soak: ~5 % 5xx, 429 bursts, 0–500 ms latency, stream drops, stalls, duplicates, reordering */
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
};

export const isFaultProfileName = (name: string): name is FaultProfileName => (FAULT_PROFILE_NAMES as readonly string[]).includes(name);

/** Why `name` is not a profile, naming the right one where there is one (for config and CLI errors). */
export function faultProfileProblem(name: string): string {
  const renamed = DEPRECATED_FAULT_PROFILES[name];
  if (renamed) return `'${name}' is the old name of '${renamed}'`;
  if (name === 'light') return `'light' is not a profile (it never had settings of its own); 'flaky' is the nearest`;
  return `unknown fault profile '${name}': expected one of ${FAULT_PROFILE_NAMES.join(', ')}`;
}

/**
 * The profile `name` stands for: a current name, or a deprecated one with the warning to show.
 * Throws (naming the choices) for anything else.
 */
export function resolveFaultProfile(name: string): { name: FaultProfileName; deprecation?: string } {
  if (isFaultProfileName(name)) return { name };
  const renamed = DEPRECATED_FAULT_PROFILES[name];
  if (renamed) return { name: renamed, deprecation: `fault profile '${name}' is deprecated: use '${renamed}' (same settings)` };
  throw new Error(faultProfileProblem(name));
}

/** A copy of the settings of a profile (deprecated names accepted, silently: callers that face users warn). */
export function faultProfile(name: string): FaultSettings {
  return { ...FAULT_PROFILES[resolveFaultProfile(name).name] };
}

/** The settings of a profile with single settings overridden (config's `faults: { profile, ...overrides }`). */
export function faultSettingsOf(profile: FaultProfileName, overrides: Partial<FaultSettings> = {}): FaultSettings {
  return { ...FAULT_PROFILES[profile], ...overrides };
}

/** The keys of FaultSettings, for config overrides of a profile. */
export const FAULT_SETTING_KEYS = Object.keys(NO_FAULTS) as (keyof FaultSettings)[];

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
