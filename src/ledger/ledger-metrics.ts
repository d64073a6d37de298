/**
 * The ledger's gauges, registered on the bot's registry and read at scrape time (nothing
 * on the hot path):
 *   bookmaker_kill_switch_latched         1 while the ledger holds a kill-switch latch
 *   bookmaker_ledger_records_written      records committed since start
 *   bookmaker_ledger_pending_records      records queued, not yet committed
 *   bookmaker_ledger_write_failures       failed transactions since start (the batch is retried)
 *   bookmaker_ledger_unwritable           1 while the bot is held because the ledger cannot be written
 *   bookmaker_ledger_problem_seconds      how long the ledger has been failing or gone (0 when fine)
 *   bookmaker_ledger_dropped_records      records dropped because the queue of failed writes overflowed
 */
import { Gauge, type Registry } from 'prom-client';
import type { BotLedger } from './bot-ledger.ts';
import type { LedgerWatch } from './ledger-watch.ts';

export function registerLedgerMetrics(registry: Registry, bl: BotLedger, prefix = 'bookmaker_', watch: () => LedgerWatch | null = () => null): void {
  const r = [registry];
  const gauge = (name: string, help: string, read: () => number): void => {
    new Gauge({
      name: `${prefix}${name}`,
      help,
      registers: r,
      collect() {
        this.set(read());
      },
    });
  };
  gauge('kill_switch_latched', '1 while the ledger holds a kill-switch latch (cleared only by bookmaker ctl clear-kill)', () => (bl.latch ? 1 : 0));
  gauge('ledger_records_written', 'Ledger records committed since start', () => bl.ledger.written);
  gauge('ledger_pending_records', 'Ledger records queued and not yet committed', () => bl.ledger.pending);
  gauge('ledger_write_failures', 'Ledger transactions that failed since start (their records are retried)', () => bl.ledger.failures);
  gauge('ledger_unwritable', '1 while every quote is pulled because the ledger cannot be written (health state ledger-unwritable)', () =>
    watch()?.down ? 1 : 0,
  );
  gauge('ledger_problem_seconds', 'Seconds the ledger has been failing writes or gone from its path (0 when writable)', () => bl.ledger.problemSeconds());
  gauge('ledger_dropped_records', 'Ledger records dropped because the queue of failed writes overflowed', () => bl.ledger.dropped);
}
