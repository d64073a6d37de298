/**
 * The core of a bands bot (2 bands a side, unbounded risk) loaded from a checkout, and the still 10-level
 * books it quotes on: the world of the balance-read and market-memory benches, built the same way from
 * this tree and from `--base DIR`.
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { inTree } from './lib.ts';
import { twoBands, unboundedRisk } from '../support/quoting.ts';

export type Mod = any;

/** Imports `path` of the checkout at `root`. */
export const load = (root: string, path: string): Promise<Mod> => import(pathToFileURL(resolve(root, inTree(root, path))).href);

/** The bands strategy, the kernel, store, fake venue and clock of `root`, with the params and risk every market gets. */
export async function loadBandsCore(
  root: string,
): Promise<Record<'bands' | 'DEFAULT_RISK' | 'QuotingKernel' | 'StateStore' | 'FakeVenue' | 'ManualClock' | 'params' | 'risk', Mod>> {
  const [{ default: bands }, { DEFAULT_RISK }, { QuotingKernel }, { StateStore }, { FakeVenue, ManualClock }] = await Promise.all([
    load(root, 'strategies/bands/index.ts'),
    load(root, 'src/config/parse-risk.ts'),
    load(root, 'src/kernel/quoting-kernel.ts'),
    load(root, 'src/state/store.ts'),
    load(root, 'test/orders/fake-venue.ts'),
  ]);
  const params = bands.parseConfig(twoBands(5, 5), 'bench');
  const risk = unboundedRisk(DEFAULT_RISK, { maxOrderSize: DEFAULT_RISK.maxOrderSize, maxBookAgeMs: 1e12, maxStreamSilenceMs: 1e12 });
  return { bands, DEFAULT_RISK, QuotingKernel, StateStore, FakeVenue, ManualClock, params, risk };
}

/** The live tick-to-wire pipeline's modules of `root` (strategy, clock, risk defaults, chain, signer, live venue, kernel, store), in that order. */
export function loadTickPipeline(root: string): Promise<Mod[]> {
  return Promise.all(
    [
      'strategies/bands/index.ts',
      'src/core/clock.ts',
      'src/config/parse-risk.ts',
      'src/exchange/chains.ts',
      'src/exchange/signing/signer.ts',
      'src/runtime/live-venue.ts',
      'src/kernel/quoting-kernel.ts',
      'src/state/store.ts',
    ].map((p) => load(root, p)),
  );
}

/** `n` market ids 0x…01, 0x…02, … */
export const marketIds = (n: number): string[] => Array.from({ length: n }, (_, i) => '0x' + (i + 1).toString(16).padStart(64, '0'));

/** Market `i`'s still book as a stream snapshot at `now`: 10 levels a side around a mid of 50-56¢; `bookSeq` also stamps the book. */
export function stillSnapshot(marketId: string, i: number, now: number, seq: number, bookSeq?: number): Mod {
  const mid = 500_000 + (i % 7) * 10_000;
  const lv = (k: number, sign: number) => ({ price: mid + sign * (10_000 + k * 10_000), size: 100_000_000 + k });
  const bids = Array.from({ length: 10 }, (_, k) => lv(k, -1));
  const asks = Array.from({ length: 10 }, (_, k) => lv(k, 1));
  const book = { marketId, outcomeIndex: 1, bids, asks, venueTs: now, ...(bookSeq === undefined ? {} : { seq: bookSeq }) };
  return { type: 'BookEventReceived', event: { type: 'snapshot', book, seq, localTs: now, source: 'stream' }, ts: now };
}
