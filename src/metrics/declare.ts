/**
 * Metrics declared in one line each on a registry, under a name prefix:
 *
 *   const d = declareOn(registry, 'bookmaker_');
 *   d.counter('fills_total', 'Own fills', ['market', 'side']);
 *   d.readGauge('ready', '1 when …', () => (source ? 1 : undefined));
 *
 * `readGauge` is set at scrape time from a read of the bot's state (nothing on the hot path); a read
 * that answers `undefined` leaves the gauge as it was (no source yet).
 */
import { Counter, Gauge, type Registry } from 'prom-client';

export interface Declare {
  counter<L extends string = never>(name: string, help: string, labelNames?: readonly L[]): Counter<L>;
  gauge<L extends string = never>(name: string, help: string, labelNames?: readonly L[]): Gauge<L>;
  readGauge(name: string, help: string, read: () => number | undefined): Gauge;
}

export function declareOn(registry: Registry, prefix: string): Declare {
  const registers = [registry];
  return {
    counter: (name, help, labelNames = []) => new Counter({ name: prefix + name, help, labelNames, registers }),
    gauge: (name, help, labelNames = []) => new Gauge({ name: prefix + name, help, labelNames, registers }),
    readGauge: (name, help, read) =>
      new Gauge({
        name: prefix + name,
        help,
        registers,
        collect() {
          const v = read();
          if (v !== undefined) this.set(v);
        },
      }),
  };
}
