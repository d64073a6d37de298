/**
 * What this run traded, per market, from the store's events (live fills from the feeds and paper
 * fills from the paper venue alike): fills, shares, notional and fees, de-duplicated by fill id so a
 * fill reported by two feeds counts once. Integer units only (shares 1e-6, notional 1e-12 USDC as
 * bigint so it stays exact, fees 1e-6 USDC).
 *
 *   const ledger = new RunLedger(); const stop = ledger.bind(store);
 *   ledger.fills            // ReadonlyMap<market id, fill count> (the summary's column)
 *   ledger.market(id)       // { fills, shares, notional12, fees }
 */
import type { StateEvent } from '../state/events.ts';
import type { StateStore } from '../state/store.ts';
import type { Bytes32 } from '../model/order.ts';

export interface MarketLedger {
  fills: number;
  /** shares filled, 1e-6 */
  shares: number;
  /** Σ size × price, 1e-12 USDC (exact) */
  notional12: bigint;
  /** fees paid, 1e-6 USDC */
  fees: number;
}

const SEEN_PER_MARKET = 20_000;

export class RunLedger {
  private readonly byMarket = new Map<Bytes32, MarketLedger>();
  private readonly seen = new Map<Bytes32, Set<string>>();
  readonly fills = new Map<Bytes32, number>();

  bind(store: StateStore): () => void {
    const sub = store.changes$.subscribe(({ events }) => {
      for (const e of events) this.apply(e);
    });
    return () => sub.unsubscribe();
  }

  apply(e: StateEvent): void {
    if (e.type !== 'OrderFilled') return;
    const k = e.marketId;
    if (e.fillId !== undefined) {
      let seen = this.seen.get(k);
      if (!seen) this.seen.set(k, (seen = new Set()));
      if (seen.has(e.fillId)) return;
      if (seen.size >= SEEN_PER_MARKET) seen.delete(seen.values().next().value as string);
      seen.add(e.fillId);
    }
    let m = this.byMarket.get(k);
    if (!m) this.byMarket.set(k, (m = { fills: 0, shares: 0, notional12: 0n, fees: 0 }));
    m.fills++;
    m.shares += e.size;
    m.notional12 += BigInt(e.size) * BigInt(e.price);
    m.fees += e.fee;
    this.fills.set(k, m.fills);
  }

  /**
   * A retired market left the bot (market rotation): its fill ids and summary column go; its figures
   * are returned (the caller keeps them for the end-of-run report) and dropped here.
   */
  forget(marketId: Bytes32): MarketLedger {
    const m = this.market(marketId);
    this.byMarket.delete(marketId);
    this.seen.delete(marketId);
    this.fills.delete(marketId);
    return m;
  }

  /** Per-market entries held now (tests: nothing left behind after retirements). */
  get heldMarketState(): number {
    return this.byMarket.size + this.seen.size + this.fills.size;
  }

  market(marketId: Bytes32): MarketLedger {
    return this.byMarket.get(marketId) ?? { fills: 0, shares: 0, notional12: 0n, fees: 0 };
  }
}
