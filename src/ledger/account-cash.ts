/**
 * The account's collateral and holdings as the ledger's fills leave them since the baseline (issue
 * 21): what `ledger summary` shows as `cashUsdc` and `positions`, and what the books-equal-venue
 * checks compare with the venue's balance read.
 *
 *   const { cash, positions } = accountCash(ledger);
 *   venue collateral = baseline collateral + cash   (deposits, withdrawals and claims aside)
 *   venue tokens     = positions (every non-zero holding, per market and outcome)
 *
 * Each fill moves collateral by the venue's leg rule (src/engine/fill-math.ts legAmount): a buy pays
 * ⌈price·size⌉, a sale from inventory receives ⌊price·size⌋, and the part of a sale beyond the
 * tokens held mints complete sets, paying ⌈(1 − price)·size⌉ for them and leaving the other outcome
 * held; the fee is paid on top. Holdings start from the baseline's.
 */
import type { Ledger } from './ledger.ts';
import { notionalCeil, notionalFloor, ONE } from '../model/units.ts';

export interface AccountHolding {
  readonly marketId: string;
  readonly outcomeIndex: 0 | 1;
  /** 1e-6 shares */
  readonly shares: bigint;
}

export interface AccountCash {
  /** net collateral from trading and fees since the baseline, 1e-6 USDC (signed) */
  readonly cash: bigint;
  /** every non-zero holding, sorted by market then outcome */
  readonly positions: readonly AccountHolding[];
}

interface Row {
  market_id: string;
  outcome: number;
  side: number;
  price: number;
  size: number;
  fee: number;
}

export function accountCash(ledger: Ledger): AccountCash {
  const held = new Map<string, [bigint, bigint]>(); // [no, yes]
  const get = (id: string): [bigint, bigint] => {
    let h = held.get(id);
    if (!h) held.set(id, (h = [0n, 0n]));
    return h;
  };
  for (const x of ledger.baseline()?.holdings ?? []) get(x.marketId)[x.outcomeIndex === 1 ? 1 : 0] += x.shares;
  let cash = 0n;
  for (const r of ledger.db.prepare('SELECT market_id, outcome, side, price, size, fee FROM fills ORDER BY seq').iterate() as IterableIterator<Row>) {
    const h = get(r.market_id);
    const o = r.outcome === 1 ? 1 : 0;
    const size = BigInt(r.size);
    cash -= BigInt(r.fee);
    if (r.side === 0) {
      h[o] += size;
      cash -= BigInt(notionalCeil(r.price, r.size));
      continue;
    }
    const fromInventory = h[o] > 0n ? (h[o] < size ? h[o] : size) : 0n;
    const minted = size - fromInventory;
    h[o] -= fromInventory;
    if (fromInventory > 0n) cash += BigInt(notionalFloor(r.price, Number(fromInventory)));
    if (minted > 0n) {
      cash -= BigInt(notionalCeil(ONE - r.price, Number(minted)));
      h[1 - o]! += minted;
    }
  }
  const positions: AccountHolding[] = [];
  for (const id of [...held.keys()].sort()) {
    const h = held.get(id)!;
    if (h[1] !== 0n) positions.push({ marketId: id, outcomeIndex: 1, shares: h[1] });
    if (h[0] !== 0n) positions.push({ marketId: id, outcomeIndex: 0, shares: h[0] });
  }
  positions.sort((a, b) => a.marketId.localeCompare(b.marketId) || b.outcomeIndex - a.outcomeIndex);
  return { cash, positions };
}
