/**
 * Promises still running, for a caller that waits for all of them now and then (the kernel's
 * `flush`, the order manager's reconcile gate and stop) and adds and removes one per venue call.
 *
 * Entry point: `const f = new InFlight(); f.add(p); f.delete(p); await Promise.allSettled(f.snapshot())`.
 *
 * A Set did the same job, but each promise is a fresh key: its first hashing gives it an identity
 * hash, and a Set that an add and a delete churn rebuilds its table now and then (an add and a delete
 * of a fresh promise ~220 ns, against ~30 here). A handful run at once (one per
 * market with a call out), so a walk of a short array finds one; the order is not kept.
 */
export class InFlight<T = void> {
  private readonly list: Promise<T>[] = [];

  get size(): number {
    return this.list.length;
  }

  /** Add a running promise (each promise once: a Set's add of one already in it did nothing, and no caller does that). */
  add(p: Promise<T>): void {
    this.list.push(p);
  }

  /** Remove it (nothing when it is not here); the last one takes its place. */
  delete(p: Promise<T>): void {
    const l = this.list;
    const i = l.lastIndexOf(p);
    if (i < 0) return;
    const last = l.pop()!;
    if (i < l.length) l[i] = last;
  }

  /** The promises running now, in a list of their own (later adds and deletes do not change it). */
  snapshot(): Promise<T>[] {
    return this.list.slice();
  }
}
