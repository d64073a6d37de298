/**
 * The figures behind the rank score, fetched from the venue within a request budget.
 *
 * One refresh of one `rank:` entry spends at most `maxRequests` requests:
 *   1. the market list (GET /markets, status active, by volume, 50 a page, the entry's category passed
 *      to the venue) — up to a quarter of the budget (at least one page);
 *   2. GET /markets/:id for a market this entry selected last time that the list did not show (to
 *      learn whether it resolved, closed or was paused);
 *   3. per shortlisted market, one read per enabled term that needs one: the YES book (depth),
 *      1-day price history (volatility), trades of the last hour (tradeRate), the latest oracle
 *      quote (oracleDisagreement). A term whose weight is 0 costs nothing.
 * The shortlist is the markets quoted now (always re-scored), then the best by the terms the list
 * alone gives (spread, volume, volume24h, timeToDeadline, fee), up to `shortlist` (0 = 3 × top) and
 * what the budget has left. Reads run `concurrency` at a time. A read that fails, or answers with
 * something unusable, drops its term for that market (a logged, counted drop: `missing` for a 404,
 * `error` for another failure, `bad` for an unusable answer), never the refresh; only
 * a failure of the first list page fails the refresh (the caller's start-up retry handles it).
 */
import type { Logger } from '../core/logger.ts';
import { matchesSelector } from './selectors.ts';
import { VenueError } from '../exchange/client/errors.ts';
import { RANK_TERMS, type RankSettings, type RankTerm } from '../config/types.ts';
import type { ActivityPage, ActivityParams } from '../exchange/client/activity.ts';
import type { PriceHistory, Timeframe } from '../exchange/client/market-data.ts';
import type { ListMarketsParams, MarketPage } from '../exchange/client/markets.ts';
import type { OracleQuote } from '../exchange/client/oracle.ts';
import type { GetOrderbookOptions, OrderbookAnswer } from '../exchange/client/orderbook.ts';
import type { MarketInfo } from '../exchange/client/parse-market.ts';
import { depthNearTouch, listInputs, rankTerms, scoreOf, type DropReason, type RankInputs, type RankTerms } from './score.ts';

/** The reads ranking uses (a VenueClient has them all; a source without one drops that term as `unsupported`). */
export interface RankSource {
  markets: {
    list(p: ListMarketsParams): Promise<MarketPage>;
    get(id: string): Promise<MarketInfo>;
    orderbook?(id: string, opts?: GetOrderbookOptions): Promise<OrderbookAnswer>;
    prices?(id: string, timeframe?: Timeframe): Promise<PriceHistory>;
    latestOracleQuote?(id: string): Promise<OracleQuote | null>;
  };
  activity?: { market(id: string, p?: ActivityParams): Promise<ActivityPage> };
}

export interface TermDrop {
  readonly term: RankTerm;
  readonly reason: DropReason;
}

export interface RankRow {
  /** the market id (normal form for a venue's market, as the venue client reads it; a recording's as recorded) */
  readonly id: string;
  /** the same id, under the name the rank table and report use */
  readonly marketId: string;
  /** slug, else the short question */
  readonly name: string;
  readonly status: string;
  readonly score: number;
  readonly terms: RankTerms;
  /** enabled terms without a value, and why */
  readonly drops: readonly TermDrop[];
  /** scored in full (false: outside the shortlist or the budget; then only list terms are known) */
  readonly scored: boolean;
}

export interface Gathered {
  readonly rows: RankRow[];
  readonly requests: number;
  /** the list stopped at its share of the budget before its end */
  readonly listTruncated: boolean;
}

export interface GatherContext {
  readonly nowMs: number;
  /** not ranked by this entry (an earlier entry owns it, or another shard) */
  readonly skip: (id: string) => boolean;
  /** lower-case ids this entry selected last time and still quoted: always re-scored */
  readonly incumbents: ReadonlySet<string>;
  readonly log?: Logger;
}

const DETAIL: readonly { term: RankTerm; need: (s: RankSource) => boolean }[] = [
  { term: 'depth', need: (s) => typeof s.markets.orderbook === 'function' },
  { term: 'volatility', need: (s) => typeof s.markets.prices === 'function' },
  { term: 'tradeRate', need: (s) => typeof s.activity?.market === 'function' },
  { term: 'oracleDisagreement', need: (s) => typeof s.markets.latestOracleQuote === 'function' },
];

/** Map `items` through `fn` with at most `n` in flight. */
async function mapLimit<T, R>(items: readonly T[], n: number, fn: (x: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(n, items.length)) }, worker));
  return out;
}

function tsMs(ts: string | null): number | null {
  if (ts === null) return null;
  if (/^\d+(\.\d+)?$/.test(ts)) {
    const n = Number(ts);
    return n < 1e12 ? n * 1000 : n; // unix seconds or ms
  }
  const t = Date.parse(ts);
  return Number.isFinite(t) ? t : null;
}

const errText = (e: unknown): string => (e instanceof Error ? e.message : String(e)).slice(0, 200);

export async function gatherRank(src: RankSource, s: RankSettings, ctx: GatherContext): Promise<Gathered> {
  let requests = 0;
  const detailTerms = DETAIL.filter((d) => s.weights[d.term] !== 0);
  const perMarket = detailTerms.filter((d) => d.need(src)).length;
  const listBudget = Math.max(1, Math.floor(s.maxRequests / 4));

  // 1. the market list
  const listed = new Map<string, MarketInfo>();
  let cursor: string | undefined;
  let listTruncated = false;
  const seen = new Set<string>();
  for (;;) {
    if (requests >= listBudget) {
      listTruncated = true;
      break;
    }
    requests++;
    let page: MarketPage;
    try {
      page = await src.markets.list({
        status: ['active'],
        sortBy: 'volume',
        limit: 50,
        ...(s.category ? { category: s.category } : {}),
        ...(cursor ? { cursor } : {}),
      });
    } catch (e) {
      if (listed.size === 0) throw e;
      ctx.log?.warn({ err: errText(e), listed: listed.size }, 'rank: a market list page failed; ranking the markets listed so far');
      listTruncated = true;
      break;
    }
    for (const m of page.markets) listed.set(m.id, m);
    if (page.cursor === null || page.cursor === '' || page.markets.length === 0 || seen.has(page.cursor)) break;
    seen.add(page.cursor);
    cursor = page.cursor;
  }

  // 2. markets this entry holds that the list did not show: their status decides eligibility
  for (const id of ctx.incumbents) {
    if (listed.has(id) || ctx.skip(id)) continue;
    if (requests >= s.maxRequests) break;
    requests++;
    try {
      const m = await src.markets.get(id);
      listed.set(id, m);
    } catch (e) {
      ctx.log?.warn({ market: id, err: errText(e) }, 'rank: could not read a selected market missing from the list; it is ranked out');
    }
  }

  // pre-filter and list-only scores
  // (the pre-filter of src/selection/selectors.ts; a held market missing from the list is kept to show why it leaves)
  const cands = [...listed.entries()].filter(
    ([id, m]) =>
      !ctx.skip(id) &&
      (ctx.incumbents.has(id) || matchesSelector({ by: 'rank', rank: s }, { id: m.id, categories: m.categories, status: m.status, volume: m.volume })),
  );
  const base = new Map<string, RankInputs>();
  const listScore = new Map<string, number>();
  for (const [id, m] of cands) {
    const x = listInputs(m, ctx.nowMs, s.feeBps);
    base.set(id, x);
    listScore.set(id, scoreOf(rankTerms(x).terms, s.weights));
  }

  // 3. the shortlist: incumbents first, then by the list-only score
  const order = cands
    .filter(([, m]) => m.status === 'active')
    .map(([id]) => id)
    .sort((a, b) => Number(ctx.incumbents.has(b)) - Number(ctx.incumbents.has(a)) || listScore.get(b)! - listScore.get(a)! || (a < b ? -1 : a > b ? 1 : 0));
  const want = s.shortlist > 0 ? s.shortlist : 3 * s.top;
  const afford = perMarket === 0 ? order.length : Math.floor((s.maxRequests - requests) / perMarket);
  const shortlist = order.slice(0, Math.max(0, Math.min(perMarket === 0 ? order.length : want, afford, order.length)));
  const inShort = new Set(shortlist);

  const details = await mapLimit(shortlist, s.concurrency, async (id) => {
    const x = { ...base.get(id)! } as { -readonly [K in keyof RankInputs]: RankInputs[K] };
    const why = new Map<RankTerm, DropReason>();
    const read = async (term: RankTerm, f: () => Promise<void>): Promise<void> => {
      requests++;
      try {
        await f();
      } catch (e) {
        // 404: the venue has none (e.g. no oracle quote was ever requested for the market)
        if (e instanceof VenueError && e.status === 404) {
          why.set(term, 'missing');
          return;
        }
        why.set(term, 'error');
        ctx.log?.debug({ market: id, term, err: errText(e) }, 'rank: a read failed; the term is dropped');
      }
    };
    for (const d of detailTerms) {
      if (!d.need(src)) {
        why.set(d.term, 'unsupported');
        continue;
      }
      if (d.term === 'depth')
        await read('depth', async () => {
          const a = await src.markets.orderbook!(id, { outcomeIndex: 1, depth: 50 });
          if (a.status !== 200) throw new Error('the book answered 304 without an ETag');
          x.depthUsdc = depthNearTouch(a.book.bids, a.book.asks);
          if (x.depthUsdc === null) why.set('depth', 'bad');
        });
      else if (d.term === 'volatility')
        await read('volatility', async () => {
          const h = await src.markets.prices!(id, '1d');
          x.history = [...h.prices].sort((p, q) => p.time - q.time).map((p) => p.price);
        });
      else if (d.term === 'tradeRate')
        await read('tradeRate', async () => {
          const since = ctx.nowMs - 3_600_000;
          const page = await src.activity!.market(id, { types: ['trade'], startTime: new Date(since).toISOString(), limit: 100 });
          x.tradesLastHour = page.activity.filter((a) => (a.type === null || a.type === 'trade') && (tsMs(a.timestamp) ?? since) >= since).length;
        });
      else
        await read('oracleDisagreement', async () => {
          const q = await src.markets.latestOracleQuote!(id);
          x.oracleProbability = q !== null && q.status === 'completed' ? q.probability : null;
        });
    }
    return { id, x, why };
  });

  const rows: RankRow[] = [];
  const detailed = new Map(details.map((d) => [d.id, d]));
  for (const [id, m] of cands) {
    const d = detailed.get(id);
    const x = d?.x ?? base.get(id)!;
    const { terms, bad } = rankTerms(x);
    const drops: TermDrop[] = [];
    if (d) {
      for (const t of RANK_TERMS)
        if (s.weights[t] !== 0 && terms[t] === null) drops.push({ term: t, reason: d.why.get(t) ?? (bad.includes(t) ? 'bad' : 'missing') });
    }
    rows.push({
      id,
      marketId: m.id,
      name: m.slug ?? (m.shortQuestion || m.question),
      status: m.status,
      score: scoreOf(terms, s.weights),
      terms,
      drops,
      scored: inShort.has(id),
    });
  }
  return { rows, requests, listTruncated };
}
