/**
 * The operator's holds on /metrics, read at scrape time:
 *   bookmaker_operator_halted          1 while an operator halt holds (bookmaker ctl halt; survives restarts)
 *   bookmaker_operator_paused_markets  markets paused by an operator (bookmaker ctl pause MARKET)
 *   bookmaker_admin_requests_refused_total  admin requests refused for a missing or wrong token
 */
import { Counter, Gauge, type Registry } from 'prom-client';
import type { QuotingKernel } from '../kernel/quoting-kernel.ts';
import type { BotControl } from './bot-control.ts';

export function registerControlMetrics(
  registry: Registry,
  kernel: Pick<QuotingKernel, 'halted'>,
  control: Pick<BotControl, 'pauses'>,
  prefix = 'bookmaker_',
  /** the admin endpoint's count of refused requests (absent: no endpoint runs, 0) */
  refused?: () => number,
): void {
  new Counter({
    name: `${prefix}admin_requests_refused_total`,
    help: 'Admin endpoint requests refused for a missing or wrong token (BOOKMAKER_ADMIN_TOKEN): something without the token is trying',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(refused ? refused() : 0);
    },
  });
  new Gauge({
    name: `${prefix}operator_halted`,
    help: '1 while an operator halt holds (bookmaker ctl halt; it survives restarts until bookmaker ctl resume)',
    registers: [registry],
    collect() {
      this.set(kernel.halted ? 1 : 0);
    },
  });
  new Gauge({
    name: `${prefix}operator_paused_markets`,
    help: 'Markets paused by an operator (bookmaker ctl pause MARKET; survives restarts until bookmaker ctl resume)',
    registers: [registry],
    collect() {
      this.set(control.pauses().length);
    },
  });
}
