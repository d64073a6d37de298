/**
 * Balance routes: GET /balance/:address (summary), GET /balance?address&tokenAddress (one ERC-20),
 * GET /balance/settlement?address&tokenAddress, and POST /balance/mint-test-usdc.
 *
 * In the local exchange every outcome token a wallet holds sits in the Holdings contract (the
 * engine's ledger). USDC may also sit in the wallet itself (`walletBalance`, see wallet-usdc.ts):
 * `balance` = `settlementBalance` + `walletBalance`. A test mint credits Holdings at once by default,
 * so the wallet can trade without a deposit step (account option `faucet`).
 */
import type { ExchangeState, RequestContext } from '../../context.ts';
import { HttpError, badRequest } from '../../http-errors.ts';
import { rateHeaders } from '../../rate-limiter.ts';
import { json, type Router } from '../../router.ts';
import { object, string } from '../../validate.ts';
import { decimalToScaled } from '../../../model/units.ts';
import { accountRuntime } from './account-options.ts';
import { nextAccountTxHash } from './account-data.ts';
import { accountLedger } from './ledger-of.ts';
import { walletOrKey } from './wallet-param.ts';
import { checksumOf } from '../../checksum.ts';
import { mustAddress, type LowerAddress } from '../../wire-ids.ts';
import { creditWalletUsdc, walletUsdc } from './wallet-usdc.ts';
import type { MarketRecord } from '../../records.ts';

const OUTCOME_NAMES = ['No', 'Yes'] as const;

const usdcByChain = new WeakMap<ExchangeState['chain'], LowerAddress>();

/** The chain's USDC in the exchange's spelling (the chain config spells it checksummed): normalised once per chain. */
function usdcOf(state: ExchangeState): LowerAddress {
  let a = usdcByChain.get(state.chain);
  if (a === undefined) {
    a = mustAddress(state.chain.usdc, 'chain usdc');
    usdcByChain.set(state.chain, a);
  }
  return a;
}
const MINT_MAX = 10_000_000_000n; // 10 000 USDC in 1e-6 units

/** The market and outcome of an outcome-token address, if it is one. */
export function findOutcomeToken(state: ExchangeState, token: LowerAddress): { market: MarketRecord; outcomeIndex: 0 | 1 } | undefined {
  for (const m of state.stores.markets.values()) {
    if (m.outcomeTokens[0] === token) return { market: m, outcomeIndex: 0 };
    if (m.outcomeTokens[1] === token) return { market: m, outcomeIndex: 1 };
  }
  return undefined;
}

/** Balance of one token (USDC or an outcome token) or undefined when the token is unknown. */
function tokenBalance(
  state: ExchangeState,
  wallet: LowerAddress,
  token: LowerAddress,
  scope: 'all' | 'settlement',
): { balance: bigint; symbol: string } | undefined {
  const ledger = accountLedger(state);
  if (token === usdcOf(state)) {
    const inWallet = scope === 'all' ? walletUsdc(state, wallet) : 0n;
    return { balance: ledger.collateral(wallet).total + inWallet, symbol: 'USDC' };
  }
  const found = findOutcomeToken(state, token);
  if (!found) return undefined;
  const p = ledger.positions(wallet).find((x) => x.marketId === found.market.id);
  const balance = p ? (found.outcomeIndex === 1 ? p.yes : p.no) : 0n;
  return { balance, symbol: OUTCOME_NAMES[found.outcomeIndex].toUpperCase() };
}

/** GET /balance 404: this endpoint's errors are `{error, message}` (plus our `code`). */
function tokenNotFound(token: string): HttpError {
  return new HttpError(404, 'NOT_FOUND', `token ${token} is not a known token contract`, { field: 'tokenAddress', extra: { error: 'token_not_found' } });
}

function getSummary(ctx: RequestContext) {
  const wallet = walletOrKey(ctx, ctx.params.address, 'address');
  const ledger = accountLedger(ctx.state);
  const settled = ledger.collateral(wallet).total;
  const inWallet = walletUsdc(ctx.state, wallet);
  const outcomeTokens: Record<string, unknown>[] = [];
  for (const p of ledger.positions(wallet)) {
    const m = ctx.state.services.market(p.marketId);
    if (!m) continue;
    for (const idx of [1, 0] as const) {
      const bal = idx === 1 ? p.yes : p.no;
      if (bal <= 0n) continue;
      outcomeTokens.push({
        tokenAddress: checksumOf(m.outcomeTokens[idx]),
        marketId: m.id,
        outcomeIndex: idx,
        outcomeName: OUTCOME_NAMES[idx],
        balance: bal.toString(),
        settlementBalance: bal.toString(),
        walletBalance: '0',
      });
    }
  }
  return json(200, {
    address: checksumOf(wallet),
    usdc: {
      tokenAddress: ctx.state.chain.usdc,
      balance: (settled + inWallet).toString(),
      settlementBalance: settled.toString(),
      walletBalance: inWallet.toString(),
    },
    outcomeTokens,
  });
}

function requiredQueryAddress(ctx: RequestContext, name: string): LowerAddress {
  const raw = ctx.query.get(name);
  if (raw === null || raw === '') throw badRequest(name, 'required');
  return walletOrKey(ctx, raw, name);
}

function getTokenBalance(ctx: RequestContext) {
  const wallet = requiredQueryAddress(ctx, 'address');
  const token = requiredQueryAddress(ctx, 'tokenAddress');
  const found = tokenBalance(ctx.state, wallet, token, 'all');
  if (!found) throw tokenNotFound(checksumOf(token));
  return json(200, { balance: found.balance.toString(), decimals: 6, symbol: found.symbol });
}

function getSettlementBalance(ctx: RequestContext) {
  const wallet = requiredQueryAddress(ctx, 'address');
  const token = requiredQueryAddress(ctx, 'tokenAddress');
  const found = tokenBalance(ctx.state, wallet, token, 'settlement');
  if (!found) throw new HttpError(404, 'NOT_FOUND', `token ${checksumOf(token)} is not a known token contract`, { field: 'tokenAddress' });
  return json(200, { balance: found.balance.toString(), account: checksumOf(wallet), token: checksumOf(token) });
}

/** Parse the mint amount: ≤ 6 decimals, > 0, ≤ 10 000 USDC → 1e-6 units. */
export function parseMintAmount(v: unknown): bigint {
  const s = string(v, 'amount', { max: 40 });
  if (!/^\d+(\.\d{1,6})?$/.test(s)) throw badRequest('amount', 'expected a decimal string with at most 6 decimal places');
  const units = decimalToScaled(s, 6, 'amount');
  if (units <= 0n) throw badRequest('amount', 'expected an amount above 0');
  if (units > MINT_MAX) throw badRequest('amount', 'expected at most 10000');
  return units;
}

/** Validation runs first, so only well-formed mints count against the hourly quota. */
function postMint(ctx: RequestContext) {
  const body = object(ctx.body, 'body');
  if (body.address === undefined || body.address === null) throw badRequest('address', 'required');
  const wallet = walletOrKey(ctx, body.address, 'address');
  const amount = parseMintAmount(body.amount);
  const rt = accountRuntime(ctx.state);
  const decision = rt.mintLimiter.take(ctx.key!.key, ctx.now);
  if (!decision.allowed) {
    throw new HttpError(429, 'RATE_LIMITED', `mint rate limit exceeded (${rt.options.mintsPerHour} requests per hour)`, {
      extra: { remainingRequests: 0 },
      headers: { ...rateHeaders(decision), 'Retry-After': String(Math.max(1, Math.ceil(decision.retryAfter))) },
    });
  }
  if (rt.options.faucet === 'wallet') creditWalletUsdc(ctx.state, wallet, amount);
  else accountLedger(ctx.state).depositCollateral(wallet, amount);
  return json(200, { hash: nextAccountTxHash(ctx.state, 'mint', wallet) }, rateHeaders(decision));
}

export function register(router: Router): void {
  router.add({ method: 'GET', path: '/balance/:address', auth: true, handler: getSummary });
  router.add({ method: 'GET', path: '/balance', auth: true, handler: getTokenBalance });
  router.add({ method: 'GET', path: '/balance/settlement', auth: true, handler: getSettlementBalance });
  router.add({ method: 'POST', path: '/balance/mint-test-usdc', auth: true, permission: 'trade', handler: postMint });
}
