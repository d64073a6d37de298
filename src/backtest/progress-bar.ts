/**
 * A one-line progress bar on stderr for long runs. Off when stderr is not a TTY (CI logs, pipes), so
 * scripted output stays clean. Driven by time, not by rows: callers report often (every ~1k rows and at
 * every yield of the replay), and the bar redraws at most every `everyMs` of wall time (default 100 ms,
 * ten updates a second), with an optional detail (where the replay is).
 */
export interface ProgressBar {
  update(fraction: number, detail?: string): void;
  done(): void;
}

export interface ProgressBarOptions {
  /** minimum wall time between two redraws, ms (default 100) */
  readonly everyMs?: number;
  /** the wall clock, ms (injected by tests) */
  readonly now?: () => number;
}

export function progressBar(label: string, stream: NodeJS.WriteStream = process.stderr, opts: ProgressBarOptions = {}): ProgressBar {
  if (!stream.isTTY) return { update: () => undefined, done: () => undefined };
  const everyMs = opts.everyMs ?? 100;
  const now = opts.now ?? (() => performance.now());
  let last = -Infinity;
  let shown = false;
  let width = 0;
  const draw = (f: number, detail: string | undefined): void => {
    const n = Math.round(Math.max(0, Math.min(1, f)) * 30);
    const line = `${label} [${'#'.repeat(n)}${'.'.repeat(30 - n)}] ${(f * 100).toFixed(0).padStart(3)}%${detail ? ` ${detail}` : ''}`;
    // pad over a longer previous line, stay within the terminal
    const cols = stream.columns > 0 ? stream.columns - 1 : 119;
    const text = line.slice(0, cols);
    stream.write(`\r${text}${' '.repeat(Math.max(0, width - text.length))}`);
    width = text.length;
    shown = true;
  };
  return {
    update(f, detail) {
      const t = now();
      if (t - last < everyMs && f < 1) return;
      last = t;
      draw(f, detail);
    },
    done() {
      if (shown) stream.write('\n');
    },
  };
}
