/**
 * Starts an in-process local exchange for the account and conformance tests: a manual clock (so
 * submissions and deadlines move only when a test says so), no background timers, migration
 * installed with the test's legacy accounts, the account routes configured, and signers for every
 * key with a known private key.
 */
import { asyncScheduler } from 'rxjs';
import type { Clock } from '../../../src/core/clock.ts';
import { TESTNET } from '../../../src/exchange/chains.ts';
import { createSigner, type Signer } from '../../../src/exchange/signing/signer.ts';
import type { Address } from '../../../src/model/order.ts';
import { createLocalExchange, type ApiKeySpec, type LocalExchange } from '../../../src/sim/local-exchange.ts';
import type { MigrationOptions } from '../../../src/sim/migration/install.ts';
import type { AccountOptions } from '../../../src/sim/routes/account/account-options.ts';
import { installAccounts } from '../../../src/sim/routes/account/install-accounts.ts';
import * as questions from '../../../src/sim/routes/account/questions.ts';
import { caller, closeCaller, type Call } from '../conformance/http-client.ts';

export interface ManualClock extends Clock {
  advance(ms: number): void;
}

export function manualClock(startMs = Date.UTC(2026, 10, 21, 10, 0, 0)): ManualClock {
  let t = startMs;
  return {
    now: () => t,
    scheduler: asyncScheduler,
    // timers never fire on their own: tests advance time explicitly
    setTimeout: () => () => undefined,
    advance(ms) {
      t += ms;
    },
  };
}

export interface Harness {
  ex: LocalExchange;
  baseUrl: string;
  call: Call;
  clock: ManualClock;
  /** signer of an API key's wallet (demo keys carry their private key) */
  signerOf(key: string): Signer;
  walletOf(key: string): Address;
  close(): Promise<void>;
}

export interface HarnessOptions {
  apiKeys: ApiKeySpec[];
  /** private keys of wallets given explicitly in apiKeys, by API key */
  privateKeys?: Record<string, `0x${string}`>;
  migration?: MigrationOptions;
  accounts?: Partial<AccountOptions>;
  markets?: number;
  initialCollateral?: bigint;
  seed?: number;
  /** the exchange's per-key token bucket (default: practically unlimited) */
  rateLimit?: { capacity: number; refillPerSecond: number };
}

export async function startHarness(o: HarnessOptions): Promise<Harness> {
  const clock = manualClock();
  const ex = createLocalExchange({
    seed: o.seed ?? 7,
    apiKeys: o.apiKeys,
    markets: o.markets ?? 2,
    clock,
    expirySweepMs: 0,
    initialCollateral: o.initialCollateral ?? 1_000_000_000n,
    rateLimit: o.rateLimit ?? { capacity: 100_000, refillPerSecond: 100_000 },
  });
  installAccounts(ex.state, { migration: o.migration ?? {}, accounts: o.accounts ?? {} });
  // mount the question routes if the exchange's module list does not (yet) include them
  if (!ex.router.list().some((r) => r.path === '/questions')) questions.register(ex.router);
  const baseUrl = await ex.start(0);
  const signers = new Map<string, Signer>();
  const signerOf = (key: string): Signer => {
    let s = signers.get(key);
    if (!s) {
      const rec = ex.state.keys.get(key);
      const pk = o.privateKeys?.[key] ?? rec?.privateKey;
      if (!pk) throw new Error(`no private key for API key ${key}`);
      s = createSigner({ privateKey: pk, chain: TESTNET, now: () => Math.floor(clock.now() / 1000) });
      signers.set(key, s);
    }
    return s;
  };
  const call = caller(baseUrl);
  return {
    ex,
    baseUrl,
    call,
    clock,
    signerOf,
    walletOf: (key) => ex.state.keys.get(key)!.wallet,
    async close() {
      await closeCaller(call);
      await ex.close();
    },
  };
}

/** The status fields of `GET /account/migration` a single-chunk funds migration is signed from. */
export interface MigrationStatus {
  sponsoredRelayerAddress: Address;
  newHoldingsOperatorNonce: string;
  fundsMigrationPlan: { chunks: { tokens: { token: Address; amount: string }[] }[] };
}

/** The single-chunk `migrate-funds` body for `status`'s first chunk: the batch withdraw and the operator approval, signed by `s`. */
export function migrateFundsBody(s: Signer, status: MigrationStatus) {
  const bw = s.signBatchWithdraw({ to: status.sponsoredRelayerAddress, tokens: status.fundsMigrationPlan.chunks[0]!.tokens });
  const op = s.signOperatorApproval({ nonce: status.newHoldingsOperatorNonce });
  return {
    batchWithdraw: { nonce: bw.nonce, deadline: bw.deadline, signature: bw.signature },
    setOperator: { nonce: op.nonce, deadline: op.deadline, signature: op.signature },
  };
}

/** The `market` draft of `POST /questions/agent-submit`: a valid objective question ending 2027-01-01; `o` overrides fields. */
export function agentDraft(o: Record<string, string> = {}): Record<string, string> {
  return {
    formattedQuestion: 'Q?',
    shortQuestion: 'Q',
    marketType: 'OBJECTIVE',
    evidenceMode: 'web_enabled',
    resolutionCriteria: 'c',
    endTime: '2027-01-01 00:00:00',
    ...o,
  };
}
