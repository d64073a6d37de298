/**
 * The WalletLedger of a local exchange, over CORE's EngineHost (address and market-id mapping, one
 * logged door for every engine command, so state files replay our credits too).
 *
 * Outcome tokens cannot appear from nothing without breaking the engine's conservation invariant
 * (YES supply = NO supply = complete sets outstanding). A migrated legacy position is therefore
 * credited the way the chain would have produced it: a venue escrow account deposits the collateral,
 * mints complete sets and transfers the wanted outcome to the wallet, keeping the other side (which,
 * on the venue, belongs to the legacy counterparties).
 */
import { keccakText } from '../../../exchange/signing/text-hash.ts';
import type { ExchangeState } from '../../context.ts';
import type { EngineHost } from '../../engine-host.ts';
import { HttpError } from '../../http-errors.ts';
import type { Bytes32, OutcomeIndex } from '../../../model/order.ts';
import { addressOf, type LowerAddress } from '../../wire-ids.ts';
import type { LedgerCollateral, LedgerPosition, WalletLedger } from './wallet-ledger.ts';

/** The venue escrow that backs migrated legacy positions. */
export const MIGRATION_ESCROW = ('0x' + keccakText('bookmaker-sim:migration-escrow').slice(26)) as LowerAddress;

const ZERO: LedgerCollateral = { total: 0n, reserved: 0n, available: 0n };

function check(r: unknown, what: string): void {
  if (r && typeof r === 'object' && 'ok' in r && (r as { ok: boolean }).ok === false) {
    const m = (r as { message?: string }).message ?? 'refused';
    throw new HttpError(500, 'INTERNAL_ERROR', `ledger ${what} refused: ${m}`);
  }
}

export function hostLedger(host: EngineHost): WalletLedger {
  return {
    mark(marketId) {
      const m = host.marketIndex(marketId);
      const info = m === undefined ? undefined : host.engine.market(m);
      if (m === undefined || !info) return { yesMark: null, payoutYes: null };
      const bid = host.engine.bestBid(m);
      const ask = host.engine.bestAsk(m);
      const mid = bid > 0 && ask > 0 ? Math.round((bid + ask) / 2) : null;
      return { yesMark: mid ?? info.lastPrice, payoutYes: info.status === 'resolved' ? info.payoutYes : null };
    },
    collateral(wallet) {
      const b = host.balance(wallet);
      return b ? { total: b.collateral, reserved: b.reserved, available: b.available } : ZERO;
    },
    positions(wallet): LedgerPosition[] {
      // the ledger is also read from outside the routes (the chaos referee), in any spelling
      const a = addressOf(wallet);
      const t = a === null ? undefined : host.traderIndex(a);
      if (t === undefined) return [];
      const out: LedgerPosition[] = [];
      for (const p of host.engine.positions(t)) {
        const marketId = host.marketId(p.market);
        if (!marketId) continue;
        out.push({ marketId, yes: p.yes, no: p.no, yesReserved: p.yesReserved, noReserved: p.noReserved, claimable: p.claimable });
      }
      return out;
    },
    depositCollateral(wallet, amount) {
      if (amount <= 0n) return;
      check(host.deposit(host.ensureTrader(wallet), amount), 'deposit');
    },
    creditOutcome(wallet: LowerAddress, marketId: Bytes32, outcomeIndex: OutcomeIndex, amount: bigint) {
      if (amount <= 0n) return;
      const market = host.marketIndex(marketId);
      if (market === undefined) throw new HttpError(500, 'INTERNAL_ERROR', 'ledger credit for an unknown market');
      const escrow = host.ensureTrader(MIGRATION_ESCROW);
      const to = host.ensureTrader(wallet);
      check(host.apply({ type: 'deposit', trader: escrow, amount }), 'escrow deposit');
      check(host.apply({ type: 'mintSets', trader: escrow, market, amount }), 'escrow mint');
      check(host.apply({ type: 'transferTokens', from: escrow, to, market, outcome: outcomeIndex, amount }), 'token transfer');
    },
  };
}

const cache = new WeakMap<EngineHost, WalletLedger>();

/** The ledger of a running exchange. */
export function accountLedger(state: ExchangeState): WalletLedger {
  const host = state.engine;
  let l = cache.get(host);
  if (!l) {
    l = hostLedger(host);
    cache.set(host, l);
  }
  return l;
}
