/**
 * Sweeps beyond one machine: `backtest --sweep FILE --shard I/N` runs the combinations whose grid
 * index ≡ I (mod N) (round-robin, so slow and fast corners of a grid spread over the shards; I from
 * 0, as a Kubernetes Indexed Job numbers its pods) and writes a part file; `bookmaker sweep merge
 * PARTS…` checks the parts belong to one sweep and cover every combination exactly once, and ranks
 * them all. The merged JSON is built by the same function as the one-machine sweep's (`sweepJson`),
 * from the same per-combination summaries, so the two are identical.
 *
 * Part file (JSON): { format: "bookmaker-sweep-part", version: 1, shard: { index, count },
 *   sweep: { grid: [[path, values]…], rankBy, fast, combinations, minVolume?, windows?, blockSeconds? }, data,
 *   window: { from?, to? }, results: [{ index, combo, summary, windowPnl?, blocks?, error? }…] } (results in grid order).
 */
import { readFileSync } from 'node:fs';
import { BadInputError } from '../model/errors.ts';
import { expandGrid, RANK_BY, type RankBy, type SweepResult, type SweepSpec } from './sweep-grid.ts';

export interface Shard {
  readonly index: number;
  readonly count: number;
}

/** `I/N` with 0 ≤ I < N ≤ 10 000. */
export function parseShard(text: string): Shard {
  const m = /^(\d+)\/(\d+)$/.exec(text.trim());
  const index = m ? Number(m[1]) : NaN;
  const count = m ? Number(m[2]) : NaN;
  if (!m || !(count >= 1 && count <= 10_000) || !(index >= 0 && index < count))
    throw new BadInputError('--shard', 'I/N with N from 1 to 10000 and I from 0 to N − 1 (e.g. 0/4 … 3/4)', text);
  return { index, count };
}

/** The grid indices of one shard. */
export function shardIndices(total: number, shard: Shard): number[] {
  const out: number[] = [];
  for (let i = shard.index; i < total; i += shard.count) out.push(i);
  return out;
}

export interface SweepPart {
  readonly format: 'bookmaker-sweep-part';
  readonly version: 1;
  readonly shard: Shard;
  readonly sweep: {
    readonly grid: SweepSpec['grid'];
    readonly rankBy: RankBy;
    readonly fast: boolean;
    readonly combinations: number;
    /** absent in parts written before these keys: 0 and 4 */
    readonly minVolume?: number;
    readonly windows?: number;
    readonly blockSeconds?: number;
  };
  readonly data: string;
  readonly window: { readonly from?: number; readonly to?: number };
  readonly results: readonly SweepResult[];
}

export function sweepPart(spec: SweepSpec, shard: Shard, data: string, window: { from?: number; to?: number }, results: readonly SweepResult[]): SweepPart {
  return {
    format: 'bookmaker-sweep-part',
    version: 1,
    shard,
    sweep: {
      grid: spec.grid,
      rankBy: spec.rankBy,
      fast: spec.fast,
      combinations: expandGrid(spec.grid).length,
      minVolume: spec.minVolume,
      windows: spec.windows,
      blockSeconds: spec.blockSeconds,
    },
    data,
    window,
    results: [...results].sort((a, b) => a.index - b.index),
  };
}

/** The ranked results as the sweep's `--json` writes them (one machine or merged: the same bytes). */
export function sweepJson(ranked: readonly SweepResult[]): string {
  return (
    JSON.stringify(
      ranked.map((r) => ({ combo: r.combo, summary: r.summary, ...(r.error ? { error: r.error } : {}) })),
      null,
      2,
    ) + '\n'
  );
}

export function readPart(file: string): SweepPart {
  let doc: unknown;
  try {
    doc = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new BadInputError(file, 'a readable sweep part file (JSON written by backtest --sweep … --shard I/N --json FILE)', (e as Error).message);
  }
  const p = doc as Partial<SweepPart>;
  if (p?.format !== 'bookmaker-sweep-part' || p.version !== 1)
    throw new BadInputError(file, 'format "bookmaker-sweep-part", version 1', `${String(p?.format)} v${String(p?.version)}`);
  if (!p.sweep || !Array.isArray(p.sweep.grid) || !(RANK_BY as readonly unknown[]).includes(p.sweep.rankBy) || !Array.isArray(p.results) || !p.shard)
    throw new BadInputError(file, 'a sweep part with shard, sweep.grid, sweep.rankBy and results', 'a malformed part');
  return p as SweepPart;
}

export interface Merged {
  readonly spec: Pick<SweepSpec, 'grid' | 'rankBy' | 'fast' | 'minVolume' | 'windows' | 'blockSeconds'>;
  /** every combination, in grid order */
  readonly results: SweepResult[];
}

/**
 * The parts of one sweep merged: same grid, ranking, mode, data and window in every part; every
 * combination present exactly once (a part given twice is accepted when identical); the combination
 * each result names must be the grid's at its index.
 */
export function mergeParts(parts: readonly { file: string; part: SweepPart }[]): Merged {
  if (parts.length === 0) throw new BadInputError('PARTS', 'one or more sweep part files', '');
  const first = parts[0]!.part;
  const key = (p: SweepPart) =>
    JSON.stringify([p.sweep.grid, p.sweep.rankBy, p.sweep.fast, p.sweep.minVolume ?? 0, p.sweep.windows ?? 4, p.sweep.blockSeconds ?? 60, p.data, p.window]);
  const k0 = key(first);
  const combos = expandGrid(first.sweep.grid);
  const byIndex = new Map<number, { file: string; r: SweepResult }>();
  for (const { file, part } of parts) {
    if (key(part) !== k0)
      throw new BadInputError(
        file,
        `a part of the same sweep as ${parts[0]!.file} (grid, rankBy, fast, minVolume, windows, blockSeconds, data and window must match)`,
        `shard ${part.shard.index}/${part.shard.count}`,
      );
    for (const r of part.results) {
      if (!Number.isInteger(r.index) || r.index < 0 || r.index >= combos.length)
        throw new BadInputError(file, `result indices from 0 to ${combos.length - 1}`, r.index);
      if (JSON.stringify(r.combo) !== JSON.stringify(combos[r.index]))
        throw new BadInputError(file, `the grid's combination at index ${r.index} (${JSON.stringify(combos[r.index])})`, JSON.stringify(r.combo));
      const seen = byIndex.get(r.index);
      if (seen && JSON.stringify(seen.r) !== JSON.stringify(r))
        throw new BadInputError(file, `one result per combination (index ${r.index} differs from ${seen.file})`, r.index);
      byIndex.set(r.index, { file, r });
    }
  }
  const missing = combos.map((_, i) => i).filter((i) => !byIndex.has(i));
  if (missing.length > 0) {
    const n = first.shard.count;
    const shards = [...new Set(missing.map((i) => i % n))].sort((a, b) => a - b);
    throw new BadInputError(
      'PARTS',
      `every combination of the grid (${combos.length})`,
      `${missing.length} missing: indices ${missing.slice(0, 10).join(', ')}${missing.length > 10 ? ', …' : ''} (shards ${shards.map((s) => `${s}/${n}`).join(', ')})`,
    );
  }
  return {
    spec: {
      grid: first.sweep.grid,
      rankBy: first.sweep.rankBy,
      fast: first.sweep.fast,
      minVolume: first.sweep.minVolume ?? 0,
      windows: first.sweep.windows ?? 4,
      blockSeconds: first.sweep.blockSeconds ?? 60,
    },
    results: combos.map((_, i) => byIndex.get(i)!.r),
  };
}
