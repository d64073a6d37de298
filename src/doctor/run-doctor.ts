/**
 * `bookmaker doctor`: every check a first live start depends on, within a time budget.
 *
 *   const report = await runDoctor({ config, env, baseUrl?, apiKey?, keyFile?, metricsPort?, checkMs?, totalMs? });
 *   report.checks   // CheckResult[] in a fixed order; report.exitCode 0 (nothing failed) or 1
 *
 * Time budget: each venue check gets at most `checkMs` (default 5 s; it is also each HTTP attempt's
 * timeout, and nothing is retried), and the whole run at most `totalMs` (default 20 s). A check that
 * runs out of time fails with "not checked"; the checks that need its answer are reported as not
 * checked with the reason, so a venue that answers slowly or not at all still gets a full report.
 * The local checks (ledger, admin, metrics, limits) never wait on the venue.
 */
import { dirname, resolve } from 'node:path';
import { loadApiKey, loadPrivateKey, readApiKeyFile } from '../config/secrets.ts';
import { scrubSecrets } from '../core/logger.ts';
import type { BotConfig } from '../config/types.ts';
import { chainAddresses, chainByName } from '../exchange/chains.ts';
import type { MigrationStatus } from '../exchange/client/migration.ts';
import { createSigner, type Signer } from '../exchange/signing/signer.ts';
import { createVenueClient } from '../exchange/venue-client.ts';

import { fail, ok, warn, type CheckResult } from './check.ts';
import { checkAdmin, checkHolds, checkInheritedHistory, checkLedger, checkLimits, checkMetrics } from './local-checks.ts';
import type { Address } from '../model/order.ts';
import {
  checkClock,
  checkCollateral,
  collateralToMigrate,
  checkMarkets,
  checkMigration,
  checkTradePermission,
  checkVenue,
  checkWallet,
  describeError,
  readAccount,
  type SelectedMarkets,
  type VenueFacts,
} from './venue-checks.ts';

export const DEFAULT_CHECK_MS = 5_000;
export const DEFAULT_TOTAL_MS = 20_000;

/** The order checks are reported in (every run reports each of them once). */
export const CHECK_NAMES = [
  'config',
  'keys',
  'venue',
  'clock',
  'api-key',
  'wallet',
  'permissions',
  'migration',
  'markets',
  'collateral',
  'limits',
  'ledger',
  'holds',
  'admin',
  'metrics',
] as const;

export interface DoctorOptions {
  config: BotConfig;
  env?: NodeJS.ProcessEnv;
  baseUrl?: string;
  apiKey?: string;
  keyFile?: string;
  metricsPort?: number;
  /** per check (and per HTTP attempt), ms */
  checkMs?: number;
  /** the whole run, ms */
  totalMs?: number;
  now?: () => number;
}

export interface DoctorReport {
  readonly checks: CheckResult[];
  readonly exitCode: 0 | 1;
}

const notChecked = (name: string, why: string, fix: string): CheckResult => fail(name, `not checked: ${why}`, fix);

export async function runDoctor(o: DoctorOptions): Promise<DoctorReport> {
  const cfg = o.config;
  const env = o.env ?? process.env;
  const now = o.now ?? Date.now;
  const checkMs = o.checkMs ?? DEFAULT_CHECK_MS;
  const totalMs = o.totalMs ?? DEFAULT_TOTAL_MS;
  const endBy = now() + totalMs;
  const results = new Map<string, CheckResult>();
  const put = (r: CheckResult): void => void results.set(r.name, r);

  /** Run one check within min(checkMs, what is left of totalMs); out of time = failed, not checked. */
  /** A refinement of a check already made: within the budget, or nothing (the first result stands). */
  async function withinBudget<T>(f: () => Promise<T>): Promise<T | null> {
    const left = Math.min(checkMs, endBy - now());
    if (left <= 0) return null;
    let timer: NodeJS.Timeout | undefined;
    const out = await Promise.race([f().catch(() => null), new Promise<null>((r) => (timer = setTimeout(() => r(null), left)))]);
    clearTimeout(timer);
    return out;
  }

  async function timed<T>(name: string, f: () => Promise<T>, onTime: (v: T) => CheckResult | null): Promise<T | null> {
    const left = Math.min(checkMs, endBy - now());
    if (left <= 0) {
      put(notChecked(name, `the doctor's total budget of ${totalMs / 1000} s ran out`, 'rerun doctor when the venue answers faster, or raise --total-timeout'));
      return null;
    }
    let timer: NodeJS.Timeout | undefined;
    const out = await Promise.race([
      f().then(
        (v) => ({ v }),
        (e: unknown) => ({ e }),
      ),
      new Promise<'late'>((r) => (timer = setTimeout(() => r('late'), left))),
    ]);
    clearTimeout(timer);
    if (out === 'late') {
      put(
        notChecked(
          name,
          `no answer within ${left} ms (the per-check budget is ${checkMs / 1000} s)`,
          'check the network path to the venue and its status; rerun doctor, or raise --timeout',
        ),
      );
      return null;
    }
    if ('e' in out) {
      put(fail(name, `failed: ${describeError(out.e)}`, 'rerun doctor; if it persists, the venue is degraded'));
      return null;
    }
    const r = onTime(out.v);
    if (r) put(r);
    return out.v;
  }

  const embedded = cfg.venue.kind === 'local' && !o.baseUrl;
  const metricsPort = o.metricsPort ?? cfg.metrics.port;
  put(ok('config', `${cfg.file || '(inline)'}: valid; ${cfg.markets.length} market entr${cfg.markets.length === 1 ? 'y' : 'ies'}`));
  // local checks: they never wait on the venue
  const local = Promise.all([checkAdmin(cfg, env, metricsPort), checkMetrics(cfg, metricsPort)]).then((rs) => rs.forEach(put));
  put(checkLimits(cfg));
  put(checkLedger(cfg, embedded));
  put(checkHolds(cfg, embedded));

  const venueNames = ['venue', 'clock', 'api-key', 'wallet', 'permissions', 'migration', 'markets', 'collateral'] as const;
  if (embedded) {
    put(ok('keys', 'the embedded local exchange uses a throwaway wallet and a demo key'));
    put(
      ok(
        'venue',
        'embedded local exchange (no keys, no network): nothing at a venue to check; run doctor with --base-url (or a testnet/mainnet config) before going live',
      ),
    );
    for (const n of venueNames.slice(1)) put(ok(n, 'embedded local exchange: not applicable'));
    await local;
    return report(results);
  }

  const chain = chainByName(cfg.venue.chain);
  const baseUrl = o.baseUrl ?? (cfg.venue.kind === 'url' ? cfg.venue.baseUrl : chain.apiBase);
  // keys, as `bookmaker run` loads them (never printed: the logger's scrubber knows them)
  let apiKey: string | undefined;
  let signer: Signer | null = null;
  const keyProblems: string[] = [];
  try {
    apiKey = loadApiKey({ ...(o.apiKey !== undefined ? { apiKey: o.apiKey } : {}), env }) ?? readApiKeyFile(cfg.wallet.apiKeyFile, cfg.file);
    if (!apiKey) keyProblems.push('no API key (--api-key, BOOKMAKER_API_KEY or wallet.apiKeyFile)');
  } catch (e) {
    keyProblems.push((e as Error).message);
  }
  try {
    const keyFile = o.keyFile ?? (cfg.wallet.keyFile ? resolve(cfg.file ? dirname(cfg.file) : process.cwd(), cfg.wallet.keyFile) : undefined);
    signer = createSigner({ privateKey: loadPrivateKey({ ...(keyFile ? { keyFile } : {}), env }), chain });
  } catch (e) {
    keyProblems.push((e as Error).message);
  }
  if (keyProblems.length)
    put(
      fail(
        'keys',
        keyProblems.join('; '),
        'give the private key (BOOKMAKER_PRIVATE_KEY or --key-file, mode 0600) and the API key (--api-key, BOOKMAKER_API_KEY or wallet.apiKeyFile)',
      ),
    );
  else put(ok('keys', `private key of ${signer!.address} and an API key loaded (neither is printed)`));

  const client = createVenueClient({ baseUrl, chain, ...(apiKey ? { apiKey } : {}), timeoutMs: checkMs, retry: { maxAttempts: 1 } });
  try {
    const v = await timed(
      'venue',
      () => checkVenue(baseUrl, chain, checkMs, now),
      (x) => x.result,
    );
    const facts: VenueFacts | null = v?.facts ?? null;
    if (!v || v.result.result === 'fail') {
      const why = 'the venue check failed';
      for (const n of venueNames.slice(1)) put(notChecked(n, why, 'fix the venue check first'));
      await local;
      return report(results);
    }
    put(facts ? checkClock(facts, cfg) : warn('clock', 'not checked: no answer to read a Date header from', 'keep the host clock synchronised'));

    const account = (async (): Promise<MigrationStatus | null> => {
      if (!apiKey) {
        for (const n of ['api-key', 'wallet', 'permissions', 'migration']) put(notChecked(n, 'no API key', 'see the keys check'));
        return null;
      }
      const a = await timed(
        'api-key',
        () => readAccount(client),
        (x) => x.result,
      );
      const status = a?.status ?? null;
      if (!status) {
        for (const n of ['wallet', 'permissions', 'migration']) put(notChecked(n, 'the API key check failed', 'fix the api-key check first'));
        return null;
      }
      put(checkMigration(status, chain));
      if (!signer) {
        for (const n of ['wallet', 'permissions']) put(notChecked(n, 'no private key', 'see the keys check'));
        return status;
      }
      const w = checkWallet(status, signer);
      put(w);
      if (w.result === 'fail') put(notChecked('permissions', "the private key is not the API key wallet's", 'fix the wallet check first'));
      else
        await timed(
          'permissions',
          () => checkTradePermission(client, signer!),
          (r) => r,
        );
      return status;
    })();
    const markets = timed(
      'markets',
      () => checkMarkets(client, cfg, now),
      (x: SelectedMarkets) => x.result,
    );
    const [status, selected] = await Promise.all([account, markets]);
    const wallet = status?.walletAddress ?? null;
    if (!wallet) put(notChecked('collateral', 'no wallet to read (the api-key check failed)', 'fix the keys and api-key checks first'));
    else if (!selected || selected.entries.length === 0)
      put(notChecked('collateral', 'no market selected to size the limits against', 'fix the markets check first'));
    else
      await timed(
        'collateral',
        () => checkCollateral(client, wallet, selected.entries, collateralToMigrate(status, chain)),
        (r) => r,
      );
    // a new or emptied ledger on a wallet with venue history: `run` refuses it without --new-ledger
    const ledger = results.get('ledger');
    if (wallet && ledger?.result === 'ok') {
      // what the start-up migration brings over (restored orders, outcome tokens in the legacy Holdings) is history too
      const legacy =
        status !== null &&
        !status.migrationComplete &&
        (status.legacyOpenOrderCount > 0 ||
          status.pendingRestorations.length > 0 ||
          status.legacyBalances.some((b) => b.balance > 0n && b.token !== chainAddresses(chain).usdc));
      const inherited = await withinBudget(() => checkInheritedHistory(cfg, embedded, client, wallet as Address, legacy));
      if (inherited) put(inherited);
    }
  } finally {
    // a stalled connection must not hold the process: close, but do not wait long for it
    await Promise.race([client.close().catch(() => undefined), new Promise((r) => setTimeout(r, 500).unref())]);
  }
  await local;
  return report(results);
}

function report(results: Map<string, CheckResult>): DoctorReport {
  // a venue's message may echo what we sent (a key in an error text): every detail goes through the scrubber
  const checks = CHECK_NAMES.map((n) => results.get(n) ?? fail(n, 'not checked', 'a bug in bookmaker doctor: please report it')).map((c) => ({
    ...c,
    detail: scrubSecrets(c.detail),
    fix: scrubSecrets(c.fix),
  }));
  return { checks, exitCode: checks.some((c) => c.result === 'fail') ? 1 : 0 };
}
