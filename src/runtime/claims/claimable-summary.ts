/**
 * The venue's claimable positions (`GET /portfolio/:address/claimable`) → one line per resolved
 * market this instance answers for: what one share of each outcome pays, the shares held and the
 * amount claimable, all in exact integer units. Pure: no clock, no I/O.
 *
 * A wallet shared by several instances (shards) reports every instance's markets; `owns` keeps this
 * instance's, so the fleet's figures add up without double counting.
 */
import type { Claimable } from '../../exchange/client/portfolio.ts';
import type { Bytes32 } from '../../model/order.ts';

export interface ClaimableMarketSummary {
  /** lower-case market id */
  readonly marketId: Bytes32;
  /** what one YES share pays, 1e-6 USDC (null when the venue did not say) */
  readonly payoutYes: bigint | null;
  /** what one NO share pays, 1e-6 USDC (null when the venue did not say) */
  readonly payoutNo: bigint | null;
  /** shares held, 1e-6 shares */
  readonly yesShares: bigint;
  readonly noShares: bigint;
  /** claimable now, 1e-6 USDC */
  readonly claimable: bigint;
}

export interface ClaimableSummary {
  /** by market id, sorted */
  readonly markets: readonly ClaimableMarketSummary[];
  /** Σ claimable of `markets`, 1e-6 USDC */
  readonly total: bigint;
}

export function summarizeClaimable(c: Claimable, owns: (marketId: Bytes32) => boolean): ClaimableSummary {
  const byId = new Map<string, { payoutYes: bigint | null; payoutNo: bigint | null; yes: bigint; no: bigint; claimable: bigint }>();
  const entry = (id: string) => {
    let e = byId.get(id);
    if (!e) byId.set(id, (e = { payoutYes: null, payoutNo: null, yes: 0n, no: 0n, claimable: 0n }));
    return e;
  };
  for (const m of c.markets) {
    const id = m.id;
    if (!owns(id)) continue;
    const e = entry(id);
    // payouts are by outcome index: 0 = NO, 1 = YES (binary markets)
    e.payoutNo = m.payouts[0] ?? null;
    e.payoutYes = m.payouts[1] ?? null;
  }
  for (const p of c.positions) {
    const id = p.marketId;
    if (!owns(id)) continue;
    const e = entry(id);
    if (p.outcomeIndex === 1) e.yes += p.balance;
    else e.no += p.balance;
    e.claimable += p.claimableAmount;
  }
  let total = 0n;
  const markets: ClaimableMarketSummary[] = [];
  for (const id of [...byId.keys()].sort()) {
    const e = byId.get(id)!;
    total += e.claimable;
    markets.push({ marketId: id as Bytes32, payoutYes: e.payoutYes, payoutNo: e.payoutNo, yesShares: e.yes, noShares: e.no, claimable: e.claimable });
  }
  return { markets, total };
}
