/**
 * The bot's resident memory by kind of mapping, read from /proc/<pid>/smaps (Linux), for the soak benches:
 * RSS is what an operator's container limit watches, and a growth of RSS with a flat heap is in one of
 * these, not in the JS heap.
 *
 * - `arenas`: glibc malloc's thread arenas: an anonymous read-write mapping at a 64 MB boundary followed by its
 *   PROT_NONE reserve to the next boundary (glibc's HEAP_MAX_SIZE on 64-bit); the worker threads' and libuv's
 *   pool's malloc, and the main thread's once its arena is contended.
 * - `brk`: `[heap]`, the main arena (the main thread's malloc: V8's own C++ structures, ArrayBuffer stores
 *   below malloc's mmap threshold, sqlite's page cache, a heap snapshot's working memory).
 * - `stacks`: `[stack]` and the threads' stacks (an anonymous mapping right after its guard page).
 * - `code`: anonymous executable mappings (V8's code space and its compiled code).
 * - `anon`: every other anonymous mapping: V8's heap pages (256 KB each) and large object pages, and the
 *   allocations malloc serves by mmap (at or above its threshold, 128 KB at first).
 * - `files`: mappings of files (node itself, the shared libraries, better-sqlite3's module).
 *
 * Figures are resident kB (`Rss:`), summed per kind; `total` is their sum, which is the process's RSS.
 */
import { readFileSync } from 'node:fs';
import { type ProbeKind, readProbes } from './lib.ts';

export const MAP_KINDS = ['arenas', 'brk', 'stacks', 'code', 'anon', 'files'] as const;
export type MapKind = (typeof MAP_KINDS)[number];
export type MapReading = Record<MapKind | 'total', number> & { arenaCount: number };

interface Mapping {
  lo: bigint;
  hi: bigint;
  perm: string;
  name: string;
  rssKb: number;
}

const ARENA = 64n * 1024n * 1024n;

/** The mappings of an smaps text, in address order. */
export function parseSmaps(text: string): Mapping[] {
  const maps: Mapping[] = [];
  let cur: Mapping | undefined;
  for (const line of text.split('\n')) {
    const m = /^([0-9a-f]+)-([0-9a-f]+) (\S+) \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (m) {
      cur = { lo: BigInt(`0x${m[1]}`), hi: BigInt(`0x${m[2]}`), perm: m[3]!, name: m[4]!.trim(), rssKb: 0 };
      maps.push(cur);
      continue;
    }
    const r = /^Rss:\s+(\d+) kB/.exec(line);
    if (r && cur) cur.rssKb = Number(r[1]);
  }
  return maps;
}

/** Resident kB by kind (see the file's header) of parsed mappings. */
export function classifyMaps(maps: readonly Mapping[]): MapReading {
  const out: MapReading = { arenas: 0, brk: 0, stacks: 0, code: 0, anon: 0, files: 0, total: 0, arenaCount: 0 };
  for (let i = 0; i < maps.length; i++) {
    const m = maps[i]!;
    const prev = maps[i - 1];
    const next = maps[i + 1];
    let kind: MapKind;
    if (m.name === '[heap]') kind = 'brk';
    else if (m.name === '[stack]') kind = 'stacks';
    else if (m.name.startsWith('/')) kind = 'files';
    else if (m.name !== '' && m.name.startsWith('['))
      kind = 'files'; // [vdso], [vvar], [vsyscall]
    else if (
      m.perm.startsWith('rw') &&
      m.lo % ARENA === 0n &&
      (m.hi - m.lo === ARENA || (next?.lo === m.hi && next.perm.startsWith('---') && next.name === '' && next.hi === m.lo + ARENA))
    ) {
      kind = 'arenas';
      out.arenaCount++;
    } else if (m.perm.includes('x')) kind = 'code';
    else if (
      m.perm.startsWith('rw') &&
      prev !== undefined &&
      prev.hi === m.lo &&
      prev.perm.startsWith('---') &&
      prev.name === '' &&
      prev.hi - prev.lo <= 1024n * 1024n
    )
      kind = 'stacks';
    else kind = 'anon';
    out[kind] += m.rssKb;
    out.total += m.rssKb;
  }
  return out;
}

/** The process's resident kB by kind now, or null when it is gone or /proc has no smaps. */
export function readMaps(pid: number): MapReading | null {
  try {
    return classifyMaps(parseSmaps(readFileSync(`/proc/${pid}/smaps`, 'utf8')));
  } catch {
    return null;
  }
}

const MB_KB = 1024;
const sign = (x: number) => (x >= 0 ? '+' : '') + x.toFixed(1);

/** the least-squares growth (slope × half the run) of the points at or after half time, as lib.ts's secondHalf */
function growthOverSecondHalf(points: readonly { t: number; v: number }[], minutes: number): number {
  const half = points.filter((p) => p.t >= minutes / 2);
  if (half.length < 2) return Number.NaN;
  const tm = half.reduce((a, p) => a + p.t, 0) / half.length;
  const vm = half.reduce((a, p) => a + p.v, 0) / half.length;
  const num = half.reduce((a, p) => a + (p.t - tm) * (p.v - vm), 0);
  const den = half.reduce((a, p) => a + (p.t - tm) ** 2, 0);
  return den > 0 ? (num / den) * (minutes / 2) : Number.NaN;
}

/**
 * The rows of a soak's RSS by kind of mapping: each kind's MB at half time and at the end, and its growth over
 * the second half (slope × duration, MB), from readings taken with the RSS samples (`t` in minutes).
 */
export function mapsSecondHalf(
  readings: readonly { t: number; maps: MapReading }[],
  minutes: number,
): { rows: [string, string | number][]; growthMb: Record<MapKind | 'total', number> } | null {
  if (readings.length < 2) return null;
  const start = readings.reduce((best, r) => (Math.abs(r.t - minutes / 2) < Math.abs(best.t - minutes / 2) ? r : best));
  const end = readings.at(-1)!;
  const growthMb = {} as Record<MapKind | 'total', number>;
  for (const k of [...MAP_KINDS, 'total'] as const)
    growthMb[k] = growthOverSecondHalf(
      readings.map((r) => ({ t: r.t, v: r.maps[k] / MB_KB })),
      minutes,
    );
  const at = (r: { maps: MapReading }) => [...MAP_KINDS, 'total'].map((k) => `${k} ${(r.maps[k as MapKind] / MB_KB).toFixed(1)}`).join(', ');
  return {
    rows: [
      [`RSS by mapping MB at ${start.t.toFixed(1)} min (smaps)`, `${at(start)}; ${start.maps.arenaCount} arena heaps`],
      [`RSS by mapping MB at ${end.t.toFixed(1)} min`, `${at(end)}; ${end.maps.arenaCount} arena heaps`],
      ['2nd-half RSS growth by mapping MB (slope × duration)', [...MAP_KINDS, 'total'].map((k) => `${k} ${sign(growthMb[k as MapKind])}`).join(', ')],
    ],
    growthMb,
  };
}

/** V8's own resident pages and malloc'd bytes from the heap probe's lines (test/bench/heap-probe.mjs), MB */
export interface V8Reading {
  t: number;
  physical: number;
  malloced: number;
  /** resident MB by heap space */
  committed: Record<string, number>;
}
/** V8's figures (MB, spaces named without `_space`) of the `kind` readings of `file` that carry them, from `readProbes` */
export function probeV8(file: string, t0: number, kind: ProbeKind = 'forced'): V8Reading[] {
  const out: V8Reading[] = [];
  for (const p of readProbes(file, t0, kind))
    if (p.v8)
      out.push({
        t: p.t,
        physical: p.v8.physical / 2 ** 20,
        malloced: p.v8.malloced / 2 ** 20,
        committed: Object.fromEntries(Object.entries(p.v8.committed).map(([k, v]) => [k.replace(/_space$/, ''), v / 2 ** 20])),
      });
  return out;
}

/** Rows of V8's resident pages and malloc'd memory over the second half (a baseline's older probe gives none) */
export function v8SecondHalfRows(readings: readonly V8Reading[], minutes: number): [string, string | number][] {
  if (readings.length < 2) return [];
  const mid = readings.reduce((best, r) => (Math.abs(r.t - minutes / 2) < Math.abs(best.t - minutes / 2) ? r : best));
  const end = readings.at(-1)!;
  const g = (f: (r: { physical: number; malloced: number }) => number) =>
    growthOverSecondHalf(
      readings.map((r) => ({ t: r.t, v: f(r) })),
      minutes,
    );
  return [
    [
      "V8's resident pages / malloc'd MB after full GCs, 2nd half start → end (growth)",
      `${mid.physical.toFixed(1)} → ${end.physical.toFixed(1)} (${sign(g((r) => r.physical))}) / ${mid.malloced.toFixed(1)} → ${end.malloced.toFixed(1)} (${sign(g((r) => r.malloced))})`,
    ],
    [
      "V8's resident MB by space at the 2nd half start → end",
      Object.keys(end.committed)
        .map((k) => `${k} ${(mid.committed[k] ?? 0).toFixed(1)} → ${end.committed[k]!.toFixed(1)}`)
        .join(', '),
    ],
    ["V8's resident MB each minute", readings.map((r) => `${r.t.toFixed(0)}:${r.physical.toFixed(1)}`).join(' ')],
  ];
}

/** CPU seconds (user + system) the process has used, from /proc/<pid>/stat; NaN when it is gone */
export function cpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // fields 14 and 15 of stat (utime, stime), here 11 and 12 after the name; clock ticks of 1/100 s on Linux
    return (Number(f[11]) + Number(f[12])) / 100;
  } catch {
    return Number.NaN;
  }
}
