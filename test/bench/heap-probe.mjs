/**
 * heap-probe: preloaded into a soak bench's bot (`--import tsx --import <this file>`, from the bench's
 * own tree, so a baseline checkout's bot is read the same way). Two kinds of reading, each one JSON line
 * appended to the file named by BOOKMAKER_HEAP_PROBE: the time, V8's heap spaces (used bytes each:
 * old, code, map, large-object …), `process.memoryUsage()`'s arrayBuffers, external and rss, and V8's
 * resident pages (in all and by space) and malloc'd bytes (`getHeapStatistics()`).
 *
 * - `forced`: on SIGWINCH (a signal a bot whose output is a pipe has no other use for) the main thread
 *   runs two full collections, then reads. Exact, but every forced full collection is one the bot would
 *   not have made, and each makes V8 discard the optimised code whose embedded objects died
 *   (docs/performance/reoptimisation.md): a probe a minute changes what it measures.
 * - `major` (BOOKMAKER_HEAP_PROBE_MAJOR=1): after each of the bot's own full (mark-compact) collections,
 *   seen by a `gc` PerformanceObserver, read as soon as the observer runs (the same turn's end or the
 *   next). Nothing is forced. The young generation is left out of these readings (it holds what the bot
 *   allocated since the collection, not what survived it; after a forced pair it is ~0), and so are the
 *   collections inside a forced probe.
 *
 * `--trace-gc`'s live heap leaves out typed arrays' backing stores (ArrayBuffers, kept outside V8's
 * heap), where the bounded id windows keep their entries: the soak benches add `arrayBuffers` to the
 * spaces' sum for the figure their criterion reads (`probeLive` in test/bench/lib.ts). Plain JS: a
 * worker thread the bot starts inherits the preload, before tsx can load TypeScript there.
 */
import { appendFileSync } from 'node:fs';
import { constants, PerformanceObserver, performance } from 'node:perf_hooks';
import { getHeapSpaceStatistics, getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { isMainThread } from 'node:worker_threads';

/** the young generation's spaces: left out of a `major` reading (what was allocated since the collection) */
const YOUNG = new Set(['new_space', 'new_large_object_space']);

/** one reading of `kind`, taken now, appended to `file` (`from`: a forced probe's start, ms) */
function read(file, kind, at, from) {
  const spaces = {};
  const committed = {};
  for (const s of getHeapSpaceStatistics()) {
    if (kind === 'major' && YOUNG.has(s.space_name)) continue;
    spaces[s.space_name] = s.space_used_size;
    committed[s.space_name] = s.physical_space_size;
  }
  const m = process.memoryUsage();
  const h = getHeapStatistics();
  // what V8 holds resident (its pages, after the collections) and what it has from malloc: the rest of the
  // RSS is the allocator's, the stacks' and the files' (test/bench/soak-memory-maps.ts)
  const v8 = { physical: h.total_physical_size, malloced: h.malloced_memory, peakMalloced: h.peak_malloced_memory, committed };
  const line = { at, ...(from !== undefined ? { from } : {}), kind, spaces, arrayBuffers: m.arrayBuffers, external: m.external, rss: m.rss, v8 };
  appendFileSync(file, `${JSON.stringify(line)}\n`);
}

const file = process.env.BOOKMAKER_HEAP_PROBE;
if (isMainThread && file !== undefined && file !== '') {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc');
  /** the forced probes' windows (performance.now() ms): their collections are not the bot's */
  const forced = [];
  process.on('SIGWINCH', () => {
    const fromAt = Date.now();
    const from = performance.now();
    gc();
    gc();
    forced.push([from, performance.now()]);
    if (forced.length > 64) forced.shift();
    read(file, 'forced', Date.now(), fromAt);
  });
  if (process.env.BOOKMAKER_HEAP_PROBE_MAJOR === '1') {
    const inForced = (t) => forced.some(([a, b]) => t >= a && t <= b);
    new PerformanceObserver((list) => {
      let last = null;
      for (const e of list.getEntries()) {
        if (e.detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR && !inForced(e.startTime)) last = e;
      }
      // one reading per delivery: several majors in one batch leave one heap to read
      if (last !== null) read(file, 'major', Math.round(performance.timeOrigin + last.startTime + last.duration));
    }).observe({ entryTypes: ['gc'] });
  }
}
