/**
 * Latency models for the sim venue. Three delays, in ms of virtual time:
 *   feed      recorded event → the bot sees it (added to the row's local timestamp)
 *   entry     the bot sends a create/cancel → the venue acts on it (an order rests, a cancel lands)
 *   response  the venue acted → the bot receives the answer (and any fill report)
 * Each delay is either a constant or sampled (seeded, so runs are reproducible) from a recorded
 * distribution: a list of observed delays, drawn uniformly with replacement.
 *
 * Entry points: `latencyModel(spec, seed)` and the `LatencySpec` accepted by config/backtest.yaml.
 */
import { BadInputError } from '../model/errors.ts';
import { createRng, type Rng } from '../sim/rng.ts';
import { KIND_XLEVEL } from './recording/columns.ts';

/** A constant delay, or samples of a recorded distribution. */
export type DelaySpec = number | { readonly samples: readonly number[] };

export interface LatencySpec {
  readonly feedMs: DelaySpec;
  readonly entryMs: DelaySpec;
  readonly responseMs: DelaySpec;
}

export interface LatencyModel {
  feed(): number;
  entry(): number;
  response(): number;
  /** the least delay entry() returns (the constant, or the least sample): no call reaches the exchange sooner */
  readonly entryMin: number;
  /** true when every delay is a constant (the replay can skip per-event sampling) */
  readonly constant: boolean;
}

export const ZERO_LATENCY: LatencySpec = { feedMs: 0, entryMs: 0, responseMs: 0 };

function checkDelay(d: DelaySpec, field: string): DelaySpec {
  if (typeof d === 'number') {
    if (!Number.isFinite(d) || d < 0 || d > 3_600_000) throw new BadInputError(field, 'a delay in ms between 0 and 3600000', d);
    return d;
  }
  if (typeof d !== 'object' || d === null || !Array.isArray(d.samples) || d.samples.length === 0) {
    throw new BadInputError(field, 'a number of ms or { samples: [ms, …] } with at least one sample', d);
  }
  d.samples.forEach((s, i) => {
    if (typeof s !== 'number' || !Number.isFinite(s) || s < 0 || s > 3_600_000)
      throw new BadInputError(`${field}.samples[${i}]`, 'a delay in ms between 0 and 3600000', s);
  });
  return d;
}

function sampler(d: DelaySpec, rng: Rng): () => number {
  if (typeof d === 'number') return () => d;
  const s = d.samples;
  return () => s[Math.floor(rng.next() * s.length)]!;
}

/** Build a model; each delay has its own seeded stream so adding feed samples does not shift entry draws. */
export function latencyModel(spec: LatencySpec, seed = 1): LatencyModel {
  const feed = checkDelay(spec.feedMs, 'latency.feedMs');
  const entry = checkDelay(spec.entryMs, 'latency.entryMs');
  const response = checkDelay(spec.responseMs, 'latency.responseMs');
  return {
    feed: sampler(feed, createRng(seed * 3 + 1)),
    entry: sampler(entry, createRng(seed * 3 + 2)),
    response: sampler(response, createRng(seed * 3 + 3)),
    entryMin: typeof entry === 'number' ? entry : entry.samples.reduce((a, b) => Math.min(a, b), Infinity),
    constant: typeof feed === 'number' && typeof entry === 'number' && typeof response === 'number',
  };
}

/**
 * Feed delays observed in a recording (local receive − venue time, ms), for `feedMs: recorded`. With
 * `kind`, only rows of the public feed count (kinds below KIND_XLEVEL): the venue's drop copy is
 * written as the engine acts, so its delay is no feed delay.
 */
export function recordedFeedDelays(lts: ArrayLike<number>, vts: ArrayLike<number>, max = 100_000, kind?: ArrayLike<number>): number[] {
  const out: number[] = [];
  const step = Math.max(1, Math.floor(lts.length / max));
  for (let i = 0; i < lts.length; i += step) {
    if (kind !== undefined && kind[i]! >= KIND_XLEVEL) continue;
    const d = lts[i]! - vts[i]!;
    if (d >= 0 && d < 3_600_000) out.push(d);
  }
  return out;
}
