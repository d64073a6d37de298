/** A MarketView builder for tests: sensible defaults, override what a case needs. */
import { viewBook } from '../../src/strategy/view-book.ts';
import type { MarketView, ViewLevel } from '../../src/strategy/types.ts';
import type { Bytes32 } from '../../src/model/order.ts';

export const MARKET = ('0x' + 'ab'.repeat(32)) as Bytes32;
export const NOW = 1_800_000_000_000;
export const S = 1_000_000;

export interface ViewOverrides extends Partial<Omit<MarketView, 'position'>> {
  bids?: ViewLevel[];
  asks?: ViewLevel[];
  net?: number;
  yes?: number;
  no?: number;
}

export function makeView(o: ViewOverrides = {}): MarketView {
  const { bids, asks, net, yes, no, ...rest } = o;
  const y = yes ?? Math.max(0, net ?? 0);
  const n = no ?? Math.max(0, -(net ?? 0));
  const book =
    bids || asks
      ? viewBook(bids ?? [], asks ?? [], NOW - 100, NOW - 100)
      : viewBook([{ price: 480_000, size: 100 * S }], [{ price: 520_000, size: 100 * S }], NOW - 100, NOW - 100);
  return {
    marketId: MARKET,
    tick: 10_000,
    minSize: S,
    deadline: NOW + 7 * 86_400_000,
    status: 'active',
    now: NOW,
    book,
    streamLastEventAt: NOW - 50,
    trades: [],
    midHistory: [],
    position: { yes: y, no: n, net: y - n, avgEntry: null },
    quotes: [],
    oracle: null,
    pnl: { realised: 0, unrealised: 0 },
    account: { collateral: 1_000_000_000n, pnl: 0, worstCasePosition: 0, worstCaseNotional: 0 },
    venue: { requests: 0, errors: 0, windowMs: 60_000 },
    flags: {},
    ...rest,
  };
}
