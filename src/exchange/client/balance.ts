/**
 * Balances (auth): the summary of one wallet, a token balance, the settlement (Holdings) balance, and the
 * testnet USDC mint. Amounts are bigint 1e-6 units. GET /balance answers errors as `{error, message}`
 * (handled by `venueErrorFromBody`).
 */
import { BadInputError } from '../../model/errors.ts';
import type { Address, Bytes32, Hex, OutcomeIndex } from '../../model/order.ts';
import { decimalToScaled } from '../../model/units.ts';
import { requestObject, type ClientContext } from './context.ts';
import { address, arr, asObject, at, big, bytes32, int, nstr, oneOf, str, sub, type At } from './fields.ts';
import { checkAddress } from './inputs.ts';
import { seg } from './transport.ts';

export interface TokenHolding {
  tokenAddress: Address;
  balance: bigint;
  settlementBalance: bigint;
  walletBalance: bigint;
}

export interface OutcomeTokenHolding extends TokenHolding {
  marketId: Bytes32;
  outcomeIndex: OutcomeIndex;
  outcomeName: string | null;
}

export interface BalanceSummary {
  address: Address;
  usdc: TokenHolding;
  outcomeTokens: OutcomeTokenHolding[];
}

function holding(v: unknown, a: At): TokenHolding {
  const o = asObject(v, a);
  return {
    tokenAddress: address(o, 'tokenAddress', a),
    balance: big(o, 'balance', a),
    settlementBalance: big(o, 'settlementBalance', a),
    walletBalance: big(o, 'walletBalance', a),
  };
}

/** GET /balance/:address. */
export async function getBalanceSummary(ctx: ClientContext, owner: Address): Promise<BalanceSummary> {
  const ep = 'GET /balance/:address';
  const { o, a } = await requestObject(ctx, { method: 'GET', path: `/balance/${seg(checkAddress(owner, 'address'))}`, endpoint: ep });
  return {
    address: address(o, 'address', a),
    usdc: holding(o.usdc, sub(a, 'usdc')),
    outcomeTokens: arr(o, 'outcomeTokens', a, (v, ta) => {
      const t = asObject(v, ta);
      return {
        ...holding(t, ta),
        marketId: bytes32(t, 'marketId', ta),
        outcomeIndex: oneOf(t, 'outcomeIndex', ta, [0, 1] as const),
        outcomeName: nstr(t, 'outcomeName', ta),
      };
    }),
  };
}

/** GET `path`?address&tokenAddress: the answer object. */
function tokenRead(ctx: ClientContext, path: '/balance' | '/balance/settlement', owner: Address, tokenAddress: Address) {
  const query = { address: checkAddress(owner, 'address'), tokenAddress: checkAddress(tokenAddress, 'tokenAddress') };
  return requestObject(ctx, { method: 'GET', path, endpoint: `GET ${path}`, query });
}

/** GET /balance?address&tokenAddress → `{balance, decimals, symbol}`. */
export async function getTokenBalance(
  ctx: ClientContext,
  owner: Address,
  tokenAddress: Address,
): Promise<{ balance: bigint; decimals: number; symbol: string }> {
  const { o, a } = await tokenRead(ctx, '/balance', owner, tokenAddress);
  return { balance: big(o, 'balance', a), decimals: int(o, 'decimals', a, 0, 36), symbol: str(o, 'symbol', a) };
}

/** GET /balance/settlement?address&tokenAddress → `{balance, account, token}`. */
export async function getSettlementBalance(
  ctx: ClientContext,
  owner: Address,
  tokenAddress: Address,
): Promise<{ balance: bigint; account: Address; token: Address }> {
  const { o, a } = await tokenRead(ctx, '/balance/settlement', owner, tokenAddress);
  return { balance: big(o, 'balance', a), account: address(o, 'account', a), token: address(o, 'token', a) };
}

/**
 * POST /balance/mint-test-usdc `{address, amount}` (testnet). `amount` is a decimal USDC string with at most
 * 6 decimals, > 0 and ≤ 10 000 (checked here). Not idempotent: a lost answer is not resent.
 */
export async function mintTestUsdc(ctx: ClientContext, owner: Address, amount: string): Promise<{ hash: Hex }> {
  const ep = 'POST /balance/mint-test-usdc';
  const units = typeof amount === 'string' ? decimalToScaled(amount, 6, 'amount') : -1n;
  if (units <= 0n || units > 10_000_000_000n) throw new BadInputError('amount', 'a decimal USDC amount above 0 and at most 10000', amount);
  const res = await ctx.t.request({ method: 'POST', path: '/balance/mint-test-usdc', endpoint: ep, body: { address: checkAddress(owner, 'address'), amount } });
  const a = at(ep);
  return { hash: bytes32(asObject(res.json, a), 'hash', a) };
}
