/**
 * The markets the feeds follow, from the start-up's selection until rotation takes over
 * (src/runtime/bot.ts). The feeds, the ledger's ownership and the readiness read the lists from the
 * select phase on; the rotation phase hands over its live lists (BotMarkets), and from then on every
 * answer is theirs: added and retiring markets, and released ones still holding a position.
 *
 *   const lists = new MarketLists(marketIds);
 *   lists.known(id)          // a start-up market
 *   lists.follow(botMarkets) // rotation is wired: its lists answer from here on
 */
import type { Bytes32 } from '../../model/order.ts';

/** What rotation's lists answer (src/runtime/rotation/bot-markets.ts). */
export interface FollowedMarkets {
  /** quoted and retiring markets (a live list) */
  readonly ids: readonly Bytes32[];
  /** quoted, retiring and retained markets */
  tracked(): readonly Bytes32[];
  known(id: Bytes32): boolean;
  retain(id: Bytes32): void;
}

export class MarketLists {
  private lists: FollowedMarkets | null = null;
  // a set, not a scan of the list: every feed event asks (2,000 markets × 2,000 deltas/s made the scan a fifth of a core)
  private readonly startIds: Set<Bytes32>;

  constructor(private readonly start: readonly Bytes32[]) {
    this.startIds = new Set(start);
  }

  /** Rotation is wired: its lists answer from here on. */
  follow(lists: FollowedMarkets): void {
    this.lists = lists;
  }

  /** quoted and retiring markets (the feeds read this at every poll) */
  readonly live = (): readonly Bytes32[] => this.lists?.ids ?? this.start;

  /** quoted, retiring and retained markets: whose positions, fills and resolution the feeds follow */
  readonly tracked = (): readonly Bytes32[] => this.lists?.tracked() ?? this.start;

  /** a market the bot follows now (quoted, retiring, or a released one still holding a position) */
  readonly known = (id: Bytes32): boolean => (this.lists ? this.lists.known(id) : this.startIds.has(id));

  /** an event of a market no longer followed changed its state: follow its position again (rotation only) */
  retain(id: Bytes32): void {
    this.lists?.retain(id);
  }
}
