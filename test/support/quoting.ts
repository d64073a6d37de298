/**
 * Fixtures of the quoting path for tests and benches: the bands strategy's configs, risk limits that
 * never bind, and a one-level book snapshot as the stream delivers it.
 *
 * The helpers that take a module (`unboundedRisk(DEFAULT_RISK)`) work with the modules a bench loads
 * from another checkout (`--base DIR`), as well as with this tree's.
 */
import type { Bytes32 } from '../../src/model/order.ts';
import type { StateEvent } from '../../src/state/events.ts';

/** The bands strategy with one band a side: 1–3¢ from mid, 10 shares (parse it at path 'strategy'). */
export const ONE_BAND = { fair: 'mid', bands: [{ minMargin: 0.01, targetMargin: 0.02, maxMargin: 0.03, size: 10 }] };

/** The bands strategy with two bands a side: `near` shares at 1–3¢ from mid, `far` at 3–7¢ (the benches' tick). */
export function twoBands(near = 10, far = 20) {
  return {
    fair: 'mid',
    bands: [
      { minMargin: 0.01, targetMargin: 0.02, maxMargin: 0.03, size: near },
      { minMargin: 0.03, targetMargin: 0.05, maxMargin: 0.07, size: far },
    ],
  };
}

/**
 * `defaults` (DEFAULT_RISK) with limits that never bind: position, notional, order size, book age,
 * stream silence and order rate; `o` sets any of them back (a bench measures the path, not the limits).
 */
export function unboundedRisk<R extends object>(defaults: R, o: Record<string, unknown> = {}): R {
  return {
    ...defaults,
    maxPosition: 1e12,
    maxNotional: 1e12,
    maxOrderSize: 1e12,
    maxBookAgeMs: 1e9,
    maxStreamSilenceMs: 1e9,
    orderRate: { capacity: 1e12, refillPerSecond: 1e12 },
    ...o,
  };
}

/** A stream snapshot of `marketId`'s YES book: one bid and one ask of `size` (100 shares by default). */
export function topOfBook(marketId: Bytes32, bid: number, ask: number, ts: number, size = 100_000_000): StateEvent {
  return {
    type: 'BookEventReceived',
    event: {
      type: 'snapshot',
      book: { marketId, outcomeIndex: 1, bids: [{ price: bid, size }], asks: [{ price: ask, size }], venueTs: ts },
      seq: 1,
      localTs: ts,
      source: 'stream',
    },
    ts,
  };
}

/** A fill of no order of ours (nonce null) on `marketId`, as a feed reports it. */
export function anyFill(marketId: Bytes32, outcomeIndex: 0 | 1, side: 0 | 1, price: number, size: number, ts: number, fillId: string, fee = 0): StateEvent {
  return { type: 'OrderFilled', marketId, nonce: null, outcomeIndex, side, price, size, fee, fillId, ts };
}

/** A balance read of `marketId`'s holdings (YES and NO shares, micro-units). */
export function positionRead(marketId: Bytes32, yes: number, no: number, ts: number): StateEvent {
  return { type: 'PositionSynced', marketId, yes, no, ts };
}

/**
 * The benches' quoting kernel, from `mods` (this tree's modules, or a base checkout's): the bands
 * strategy on every market of `marketIds` with `o.params` (two bands a side unless given) and `o.risk`
 * (limits that never bind unless given), no requote or housekeeping timer unless `o` sets one; the rest
 * of `o` (clock, venue, store, order manager, meters) goes to the kernel as it is.
 */
export function benchKernel<O extends object, K>(
  mods: { QuotingKernel: new (opts: O) => K; bands: { parseConfig(raw: unknown, path: string): unknown }; DEFAULT_RISK: object },
  marketIds: readonly string[],
  o: Partial<O> & { params?: unknown; risk?: object },
): K {
  const { params, risk, ...more } = o;
  const p = params ?? mods.bands.parseConfig(twoBands(), 'bench');
  const r = risk ?? unboundedRisk(mods.DEFAULT_RISK);
  const markets = marketIds.map((marketId) => ({ marketId, strategy: mods.bands, params: p, risk: r }));
  return new mods.QuotingKernel({ requoteIntervalMs: 0, housekeepingMs: 0, markets, ...more } as O);
}
