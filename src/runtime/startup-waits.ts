/**
 * The waits of the live start-up (src/runtime/bot.ts), each bounded on the injected clock: first books,
 * a market's first balance read, and a promise settled once from outside.
 */
import type { Clock } from '../core/clock.ts';
import type { Logger } from '../core/logger.ts';
import type { Bytes32 } from '../model/order.ts';
import type { StateStore } from '../state/store.ts';

/** Until a balance read of the market lands (PositionSynced), or `ms` passed on the clock (logged). */
export function waitForPosition(store: StateStore, id: Bytes32, clock: Clock, ms: number, log: Logger): Promise<void> {
  const k = id;
  return new Promise((done) => {
    let cancel: () => void = () => undefined;
    const sub = store.changes$.subscribe(({ events }) => {
      for (const e of events) if (e.type === 'PositionSynced' && e.marketId === k) return finish(true);
    });
    const finish = (read: boolean): void => {
      cancel();
      sub.unsubscribe();
      if (!read) log.warn({ marketId: id, seconds: ms / 1000 }, 'market start: no balance read of it yet; quoting with its position unknown until one lands');
      done();
    };
    cancel = clock.setTimeout(() => finish(false), ms);
  });
}

/** Until every market has a book, or `ms` passed on the clock. */
export function waitForBooks(store: StateStore, ids: readonly Bytes32[], clock: Clock, ms: number): Promise<void> {
  // markets before `seen` had their book: each store change checks from there on (a full scan per
  // change was quadratic in the markets while thousands of first snapshots arrive)
  let seen = 0;
  const have = (): boolean => {
    while (seen < ids.length && store.state.markets.get(ids[seen]!)?.books.yes) seen++;
    return seen === ids.length;
  };
  if (have()) return Promise.resolve();
  return new Promise((done) => {
    let cancel: () => void = () => undefined;
    const sub = store.changes$.subscribe(() => {
      if (!have()) return;
      finish();
    });
    const finish = (): void => {
      cancel();
      sub.unsubscribe();
      done();
    };
    cancel = clock.setTimeout(finish, ms);
  });
}

export function deferred<T>(): { promise: Promise<T>; resolve: (v: T) => void } {
  let resolve!: (v: T) => void;
  let settled = false;
  const promise = new Promise<T>((r) => (resolve = r));
  return {
    promise,
    resolve: (x) => {
      if (settled) return;
      settled = true;
      resolve(x);
    },
  };
}
