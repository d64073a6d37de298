/**
 * The live heap after full collections, without machine code, with the typed arrays' backing stores
 * (kept outside V8's heap), in bytes: what a structure retains is the difference of two readings around its inserts
 * (keep it referenced after the second). Not a timing: a count of bytes the collector could not
 * free, so a test may bound it (with room: a few KB move between readings).
 */
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

export function liveHeap(): number {
  gc();
  gc();
  const m = process.memoryUsage();
  // machine code is not data a structure retains: V8's optimising compiler, running beside the test on a
  // loaded machine, may install a few hundred KB of it between two readings (a 276 KB reading was seen)
  let code = 0;
  for (const s of getHeapSpaceStatistics()) if (s.space_name === 'code_space' || s.space_name === 'code_large_object_space') code += s.space_used_size;
  // typed arrays' backing stores live outside V8's heap: counted, as a structure holds them
  return m.heapUsed - code + m.arrayBuffers;
}
