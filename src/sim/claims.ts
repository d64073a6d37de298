/**
 * Claims of resolved positions made outside the bot: the venue's auto-claim, or a person in the web
 * app (`services.claimPosition`; docs/local-exchange.md). The engine redeems the wallet's tokens at
 * the payout (its `claim` command: ⌊yes·payoutYes/1e6⌋ + ⌊no·payoutNo/1e6⌋ into the collateral); what
 * was redeemed is kept per (wallet, market) under `state.ext.claims`, saved with the rest, so the
 * portfolio answers show it as the venue does: balance 0, `tokensRedeemed`, claimState `autoclaimed`
 * for the auto-claim (null for a person's claim).
 */
import { extData, type ExchangeState } from './context.ts';
import type { Bytes32 } from '../model/order.ts';
import { conflict, notFound } from './http-errors.ts';
import { addressOf, type LowerAddress } from './wire-ids.ts';

export const CLAIMS_EXT_KEY = 'claims';

/** What one claim redeemed: 1e-6 shares per outcome, and by whom. */
export interface ClaimRecord {
  yes: bigint;
  no: bigint;
  auto: boolean;
}

type ClaimsData = Record<string, ClaimRecord>;

const key = (wallet: LowerAddress, marketId: string): string => `${wallet}:${marketId}`;

function data(state: ExchangeState): ClaimsData {
  return extData<ClaimsData>(state, CLAIMS_EXT_KEY, () => ({}));
}

/** The wallet's claim in a market, or undefined when it made none. */
export function claimOf(state: ExchangeState, wallet: LowerAddress, marketId: string): ClaimRecord | undefined {
  return (state.ext[CLAIMS_EXT_KEY] as ClaimsData | undefined)?.[key(wallet, marketId)];
}

/** Markets the wallet claimed in (ids, lower-case). */
export function claimedMarkets(state: ExchangeState, wallet: LowerAddress): Bytes32[] {
  const d = state.ext[CLAIMS_EXT_KEY] as ClaimsData | undefined;
  if (!d) return [];
  const prefix = `${wallet}:`;
  return Object.keys(d)
    .filter((k) => k.startsWith(prefix))
    .map((k) => k.slice(prefix.length) as Bytes32);
}

/** services.claimPosition: see ExchangeServices. */
export function claimPosition(state: ExchangeState, walletRaw: string, idOrSlug: string, how: 'auto' | 'manual'): bigint {
  const wallet = addressOf(walletRaw);
  if (wallet === null) throw notFound(`wallet ${walletRaw}`);
  const m = state.services.findMarket(idOrSlug);
  const host = state.engine;
  const idx = m ? host.marketIndex(m.id) : undefined;
  if (!m || idx === undefined) throw notFound(`market ${idOrSlug}`);
  if (m.status !== 'resolved') throw conflict(`market is ${m.status}: nothing to claim before resolution`);
  const t = host.traderIndex(wallet);
  if (t === undefined) return 0n;
  const before = host.engine.positions(t).find((p) => p.market === idx);
  if (!before || (before.yes === 0n && before.no === 0n)) return 0n;
  const r = host.apply({ type: 'claim', trader: t, market: idx }) as { ok: true; paid: bigint } | { ok: false; message?: string };
  if (!r.ok) throw conflict(`cannot claim: ${r.message ?? 'refused'}`);
  const d = data(state);
  const prev = d[key(wallet, m.id)];
  d[key(wallet, m.id)] = { yes: (prev?.yes ?? 0n) + before.yes, no: (prev?.no ?? 0n) + before.no, auto: how === 'auto' };
  return r.paid;
}
