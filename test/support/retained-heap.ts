/**
 * The live heap after full collections, in bytes: what a structure retains is the difference of two
 * readings around its inserts (keep it referenced after the second). Not a timing: a count of bytes
 * the collector could not free, so a test may bound it (with room: a few KB move between readings).
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

export function liveHeap(): number {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}
