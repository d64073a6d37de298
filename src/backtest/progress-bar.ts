/**
 * A one-line progress bar on stderr for long runs. Off when stderr is not a TTY (CI logs, pipes), so
 * scripted output stays clean; redraws at most ~10 times a second of wall time.
 */
export interface ProgressBar {
  update(fraction: number): void;
  done(): void;
}

export function progressBar(label: string, stream: NodeJS.WriteStream = process.stderr): ProgressBar {
  if (!stream.isTTY) return { update: () => undefined, done: () => undefined };
  let last = 0;
  let shown = false;
  const draw = (f: number): void => {
    const width = 30;
    const n = Math.round(Math.max(0, Math.min(1, f)) * width);
    stream.write(`\r${label} [${'#'.repeat(n)}${'.'.repeat(width - n)}] ${(f * 100).toFixed(0).padStart(3)}%`);
    shown = true;
  };
  return {
    update(f) {
      const now = performance.now();
      if (now - last < 100 && f < 1) return;
      last = now;
      draw(f);
    },
    done() {
      if (shown) stream.write('\n');
    },
  };
}
