/**
 * How the live bot stops (src/runtime/bot.ts), once, whoever asks first: stop(), the kill switch or an
 * order-manager halt. The parts that feed the bot are quieted first (rotation, then the feeds: each
 * phase that starts one adds its quieting step), the kernel stops and drains, every order is cancelled
 * (unless the halt already did), and only then does the lifecycle tear down, in reverse: the ledger
 * closes after the last cancel and its final sweep.
 *
 *   const down = new Shutdown({ log, life, clock, kernel, orderManager, health, refusals });
 *   down.onStop(() => rotation.stop());      // quieted at the start of a stop, last added first
 *   down.request('halt', EXIT_HALT, result); // a stop the bot decided: exit resolves with the code once stopped
 *   await down.stop('SIGTERM');              // the cancel-all's result
 */
import type { Clock } from '../../core/clock.ts';
import type { Logger } from '../../core/logger.ts';
import type { CancelAllResult } from '../../orders/order-manager.ts';
import type { Lifecycle } from '../lifecycle.ts';
import { deferred } from '../startup-waits.ts';

export interface ShutdownOptions {
  readonly log: Logger;
  readonly life: Lifecycle;
  readonly clock: Clock;
  readonly kernel: { stop(): void; flush(): Promise<void> };
  readonly orderManager: { cancelAll(): Promise<CancelAllResult> };
  readonly health: { setProcess(p: 'stopping' | 'stopped'): void };
  /** the refusals still to be logged go out after the teardown */
  readonly refusals: { drain(now: number): void };
  /**
   * The cancel-all left nothing open (before the teardown): the event-loop watchdog stands down, since a stall of the
   * ledger's last writes must not end a clean stop with exit 5 (src/runtime/watchdog.ts)
   */
  readonly afterCancel?: () => Promise<void> | void;
}

/** Where a stop is, for an operator who asks again (a second SIGTERM): the step it waits on and since when. */
export interface StopProgress {
  readonly reason: string;
  /** what the stop waits on now, in words */
  readonly step: string;
  /** ms in this step */
  readonly stepMs: number;
  /** ms since the stop began */
  readonly stoppingMs: number;
}

export class Shutdown {
  private stopped: Promise<CancelAllResult> | null = null;
  private progressAt: { reason: string; step: string; stepAt: number; startedAt: number } | null = null;
  private readonly quiets: (() => void)[] = [];
  private readonly code = deferred<number>();

  constructor(private readonly o: ShutdownOptions) {}

  /** resolves with the exit code once the bot has stopped (by itself or through stop()) */
  get exit(): Promise<number> {
    return this.code.promise;
  }

  /** a stop has begun */
  get stopping(): boolean {
    return this.stopped !== null;
  }

  /** A part to quiet at the start of a stop, before the kernel drains (run last added first). */
  onStop(quiet: () => void): void {
    this.quiets.push(quiet);
  }

  /** A stop the bot decided itself (kill switch, halt): the exit code is `code` once it stopped. */
  request(reason: string, code: number, already?: CancelAllResult): void {
    void this.stop(reason, already).then(() => this.code.resolve(code));
  }

  /** Settle the exit code (the first one given wins). */
  exitWith(code: number): Promise<number> {
    this.code.resolve(code);
    return this.code.promise;
  }

  /** The stop under way: its reason, the step it waits on and for how long; null before a stop and once stopped. */
  progress(): StopProgress | null {
    const p = this.progressAt;
    if (!p) return null;
    const now = this.o.clock.now();
    return { reason: p.reason, step: p.step, stepMs: now - p.stepAt, stoppingMs: now - p.startedAt };
  }

  private step(step: string): void {
    if (this.progressAt) this.progressAt = { ...this.progressAt, step, stepAt: this.o.clock.now() };
  }

  /** Stop once: quiet, drain, cancel every order (unless `already` did), tear down; the cancel-all's result. */
  stop(reason: string, already?: CancelAllResult): Promise<CancelAllResult> {
    if (this.stopped) return this.stopped;
    const o = this.o;
    const now = o.clock.now();
    this.progressAt = { reason, step: 'quieting the feeds', stepAt: now, startedAt: now };
    this.stopped = (async () => {
      o.log.info({ reason }, 'stopping: cancelling every order');
      o.health.setProcess('stopping');
      for (let i = this.quiets.length - 1; i >= 0; i--) this.quiets[i]!();
      this.step('draining the orders already in flight');
      o.kernel.stop();
      await o.kernel.flush();
      this.step('cancelling every order at the venue (waiting for its answers)');
      const result = already && already.ok ? already : await o.orderManager.cancelAll();
      if (result.ok && o.afterCancel) await o.afterCancel();
      this.step('closing the ledger, the feeds and the venue connections');
      await o.life.teardown(o.log);
      o.refusals.drain(o.clock.now());
      o.health.setProcess('stopped');
      this.progressAt = null;
      o.log.info({ reason, cancelled: result.cancelled, endedBefore: result.endedBefore, remaining: result.remaining, ok: result.ok }, 'stopped');
      return result;
    })();
    return this.stopped;
  }
}
