/**
 * Periodic reconciliation (at start-up, after every stream reconnect and periodically).
 *
 * Entry point: `const stop = schedulePeriodicReconcile(om, clock, 30_000)`; call `stop()` on
 * shutdown. Uses the injected clock's timers, so backtests reconcile on virtual time; a run never
 * overlaps the previous one because the next timer is armed only after it finished.
 */
import type { Clock } from '../core/clock.ts';

export function schedulePeriodicReconcile(om: { reconcile(): Promise<boolean> }, clock: Clock, everyMs: number): () => void {
  let stopped = false;
  let cancel: () => void = () => undefined;
  const arm = (): void => {
    if (stopped) return;
    cancel = clock.setTimeout(() => {
      if (stopped) return;
      void om.reconcile().finally(arm);
    }, everyMs);
  };
  arm();
  return () => {
    stopped = true;
    cancel();
  };
}
