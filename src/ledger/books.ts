/**
 * Reading the books: positions rebuilt exactly from the recorded fills, and the
 * summaries behind `bookmaker ledger summary|fills|orders|pnl`.
 *
 *   accountFromLedger(ledger, { until? })  → Account (src/account/account.ts): the books every PnL
 *     figure reads, rebuilt from the recorded fills (in venue order) with the last recorded marks,
 *     then the recorded resolutions and claims (replayResolutions)
 *   replayPositions(ledger, { until? })  → Map<marketId, PositionState>   (src/state/position.ts)
 *   ledgerSummary(ledger, { since?, market? })  → { fills, volume, fees, realisedPnl, … } in USDC
 *   listFills / listOrders / pnlByMarket
 *
 * Every figure is computed in integers (1e-6 units, bigint where it can grow) and converted to USDC
 * only for display, as in the backtest summary: volume is Σ price × size in the order's own terms,
 * realised PnL is net of fees and uses average cost in YES terms (the same applyFill the live store
 * uses), so the ledger and the running bot agree to the last unit.
 */
import { Account, type AccountFill } from '../account/account.ts';
import type { PositionState } from '../state/position.ts';
import type { OrderFilled } from '../state/events.ts';
import type { Bytes32 } from '../model/order.ts';
import { bytes32Of } from '../model/ids.ts';
import type { Ledger } from './ledger.ts';
import { orderEnds, type OrderEnds } from './order-ends.ts';
import { filterConditions } from './filter-sql.ts';
import { accountFillOf, replayBooks, type FillRow as ReplayRow, type ReplayedBooks } from './books-checkpoint.ts';
import { booksClaimable } from '../account/books-claimable.ts';

export interface Filter {
  /** ms since the epoch, inclusive */
  readonly since?: number;
  readonly market?: Bytes32;
}

/** a fills row as `listFills` reads it: the replays' row and the order's nonce and where the fill came from */
interface FillRow extends ReplayRow {
  nonce: string | null;
  source: string;
}

function where(f: Filter, tsCol = 'ts', marketCol = 'market_id'): { sql: string; args: unknown[] } {
  const { parts, args } = filterConditions(f, tsCol, marketCol);
  return { sql: parts.length ? `WHERE ${parts.join(' AND ')}` : '', args };
}

/**
 * Every market's position as the recorded fills leave it, in record order (optionally only fills
 * before `until`). Without `until` it starts from the books checkpoint (books-checkpoint.ts).
 */
export function replayPositions(ledger: Ledger, opts: { until?: number } = {}): Map<string, PositionState> {
  // the inherited inventory adopted at the ledger's first start, at its marks (src/ledger/baseline.ts),
  // and every fill: books-checkpoint.ts (from its checkpoint when whole)
  return replayBooks(ledger, opts.until !== undefined ? { until: opts.until } : {}).positions;
}

/** Where the last marks of the markets the books hold are kept (meta key; JSON {marketId: [mark2, at]}). */
export const MARKS_META = 'account.marks';

/**
 * The account's books as the ledger holds them: every recorded fill (optionally only those before
 * `until`), and the marks saved with the last account mark, so a restart with nothing traded in
 * between resumes at the same PnL. Without `until` the fills are replayed from the books checkpoint
 * (books-checkpoint.ts: the same books as a replay of every fill, to the unit); `replayed` passes a
 * replay already made (the bot's start).
 */
export function accountFromLedger(ledger: Ledger, opts: { until?: number; replayed?: ReplayedBooks } = {}): Account {
  // the inherited inventory adopted at the ledger's first start (src/ledger/baseline.ts) and every
  // recorded fill, in record order: books-checkpoint.ts (from its checkpoint when whole)
  const a = (opts.replayed ?? replayBooks(ledger, opts.until !== undefined ? { until: opts.until } : {})).account;
  if (opts.until === undefined) {
    for (const [id, [mark2, at]] of savedMarks(ledger)) a.mark(id, mark2, at);
  }
  replayResolutions(ledger, a, opts.until);
  return a;
}

/**
 * The resolutions and claims the ledger recorded, into the books (after the fills: a resolved market
 * trades no more): its PnL realised at the payout, a claimed one's payout in the cash. Optionally
 * only those before `until` (a claim after it is not yet one).
 */
export function replayResolutions(ledger: Ledger, a: Account, until?: number): void {
  for (const r of ledger.resolutions()) {
    if (until !== undefined && r.resolvedAt >= until) continue;
    if (!Number.isSafeInteger(r.payoutYes) || r.payoutYes < 0 || r.payoutYes > 1_000_000) continue;
    a.resolve(r.marketId, r.payoutYes, r.resolvedAt);
    if (r.claimedAt !== null && (until === undefined || r.claimedAt < until)) a.claimed(r.marketId);
  }
}

/** The ledger's last fill record (0: none): with `fillsAfter`, what a step recorded. */
export function lastFillSeq(ledger: Ledger): number {
  return (ledger.db.prepare('SELECT COALESCE(MAX(seq), 0) AS s FROM fills').get() as { s: number }).s;
}

function rowsAfter(ledger: Ledger, seq: number): FillRow[] {
  return ledger.db
    .prepare(
      'SELECT seq, fill_id, nonce, market_id, outcome, side, price, size, fee, ts, source, fee_source, origin, order_kind, notional FROM fills WHERE seq > ? ORDER BY seq',
    )
    .all(seq) as FillRow[];
}

/** The fills recorded after record `seq`, as fills of the books (the stop's sweep gives them to the running books). */
export function fillsAfter(ledger: Ledger, seq: number): AccountFill[] {
  return rowsAfter(ledger, seq).map(accountFillOf);
}

/**
 * The fills recorded after record `seq` as the feeds report fills (OrderFilled, the ledger's fill id as
 * the event's, so the books and the ledger know them again): the stop's sweep hands them to the store, so
 * its position and attribution hold what the books hold (src/runtime/phases/control.ts).
 */
export function fillEventsAfter(ledger: Ledger, seq: number): OrderFilled[] {
  return rowsAfter(ledger, seq).map((r) => {
    const f = accountFillOf(r);
    const nonce = r.nonce === null ? null : bytes32Of(r.nonce);
    return { type: 'OrderFilled', ...f, nonce } satisfies OrderFilled;
  });
}

/** The marks saved with the last account mark (empty when none, or unreadable). */
export function savedMarks(ledger: Ledger): Map<Bytes32, [number, number]> {
  const out = new Map<Bytes32, [number, number]>();
  const raw = ledger.meta(MARKS_META);
  if (raw === null) return out;
  try {
    const o = JSON.parse(raw) as Record<string, unknown>;
    for (const [raw, v] of Object.entries(o)) {
      const id = bytes32Of(raw); // normalised where it enters (src/model/ids.ts); anything else is no mark
      if (id !== null && Array.isArray(v) && Number.isSafeInteger(v[0]) && Number.isSafeInteger(v[1]) && v[0] >= 0 && v[0] <= 2_000_000)
        out.set(id, [v[0] as number, v[1] as number]);
    }
  } catch {
    // a damaged record: no marks (PnL then counts the open positions at 0 until the next mark)
  }
  return out;
}

const usdc = (micro: bigint | number): number => Number(micro) / 1e6;
const shares = (micro: number): number => micro / 1e6;

export interface MarketBooks {
  readonly marketId: string;
  readonly fills: number;
  readonly volume: number;
  readonly fees: number;
  readonly realisedPnl: number;
  readonly position: number;
  /** last recorded mark of this market, if any */
  readonly unrealisedPnl: number | null;
  readonly markedAt: number | null;
}

export interface LedgerSummary {
  readonly fills: number;
  /** USDC: Σ price × size of the fills */
  readonly volume: number;
  /** USDC */
  readonly fees: number;
  /** USDC, net of fees, average cost */
  readonly realisedPnl: number;
  /** USDC at the last account mark (null without one) */
  readonly unrealisedPnl: number | null;
  /** `cancels`: cancels sent for this bot's orders (a stranger's are in orderEnds.strangers) */
  readonly orders: { readonly sent: number; readonly accepted: number; readonly rejected: number; readonly adopted: number; readonly cancels: number };
  /** the orders by how they ended (order-ends.ts: the run report's `orders` line counts the same way) */
  readonly orderEnds: OrderEnds;
  readonly startups: number;
  readonly firstFillAt: number | null;
  readonly lastFillAt: number | null;
  readonly killSwitch: { readonly latched: boolean; readonly reason: string | null; readonly detail: string | null; readonly at: number | null };
  readonly markets: number;
  /**
   * USDC: net collateral from trading, fees and claimed payouts since the baseline (the account's
   * `cash`): the venue's collateral balance is the baseline's plus this (deposits and withdrawals aside)
   */
  readonly cashUsdc: number;
  /** every non-zero holding the books hold (resolved-unclaimed included), shares */
  readonly positions: readonly { readonly marketId: string; readonly outcomeIndex: 0 | 1; readonly shares: number }[];
  /**
   * the resolved markets whose tokens the books hold unclaimed, and what claiming them pays (USDC; payout
   * per YES share in USDC, shares held): src/account/books-claimable.ts, the one function of the
   * run report's figure and `bookmaker_books_claimable_usdc`. Now, whatever `since` (`market`: that one)
   */
  readonly claimable: {
    readonly totalUsdc: number;
    readonly markets: readonly {
      readonly marketId: string;
      readonly payoutYes: number;
      readonly yes: number;
      readonly no: number;
      readonly claimableUsdc: number;
    }[];
  };
  /** USDC, since inception (whatever the filter): the account's figures at its last marks (src/account/account.ts figures), and the time of the last mark (null: none yet) */
  readonly pnl: { readonly realised: number; readonly unrealised: number; readonly total: number; readonly markedAt: number | null };
  /** fills of orders this bookmaker did not place (a person, another instance on the wallet), counted in every figure above */
  readonly foreign: { readonly fills: number; readonly volume: number; readonly fees: number };
  /** fees by who stated them: the venue (or the engine that charged them) or the configured fee model */
  readonly feesBySource: { readonly venue: number; readonly model: number };
  /** the inherited inventory adopted at the ledger's first start (null: none) */
  readonly baseline: { readonly at: number; readonly collateralUsdc: number; readonly holdings: number } | null;
}

interface RawBooks {
  readonly marketId: string;
  readonly fills: number;
  readonly volume: bigint;
  readonly fees: bigint;
  readonly realised: bigint;
  readonly net: number;
  /** the books' unrealised PnL at their marks, and when the market was marked (null: never) */
  readonly unrealised: bigint;
  readonly markedAt: number | null;
}

/**
 * Books per market over the filter, in 1e-6 units: PnL over a period is the change of realised PnL
 * across it (fills before `since` still set the average cost the period's fills close against).
 */
function rawBooks(ledger: Ledger, f: Filter, after: Account = accountFromLedger(ledger)): RawBooks[] {
  const before = f.since !== undefined ? accountFromLedger(ledger, { until: f.since }) : null;
  const out: RawBooks[] = [];
  for (const id of after.marketIds()) {
    if (f.market !== undefined && id !== f.market) continue;
    const p = after.market(id)!;
    const b = before?.market(id) ?? null;
    const n = p.fills - (b?.fills ?? 0);
    const realised = p.realised - (b?.realised ?? 0n);
    // a market with no fill in the period still counts when its realised PnL moved (it resolved then)
    if (f.since !== undefined && n === 0 && realised === 0n) continue;
    // the books' own figures (src/account/account.ts): the same function the running bot reads
    out.push({
      marketId: id,
      fills: n,
      volume: p.volume - (b?.volume ?? 0n),
      fees: p.fees - (b?.fees ?? 0n),
      realised,
      net: p.net,
      unrealised: p.unrealised,
      markedAt: p.markedAt,
    });
  }
  return out.sort((a, c) => a.marketId.localeCompare(c.marketId));
}

export function pnlByMarket(ledger: Ledger, f: Filter = {}): MarketBooks[] {
  // unrealised as the books hold it (the marks saved with the last account mark; 0 for a market
  // flat since): a market's last mark row can be older than its last fill (it went flat and was
  // folded away before the next mark), and the rows then add up to `ledger summary`'s pnl
  return rawBooks(ledger, f).map((b) => ({
    marketId: b.marketId,
    fills: b.fills,
    volume: usdc(b.volume),
    fees: usdc(b.fees),
    realisedPnl: usdc(b.realised),
    position: shares(b.net),
    unrealisedPnl: b.markedAt === null && b.unrealised === 0n ? null : usdc(b.unrealised),
    markedAt: b.markedAt,
  }));
}

export function ledgerSummary(ledger: Ledger, f: Filter = {}): LedgerSummary {
  // the account's books (src/account/account.ts): the one function every PnL figure reads
  const account = accountFromLedger(ledger);
  const books = rawBooks(ledger, f, account);
  let fills = 0;
  let volume = 0n;
  let fees = 0n;
  let realised = 0n;
  if (f.since === undefined && f.market === undefined) {
    // since inception: the account's own totals (Account.figures), the same function the running
    // bot's /metrics and run report read (src/account/run-figures.ts)
    const t = account.figures();
    ({ fills, volume, fees, realised } = t);
  } else {
    for (const b of books) {
      fills += b.fills;
      volume += b.volume;
      fees += b.fees;
      realised += b.realised;
    }
  }
  const w = where(f, 'submitted_at');
  const o = ledger.db
    .prepare(`SELECT SUM(sends) AS sent, SUM(answer IN ('created', 'duplicate')) AS accepted, SUM(status = 'rejected') AS rejected FROM orders ${w.sql}`)
    .get(...w.args) as { sent: number | null; accepted: number | null; rejected: number | null };
  // orders adopted in the span, ended since or not: the count the run report's orders line shows (order-ends.ts)
  const ends = orderEnds(ledger, f);
  const wc = where(f);
  // the bot's cancels sent: a stranger's (order-ends.ts, counted in orderEnds.strangers) taken out, the count staying on its index
  const cancels =
    (ledger.db.prepare(`SELECT COUNT(*) AS n FROM cancels ${wc.sql}${wc.sql ? ' AND' : ' WHERE'} result = 'sent'`).get(...wc.args) as { n: number }).n -
    ends.strangers.cancelsSent;
  // two lookups at the ends of an index (MIN and MAX in one SELECT read every row)
  const range = ledger.db
    .prepare(`SELECT (SELECT MIN(ts) FROM fills ${wc.sql}) AS a, (SELECT MAX(ts) FROM fills ${wc.sql}) AS b`)
    .get(...wc.args, ...wc.args) as { a: number | null; b: number | null };
  const mark =
    f.market === undefined
      ? (ledger.db.prepare('SELECT unrealised FROM marks WHERE market_id IS NULL ORDER BY id DESC LIMIT 1').get() as { unrealised: string } | undefined)
      : (ledger.db.prepare('SELECT unrealised FROM marks WHERE market_id = ? ORDER BY id DESC LIMIT 1').get(f.market) as { unrealised: string } | undefined);
  const startups = (
    ledger.db
      .prepare(`SELECT COUNT(*) AS n FROM startups ${where({ ...(f.since !== undefined ? { since: f.since } : {}) }).sql}`)
      .get(...(f.since !== undefined ? [f.since] : [])) as { n: number }
  ).n;
  const risk = ledger.risk();
  const fig = account.figures();
  const fw = where(f);
  const foreign = ledger.db
    .prepare(`SELECT COUNT(*) AS n, COALESCE(SUM(fee), 0) AS fees FROM fills ${fw.sql}${fw.sql ? ' AND' : ' WHERE'} origin = 'foreign'`)
    .get(...fw.args) as { n: number; fees: number };
  let foreignVolume = 0n;
  // as the books count a fill's volume (src/state/position.ts): its stated collateral, else price × size
  for (const r of ledger.db
    .prepare(`SELECT price, size, notional FROM fills ${fw.sql}${fw.sql ? ' AND' : ' WHERE'} origin = 'foreign'`)
    .iterate(...fw.args) as IterableIterator<{ price: number; size: number; notional: number | null }>)
    foreignVolume += r.notional === null ? BigInt(r.price) * BigInt(r.size) : BigInt(r.notional) * 1_000_000n;
  const bySource = ledger.db.prepare(`SELECT fee_source AS s, COALESCE(SUM(fee), 0) AS fees FROM fills ${fw.sql} GROUP BY fee_source`).all(...fw.args) as {
    s: string;
    fees: number;
  }[];
  const b = ledger.baseline();
  const unclaimed = booksClaimable(account);
  const claimable = unclaimed.markets.filter((m) => f.market === undefined || m.marketId === f.market);
  return {
    fills,
    volume: usdc(volume),
    fees: usdc(fees),
    realisedPnl: usdc(realised),
    unrealisedPnl: mark ? usdc(BigInt(mark.unrealised)) : null,
    orders: { sent: o.sent ?? 0, accepted: o.accepted ?? 0, rejected: o.rejected ?? 0, adopted: ends.adopted, cancels },
    orderEnds: ends,
    startups,
    firstFillAt: range.a,
    lastFillAt: range.b,
    killSwitch: { latched: risk.latch !== null, reason: risk.latch?.reason ?? null, detail: risk.latch?.detail ?? null, at: risk.latch?.at ?? null },
    markets: books.length,
    cashUsdc: usdc(fig.cash),
    positions: account.positions().map((x) => ({ marketId: x.marketId, outcomeIndex: x.outcomeIndex, shares: shares(x.shares) })),
    claimable: {
      totalUsdc: usdc(f.market === undefined ? unclaimed.total : claimable.reduce((t, m) => t + m.claimable, 0n)),
      markets: claimable.map((m) => ({
        marketId: m.marketId,
        payoutYes: usdc(m.payoutYes),
        yes: shares(m.yes),
        no: shares(m.no),
        claimableUsdc: usdc(m.claimable),
      })),
    },
    pnl: { realised: usdc(fig.realised), unrealised: usdc(fig.unrealised), total: usdc(fig.total), markedAt: fig.markedAt },
    foreign: { fills: foreign.n, volume: usdc(foreignVolume / 1_000_000n), fees: usdc(foreign.fees) },
    feesBySource: { venue: usdc(bySource.find((x) => x.s === 'venue')?.fees ?? 0), model: usdc(bySource.find((x) => x.s === 'model')?.fees ?? 0) },
    baseline: b ? { at: b.at, collateralUsdc: usdc(b.collateral), holdings: b.holdings.length } : null,
  };
}

export interface FillLine {
  readonly ts: number;
  readonly marketId: string;
  readonly fillId: string;
  readonly nonce: string | null;
  readonly outcome: 'yes' | 'no';
  readonly side: 'buy' | 'sell';
  /** USDC per share */
  readonly price: number;
  /** shares */
  readonly size: number;
  /** USDC */
  readonly fee: number;
  readonly source: string;
  /** who stated the fee: 'venue' or 'model' (src/engine/fill-fee.ts) */
  readonly feeSource: string;
  /** 'own' or 'foreign' (an order this bookmaker did not place) */
  readonly origin: string;
}

/** An order's or fill's outcome, side, price (USDC) and size (shares), as the listings show them. */
function legOf(r: { outcome: number; side: number; price: number; size: number }): {
  outcome: 'yes' | 'no';
  side: 'buy' | 'sell';
  price: number;
  size: number;
} {
  return { outcome: r.outcome === 1 ? 'yes' : 'no', side: r.side === 0 ? 'buy' : 'sell', price: usdc(r.price), size: shares(r.size) };
}

export function listFills(ledger: Ledger, f: Filter = {}, limit = 0): FillLine[] {
  const w = where(f);
  const rows = ledger.db
    .prepare(
      `SELECT seq, fill_id, nonce, market_id, outcome, side, price, size, fee, ts, source, fee_source, origin FROM fills ${w.sql} ORDER BY seq ${limit > 0 ? `LIMIT ${Math.floor(limit)}` : ''}`,
    )
    .all(...w.args) as FillRow[];
  return rows.map((r) => ({
    ts: r.ts,
    marketId: r.market_id,
    fillId: r.fill_id,
    nonce: r.nonce,
    ...legOf(r),
    fee: usdc(r.fee),
    source: r.source,
    feeSource: r.fee_source ?? 'model',
    origin: r.origin ?? 'own',
  }));
}

export interface OrderLine {
  readonly submittedAt: number;
  readonly marketId: string;
  readonly nonce: string;
  readonly slot: string;
  readonly outcome: 'yes' | 'no';
  readonly side: 'buy' | 'sell';
  readonly price: number;
  readonly size: number;
  readonly sends: number;
  readonly status: string;
  readonly answer: string | null;
  readonly endedAt: number | null;
  /** shares filled, from the recorded fills */
  readonly filled: number;
  /** how the bot met the order as a stranger (docs/ledger-operations.md, "Strangers the bot cancels"), or null (its own order, never cancelled as one) */
  readonly stranger: OrderStranger | null;
}

/**
 * An order the bot cancelled as a stranger (reconciliation took it in under an `orphan:` slot, schema version 6):
 * - `no-record`: the ledger had no row of it (another trader's, or a crash's): its row is the stranger's (`orders.stranger_at`),
 *   one of the "found with no record" of `ledger summary`'s strangers row, and no order of this bot in its counts;
 * - `earlier-run`: the ledger's own row (an earlier run's order no longer wanted), with a cancel marked `cancels.stranger`;
 *   its row stays counted as the bot's (it was, in that run).
 * Either way its cancels are the strangers' cancels sent, not the bot's `cancelsSent`.
 */
export type OrderStranger = 'no-record' | 'earlier-run';

export function listOrders(ledger: Ledger, f: Filter = {}, limit = 0): OrderLine[] {
  const w = where(f, 'o.submitted_at', 'o.market_id');
  const rows = ledger.db
    .prepare(
      `SELECT o.*, COALESCE((SELECT SUM(size) FROM fills WHERE fills.nonce = o.nonce), 0) AS filled,
              CASE WHEN o.stranger_at IS NOT NULL THEN 'no-record'
                   WHEN EXISTS (SELECT 1 FROM cancels c WHERE c.nonce = o.nonce AND c.stranger IS NOT NULL) THEN 'earlier-run' END AS stranger
       FROM orders o ${w.sql} ORDER BY o.submitted_at, o.rowid ${limit > 0 ? `LIMIT ${Math.floor(limit)}` : ''}`,
    )
    .all(...w.args) as {
    submitted_at: number;
    market_id: string;
    nonce: string;
    slot: string;
    outcome: number;
    side: number;
    price: number;
    size: number;
    sends: number;
    status: string;
    answer: string | null;
    ended_at: number | null;
    filled: number;
    stranger: OrderStranger | null;
  }[];
  return rows.map((r) => ({
    submittedAt: r.submitted_at,
    marketId: r.market_id,
    nonce: r.nonce,
    slot: r.slot,
    ...legOf(r),
    sends: r.sends,
    status: r.status,
    answer: r.answer,
    endedAt: r.ended_at,
    filled: shares(r.filled),
    stranger: r.stranger,
  }));
}

/** The account PnL marks over time (for `ledger pnl --marks`). */
export function accountMarks(ledger: Ledger, f: Filter = {}): { ts: number; realisedPnl: number; unrealisedPnl: number; pnl: number }[] {
  const w = where({ ...(f.since !== undefined ? { since: f.since } : {}) });
  const rows = ledger.db
    .prepare(`SELECT ts, realised, unrealised, pnl FROM marks ${w.sql}${w.sql ? ' AND' : ' WHERE'} market_id IS NULL ORDER BY id`)
    .all(...w.args) as { ts: number; realised: string; unrealised: string; pnl: string }[];
  return rows.map((r) => ({ ts: r.ts, realisedPnl: usdc(BigInt(r.realised)), unrealisedPnl: usdc(BigInt(r.unrealised)), pnl: usdc(BigInt(r.pnl)) }));
}
