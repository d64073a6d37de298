/**
 * Signals from the first millisecond. Until `bookmaker run` installs its own handlers,
 * Node's defaults would end the process on SIGHUP (exit 129, no log) or SIGTERM (no cleanup, no
 * log). This module, imported first by the CLI entry (and mirrored in bin/bookmaker.js, which runs
 * before the TypeScript loader), catches SIGHUP, SIGTERM and SIGINT for the `run` command, notes
 * them and says so on stderr; `run` takes them over with `takeEarlySignals()` and acts on them:
 * a stop ends start-up at once (exit 0), a SIGHUP is deferred to a reload once the bot quotes.
 *
 * The registry is shared through a global symbol, so the bin's handlers and these are one.
 */
interface EarlySignals {
  received: string[];
  release: () => void;
}

const KEY = Symbol.for('bookmaker.earlySignals');
const LAUNCHER_KEY = Symbol.for('bookmaker.launcher');

/**
 * What the registry notes when the launcher (bin/bookmaker.js's re-executing parent) is gone during
 * start-up: its IPC channel closed (bin/bookmaker.js installs that handler; without a launcher there is none).
 */
export const LAUNCHER_GONE = 'launcher-gone';

/**
 * The pid of this process's launcher: the parent that re-executed it with a heap limit
 * (BOOKMAKER_HEAP_LIMITS, bin/bookmaker.js), watched through its IPC channel ('disconnect' on the
 * process); null when this process was not started that way.
 */
export function launcherPid(): number | null {
  const pid = (globalThis as { [LAUNCHER_KEY]?: number })[LAUNCHER_KEY];
  return typeof pid === 'number' && typeof process.send === 'function' ? pid : null;
}
const SIGNALS = ['SIGHUP', 'SIGTERM', 'SIGINT'] as const;

type WithRegistry = typeof globalThis & { [KEY]?: EarlySignals };

/** Catch the stop and reload signals until `takeEarlySignals()` (idempotent). */
export function installEarlySignals(): void {
  const g = globalThis as WithRegistry;
  if (g[KEY]) return;
  const received: string[] = [];
  const handlers = SIGNALS.map((sig) => {
    const h = (): void => {
      received.push(sig);
      process.stderr.write(
        `bookmaker: ${sig} during start-up: ${sig === 'SIGHUP' ? 'a reload is deferred until the bot runs' : 'stopping once start-up can be interrupted'}\n`,
      );
    };
    process.on(sig, h);
    return [sig, h] as const;
  });
  g[KEY] = { received, release: () => handlers.forEach(([sig, h]) => process.off(sig, h)) };
}

/**
 * The signals received so far, in order (and LAUNCHER_GONE where the launcher went); the early handlers
 * are removed (call it after installing your own, so no signal falls in between).
 */
export function takeEarlySignals(): string[] {
  const g = globalThis as WithRegistry;
  const r = g[KEY];
  if (!r) return [];
  r.release();
  delete g[KEY];
  return [...r.received];
}

// the CLI entry imports this module first: `run` is protected before anything else loads
if (process.argv.slice(2).find((a) => !a.startsWith('-')) === 'run') installEarlySignals();
