/**
 * A child process for test/runtime/watchdog-stand-down.test.ts: starts the event-loop watchdog with a short limit
 * (BLOCK_LIMIT_MS), stands it down when STAND_DOWN=1, then blocks its own loop for BLOCK_MS and exits 0. A watchdog
 * that fires ends it with exit 5 first.
 */
import { startWatchdog } from '../../src/runtime/watchdog.ts';

const wd = await startWatchdog({
  blockedLimitMs: Number(process.env.BLOCK_LIMIT_MS ?? 200),
  healthzLimitMs: 100,
  metrics: null,
  log: { level: 'silent', pretty: false, colors: false },
});
if (process.env.STAND_DOWN === '1') await wd.standDown();
// a heartbeat or two first, so the thread has seen the loop turn
await new Promise((r) => setTimeout(r, 300));
const end = Date.now() + Number(process.env.BLOCK_MS ?? 3_000);
while (Date.now() < end) {
  // the loop is blocked: no heartbeat
}
await wd.close();
process.stdout.write('ended by itself\n');
