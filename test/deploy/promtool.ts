/**
 * promtool / prometheus for the alerting tests (Debian's `prometheus` package ships both; .ci/run
 * installs it). A machine without them skips those tests and says why.
 */
import { spawnSync } from 'node:child_process';

function has(bin: string): boolean {
  const r = spawnSync(bin, ['--version'], { stdio: 'ignore' });
  return !r.error && r.status === 0;
}

export const PROMTOOL = has('promtool');
export const PROMETHEUS = has('prometheus');
export const SKIP_PROMTOOL = PROMTOOL ? false : 'promtool not installed (Debian: apt-get install prometheus; .ci/run installs it)';
export const SKIP_PROMETHEUS = PROMETHEUS ? false : 'prometheus not installed (Debian: apt-get install prometheus; .ci/run installs it)';

export const RULES_DIR = new URL('../../deploy/prometheus/', import.meta.url).pathname;

/** Run promtool; stdout and stderr together, exit status. */
export function promtool(args: string[], input?: string, cwd?: string): { status: number | null; out: string } {
  const r = spawnSync('promtool', args, { input, cwd, encoding: 'utf8' });
  return { status: r.status, out: `${r.stdout ?? ''}${r.stderr ?? ''}` };
}
