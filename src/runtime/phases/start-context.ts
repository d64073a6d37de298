/**
 * What every phase of the live start-up reads (src/runtime/bot.ts; docs/architecture.md#start-up-phases):
 * the options, the shard-scoped config, the venue and keys, the clock, the metrics registry and the one
 * lifecycle each phase adds its undo steps to. What a phase builds it returns; later phases take it as
 * an argument, so the order of the phases is the order of the calls in bot.ts.
 */
import type { Clock } from '../../core/clock.ts';
import type { Logger } from '../../core/logger.ts';
import type { BotConfig } from '../../config/types.ts';
import type { BotMetrics } from '../../metrics/bot-metrics.ts';
import type { BotOptions } from '../bot-options.ts';
import type { Lifecycle } from '../lifecycle.ts';
import type { VenueSetup } from '../venue-setup.ts';
import type { StartupStatus } from '../startup-status.ts';
import type { StartupWait } from '../startup-retry.ts';
import type { EarlyAdmin } from './admin.ts';

export interface StartContext {
  readonly o: BotOptions;
  /** the config as this instance runs it: a shard's reconcile scope is its markets (src/selection/shard.ts) */
  readonly cfg: BotConfig;
  readonly v: VenueSetup;
  readonly clock: Clock;
  /** the bot's logger (component bot); `o.logger` is the root the parts take */
  readonly log: Logger;
  readonly paper: boolean;
  readonly life: Lifecycle;
  /** the admin endpoint bound before start-up, when it runs */
  readonly early: EarlyAdmin | null;
  readonly metrics: BotMetrics;
  /** a stop request during start-up */
  readonly signal: AbortSignal | undefined;
  /** the start-up's deadline and what it waits for now (/readyz while starting) */
  readonly startup: StartupStatus;
}

/** The retry options of a start-up step: the clock, the log, the stop request and the start-up's deadline. */
export function retryOptions(c: StartContext): {
  clock: Clock;
  log: Logger;
  signal?: AbortSignal;
  deadlineAt: number;
  onWait: (w: StartupWait | null) => void;
} {
  return { clock: c.clock, log: c.log, ...(c.signal ? { signal: c.signal } : {}), deadlineAt: c.startup.deadlineAt, onWait: (w) => c.startup.waiting(w) };
}
