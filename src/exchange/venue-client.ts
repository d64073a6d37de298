/**
 * The venue HTTP client: one object over every endpoint of the Context Markets API v2.
 *
 *   const client = createVenueClient({ chain: 'testnet', apiKey })          // or baseUrl: 'http://127.0.0.1:8787/v2'
 *   client.markets   .list(p) .iterate(p) .search(p) .iterateSearch(p) .get(id)
 *                    .orderbook(id, {outcomeIndex, depth, etag}) → {status:200, book, etag} | {status:304}
 *                    .prices(id, timeframe) .quotes(id) .simulate(id, p)
 *                    .oracle(id) .oracleQuotes(id) .latestOracleQuote(id) .requestOracleQuote(id)
 *   client.activity  .list(p) .market(id, p) .iterate(p, marketId?)
 *   client.orders    .list(p) .iterate(p) .recent(p) .get(idOrHash) .simulate(p)
 *                    .create(body, opts) .cancel(c) .cancelReplace(c, body, opts)
 *                    .bulk(ops, opts) .bulkCreate(bodies, opts) .bulkCancel(cs)      (bodies already signed)
 *   client.portfolio .get(addr, p) .iterate(addr, p) .positions(addr, p) .iteratePositions(addr, p)
 *                    .claimable(addr) .stats(addr)
 *   client.balance   .summary(addr) .token(addr, token) .settlement(addr, token) .mintTestUsdc(addr, amount)
 *   client.migration .status(addr?) .start(o) .migrateFunds(i) .restoreOrders(r, addr?) .dismissOrders(o)
 *   client.gasless   .setOperator(i) .depositWithPermit(i)
 *   client.questions .submit(text) .agentSubmit(m) .submission(id) .waitForSubmission(id, o) .createMarket(qid)
 *   client.rateLimit  latest X-RateLimit-* state (or null);  client.close()  releases the keep-alive pool.
 *
 * Errors: VenueError (status, venueCode, retryAfterMs), NetworkError, TimeoutError, BadResponseError (field);
 * `classify(err)` in ./client/classify.ts says retry / backoff / halt / fail. Creates answer `{duplicate: true}`
 * when a retry finds the order already placed. Prices come back in integer 1e-6 units, sizes in 1e-6 shares.
 */
import type { BookPriceUnits, BookSizeUnits } from '../model/book.ts';
import { chainByName, MAINNET, type ChainConfig, type ChainName } from './chains.ts';
import * as activity from './client/activity.ts';
import * as balance from './client/balance.ts';
import type { ClientContext } from './client/context.ts';
import * as gasless from './client/gasless.ts';
import * as marketData from './client/market-data.ts';
import * as markets from './client/markets.ts';
import * as migration from './client/migration.ts';
import * as oracle from './client/oracle.ts';
import { getOrderbook } from './client/orderbook.ts';
import * as ordersRead from './client/orders-read.ts';
import * as ordersWrite from './client/orders-write.ts';
import * as portfolio from './client/portfolio.ts';
import * as questions from './client/questions.ts';
import type { RateLimitState } from './client/rate-limit.ts';
import { Transport, type TransportOptions } from './client/transport.ts';

/** The transport's options (key, retry, timeouts, injected sleep and clock, pacing, pool, latency hook) and the venue's. */
export interface VenueClientOptions extends Omit<TransportOptions, 'baseUrl'> {
  /** 'mainnet' (default) or 'testnet'; ignored for the URL when `baseUrl` is given */
  chain?: ChainName | ChainConfig;
  /** any venue base, used as is (e.g. the local exchange's `http://127.0.0.1:8787/v2`) */
  baseUrl?: string;
  /** units of book/quote/outcome prices (default 'auto', see client/normalize-orderbook.ts) */
  priceUnits?: BookPriceUnits;
  /** units of book sizes (default 'shares') */
  sizeUnits?: BookSizeUnits;
}

type Rest<F> = F extends (ctx: ClientContext, ...args: infer A) => infer R ? (...args: A) => R : never;

function bind<F extends (ctx: ClientContext, ...args: never[]) => unknown>(ctx: ClientContext, f: F): Rest<F> {
  return ((...args: never[]) => f(ctx, ...args)) as Rest<F>;
}

export function createVenueClient(opts: VenueClientOptions = {}) {
  const chain = typeof opts.chain === 'string' ? chainByName(opts.chain) : (opts.chain ?? MAINNET);
  const sleep = opts.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const now = opts.now ?? Date.now;
  const t = new Transport({
    baseUrl: opts.baseUrl ?? chain.apiBase,
    sleep,
    now,
    ...(opts.apiKey !== undefined ? { apiKey: opts.apiKey } : {}),
    ...(opts.logger !== undefined ? { logger: opts.logger } : {}),
    ...(opts.retry !== undefined ? { retry: opts.retry } : {}),
    ...(opts.timeoutMs !== undefined ? { timeoutMs: opts.timeoutMs } : {}),
    ...(opts.random !== undefined ? { random: opts.random } : {}),
    ...(opts.pacing !== undefined ? { pacing: opts.pacing } : {}),
    ...(opts.connections !== undefined ? { connections: opts.connections } : {}),
    ...(opts.onResponse !== undefined ? { onResponse: opts.onResponse } : {}),
  });
  const ctx: ClientContext = { t, priceUnits: opts.priceUnits ?? 'auto', sizeUnits: opts.sizeUnits ?? 'shares', sleep, now };
  return {
    chain,
    baseUrl: t.baseUrl,
    get rateLimit(): RateLimitState | null {
      return t.rateLimit;
    },
    get authenticated(): boolean {
      return t.authenticated;
    },
    close: () => t.close(),
    markets: {
      list: bind(ctx, markets.listMarkets),
      iterate: bind(ctx, markets.iterateMarkets),
      search: bind(ctx, markets.searchMarkets),
      iterateSearch: bind(ctx, markets.iterateSearch),
      get: bind(ctx, markets.getMarket),
      orderbook: bind(ctx, getOrderbook),
      prices: bind(ctx, marketData.getPrices),
      quotes: bind(ctx, marketData.getQuotes),
      simulate: bind(ctx, marketData.simulateMarket),
      oracle: bind(ctx, oracle.getOracle),
      oracleQuotes: bind(ctx, oracle.listOracleQuotes),
      latestOracleQuote: bind(ctx, oracle.latestOracleQuote),
      requestOracleQuote: bind(ctx, oracle.requestOracleQuote),
    },
    activity: {
      list: bind(ctx, activity.listActivity),
      market: bind(ctx, activity.marketActivity),
      iterate: bind(ctx, activity.iterateActivity),
    },
    orders: {
      list: bind(ctx, ordersRead.listOrders),
      iterate: bind(ctx, ordersRead.iterateOrders),
      recent: bind(ctx, ordersRead.recentOrders),
      get: bind(ctx, ordersRead.getOrder),
      simulate: bind(ctx, ordersRead.simulateOrder),
      create: bind(ctx, ordersWrite.createOrder),
      cancel: bind(ctx, ordersWrite.cancelOrder),
      cancelReplace: bind(ctx, ordersWrite.cancelReplace),
      bulk: bind(ctx, ordersWrite.bulk),
      bulkCreate: bind(ctx, ordersWrite.bulkCreate),
      bulkCancel: bind(ctx, ordersWrite.bulkCancel),
    },
    portfolio: {
      get: bind(ctx, portfolio.getPortfolio),
      iterate: bind(ctx, portfolio.iteratePortfolio),
      positions: bind(ctx, portfolio.getPositions),
      iteratePositions: bind(ctx, portfolio.iteratePositions),
      claimable: bind(ctx, portfolio.getClaimable),
      stats: bind(ctx, portfolio.getStats),
    },
    balance: {
      summary: bind(ctx, balance.getBalanceSummary),
      token: bind(ctx, balance.getTokenBalance),
      settlement: bind(ctx, balance.getSettlementBalance),
      mintTestUsdc: bind(ctx, balance.mintTestUsdc),
    },
    migration: {
      status: bind(ctx, migration.getMigrationStatus),
      start: bind(ctx, migration.startMigration),
      migrateFunds: bind(ctx, migration.migrateFunds),
      restoreOrders: bind(ctx, migration.restoreOrders),
      dismissOrders: bind(ctx, migration.dismissOrders),
    },
    gasless: {
      setOperator: bind(ctx, gasless.setOperatorGasless),
      depositWithPermit: bind(ctx, gasless.depositWithPermit),
    },
    questions: {
      submit: bind(ctx, questions.submitQuestion),
      agentSubmit: bind(ctx, questions.agentSubmit),
      submission: bind(ctx, questions.getSubmission),
      waitForSubmission: bind(ctx, questions.waitForSubmission),
      createMarket: bind(ctx, questions.createMarket),
    },
  };
}

export type VenueClient = ReturnType<typeof createVenueClient>;
