/**
 * A wallet's holdings per (market, outcome): ledger balance, cost basis, mark value and claim
 * state — the rows every portfolio endpoint filters and shapes.
 */
import type { ExchangeState } from '../../context.ts';
import { internalsOf } from '../../internals.ts';
import type { MarketRecord } from '../../records.ts';
import type { LowerAddress } from '../../wire-ids.ts';
import { ONE } from '../../../model/units.ts';
import { averagePrice, basisKey, costBasis, netInvestment, type OutcomeBasis } from './cost-basis.ts';
import type { WalletLedger } from './wallet-ledger.ts';
import { claimedMarkets, claimOf } from '../../claims.ts';

export const OUTCOME_NAMES = ['No', 'Yes'] as const;

export interface HoldingRow {
  market: MarketRecord;
  outcomeIndex: 0 | 1;
  balance: bigint;
  basis: OutcomeBasis | undefined;
  /** mark of this outcome in 1e-6 units (payout after resolution), 0 when unknown */
  price: bigint;
  currentValue: bigint;
  netInvestment: bigint;
  avgPrice: bigint;
  resolved: boolean;
  /** payout per share of this outcome in 1e-6 once resolved */
  payout: bigint | null;
  claimable: bigint;
  /** tokens of this outcome redeemed by a claim (src/sim/claims.ts), 1e-6 shares */
  redeemed: bigint;
  /** the claim was the venue's auto-claim */
  autoclaimed: boolean;
}

/** Every (market, outcome) the wallet holds or has traded, sorted by market id then YES first. */
export function holdings(state: ExchangeState, ledger: WalletLedger, wallet: LowerAddress): HoldingRow[] {
  // the order service's per-trader index keeps this O(own orders), not O(all orders)
  const own = internalsOf(state).orders.ordersOf(wallet);
  const basis = costBasis(own, wallet);
  const balances = new Map<string, bigint>();
  for (const p of ledger.positions(wallet)) {
    balances.set(basisKey(p.marketId, 1), p.yes);
    balances.set(basisKey(p.marketId, 0), p.no);
  }
  const keys = new Set<string>([...basis.keys(), ...[...balances].filter(([, v]) => v > 0n).map(([k]) => k)]);
  for (const id of claimedMarkets(state, wallet)) {
    const c = claimOf(state, wallet, id)!;
    if (c.yes > 0n) keys.add(basisKey(id, 1));
    if (c.no > 0n) keys.add(basisKey(id, 0));
  }
  const rows: HoldingRow[] = [];
  for (const k of keys) {
    const [marketKey, o] = k.split(':') as [string, string];
    const market = state.stores.markets.get(marketKey);
    if (!market) continue;
    const outcomeIndex = (o === '1' ? 1 : 0) as 0 | 1;
    const balance = balances.get(k) ?? 0n;
    const mark = ledger.mark(market.id);
    const resolved = mark.payoutYes !== null;
    const payout = resolved ? BigInt(outcomeIndex === 1 ? mark.payoutYes! : ONE - mark.payoutYes!) : null;
    const yes = mark.yesMark;
    const price = payout ?? (yes === null ? 0n : BigInt(outcomeIndex === 1 ? yes : ONE - yes));
    const b = basis.get(k);
    const claim = claimOf(state, wallet, market.id);
    rows.push({
      market,
      outcomeIndex,
      balance,
      basis: b,
      price,
      currentValue: (balance * price) / BigInt(ONE),
      netInvestment: netInvestment(b, balance),
      avgPrice: averagePrice(b),
      resolved,
      payout,
      claimable: payout === null ? 0n : (balance * payout) / BigInt(ONE),
      redeemed: claim === undefined ? 0n : outcomeIndex === 1 ? claim.yes : claim.no,
      autoclaimed: claim?.auto === true,
    });
  }
  rows.sort((a, b) => (a.market.id < b.market.id ? -1 : a.market.id > b.market.id ? 1 : b.outcomeIndex - a.outcomeIndex));
  return rows;
}
