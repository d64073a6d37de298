/**
 * One terminal shared by the live summary and the logs: log lines are printed ABOVE the summary,
 * which is redrawn below them, so a log line never lands inside the table and the table never
 * overwrites a log line.
 *
 *   const term = new LiveTerminal(process.stdout);
 *   const logOut = term.sink(process.stderr);   // the logger's destination (pretty or JSON)
 *   term.frame(lines);                          // draw / redraw the summary in place
 *   term.release();                             // leave the last frame on screen, stop tracking it
 *
 * Each print erases the frame (cursor up over it, clear to the end of the screen), writes the log
 * text, then draws the frame again. Writes to a TTY are synchronous in Node, so stdout (frame) and
 * stderr (logs) writes keep their order when both are the same terminal.
 */

export interface Writable {
  write(s: string): unknown;
}

export class LiveTerminal {
  private lines: string[] = [];
  private drawn = 0;
  private released = false;
  private readonly out: Writable;

  constructor(out: Writable) {
    this.out = out;
  }

  /** Draw the summary (replacing the previous frame in place). */
  frame(lines: readonly string[]): void {
    this.lines = [...lines];
    if (this.released) return;
    this.out.write(this.erase() + this.render());
  }

  /** Print text (one or more whole lines) above the frame. */
  print(text: string, stream: Writable = this.out): void {
    if (this.released || this.drawn === 0) {
      stream.write(text);
      return;
    }
    if (stream === this.out) {
      this.out.write(this.erase() + text + this.render());
      return;
    }
    this.out.write(this.erase());
    this.drawn = 0;
    stream.write(text);
    this.out.write(this.render());
  }

  /** A destination for the logger: every write goes above the frame on `stream`. */
  sink(stream: Writable): { write(s: string): void } {
    return { write: (s: string) => this.print(s, stream) };
  }

  /** Stop redrawing: the last frame stays as printed, later output simply follows it. */
  release(): void {
    this.released = true;
    this.drawn = 0;
  }

  private erase(): string {
    if (this.drawn === 0) return '';
    const up = `\x1b[${this.drawn}A\r\x1b[J`;
    this.drawn = 0;
    return up;
  }

  private render(): string {
    if (this.lines.length === 0) return '';
    this.drawn = this.lines.length;
    return this.lines.map((l) => `\x1b[2K${l}`).join('\n') + '\n';
  }
}
