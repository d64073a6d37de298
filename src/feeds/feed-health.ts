/**
 * Staleness per source: each feed records its last good answer and its failures here, and the
 * runtime reads it for /readyz, the terminal summary and metrics. Time is the injected clock's.
 */
export interface SourceHealth {
  readonly name: string;
  /** clock ms of the last successful read (0 = never) */
  lastOkAt: number;
  /** clock ms of the last failed read (0 = never) */
  lastErrorAt: number;
  okCount: number;
  errorCount: number;
  lastError: string | null;
  /** the source counts as stale when its last good read is older than this, ms */
  readonly staleAfterMs: number;
}

export class FeedHealth {
  private readonly sources = new Map<string, SourceHealth>();

  register(name: string, staleAfterMs: number): SourceHealth {
    let h = this.sources.get(name);
    if (!h) {
      h = { name, lastOkAt: 0, lastErrorAt: 0, okCount: 0, errorCount: 0, lastError: null, staleAfterMs };
      this.sources.set(name, h);
    }
    return h;
  }

  /** Forget a source (a market's book stream closed by rotation). */
  unregister(name: string): boolean {
    return this.sources.delete(name);
  }

  /** sources registered now (tests: nothing left behind) */
  get size(): number {
    return this.sources.size;
  }

  ok(name: string, now: number): void {
    const h = this.sources.get(name);
    if (!h) return;
    h.lastOkAt = now;
    h.okCount++;
  }

  error(name: string, now: number, message: string): void {
    const h = this.sources.get(name);
    if (!h) return;
    h.lastErrorAt = now;
    h.errorCount++;
    h.lastError = message;
  }

  /** ms since the last good read, or Infinity before the first one */
  age(name: string, now: number): number {
    const h = this.sources.get(name);
    return h && h.lastOkAt > 0 ? now - h.lastOkAt : Number.POSITIVE_INFINITY;
  }

  stale(now: number): string[] {
    return [...this.sources.values()].filter((h) => h.lastOkAt === 0 || now - h.lastOkAt > h.staleAfterMs).map((h) => h.name);
  }

  all(): readonly SourceHealth[] {
    return [...this.sources.values()];
  }
}
