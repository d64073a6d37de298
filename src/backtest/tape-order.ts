/**
 * Orders of the tape: the synthetic counterparty that stands for the recorded market participants.
 * The queue model decides when and how much of our resting order a recorded trade or a crossing book
 * fills; the tape then trades exactly that with us in the matching engine, so the engine books the
 * ledger, fees, match kind and V2 limits of the fill itself. For a take on arrival, the tape rests
 * the recorded levels for our order to hit.
 *
 * Which order the tape sends: it sells tokens it holds (SELL_INVENTORY) when it has enough, and
 * otherwise buys the other side (a BUY of the complementary outcome). That keeps its inventory
 * small, needs no minted sets, and lets every match kind happen: our buy against its buy mints a
 * set, our inventory sale against its inventory sale merges one, the rest are transfers. Its limits
 * never bind: fee cap = the fill's whole collateral, no minimum proceeds.
 */
import type { SubmitOrder } from '../engine/types.ts';
import { OrderKind } from '../model/order.ts';
import { notionalCeil, ONE } from '../model/units.ts';

export interface TapeOrderSpec {
  readonly market: number;
  readonly trader: number;
  /** the tape's side of the YES book: 'ask' to trade with our bids */
  readonly side: 'bid' | 'ask';
  /** YES-terms price */
  readonly yesPrice: number;
  readonly size: number;
  /** tokens the tape could sell now: YES for an ask, NO for a bid */
  readonly inventory: bigint;
  /** 0 GTC (a resting level for a take), 1 IOC (a fill of our resting order) */
  readonly timeInForce: 0 | 1;
  readonly nowMs: number;
}

export function tapeOrder(s: TapeOrderSpec): SubmitOrder {
  const sell = s.inventory >= BigInt(s.size);
  // an ask is SELL YES or BUY NO; a bid is BUY YES or SELL NO (docs/local-exchange.md)
  const outcome: 0 | 1 = (s.side === 'ask') === sell ? 1 : 0;
  const price = outcome === 1 ? s.yesPrice : ONE - s.yesPrice;
  const cap = notionalCeil(price, s.size) + 1;
  return {
    market: s.market,
    trader: s.trader,
    outcome,
    kind: sell ? OrderKind.SELL_INVENTORY : OrderKind.BUY,
    price,
    maxShares: sell ? s.size : 0,
    minSharesOut: sell ? 0 : s.size,
    maxCollateralIn: sell ? 0 : 2 * cap,
    minCollateralOut: 0,
    maxFee: cap,
    timeInForce: s.timeInForce,
    nowMs: s.nowMs,
  };
}
