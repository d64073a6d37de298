/** The output guard's counts (./output-guard.ts) as a metric of the running bot. */
import { Counter, type Registry } from 'prom-client';
import { outputFailures } from './output-guard.ts';

/** `bookmaker_output_write_failures_total{stream}`: writes of stdout / stderr (log lines) dropped since start. */
export function registerOutputMetrics(registry: Registry, prefix = 'bookmaker_', failures = outputFailures()): void {
  new Counter({
    name: `${prefix}output_write_failures_total`,
    help: 'Writes to stdout or stderr (log lines, summaries) dropped because the file behind them could not be written (a full disk)',
    labelNames: ['stream'],
    registers: [registry],
    collect() {
      this.reset();
      this.inc({ stream: 'stdout' }, failures.stdout);
      this.inc({ stream: 'stderr' }, failures.stderr);
    },
  });
}
