/**
 * The live heap after full collections, with the typed arrays' backing stores (kept outside V8's
 * heap), in bytes: what a structure retains is the difference of two readings around its inserts
 * (keep it referenced after the second). Not a timing: a count of bytes the collector could not
 * free, so a test may bound it (with room: a few KB move between readings).
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

export function liveHeap(): number {
  gc();
  gc();
  const m = process.memoryUsage();
  // typed arrays' backing stores live outside V8's heap: counted, as a structure holds them
  return m.heapUsed + m.arrayBuffers;
}
