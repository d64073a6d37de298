// The test runner's choice of the next file to start (scripts/test.mjs): a CPU budget, not a file count.

/**
 * The index in `queue` (longest first) of the file to start now, or -1 to wait until a running file ends.
 *
 * - While fewer than `budget` files run, the next in line starts, whatever it costs.
 * - Beyond that, up to `maxFiles`, the first (longest) waiting file whose share of a core fits in what the running
 *   files' shares leave of the budget: a file that mostly waits (a bot quoting for its --duration, a soak) runs
 *   beside two busy ones, and two busy files still run alone.
 *
 * @param {readonly string[]} queue files waiting, longest first
 * @param {readonly number[]} running the shares of the files running now
 * @param {(file: string) => number} share the share of a core a file keeps busy (0..budget)
 * @param {number} budget the cores the suite may keep busy
 * @param {number} maxFiles the most files at once
 * @returns {number}
 */
export function nextToStart(queue, running, share, budget, maxFiles) {
  if (queue.length === 0) return -1;
  if (running.length < budget) return 0;
  if (running.length >= maxFiles) return -1;
  const used = running.reduce((a, b) => a + b, 0);
  return queue.findIndex((f) => used + share(f) <= budget + 1e-9);
}
