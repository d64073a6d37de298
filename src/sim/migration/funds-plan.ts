/**
 * The funds-migration plan of one wallet (docs/venue.md#migration-to-settlement-v2): its legacy Holdings balances, split into
 * chunks the user signs one BatchWithdraw each for. The real venue chunks by call count (a sponsored
 * user operation has a gas ceiling); we chunk by a configurable number of tokens per chunk, which
 * gives the same shape — and lets a seeded account exercise the many-chunk body.
 */
import type { Address } from '../../model/order.ts';

export interface PlanToken {
  token: Address;
  amount: bigint;
}

export interface PlanChunk {
  tokens: PlanToken[];
  /** descriptive calls (withdraw from legacy, deposit into new), as the venue lists them */
  calls: PlanCall[];
}

export interface PlanCall {
  target: Address;
  function: string;
  args: string[];
}

export interface FundsPlan {
  phase: 'none' | 'ready' | 'completed';
  tokens: PlanToken[];
  chunks: PlanChunk[];
}

export interface PlanContracts {
  holdingsLegacy: Address;
  holdingsNew: Address;
  relayer: Address;
}

/** Split non-zero balances into chunks of at most `tokensPerChunk` tokens, in the order given. */
export function buildFundsPlan(balances: readonly PlanToken[], tokensPerChunk: number, contracts: PlanContracts, wallet: Address): FundsPlan {
  const tokens = balances.filter((b) => b.amount > 0n);
  if (tokens.length === 0) return { phase: 'none', tokens: [], chunks: [] };
  const per = Math.max(1, Math.floor(tokensPerChunk));
  const chunks: PlanChunk[] = [];
  for (let i = 0; i < tokens.length; i += per) {
    const part = tokens.slice(i, i + per);
    chunks.push({ tokens: part, calls: chunkCalls(part, contracts, wallet) });
  }
  return { phase: 'ready', tokens, chunks };
}

/** One batchWithdrawBySig on legacy Holdings, then one deposit per token into new Holdings. */
function chunkCalls(tokens: readonly PlanToken[], c: PlanContracts, wallet: Address): PlanCall[] {
  const calls: PlanCall[] = [
    {
      target: c.holdingsLegacy,
      function: 'batchWithdrawBySig',
      args: [wallet, c.relayer, tokens.map((t) => t.token).join(','), tokens.map((t) => t.amount.toString()).join(',')],
    },
  ];
  for (const t of tokens) calls.push({ target: c.holdingsNew, function: 'deposit', args: [wallet, t.token, t.amount.toString()] });
  return calls;
}

/** The wire shape of MigrationFundsPlan (amounts as decimal strings). */
export function fundsPlanToWire(plan: FundsPlan): Record<string, unknown> {
  const tok = (t: PlanToken) => ({ token: t.token, amount: t.amount.toString() });
  const calls = plan.chunks.flatMap((c) => c.calls);
  return {
    phase: plan.phase,
    callCount: calls.length,
    chunkCount: plan.chunks.length,
    calls,
    tokens: plan.tokens.map(tok),
    chunks: plan.chunks.map((c) => ({ callCount: c.calls.length, calls: c.calls, tokens: c.tokens.map(tok) })),
  };
}
