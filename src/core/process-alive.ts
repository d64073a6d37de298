/**
 * Whether a process with this pid exists: signal 0 checks without signalling. EPERM means it exists but is not
 * ours to signal (another user's), so it counts as alive; any other refusal (ESRCH: no such process) does not.
 * Used where a file names the process that holds something (the admin state's bot, a test cache's builder) and
 * a record whose process is gone is stale.
 */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
