/** The migration phase of the live start-up (src/runtime/bot.ts): the start-up migration, live only. */
import type { Bytes32 } from '../../model/order.ts';
import { runStartupMigration } from '../../migration/startup-migration.ts';
import { retryStartupStep } from '../startup-retry.ts';
import { retryOptions, type StartContext } from './start-context.ts';
import type { VenuePhase } from './venue.ts';

/** Returns the nonces of the orders it restored (this wallet's, not another trader's: phases/wallet.ts). */
export async function migrationPhase(c: StartContext, { client, signer }: VenuePhase): Promise<ReadonlySet<Bytes32>> {
  if (!signer || c.paper) return new Set();
  // safe to re-run from the start (docs/venue.md#migration-to-settlement-v2): a transient failure midway retries the whole flow
  c.early?.controls.phase('migration');
  const report = await retryStartupStep(
    'start-up migration',
    () => runStartupMigration({ api: client.migration, signer, clock: c.clock, logger: c.o.logger, restore: 'restore' }),
    retryOptions(c),
  );
  c.log.info({ outcome: report.outcome, steps: report.steps }, 'start-up migration');
  return new Set(report.restoredNonces);
}
