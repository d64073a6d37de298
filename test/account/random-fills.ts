/** Random fills for the account and ledger tests: deterministic by seed. */
import type { AccountFill } from '../../src/account/account.ts';
import type { Bytes32 } from '../../src/model/order.ts';
import { mulberry32 } from '../../src/sim/rng.ts';

export const M = (i: number): Bytes32 => ('0x' + i.toString(16).padStart(64, '0')) as Bytes32;

export function randomFills(seed: number, n: number, markets = 4): AccountFill[] {
  const r = mulberry32(seed);
  const out: AccountFill[] = [];
  for (let i = 0; i < n; i++) {
    out.push({
      fillId: `${M(i)}:${i}`,
      marketId: M(Math.floor(r() * markets)),
      outcomeIndex: r() < 0.5 ? 1 : 0,
      side: r() < 0.5 ? 0 : 1,
      price: 1_000 + Math.floor(r() * 998_000),
      size: 1 + Math.floor(r() * 50_000_000),
      fee: Math.floor(r() * 20_000),
      feeSource: r() < 0.5 ? 'venue' : 'model',
      // mostly in order, sometimes late (re-ordered within the window, or beyond it)
      ts: 1_800_000_000_000 + i * 1_000 - (r() < 0.1 ? Math.floor(r() * 200_000) : 0),
      origin: r() < 0.2 ? 'foreign' : 'own',
    });
  }
  return out;
}
