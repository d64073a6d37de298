/**
 * Inherited inventory: the first start of a ledger on a wallet that already holds tokens
 * or has order history. Such a ledger cannot explain what the wallet holds, so it either refuses to
 * start (nothing would be lost silently) or, with `run --new-ledger`, adopts the holdings at the
 * current mark as its baseline: PnL starts at 0 and only what happens from then on counts.
 *
 *   const h = await readVenueHistory(client, trader, { marks: true });
 *   if (hasHistory(h) && !newLedger) throw refusal(path, trader, h);
 *   ledger.adoptBaseline(baselineOf(h, now));
 *   baselinePositions(ledger.baseline())   // Map<marketId, PositionState> the books start from
 *
 * The mark of a holding is the mid of its market's book when both sides quote, else the one side
 * that does, else the payout of a resolved market; a holding with none is adopted at cost 0 and
 * logged (its value then shows as PnL at the first mark).
 */
import type { BalanceSource } from '../feeds/account-feed.ts';
import { ConfigError } from '../model/errors.ts';
import type { Address, Bytes32, VenueOrder } from '../model/order.ts';
import { ONE } from '../model/units.ts';
import type { BookSnapshot } from '../model/book.ts';
import type { ListOrdersParams } from '../exchange/client/orders-read.ts';
import { FLAT, type PositionState } from '../state/position.ts';
import type { Baseline, BaselineHolding } from './ledger.ts';

export interface HistorySource extends BalanceSource {
  orders: { iterate(p: Omit<ListOrdersParams, 'cursor'>): AsyncGenerator<VenueOrder> };
  markets?: { orderbook(id: string, o?: { outcomeIndex?: 0 | 1; depth?: number }): Promise<{ status: 200; book: BookSnapshot } | { status: 304 }> };
}

export interface VenueHistory {
  /** the collateral balance, 1e-6 USDC */
  readonly collateral: bigint;
  /** every non-zero outcome-token holding */
  readonly holdings: readonly { readonly marketId: Bytes32; readonly outcomeIndex: 0 | 1; readonly shares: bigint }[];
  /** the wallet has placed at least one order */
  readonly hasOrders: boolean;
  /** a scoped read stopped at its bound (HISTORY_SCAN_ORDERS) without an order of the instance's markets */
  readonly bounded?: boolean;
}

/** orders a scoped history read looks through at most (newest first) */
export const HISTORY_SCAN_ORDERS = 2_000;

/**
 * What the venue holds for the wallet. With `owns` (an instance scoped to some markets of a shared
 * wallet: shards, orders.reconcileScope markets) only the holdings and orders of its markets count:
 * a sibling instance's trading is not this ledger's history. The orders are then read newest first,
 * at most `maxOrders` (default HISTORY_SCAN_ORDERS), for one in a market it owns; `bounded` says when that bound
 * ended the search without one (logged by the caller).
 */
export async function readVenueHistory(
  client: HistorySource,
  trader: Address,
  o: { owns?: (marketId: Bytes32) => boolean; maxOrders?: number } = {},
): Promise<VenueHistory> {
  const s = await client.balance.summary(trader);
  const owns = o.owns;
  const holdings = s.outcomeTokens
    .filter((t) => t.balance > 0n && (owns === undefined || owns(t.marketId)))
    .map((t) => ({ marketId: t.marketId, outcomeIndex: t.outcomeIndex, shares: t.balance }))
    .sort((a, b) => a.marketId.localeCompare(b.marketId) || a.outcomeIndex - b.outcomeIndex);
  let hasOrders = false;
  let bounded = false;
  if (owns === undefined) {
    for await (const _ of client.orders.iterate({ trader, limit: 1 })) {
      hasOrders = true;
      break;
    }
  } else {
    let n = 0;
    for await (const v of client.orders.iterate({ trader, limit: 100 })) {
      if (owns(v.marketId)) {
        hasOrders = true;
        break;
      }
      if (++n >= (o.maxOrders ?? HISTORY_SCAN_ORDERS)) {
        bounded = true;
        break;
      }
    }
  }
  return { collateral: s.usdc.settlementBalance > 0n ? s.usdc.settlementBalance : s.usdc.balance, holdings, hasOrders, ...(bounded ? { bounded } : {}) };
}

export const hasHistory = (h: VenueHistory): boolean => h.hasOrders || h.holdings.length > 0;

/** The start-up refusal (exit 2): what a fresh ledger would lose, and the flag that accepts it. */
export function refusal(path: string, trader: Address, h: VenueHistory, why: 'new' | 'empty'): ConfigError {
  const shown = h.holdings.slice(0, 5).map((x) => `${(Number(x.shares) / 1e6).toFixed(6)} ${x.outcomeIndex === 1 ? 'YES' : 'NO'} of ${x.marketId}`);
  const what = [
    h.holdings.length > 0
      ? `${h.holdings.length} holding(s) in ${new Set(h.holdings.map((x) => x.marketId)).size} market(s) (${shown.join(', ')}${h.holdings.length > 5 ? ', …' : ''})`
      : null,
    h.hasOrders ? 'the order and fill history of its earlier runs' : null,
  ]
    .filter((x) => x !== null)
    .join(' and ');
  return new ConfigError(
    `ledger ${path} is ${why === 'new' ? 'new (no file was there)' : 'empty (no start-up recorded in it)'} but wallet ${trader} has history at the venue: ${what}. ` +
      'Starting would lose those books (their cost, PnL and fills) and count the holdings as profit. ' +
      'If the ledger was moved or deleted, restore it (or point ledger.path at it); to start new books that adopt the current holdings at the current marks as the baseline (PnL from 0), run with --new-ledger.',
  );
}

/** The YES-terms mark of a market: mid, else the one quoted side, else null. */
async function yesMark(client: HistorySource, marketId: string): Promise<number | null> {
  if (!client.markets) return null;
  try {
    const r = await client.markets.orderbook(marketId, { outcomeIndex: 1, depth: 1 });
    if (r.status !== 200) return null;
    const bid = r.book.bids[0]?.price;
    const ask = r.book.asks[0]?.price;
    if (bid !== undefined && ask !== undefined) return Math.round((bid + ask) / 2);
    return bid ?? ask ?? null;
  } catch {
    return null;
  }
}

/** The baseline of a history: each holding at its outcome's mark now. */
export async function baselineOf(client: HistorySource, h: VenueHistory, at: number): Promise<Baseline> {
  const marks = new Map<string, number | null>();
  for (const x of h.holdings) if (!marks.has(x.marketId)) marks.set(x.marketId, await yesMark(client, x.marketId));
  const holdings: BaselineHolding[] = h.holdings.map((x) => {
    const y = marks.get(x.marketId) ?? null;
    return { marketId: x.marketId, outcomeIndex: x.outcomeIndex, shares: x.shares, mark: y === null ? null : x.outcomeIndex === 1 ? y : ONE - y };
  });
  return { at, collateral: h.collateral, holdings };
}

/**
 * The positions a baseline starts the books from: per market the holdings, in YES terms net at the
 * adopted mark (a complete set, one YES and one NO, is worth 1 USDC whatever the mark: no basis).
 */
export function baselinePositions(b: Baseline | null): Map<string, PositionState> {
  const out = new Map<string, PositionState>();
  if (!b) return out;
  const by = new Map<string, { yes: bigint; no: bigint; yesMark: number | null }>();
  for (const x of b.holdings) {
    const e = by.get(x.marketId) ?? { yes: 0n, no: 0n, yesMark: null };
    if (x.outcomeIndex === 1) e.yes += x.shares;
    else e.no += x.shares;
    if (x.mark !== null) e.yesMark = x.outcomeIndex === 1 ? x.mark : ONE - x.mark;
    by.set(x.marketId, e);
  }
  for (const [id, e] of by) {
    const net = e.yes - e.no;
    out.set(id, { ...FLAT, yes: Number(e.yes), no: Number(e.no), net: Number(net), basis: net * BigInt(e.yesMark ?? 0) });
  }
  return out;
}
