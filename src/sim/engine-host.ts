/**
 * The local exchange's handle on the matching engine: maps bytes32 market ids and addresses to the
 * engine's small integer indices, applies every command through one door, and logs the commands
 * so the engine can be rebuilt exactly from a state file (the engine is deterministic for a given
 * command stream, so replaying the log reproduces books, balances and order ids). Ids and
 * addresses are kept lower-case (./wire-ids.ts); those read back from a file are normalised there.
 *
 * Engine events go to the `onEvent` handler given at construction; during a replay they are
 * muted, because the exchange's own stores are restored from the same file.
 */
import { bytes32Of } from '../model/ids.ts';
import type { Address, Bytes32 } from '../model/order.ts';
import type {
  Balance,
  CommandResult,
  Engine,
  EngineCommand,
  EngineEvent,
  EventSink,
  MarketConfig,
  MarketIndex,
  OrderId,
  Position,
  SubmitOrder,
  SubmitResult,
  TraderIndex,
} from '../engine/types.ts';
import { addressOf, mustAddress, mustBytes32, type LowerAddress } from './wire-ids.ts';

/** One replayable entry of the command log. */
export type HostLogEntry =
  | { t: 'market'; id: string; config: Partial<MarketConfig> }
  | { t: 'trader'; address: string }
  | { t: 'cmd'; cmd: EngineCommand }
  | { t: 'status'; market: number; status: 'open' | 'halted' };

export type EngineFactory = (sink: EventSink) => Engine;

/** The host's live state as plain data: the id mappings and the engine's own state. */
export interface HostStateData {
  marketIds: string[];
  traderAddrs: string[];
  engine: unknown;
}

export class EngineHost {
  engine: Engine;
  /** every change, live or replayed (a cheap "did anything change" mark) */
  changes = 0;
  /** called with every entry (the journal writes those made outside a request) */
  onEntry: ((e: HostLogEntry) => void) | undefined;
  private readonly sink: EventSink;
  private readonly marketByKey = new Map<Bytes32, MarketIndex>();
  private readonly marketIds: Bytes32[] = [];
  private readonly traderByKey = new Map<LowerAddress, TraderIndex>();
  private readonly traderAddrs: LowerAddress[] = [];
  readonly log: HostLogEntry[] = [];
  private muted = false;

  /**
   * `record: false` keeps no command log (nothing to replay without a state file), so a long
   * in-process run does not grow memory with every command.
   */
  constructor(
    factory: EngineFactory,
    onEvent: (e: EngineEvent) => void,
    private readonly record = true,
  ) {
    this.sink = (e) => {
      if (!this.muted) onEvent(e);
    };
    this.engine = factory(this.sink);
  }

  private push(e: HostLogEntry): void {
    this.changes++;
    if (this.record) this.log.push(e);
    if (this.onEntry) this.onEntry(e);
  }

  /** The live state as plain data (shares the engine's arrays: serialise before the next command). */
  exportState(exportEngine: (e: Engine) => unknown): HostStateData {
    return { marketIds: this.marketIds, traderAddrs: this.traderAddrs, engine: exportEngine(this.engine) };
  }

  /** Replace the engine and the mappings with saved state (`build` makes an engine from it with this host's sink). */
  loadState(d: HostStateData, build: (engineData: unknown, sink: EventSink) => Engine): void {
    if (!Array.isArray(d.marketIds) || !Array.isArray(d.traderAddrs)) throw new Error('engine host data: id lists missing');
    this.engine = build(d.engine, this.sink);
    this.marketByKey.clear();
    this.marketIds.length = 0;
    this.traderByKey.clear();
    this.traderAddrs.length = 0;
    // files written before ids were normalised hold checksummed addresses: normalised as read
    d.marketIds.forEach((raw, i) => {
      const id = mustBytes32(raw, `engine host data: market ${i}`);
      this.marketIds[i] = id;
      this.marketByKey.set(id, i);
    });
    d.traderAddrs.forEach((raw, i) => {
      const a = mustAddress(raw, `engine host data: trader ${i}`);
      this.traderAddrs[i] = a;
      this.traderByKey.set(a, i);
    });
  }

  /** Apply one journalled entry with events flowing (the stores follow, as they did live). */
  replayEntry(e: HostLogEntry): void {
    if (e.t === 'market') this.ensureMarket(mustBytes32(e.id, 'journal: market id'), e.config);
    else if (e.t === 'trader') this.ensureTrader(mustAddress(e.address, 'journal: trader'));
    else if (e.t === 'status') this.setMarketStatus(e.market, e.status);
    else if (e.cmd.type === 'expire') this.expire(e.cmd.nowMs);
    else this.apply(e.cmd);
  }

  /** Rebuild from a saved log, with events muted. */
  replay(entries: readonly HostLogEntry[]): void {
    this.muted = true;
    try {
      for (const e of entries) {
        if (e.t === 'market') this.ensureMarket(mustBytes32(e.id, 'engine log: market id'), e.config);
        else if (e.t === 'trader') this.ensureTrader(mustAddress(e.address, 'engine log: trader'));
        else if (e.t === 'status') this.setMarketStatus(e.market, e.status);
        else this.apply(e.cmd);
      }
    } finally {
      this.muted = false;
    }
  }

  ensureMarket(id: Bytes32, config: Partial<MarketConfig> = {}): MarketIndex {
    const have = this.marketByKey.get(id);
    if (have !== undefined) return have;
    const idx = this.engine.addMarket(config);
    this.marketByKey.set(id, idx);
    this.marketIds[idx] = id;
    this.push({ t: 'market', id, config });
    return idx;
  }

  marketIndex(id: Bytes32): MarketIndex | undefined {
    return this.marketByKey.get(id);
  }

  marketId(idx: MarketIndex): Bytes32 | undefined {
    return this.marketIds[idx];
  }

  /** The trader's index, added when new. Takes any spelling (benches, tools); a known address costs one lookup. */
  ensureTrader(address: LowerAddress | Address): TraderIndex {
    const have = this.traderByKey.get(address as LowerAddress);
    if (have !== undefined) return have;
    const a = mustAddress(address, 'trader');
    const known = this.traderByKey.get(a);
    if (known !== undefined) return known;
    const idx = this.engine.addTrader();
    this.traderByKey.set(a, idx);
    this.traderAddrs[idx] = a;
    this.push({ t: 'trader', address: a });
    return idx;
  }

  traderIndex(address: LowerAddress): TraderIndex | undefined {
    return this.traderByKey.get(address);
  }

  traderAddress(idx: TraderIndex): LowerAddress | undefined {
    return this.traderAddrs[idx];
  }

  /** Traders known to the engine (indices 0 … traderCount − 1). */
  get traderCount(): number {
    return this.traderAddrs.length;
  }

  /** Apply a command (logged for replay). */
  apply(cmd: EngineCommand): ReturnType<Engine['apply']> {
    this.push({ t: 'cmd', cmd });
    return this.engine.apply(cmd);
  }

  submit(order: SubmitOrder): SubmitResult {
    return this.apply({ type: 'submit', order }) as SubmitResult;
  }

  cancel(id: OrderId, nowMs: number): boolean {
    const r = this.apply({ type: 'cancel', id, nowMs }) as CommandResult | boolean;
    return typeof r === 'boolean' ? r : r.ok;
  }

  /** Expire due orders. Logged only when something expired, so idle timers do not grow the log. */
  expire(nowMs: number): number {
    const n = this.engine.expire(nowMs);
    if (n > 0) this.push({ t: 'cmd', cmd: { type: 'expire', nowMs } });
    return n;
  }

  deposit(trader: TraderIndex, amount: bigint): CommandResult {
    return this.apply({ type: 'deposit', trader, amount }) as CommandResult;
  }

  setMarketStatus(market: MarketIndex, status: 'open' | 'halted'): CommandResult {
    this.push({ t: 'status', market, status });
    return this.engine.setMarketStatus(market, status);
  }

  /** A wallet's balance, the address in any spelling (a query for tests and tools), undefined when unknown. */
  balance(address: string): Balance | undefined {
    const a = addressOf(address);
    const t = a === null ? undefined : this.traderIndex(a);
    return t === undefined ? undefined : this.engine.balance(t);
  }

  /** A wallet's position in a market, both in any spelling (a query for tests and tools), undefined when unknown. */
  position(address: string, marketId: string): Position | undefined {
    const a = addressOf(address);
    const id = bytes32Of(marketId);
    const t = a === null ? undefined : this.traderIndex(a);
    const m = id === null ? undefined : this.marketIndex(id);
    return t === undefined || m === undefined ? undefined : this.engine.position(t, m);
  }
}
