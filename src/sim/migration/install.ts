/**
 * Wires the migration state machine into a local exchange: creates (or keeps, after a state restore)
 * the persisted data under `state.ext.migration`, seeds the legacy accounts, and installs the trading
 * guard that answers 409 MIGRATION_REQUIRED to order creation for wallets that still need migrating.
 *
 * Call once per exchange, after its markets exist (seeds reference market ids):
 *     installMigration(state, { legacyAccounts: [...], tokensPerChunk: 2 })
 */
import { checksumOf } from '../checksum.ts';
import { extData, type ExchangeState } from '../context.ts';
import { eip55, keccakText } from '../../exchange/signing/text-hash.ts';
import { HttpError } from '../http-errors.ts';
import type { Address, Bytes32, OutcomeIndex, VoidReason } from '../../model/order.ts';
import { emptyMigrationData, type MigrationData } from './migration-data.ts';
import { isTradingBlocked, operatorState } from './migration-machine.ts';
import { addressOf, mustAddress, type LowerAddress } from '../wire-ids.ts';
import { demoLegacyAccounts, seedLegacyAccount, type DemoLegacyAccount, type LegacyAccountSeed, type TokenDirectory } from './legacy-seeds.ts';

export const MIGRATION_EXT_KEY = 'migration';

export interface MigrationOptions {
  /** the venue-wide migration switch (default true, as on the venue today) */
  active?: boolean;
  /** tokens per funds-migration chunk (default 2, so a seeded account needs several chunks) */
  tokensPerChunk?: number;
  /** the sponsored relayer (BatchWithdraw `to`); default derived from the exchange seed */
  relayer?: Address;
  sponsoredAvailable?: boolean;
  legacyAccounts?: LegacyAccountSeed[];
  /** additionally derive this many demo legacy accounts from the seed (default 0) */
  demoLegacyAccounts?: number;
}

/** The throwaway demo accounts created by the last install, for `bookmaker sim` to print. */
const demoAccounts = new WeakMap<ExchangeState, DemoLegacyAccount[]>();
/** A wallet whose order placement is part of restore-orders, so the guard lets it through. */
const bypass = new WeakMap<ExchangeState, LowerAddress>();

export function tokenDirectory(state: ExchangeState): TokenDirectory {
  return {
    usdc: state.chain.usdc,
    outcomeToken(marketId: Bytes32, outcomeIndex: OutcomeIndex) {
      const m = state.services.market(marketId);
      return m && checksumOf(m.outcomeTokens[outcomeIndex]);
    },
  };
}

/** The migration data of an exchange (created inactive-empty if never installed). */
export function migrationData(state: ExchangeState): MigrationData {
  return extData(state, MIGRATION_EXT_KEY, () => emptyMigrationData({ active: false, tokensPerChunk: 2, relayer: defaultRelayer(state.settings.seed) }));
}

export function defaultRelayer(seed: number): Address {
  return eip55('0x' + keccakText(`bookmaker-sim-relayer:${seed}`).slice(26));
}

/** States whose trading guard is installed (one guard per exchange, however often install runs). */
const guarded = new WeakSet<ExchangeState>();

/**
 * Install (or extend) migration on an exchange. Idempotent: the first call creates the data — unless
 * it was restored from a state file — and the guard; later calls apply the options they give
 * explicitly and seed only the legacy accounts not present yet, so a test can add accounts to an
 * exchange whose start-up already installed migration.
 */
export function installMigration(state: ExchangeState, opts: MigrationOptions = {}): { demoAccounts: DemoLegacyAccount[] } {
  let data = state.ext[MIGRATION_EXT_KEY] as MigrationData | undefined;
  if (!data) {
    data = emptyMigrationData({
      active: opts.active ?? true,
      tokensPerChunk: opts.tokensPerChunk ?? 2,
      relayer: opts.relayer ?? defaultRelayer(state.settings.seed),
      sponsoredAvailable: opts.sponsoredAvailable ?? true,
    });
    state.ext[MIGRATION_EXT_KEY] = data;
  } else {
    if (opts.active !== undefined) data.active = opts.active;
    if (opts.tokensPerChunk !== undefined) data.tokensPerChunk = opts.tokensPerChunk;
    if (opts.relayer !== undefined) data.relayer = opts.relayer;
    if (opts.sponsoredAvailable !== undefined) data.sponsoredAvailable = opts.sponsoredAvailable;
  }
  const nowSec = Math.floor(state.clock.now() / 1000);
  const tokens = tokenDirectory(state);
  // a seed not yet present, or one whose wallet is not an address (seedLegacyAccount then names the field)
  const fresh = (wallet: string) => {
    const key = addressOf(wallet);
    return key === null || data.wallets[key] === undefined;
  };
  (opts.legacyAccounts ?? []).forEach((a, i) => {
    if (fresh(a.wallet)) seedLegacyAccount(data, a, tokens, nowSec, `legacyAccounts[${i}]`);
  });
  let demos: DemoLegacyAccount[] = [];
  if (opts.demoLegacyAccounts) {
    const marketIds = [...state.stores.markets.values()].map((m) => m.id);
    demos = demoLegacyAccounts(state.settings.seed, opts.demoLegacyAccounts, marketIds);
    demos.forEach((d, i) => {
      if (fresh(d.account.wallet)) seedLegacyAccount(data, d.account, tokens, nowSec, `demoLegacyAccounts[${i}]`);
    });
    demoAccounts.set(state, demos);
  }
  if (!guarded.has(state)) {
    guarded.add(state);
    state.tradingGuards.push(migrationGuard(state));
  }
  return { demoAccounts: demos };
}

/** The 409 rule as a trading guard: creates are refused while the wallet needs migrating; cancels pass. */
function migrationGuard(state: ExchangeState) {
  return (trader: LowerAddress, operation: 'create' | 'cancel'): void => {
    if (operation !== 'create') return;
    if (bypass.get(state) === trader) return;
    if (isTradingBlocked(migrationData(state), trader)) {
      throw new HttpError(409, 'MIGRATION_REQUIRED', 'migration required: this wallet has legacy balances, legacy orders or pending restorations', {
        extra: { migrationRequired: true },
      });
    }
  };
}

export function installedDemoAccounts(state: ExchangeState): DemoLegacyAccount[] {
  return demoAccounts.get(state) ?? [];
}

/** Is trading blocked for this wallet by the migration rule? (a query for tests and tools: any spelling) */
export function isWalletTradingBlocked(state: ExchangeState, wallet: string): boolean {
  return isTradingBlocked(migrationData(state), mustAddress(wallet, 'wallet'));
}

/** Run `fn` with the migration guard lifted for `wallet` (restore-orders places orders this way). */
export function withGuardBypass<T>(state: ExchangeState, wallet: LowerAddress, fn: () => T): T {
  bypass.set(state, wallet);
  try {
    return fn();
  } finally {
    bypass.delete(state);
  }
}

/**
 * Settlement V2 must be an approved operator of the trader's new Holdings, or the venue voids the order
 * on arrival (MISSING_OPERATOR_APPROVAL): a seeded legacy wallet has no approval until its funds
 * migration grants it, and any wallet can revoke it (POST /gasless/operator with approved false).
 */
export function missingOperatorApproval(state: ExchangeState) {
  return (trader: LowerAddress): VoidReason | null => {
    // read only: no migration data yet means no legacy wallet and no approval changed (all approved)
    const data = state.ext[MIGRATION_EXT_KEY] as MigrationData | undefined;
    return data === undefined || operatorState(data, 2, trader).approved ? null : 'MISSING_OPERATOR_APPROVAL';
  };
}
