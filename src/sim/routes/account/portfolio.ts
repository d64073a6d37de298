/**
 * Portfolio routes: GET /portfolio/:address (summary: `kind` all|active|won|lost|claimable, marketId,
 * cursor, pageSize), /positions (status open|closed, search, cursor, limit), /claimable and /stats.
 * Amounts are decimal-integer strings in 1e-6 units; pages carry `cursor` (null at the end) and the
 * `X-Next-Cursor` header.
 */
import type { RequestContext } from '../../context.ts';
import { decodeCursor, encodeCursor } from '../../cursor.ts';
import { json, type Router } from '../../router.ts';
import { queryBytes32, queryEnum, queryInt, queryString } from '../../validate.ts';
import { holdings, OUTCOME_NAMES, type HoldingRow } from './holdings.ts';
import { accountLedger } from './ledger-of.ts';
import { walletOrKey } from './wallet-param.ts';
import { checksumOf } from '../../checksum.ts';

const KINDS = ['all', 'active', 'won', 'lost', 'claimable'] as const;
type Kind = (typeof KINDS)[number];

/** claimable while something is; `autoclaimed` once the venue's auto-claim redeemed it (src/sim/claims.ts) */
function claimState(r: HoldingRow): 'claimable' | 'autoclaimed' | null {
  return r.claimable > 0n ? 'claimable' : r.redeemed > 0n && r.autoclaimed ? 'autoclaimed' : null;
}

function matchesKind(r: HoldingRow, kind: Kind): boolean {
  switch (kind) {
    case 'all':
      return r.balance > 0n || r.claimable > 0n || r.redeemed > 0n;
    case 'active':
      return !r.resolved && r.balance > 0n;
    case 'won':
      return r.resolved && r.payout !== null && r.payout > 0n && (r.balance > 0n || r.redeemed > 0n);
    case 'lost':
      return r.resolved && r.payout === 0n && (r.balance > 0n || r.redeemed > 0n);
    case 'claimable':
      return r.claimable > 0n;
  }
}

/** One page of `items` after the cursor position; the next cursor is null at the end. */
function page<T>(items: T[], cursorRaw: string | null, size: number): { items: T[]; cursor: string | null } {
  const start = decodeCursor(cursorRaw) ?? 0;
  const slice = items.slice(start, start + size);
  const next = start + size < items.length ? encodeCursor(start + size) : null;
  return { items: slice, cursor: next };
}

function pageHeaders(cursor: string | null): Record<string, string> | undefined {
  return cursor ? { 'X-Next-Cursor': cursor } : undefined;
}

function rowsFor(ctx: RequestContext): HoldingRow[] {
  const wallet = walletOrKey(ctx, ctx.params.address, 'address');
  const rows = holdings(ctx.state, accountLedger(ctx.state), wallet);
  const marketId = queryBytes32(ctx.query, 'marketId');
  return marketId ? rows.filter((r) => r.market.id === marketId) : rows;
}

/** The fields a holding shows in the portfolio and claimable answers. */
function holdingJson(r: HoldingRow) {
  return {
    tokenAddress: checksumOf(r.market.outcomeTokens[r.outcomeIndex]),
    balance: r.balance.toString(),
    settlementBalance: r.balance.toString(),
    walletBalance: '0',
    outcomeIndex: r.outcomeIndex,
    outcomeName: OUTCOME_NAMES[r.outcomeIndex],
    marketId: r.market.id,
    netInvestment: r.netInvestment.toString(),
  };
}

function getSummary(ctx: RequestContext) {
  const kind = queryEnum(ctx.query, 'kind', KINDS, 'all');
  const size = queryInt(ctx.query, 'pageSize', 1, 500, 50);
  const rows = rowsFor(ctx).filter((r) => matchesKind(r, kind));
  const p = page(rows, ctx.query.get('cursor'), size);
  const portfolio = p.items.map((r) => ({
    ...holdingJson(r),
    currentValue: r.currentValue.toString(),
    claimState: claimState(r),
    claimableAmount: r.claimable.toString(),
    tokensRedeemed: r.redeemed.toString(),
  }));
  const marketIds = [...new Set(rows.map((r) => r.market.id))];
  return json(200, { portfolio, marketIds, cursor: p.cursor }, pageHeaders(p.cursor));
}

function getPositions(ctx: RequestContext) {
  const status = queryEnum(ctx.query, 'status', ['open', 'closed'] as const);
  const search = queryString(ctx.query, 'search')?.toLowerCase(); // free text, matched case-insensitively
  const limit = queryInt(ctx.query, 'limit', 1, 500, 50);
  const rows = rowsFor(ctx)
    .map((r) => ({ r, status: (r.balance > 0n && !r.resolved ? 'open' : 'closed') as 'open' | 'closed' }))
    .filter((x) => x.r.balance > 0n || x.r.basis !== undefined)
    .filter((x) => status === undefined || x.status === status)
    .filter((x) => !search || x.r.market.question.toLowerCase().includes(search) || x.r.market.slug.toLowerCase().includes(search));
  const p = page(rows, ctx.query.get('cursor'), limit);
  const positions = p.items.map(({ r, status: st }) => ({
    marketId: r.market.id,
    slug: r.market.slug,
    marketName: r.market.question,
    outcomeName: OUTCOME_NAMES[r.outcomeIndex],
    outcomeIndex: r.outcomeIndex,
    size: r.balance.toString(),
    avgPrice: r.avgPrice.toString(),
    price: r.price.toString(),
    claimState: claimState(r),
    claimableAmount: r.claimable.toString(),
    tokensRedeemed: r.redeemed.toString(),
    status: st,
  }));
  return json(200, { positions, cursor: p.cursor }, pageHeaders(p.cursor));
}

function getClaimable(ctx: RequestContext) {
  const rows = rowsFor(ctx).filter((r) => r.claimable > 0n);
  let total = 0n;
  const markets = new Map<string, Record<string, unknown>>();
  const positions = rows.map((r) => {
    total += r.claimable;
    if (!markets.has(r.market.id)) {
      const yes = r.outcomeIndex === 1 ? r.payout! : 1_000_000n - r.payout!;
      markets.set(r.market.id, {
        id: r.market.id,
        outcomeTokens: [checksumOf(r.market.outcomeTokens[0]), checksumOf(r.market.outcomeTokens[1])],
        outcomeNames: [...OUTCOME_NAMES],
        // [NO, YES] in 1e-6 of a collateral unit per share
        payoutPcts: [(1_000_000n - yes).toString(), yes.toString()],
      });
    }
    return { ...holdingJson(r), claimableAmount: r.claimable.toString() };
  });
  return json(200, { positions, markets: [...markets.values()], totalClaimable: total.toString() });
}

function getStats(ctx: RequestContext) {
  const wallet = walletOrKey(ctx, ctx.params.address, 'address');
  const ledger = accountLedger(ctx.state);
  const rows = holdings(ctx.state, ledger, wallet);
  let value = ledger.collateral(wallet).total;
  let placed = 0n;
  let proceeds = 0n;
  let held = 0n;
  let predictions = 0;
  for (const r of rows) {
    value += r.currentValue;
    held += r.currentValue;
    if (r.basis) {
      placed += r.basis.cost;
      proceeds += r.basis.proceeds;
      if (r.basis.bought > 0n) predictions++;
    }
  }
  // profit and loss of the trading: what the positions are worth plus what sales returned, minus cost
  const pnl = held + proceeds - placed;
  const pct = placed > 0n ? Number((pnl * 1_000_000n) / placed) / 10_000 : 0;
  return json(200, {
    currentPortfolioValue: value.toString(),
    currentPortfolioPercentChange: pct,
    predictionsPlaced: predictions,
    totalPlaced: placed.toString(),
    // the spec types this as an unsigned decimal: losses report 0 and show in allTimeReturnPct
    allTimeWinLoss: (pnl > 0n ? pnl : 0n).toString(),
    allTimeReturnPct: pct,
  });
}

export function register(router: Router): void {
  router.add({ method: 'GET', path: '/portfolio/:address', auth: true, handler: getSummary });
  router.add({ method: 'GET', path: '/portfolio/:address/positions', auth: true, handler: getPositions });
  router.add({ method: 'GET', path: '/portfolio/:address/claimable', auth: true, handler: getClaimable });
  router.add({ method: 'GET', path: '/portfolio/:address/stats', auth: true, handler: getStats });
}
