/**
 * A rotating bot's ledger for the books checkpoint tests and bench (src/ledger/books-checkpoint.ts,
 * folded markets): market i trades `perMarket` fills over `activeMs` from `i * everyMs` on (venue
 * time), then never again, so after an hour the oldest markets are finished; fills are recorded in
 * time order, some a little late (re-ordered by the books), deterministic by seed.
 */
import { asyncScheduler } from 'rxjs';
import { openLedger, type Ledger } from '../../src/ledger/ledger.ts';
import type { Bytes32 } from '../../src/model/order.ts';
import { mulberry32 } from '../../src/sim/rng.ts';

export const T0 = 1_800_000_000_000;
export const rotM = (i: number): Bytes32 => `0x${(0xabc000000 + i).toString(16).padStart(64, '0')}` as Bytes32;

/** The ledger's clock in these tests and benches: stopped at T0, no timers (every flush is the caller's). */
export const STILL_CLOCK = { now: () => T0, scheduler: asyncScheduler, setTimeout: () => () => undefined };

/**
 * A ledger (`path`, in memory by default) on STILL_CLOCK, with the books' baseline the checkpoint tests start
 * from: 5,000 USDC and inherited holdings in two of the rotation's markets (one on both sides).
 */
export function rotationLedger(path = ':memory:'): Ledger {
  const l = openLedger({ path, clock: STILL_CLOCK });
  l.adoptBaseline({
    at: T0 - 1_000,
    collateral: 5_000_000_000n,
    holdings: [
      { marketId: rotM(0), outcomeIndex: 1, shares: 9_000_000n, mark: 410_000 },
      { marketId: rotM(2), outcomeIndex: 1, shares: 3_000_000n, mark: 300_000 },
      { marketId: rotM(2), outcomeIndex: 0, shares: 1_000_000n, mark: 690_000 },
    ],
  });
  return l;
}

export interface RotationFill {
  fillId: string;
  marketId: Bytes32;
  outcomeIndex: 0 | 1;
  side: 0 | 1;
  price: number;
  size: number;
  fee: number;
  ts: number;
  feeSource: 'venue' | 'model';
  origin: 'own' | 'foreign';
  orderKind?: 0 | 1 | 2;
}

export interface Rotation {
  /** markets, from `first` on */
  readonly markets: number;
  readonly first?: number;
  readonly perMarket: number;
  /** a new market every this many ms (default 2 min) */
  readonly everyMs?: number;
  /** each market trades over this long (default 10 min) */
  readonly activeMs?: number;
}

/** The rotation's fills in record order (time order, one in ten up to 90 s late), ids unique by seed and in the feeds' form. */
export function rotationFills(seed: number, o: Rotation): RotationFill[] {
  const r = mulberry32(seed);
  const every = o.everyMs ?? 120_000;
  const active = o.activeMs ?? 600_000;
  const out: (RotationFill & { at: number })[] = [];
  for (let i = o.first ?? 0; i < (o.first ?? 0) + o.markets; i++) {
    for (let j = 0; j < o.perMarket; j++) {
      const ts = T0 + i * every + Math.floor((j * active) / o.perMarket) + Math.floor(r() * 1_000);
      out.push({
        // as the feeds give one: the order's nonce and its filled shares
        fillId: `0x${seed.toString(16).padStart(8, '0')}${i.toString(16).padStart(8, '0')}${j.toString(16).padStart(48, '0')}:${(j + 1) * 1_000_000}`,
        marketId: rotM(i),
        outcomeIndex: r() < 0.5 ? 1 : 0,
        side: r() < 0.55 ? 0 : 1,
        price: 10_000 + Math.floor(r() * 980_000),
        size: 1 + Math.floor(r() * 20_000_000),
        fee: Math.floor(r() * 10_000),
        ts,
        feeSource: r() < 0.5 ? 'venue' : 'model',
        origin: r() < 0.2 ? 'foreign' : 'own',
        ...(r() < 0.1 ? { orderKind: 2 as const } : {}),
        // recorded when its feed delivered it: mostly at once, sometimes up to 90 s later
        at: ts + (r() < 0.1 ? Math.floor(r() * 90_000) : 0),
      });
    }
  }
  return out.sort((a, b) => a.at - b.at || (a.fillId < b.fillId ? -1 : 1)).map(({ at: _, ...f }) => f);
}

/** The time of market i's newest recorded fill. */
export function newestFillTs(l: Ledger, i: number): number {
  return (l.db.prepare('SELECT MAX(ts) AS t FROM fills WHERE market_id = ?').get(rotM(i)) as { t: number }).t;
}

/**
 * One fill of market i at `ts` (a late fill among its old ones, or a market long idle trading again), its terms
 * drawn from `r` in this order: outcome, side, price, size, fee, then the origin when `origin` is 'drawn' (else as
 * given); the venue's fee.
 */
export function drawnFill(fillId: string, i: number, ts: number, r: () => number, origin: RotationFill['origin'] | 'drawn'): RotationFill {
  return {
    fillId,
    marketId: rotM(i),
    outcomeIndex: r() < 0.5 ? 1 : 0,
    side: r() < 0.5 ? 0 : 1,
    price: 10_000 + Math.floor(r() * 980_000),
    size: 1 + Math.floor(r() * 20_000_000),
    fee: Math.floor(r() * 10_000),
    ts,
    feeSource: 'venue',
    origin: origin === 'drawn' ? (r() < 0.5 ? 'foreign' : 'own') : origin,
  };
}

/** Record fills into the ledger (flushed). */
export function recordFills(l: Ledger, fills: readonly RotationFill[]): void {
  for (const f of fills) l.fill({ ...f, nonce: null, source: 'feed' });
  l.flush();
}
