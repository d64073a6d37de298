/**
 * The venue's auto-claim in the local exchange: `afterMs` after a market resolves, every wallet's
 * position in it is redeemed at the payout, as the venue's auto-claim does (docs/venue.md, claimState
 * `autoclaimed`; docs/local-exchange.md, "Resolution and claims").
 *
 *     const ac = startAutoClaim(ex, { afterMs: 30_000 });   // `bookmaker sim --auto-claim-after 30`, venue.local.autoClaimAfterSeconds
 *
 * Each claim is the exchange's `claimPosition(wallet, market, 'auto', now)` service, journalled like a
 * resolution: one record per wallet, so a state file restores it and a restart replays it. The schedule
 * holds no state of its own that a restart could lose: a pass claims, in every resolved market whose
 * resolution is `afterMs` old or older, each wallet the engine shows holding a token of it (YES or NO,
 * the losing side too: redeemed for 0 and shown `autoclaimed`). A claim journalled before a crash is
 * replayed at the restart and leaves nothing held, so the next pass finds nothing to claim there: no claim
 * runs twice; one lost with the crash (never written) is made again, once, at the first pass after it.
 * A market whose wallets were all claimed is remembered (in memory only) so later passes skip it.
 *
 * `step()` does one pass against the exchange clock; `startAutoClaim` runs it on the exchange's timer.
 * No wall clock is read here.
 */
import type { Bytes32 } from '../model/order.ts';
import type { LocalExchange } from './local-exchange.ts';

export interface AutoClaimOptions {
  /** ms from a market's resolution to its auto-claim (0 = at the first pass after it) */
  afterMs: number;
  /** ms between passes of `startAutoClaim` (default 500, at most `afterMs` when that is shorter, at least 20) */
  tickMs?: number;
}

export interface AutoClaimCounts {
  /** markets whose wallets were claimed by this instance (a restored exchange's earlier claims are not counted) */
  markets: number;
  /** claims made (one per wallet and market) */
  claims: number;
  /** 1e-6 USDC paid by them */
  paid: bigint;
}

export interface AutoClaim {
  /** one pass: claim every holder of every market resolved `afterMs` ago or more */
  step(): void;
  readonly counts: Readonly<AutoClaimCounts>;
  readonly afterMs: number;
}

/** ms from the resolution to the auto-claim, checked (a whole, non-negative number of ms up to a year). */
function checkAfter(ms: number): number {
  if (!Number.isSafeInteger(ms) || ms < 0 || ms > 365 * 86_400_000)
    throw new Error(`auto-claim: afterMs must be a whole number of ms from 0 to a year, got ${ms}`);
  return ms;
}

export function createAutoClaim(ex: LocalExchange, opts: AutoClaimOptions): AutoClaim {
  const { state } = ex;
  const afterMs = checkAfter(opts.afterMs);
  const counts: AutoClaimCounts = { markets: 0, claims: 0, paid: 0n };
  /** resolved markets whose holders were all claimed (or had none): skipped by later passes */
  const done = new Set<Bytes32>();

  function claimMarket(m: { id: Bytes32 }, now: number): void {
    const host = state.engine;
    const idx = host.marketIndex(m.id);
    if (idx === undefined) return;
    // by trader index: the same order live and in a restarted exchange
    for (let t = 0; t < host.traderCount; t++) {
      const p = host.engine.position(t, idx);
      if (p.yes === 0n && p.no === 0n) continue;
      const wallet = host.traderAddress(t);
      if (wallet === undefined) continue;
      counts.paid += state.services.claimPosition(wallet, m.id, 'auto', now);
      counts.claims++;
    }
    counts.markets++;
  }

  function step(): void {
    const now = state.clock.now();
    for (const m of state.stores.markets.values()) {
      if (m.status !== 'resolved' || done.has(m.id)) continue;
      if (m.resolvedAt === null || now < m.resolvedAt + afterMs) continue;
      claimMarket(m, now);
      done.add(m.id);
    }
  }

  return { step, counts, afterMs };
}

/** Create the auto-claim and run it on the exchange clock (every `tickMs`). */
export function startAutoClaim(ex: LocalExchange, opts: AutoClaimOptions): AutoClaim {
  const ac = createAutoClaim(ex, opts);
  const tick = opts.tickMs ?? Math.max(20, Math.min(500, ac.afterMs));
  ex.every(tick, ac.step);
  return ac;
}

/** The auto-claim's delay as a config or the CLI gives it (seconds; null = off), in whole ms. */
export function autoClaimAfterMs(seconds: number | null): number | null {
  return seconds === null ? null : Math.round(seconds * 1000);
}
