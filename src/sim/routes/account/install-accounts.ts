/**
 * One call that prepares an exchange for the account routes: quotas and timings, the migration state
 * machine with its seeded legacy accounts, and the 409 trading guard. Call it once per exchange after
 * the markets exist (legacy seeds reference market ids), before serving:
 *
 *     installAccounts(state, { migration: { legacyAccounts: [...] }, accounts: { mintsPerHour: 100 } })
 *
 * The route modules themselves (balance, portfolio, gasless, migration, questions in this folder)
 * register through `register(router)` like every other route module.
 */
import type { ExchangeState } from '../../context.ts';
import { installMigration, type MigrationOptions } from '../../migration/install.ts';
import type { DemoLegacyAccount } from '../../migration/legacy-seeds.ts';
import { configureAccounts, type AccountOptions } from './account-options.ts';

export interface AccountsSetup {
  migration?: MigrationOptions;
  accounts?: Partial<AccountOptions>;
}

export function installAccounts(state: ExchangeState, setup: AccountsSetup = {}): { demoAccounts: DemoLegacyAccount[] } {
  configureAccounts(state, setup.accounts ?? {});
  return installMigration(state, setup.migration ?? {});
}
