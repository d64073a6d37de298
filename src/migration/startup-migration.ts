/**
 * Start-up migration (docs/venue.md#migration-to-settlement-v2): before quoting, bring the wallet onto
 * Settlement V2 so the venue's 409 trading rule no longer applies.
 *
 * Entry point:
 *   const report = await runStartupMigration({ api, signer, clock, logger, restore: 'restore' });
 *   // resolves once trading is allowed; throws MigrationError when it cannot get there.
 * `api` is the HTTP client's migration calls (src/exchange/client/migration.ts) bound to a context,
 * `signer` the wallet's Signer (src/exchange/signing/signer.ts); both are injected so tests use fakes.
 *
 * Steps, each gated on a fresh status read so an interrupted run can simply be run again:
 *   1. status: nothing to do when migration is inactive or this wallet is complete;
 *   2. start (canStart) — retires the legacy orders;
 *   3. funds (canMigrateFunds with a plan, and no sponsored migration already under way): one shared
 *      deadline now + 3600 s, a BatchWithdraw per chunk on the legacy Holdings domain (to = the
 *      sponsored relayer, random uint128 nonce each), one OperatorApproval for Settlement V2 on the
 *      new Holdings domain (nonce = newHoldingsOperatorNonce); one chunk → single body, several →
 *      chunks[] (the client builds the body);
 *   4. retired orders: restored as V2 limit orders with their legacy nonce, expiry and maxFee
 *      (setting 'restore'), or dismissed ('dismiss'); drafts that expired or failed to restore are
 *      dismissed so the wallet is not left blocked;
 *   5. poll the status until trading is allowed (bounded), re-running steps that become possible.
 */
import { randomBytes } from 'node:crypto';
import type { Clock } from '../core/clock.ts';
import { silentLogger, type Logger } from '../core/logger.ts';
import type {
  MigrateFundsInput,
  MigrateFundsResult,
  MigrationAuthorization,
  MigrationStatus,
  PendingRestoration,
  RestoreItemResult,
  StartMigrationResult,
} from '../exchange/client/migration.ts';
import type { Signer } from '../exchange/signing/signer.ts';
import { BookmakerError } from '../model/errors.ts';
import type { Address, Bytes32, CreateOrderBody } from '../model/order.ts';
import { restorationBody } from './restoration-body.ts';

/** The client's migration calls; `createVenueClient(...).migration` satisfies it as is. */
export interface MigrationApi {
  status(address?: Address): Promise<MigrationStatus>;
  start(opts: { address?: Address; authorization?: MigrationAuthorization }): Promise<StartMigrationResult>;
  migrateFunds(input: MigrateFundsInput): Promise<MigrateFundsResult>;
  restoreOrders(
    restorations: { legacyOrderId: number; order: CreateOrderBody }[],
    address?: Address,
  ): Promise<{ restoredCount: number; failedCount: number; results: RestoreItemResult[] }>;
  dismissOrders(opts: { address?: Address; authorization?: MigrationAuthorization; legacyOrderIds?: number[] }): Promise<{ dismissedCount: number }>;
}

export type MigrationSigner = Pick<Signer, 'address' | 'signBatchWithdraw' | 'signOperatorApproval' | 'signOrderBody' | 'signMigrationAuthorization'>;

export interface MigrationOptions {
  api: MigrationApi;
  signer: MigrationSigner;
  clock: Clock;
  logger?: Logger;
  /** what to do with retired legacy orders (default 'restore') */
  restore?: 'restore' | 'dismiss';
  /** act for this wallet instead of the API key's (signs the EIP-191 authorization for start/dismiss) */
  address?: Address;
  /** status polling while waiting for trading to be allowed (default 2 000 ms, at most 300 000 ms) */
  pollIntervalMs?: number;
  maxWaitMs?: number;
  /** a draft expiring within this many seconds is dismissed instead of restored (default 60) */
  minRemainingLifeSec?: number;
  random?: (n: number) => Uint8Array;
}

export interface MigrationReport {
  readonly outcome: 'not-needed' | 'completed';
  /** the steps taken, in order, e.g. ['status', 'start', 'migrate-funds', 'restore-orders', 'ready'] */
  readonly steps: readonly string[];
  readonly retired: number;
  readonly fundsChunks: number;
  readonly restored: number;
  readonly dismissed: number;
  readonly failedRestorations: number;
  /** the nonces of the orders restored (their legacy nonces): this wallet's orders, whoever placed them before */
  readonly restoredNonces: readonly Bytes32[];
}

export class MigrationError extends BookmakerError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('MIGRATION_REQUIRED', message, options);
  }
}

/** Trading is allowed once the migration window is closed or this wallet has nothing left to do. */
export function tradingAllowed(s: MigrationStatus): boolean {
  return !s.migrationActive || s.migrationComplete;
}

const IN_PROGRESS = /^(pending|submitted|processing|queued|in[_-]?progress)$/i;

function fundsUnderWay(s: MigrationStatus): boolean {
  const st = s.sponsoredFundsMigrationStatus?.status;
  return st !== undefined && IN_PROGRESS.test(st);
}

function fundsNeeded(s: MigrationStatus): boolean {
  return s.canMigrateFunds && (s.fundsMigrationPlan?.chunks.length ?? 0) > 0 && !fundsUnderWay(s);
}

/** Restorations still waiting for us (the venue lists pending and failed ones). */
function outstanding(s: MigrationStatus): PendingRestoration[] {
  return s.pendingRestorations.filter((r) => r.status !== 'restored' && r.status !== 'dismissed');
}

/** What keeps the funds migration from being signed and submitted (empty when nothing does). */
function fundsBlockers(st: MigrationStatus): string[] {
  return [
    !st.sponsoredFundsMigrationAvailable && 'sponsored funds migration unavailable',
    !st.sponsoredRelayerAddress && 'no sponsored relayer address',
    st.newHoldingsOperatorNonce === null && 'no new Holdings operator nonce',
    !st.settlementV2Address && 'no Settlement V2 address',
  ].filter((x): x is string => typeof x === 'string');
}

/**
 * What runStartupMigration would do from this status, without doing it (`bookmaker doctor`): the
 * steps in order (none when trading is allowed) and what would stop it (null when nothing would).
 */
export function migrationPreview(s: MigrationStatus, restore: 'restore' | 'dismiss' = 'restore'): { steps: string[]; blocker: string | null } {
  if (tradingAllowed(s)) return { steps: [], blocker: null };
  const steps: string[] = [];
  if (s.canStart)
    steps.push(
      `start (retires ${s.legacyOpenOrderCount} legacy open order(s), then ${restore === 'restore' ? 'restores them as V2 orders or dismisses' : 'dismisses'} them)`,
    );
  const chunks = s.fundsMigrationPlan?.chunks.length ?? 0;
  let blocker: string | null = null;
  if (fundsUnderWay(s)) steps.push(`wait for the sponsored funds migration under way (${s.sponsoredFundsMigrationStatus?.status})`);
  else if (s.canMigrateFunds && chunks > 0) {
    const missing = fundsBlockers(s);
    if (missing.length > 0) blocker = `cannot migrate funds: ${missing.join(', ')}`;
    else steps.push(`migrate funds (${chunks} chunk(s), sponsored) and approve Settlement V2 as operator`);
  }
  const pending = outstanding(s).length;
  if (pending > 0) steps.push(`${restore === 'restore' && s.canRestoreOrders ? 'restore' : 'dismiss'} ${pending} retired order(s)`);
  if (steps.length === 0 && blocker === null) steps.push('wait for the venue to complete the migration (polls the status for up to 5 minutes)');
  return { steps, blocker };
}

/** A random uint128 as a decimal string (16 CSPRNG bytes, big-endian). */
export function randomUint128(random: (n: number) => Uint8Array = randomBytes): string {
  return BigInt('0x' + Buffer.from(random(16)).toString('hex')).toString();
}

export async function runStartupMigration(opts: MigrationOptions): Promise<MigrationReport> {
  const log = (opts.logger ?? silentLogger).child({ component: 'migration' });
  const { api, signer, clock } = opts;
  const steps: string[] = [];
  const tally = { retired: 0, fundsChunks: 0, restored: 0, dismissed: 0, failedRestorations: 0, restoredNonces: [] as Bytes32[] };
  const nowSec = (): number => Math.floor(clock.now() / 1000);
  const authorization = (action: 'start' | 'dismiss-orders', ids: readonly number[] = []): { address?: Address; authorization?: MigrationAuthorization } => {
    if (!opts.address) return {};
    const a = signer.signMigrationAuthorization({ action, legacyOrderIds: ids }, nowSec());
    return { address: opts.address, authorization: { deadline: a.deadline, signature: a.signature } };
  };
  const step = (name: string, detail: Record<string, unknown> = {}): void => {
    steps.push(name);
    log.info({ step: name, ...detail }, `migration: ${name}`);
  };

  let s = await api.status(opts.address);
  step('status', { active: s.migrationActive, complete: s.migrationComplete, legacyOpenOrders: s.legacyOpenOrderCount });
  if (tradingAllowed(s)) {
    step('not-needed');
    return { outcome: 'not-needed', steps, ...tally };
  }

  const deadline = clock.now() + (opts.maxWaitMs ?? 300_000);
  for (;;) {
    if (s.canStart) {
      const r = await api.start(authorization('start'));
      tally.retired += r.retiredCount;
      step('start', { retired: r.retiredCount, restorable: r.restorableCount });
      s = await api.status(opts.address);
    }
    if (fundsNeeded(s)) {
      await submitFunds(s);
      s = await api.status(opts.address);
    }
    if (outstanding(s).length > 0 && (s.canRestoreOrders || s.canDismissOrders)) {
      await handleRestorations(s);
      s = await api.status(opts.address);
    }
    if (tradingAllowed(s)) break;
    if (clock.now() >= deadline) {
      throw new MigrationError(
        `migration did not complete in time: canStart=${s.canStart} canMigrateFunds=${s.canMigrateFunds} fundsStatus=${s.sponsoredFundsMigrationStatus?.status ?? 'none'} ` +
          `v2OperatorApproved=${s.v2OperatorApproved} pendingRestorations=${outstanding(s).length} legacyOpenOrders=${s.legacyOpenOrderCount}`,
      );
    }
    step('wait', { fundsStatus: s.sponsoredFundsMigrationStatus?.status ?? null });
    await sleep(clock, opts.pollIntervalMs ?? 2000);
    s = await api.status(opts.address);
  }
  step('ready');
  return { outcome: 'completed', steps, ...tally };

  async function submitFunds(st: MigrationStatus): Promise<void> {
    const plan = st.fundsMigrationPlan!;
    const missing = fundsBlockers(st);
    if (missing.length > 0) throw new MigrationError(`cannot migrate funds: ${missing.join(', ')}`);
    const shared = nowSec() + 3600;
    const random = opts.random ?? randomBytes;
    const batchWithdraws = plan.chunks.map((chunk) => {
      const w = signer.signBatchWithdraw({ to: st.sponsoredRelayerAddress!, tokens: chunk.tokens, nonce: randomUint128(random), deadline: shared });
      return { nonce: w.nonce, deadline: w.deadline, signature: w.signature };
    });
    const op = signer.signOperatorApproval({
      nonce: st.newHoldingsOperatorNonce!,
      deadline: shared,
      approved: true,
      settlementVersion: 2,
      operator: st.settlementV2Address!,
    });
    const res = await api.migrateFunds({
      ...(opts.address ? { address: opts.address } : {}),
      batchWithdraws,
      setOperator: { nonce: op.nonce, deadline: op.deadline, signature: op.signature },
    });
    tally.fundsChunks += batchWithdraws.length;
    step('migrate-funds', { chunks: batchWithdraws.length, txHash: res.txHash, v2OperatorApproved: res.v2OperatorApproved });
  }

  async function handleRestorations(st: MigrationStatus): Promise<void> {
    const list = outstanding(st);
    const minLife = opts.minRemainingLifeSec ?? 60;
    const toDismiss: number[] = [];
    const toRestore: { legacyOrderId: number; order: CreateOrderBody }[] = [];
    for (const [i, r] of list.entries()) {
      const expiry = Number(r.draft.expiry);
      const restorable =
        (opts.restore ?? 'restore') === 'restore' && r.status !== 'failed' && st.canRestoreOrders && Number.isFinite(expiry) && expiry - nowSec() > minLife;
      if (!restorable) {
        toDismiss.push(r.legacyOrderId);
        continue;
      }
      try {
        toRestore.push({
          legacyOrderId: r.legacyOrderId,
          order: signer.signOrderBody(restorationBody(r.draft, signer.address, `pendingRestorations[${i}].draft`)),
        });
      } catch (err) {
        log.warn(
          { legacyOrderId: r.legacyOrderId, err: err instanceof Error ? err.message : String(err) },
          'migration: draft cannot be restored; dismissing it',
        );
        toDismiss.push(r.legacyOrderId);
      }
    }
    for (let i = 0; i < toRestore.length; i += 50) {
      const res = await api.restoreOrders(toRestore.slice(i, i + 50), opts.address);
      tally.restored += res.restoredCount;
      tally.failedRestorations += res.failedCount;
      const sent = toRestore.slice(i, i + 50);
      for (const r of res.results) {
        if (r.success) {
          const nonce = sent.find((x) => x.legacyOrderId === r.legacyOrderId)?.order.nonce;
          if (nonce) tally.restoredNonces.push(nonce.toLowerCase() as Bytes32);
          continue;
        }
        log.warn({ legacyOrderId: r.legacyOrderId, error: r.error }, 'migration: the venue refused to restore an order; dismissing it');
        toDismiss.push(r.legacyOrderId);
      }
      step('restore-orders', { restored: res.restoredCount, failed: res.failedCount });
    }
    if (toDismiss.length > 0 && st.canDismissOrders) {
      const ids = [...new Set(toDismiss)].sort((a, b) => a - b);
      const res = await api.dismissOrders({ ...authorization('dismiss-orders', ids), legacyOrderIds: ids });
      tally.dismissed += res.dismissedCount;
      step('dismiss-orders', { dismissed: res.dismissedCount });
    }
  }
}

function sleep(clock: Clock, ms: number): Promise<void> {
  return new Promise((r) => clock.setTimeout(r, ms));
}
