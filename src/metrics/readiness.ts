/**
 * The bot's readiness checks, shared by /readyz and the `bookmaker_ready` gauge.
 *
 * Entry point: `botReadiness({ orderManager, state, clock, markets, staleMs, halted? })` → a
 * function returning `{ feedsLive, reconciled, notHalted }`:
 * - feedsLive: every quoted market's book stream produced an event within `staleMs`;
 * - reconciled: the order manager reconciled with the venue at least once;
 * - notHalted: neither the order manager nor the runtime (kill switch) stopped quoting;
 * - killSwitchClear (when `killSwitchLatched` is given): no kill-switch latch stands in the ledger.
 */
import type { Clock } from '../core/clock.ts';
import type { Bytes32 } from '../model/order.ts';
import type { StoreState } from '../state/market-state.ts';

export interface ReadinessSources {
  orderManager: { readonly reconciled: boolean; readonly isHalted: boolean };
  state: () => StoreState;
  clock: Clock;
  /** the markets the bot quotes */
  markets: () => readonly Bytes32[];
  /** a book stream silent longer than this is not live */
  staleMs: number;
  /** the runtime's own halt (kill switch), if any */
  halted?: () => boolean;
  /**
   * the kill-switch latch is set in the ledger: an earlier run's kill switch, not yet
   * cleared by `bookmaker ctl clear-kill`. Reported as its own check, `killSwitchClear`.
   */
  killSwitchLatched?: () => boolean;
}

export function botReadiness(src: ReadinessSources): () => { feedsLive: boolean; reconciled: boolean; notHalted: boolean; killSwitchClear?: boolean } {
  return () => {
    const state = src.state();
    const now = src.clock.now();
    const feedsLive = src.markets().every((id) => {
      const last = state.markets.get(id)?.streamLastEventAt;
      return last !== undefined && last !== null && now - last <= src.staleMs;
    });
    return {
      feedsLive,
      reconciled: src.orderManager.reconciled,
      notHalted: !src.orderManager.isHalted && !(src.halted?.() ?? false),
      ...(src.killSwitchLatched ? { killSwitchClear: !src.killSwitchLatched() } : {}),
    };
  };
}
