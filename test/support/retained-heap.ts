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
// V8's optimising compiler runs on a background thread and installs what it compiled when the main thread
// next checks: a job queued before one reading (a function hot in the test before, or in the inserts) lands
// in the next reading, or in none, as fast as that thread runs. A loaded machine decides which: allocations
// of a few KB to a few hundred (a 276 KB reading was seen, and fill-ids' 2-bytes-an-id margin failed once at load
// 11-20). Each reading first waits for the jobs queued and installs them (V8's test hook, as its own tests do):
// what a reading holds is then what the code run so far compiled, whatever the machine's load.
setFlagsFromString('--allow-natives-syntax');
const finishCompiles = runInNewContext('(function () { %FinalizeOptimization(); })') as () => void;

export function liveHeap(): number {
  finishCompiles();
  // V8 drops the bytecode of a function not run for 5 full collections (--bytecode-old-age): with two a reading,
  // what a test ran before its first reading was dropped between the two, or not, as many collections as the
  // machine's idle-time ones made before (readings 100-200 KB low were seen). Seven: at each reading, whatever
  // came before, the bytecode of what did not run since the last is gone.
  for (let i = 0; i < 7; i++) gc();
  const m = process.memoryUsage();
  // machine code is not data a structure retains: V8's optimising compiler, running beside the test on a
  // loaded machine, may install a few hundred KB of it between two readings (a 276 KB reading was seen)
  let code = 0;
  for (const s of getHeapSpaceStatistics()) if (s.space_name === 'code_space' || s.space_name === 'code_large_object_space') code += s.space_used_size;
  // typed arrays' backing stores live outside V8's heap: counted, as a structure holds them
  return m.heapUsed - code + m.arrayBuffers;
}
