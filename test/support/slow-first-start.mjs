// A preload (NODE_OPTIONS=--import FILE) that stands in for a loaded machine's slow start-up: the first chaos bot
// child of a run (src/chaos/bot-child.ts, or its build) sleeps BOOKMAKER_TEST_SLOW_START_MS before it loads
// anything; later bot starts and every other process run as usual. BOOKMAKER_TEST_SLOW_START_MARKER is a file
// path: created by the first bot child, so the restarted one does not sleep. The sleep blocks without using the CPU.
import { openSync, closeSync } from 'node:fs';

const ms = Number(process.env.BOOKMAKER_TEST_SLOW_START_MS);
const marker = process.env.BOOKMAKER_TEST_SLOW_START_MARKER;
if (ms > 0 && marker && /bot-child\.(?:ts|js)$/.test(process.argv[1] ?? '')) {
  let first = false;
  try {
    closeSync(openSync(marker, 'wx'));
    first = true;
  } catch {
    // a bot child of this run already slept
  }
  if (first) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}
