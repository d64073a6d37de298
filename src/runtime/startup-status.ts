/**
 * What the live start-up is doing, for /readyz before the bot is wired: the phase, the start-up's
 * deadline, and the venue call a step waits for (src/runtime/startup-retry.ts). With the watchdog on,
 * its thread owns the metrics socket from the first second and forwards /readyz and /metrics here:
 * they answer 503 with this body until the endpoints phase serves the running bot's answers.
 *
 *   const status = new StartupStatus(clock, deadlineMs);
 *   watchdog.serve(status.answer);   // 503 {"ready":false,"starting":true,"phase":"ledger","waitingFor":{…}}
 */
import type { Clock } from '../core/clock.ts';
import type { EndpointAnswer } from '../metrics/metrics-server.ts';
import type { StartupWait } from './startup-retry.ts';

/** `run --startup-deadline`'s default: the venue may fail transiently this long at start-up, ms */
export const DEFAULT_STARTUP_DEADLINE_MS = 300_000;

export class StartupStatus {
  readonly deadlineAt: number;
  private wait: StartupWait | null = null;

  constructor(
    private readonly clock: Clock,
    deadlineMs: number,
    /** the start-up phase now (the lifecycle's) */
    private readonly phase: () => string = () => 'venue',
  ) {
    this.deadlineAt = clock.now() + deadlineMs;
  }

  waiting(w: StartupWait | null): void {
    this.wait = w;
  }

  /** The body of /readyz while starting. */
  body(): Record<string, unknown> {
    const now = this.clock.now();
    const w = this.wait;
    return {
      ready: false,
      starting: true,
      phase: this.phase(),
      givesUpInSeconds: Math.max(0, Math.round((this.deadlineAt - now) / 1000)),
      ...(w
        ? {
            waitingFor: {
              step: w.step,
              reason: w.reason,
              ...(w.status !== undefined ? { status: w.status } : {}),
              ...(w.code !== undefined ? { code: w.code } : {}),
              ...(w.endpoint !== undefined ? { endpoint: w.endpoint } : {}),
              message: w.message,
              attempts: w.attempts,
              forSeconds: Math.round((now - w.since) / 1000),
            },
          }
        : {}),
    };
  }

  /** Every path answers 503 with the body while starting (the watchdog's forwarded requests). */
  readonly answer = (): Promise<EndpointAnswer> => Promise.resolve({ status: 503, type: 'application/json', body: JSON.stringify(this.body()) + '\n' });
}
