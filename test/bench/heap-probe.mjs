/**
 * heap-probe: preloaded into a soak bench's bot (`--import tsx --import <this file>`, from the bench's
 * own tree, so a baseline checkout's bot is read the same way). On SIGWINCH (a signal a bot whose
 * output is a pipe has no other use for) the main thread runs two full collections, then appends one
 * JSON line to the file named by BOOKMAKER_HEAP_PROBE: the time, V8's heap spaces (used bytes each:
 * new, old, code, map, large-object …), `process.memoryUsage()`'s arrayBuffers, external and rss, and V8's
 * resident pages (in all and by space) and malloc'd bytes (`getHeapStatistics()`).
 *
 * `--trace-gc`'s live heap leaves out typed arrays' backing stores (ArrayBuffers, kept outside V8's
 * heap), where the bounded id windows keep their entries: the soak benches add `arrayBuffers` to the
 * spaces' sum for the figure their criterion reads (`probeLive` in test/bench/lib.ts). Plain JS: a
 * worker thread the bot starts inherits the preload, before tsx can load TypeScript there.
 */
import { appendFileSync } from 'node:fs';
import { getHeapSpaceStatistics, getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { isMainThread } from 'node:worker_threads';

const file = process.env.BOOKMAKER_HEAP_PROBE;
if (isMainThread && file !== undefined && file !== '') {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc');
  process.on('SIGWINCH', () => {
    gc();
    gc();
    const spaces = {};
    const committed = {};
    for (const s of getHeapSpaceStatistics()) {
      spaces[s.space_name] = s.space_used_size;
      committed[s.space_name] = s.physical_space_size;
    }
    const m = process.memoryUsage();
    const h = getHeapStatistics();
    // what V8 holds resident (its pages, after the collections) and what it has from malloc: the rest of the
    // RSS is the allocator's, the stacks' and the files' (test/bench/soak-memory-maps.ts)
    const v8 = { physical: h.total_physical_size, malloced: h.malloced_memory, peakMalloced: h.peak_malloced_memory, committed };
    const line = { at: Date.now(), spaces, arrayBuffers: m.arrayBuffers, external: m.external, rss: m.rss, v8 };
    appendFileSync(file, `${JSON.stringify(line)}\n`);
  });
}
