/**
 * amtool / alertmanager for the alert-routing tests (Debian's `prometheus-alertmanager` package ships
 * both, the server as `prometheus-alertmanager`; .ci/run installs it). A machine without them skips
 * those tests and says why.
 */
import { spawnSync } from 'node:child_process';

function has(bin: string): boolean {
  const r = spawnSync(bin, ['--version'], { stdio: 'ignore' });
  return !r.error && r.status === 0;
}

export const AMTOOL = has('amtool');
/** the server binary: Debian names it prometheus-alertmanager, upstream alertmanager */
export const ALERTMANAGER_BIN = has('prometheus-alertmanager') ? 'prometheus-alertmanager' : has('alertmanager') ? 'alertmanager' : null;
export const SKIP_AMTOOL = AMTOOL ? false : 'amtool not installed (Debian: apt-get install prometheus-alertmanager; .ci/run installs it)';
export const SKIP_ALERTMANAGER = ALERTMANAGER_BIN ? false : 'alertmanager not installed (Debian: apt-get install prometheus-alertmanager; .ci/run installs it)';

export const ALERTMANAGER_DIR = new URL('../../deploy/alertmanager/', import.meta.url).pathname;

/** Run amtool; stdout and stderr together, exit status. */
export function amtool(args: string[]): { status: number | null; out: string } {
  const r = spawnSync('amtool', args, { encoding: 'utf8' });
  return { status: r.status, out: `${r.stdout ?? ''}${r.stderr ?? ''}` };
}
