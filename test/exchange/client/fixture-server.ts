/**
 * A tiny scripted HTTP venue for client tests: node:http on 127.0.0.1:0. Each route ("GET /v2/markets") holds a
 * queue of answers (status, body, headers) served in order, the last one repeating; every request is recorded
 * (method, path, query, headers, raw body) so tests can assert what the client sent.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, beforeEach } from 'node:test';
import { createVenueClient, type VenueClient } from '../../../src/exchange/venue-client.ts';
import type { Bytes32 } from '../../../src/model/order.ts';

export interface Answer {
  status?: number;
  body?: unknown;
  /** raw text instead of JSON */
  raw?: string;
  headers?: Record<string, string>;
}

export interface Recorded {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export interface Fixture {
  baseUrl: string;
  requests: Recorded[];
  /** script a route: key "METHOD /path" (path below /v2) */
  on(key: string, ...answers: (Answer | ((req: Recorded) => Answer))[]): void;
  close(): Promise<void>;
}

export async function startFixture(): Promise<Fixture> {
  const routes = new Map<string, (Answer | ((req: Recorded) => Answer))[]>();
  const requests: Recorded[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://x');
      const rec: Recorded = {
        method: req.method ?? 'GET',
        path: url.pathname,
        query: url.searchParams,
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      requests.push(rec);
      const key = `${rec.method} ${url.pathname.replace(/^\/v2/, '')}`;
      const q = routes.get(key);
      if (!q || q.length === 0) {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ message: `no fixture for ${key}`, code: 'not_found' }));
        return;
      }
      const next = q.length > 1 ? q.shift()! : q[0]!;
      const a = typeof next === 'function' ? next(rec) : next;
      const status = a.status ?? 200;
      const text = a.raw ?? (a.body === undefined ? '' : JSON.stringify(a.body));
      res.writeHead(status, { ...(text && status !== 304 ? { 'content-type': 'application/json' } : {}), ...a.headers });
      res.end(status === 304 ? undefined : text);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    baseUrl: `http://127.0.0.1:${port}/v2`,
    requests,
    on(key, ...answers) {
      routes.set(key, answers);
    },
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

export const MARKET_ID = ('0x' + 'ab'.repeat(32)) as Bytes32;
export const TRADER = ('0x' + '12'.repeat(20)) as `0x${string}`;
export const NONCE = ('0x' + '34'.repeat(32)) as Bytes32;
export const SIG = ('0x' + '56'.repeat(65)) as `0x${string}`;

/** A venue Order as the spec shapes it (1e-6 units as decimal strings). */
export function orderJson(over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    marketId: MARKET_ID,
    trader: TRADER,
    nonce: NONCE,
    side: 0,
    price: '450000',
    size: '10000000',
    filledSize: '0',
    remainingSize: '10000000',
    percentFilled: 0,
    insertedAt: '2026-11-21T10:00:00.000Z',
    type: 'limit',
    status: 'open',
    voidedAt: null,
    voidReason: null,
    outcomeIndex: 1,
    expiry: '1795000000',
    settlementVersion: 2,
    sv2OrderKind: 0,
    sv2TimeInForce: 0,
    sv2MinSharesOut: '10000000',
    sv2MaxCollateralIn: '4545000',
    sv2MinCollateralOut: null,
    ...over,
  };
}

export function marketJson(over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: MARKET_ID,
    oracle: TRADER,
    question: 'Will it rain in Lisbon tomorrow?',
    shortQuestion: 'Rain in Lisbon?',
    outcomeTokens: [TRADER, TRADER],
    outcomePrices: [
      { outcomeIndex: 0, bestBid: 53, bestAsk: 55, spread: 2, midPrice: 54, lastPrice: 54, sellPrice: 53, buyPrice: 55 },
      { outcomeIndex: 1, bestBid: 45, bestAsk: 47, spread: 2, midPrice: 46, lastPrice: 46, sellPrice: 45, buyPrice: 47 },
    ],
    creator: TRADER,
    status: 'active',
    resolutionStatus: 'none',
    volume: '123456789',
    volume24h: '1000000',
    participantCount: 7,
    deadline: '2026-12-01T00:00:00.000Z',
    createdAt: '2026-11-01T00:00:00.000Z',
    outcome: null,
    metadata: { slug: 'rain-lisbon', categories: ['weather'] },
    ...over,
  };
}

/** A signed limit body (fake signature: this client never verifies). */
export function limitBody(nonce: Bytes32 = NONCE) {
  return {
    type: 'limit' as const,
    marketId: MARKET_ID,
    trader: TRADER,
    price: '450000',
    size: '10000000',
    outcomeIndex: 1,
    side: 0,
    nonce,
    expiry: '1795000000',
    maxFee: '45000',
    makerRoleConstraint: 0,
    inventoryModeConstraint: 0,
    signature: SIG,
  };
}

/** A test file's fixture server and the client on it; the fields are set once the file's `before` hook has run. */
export interface FixtureClient {
  fx: Fixture;
  client: VenueClient;
  /** back-off waits the client asked for (the client never really sleeps), since the current test began */
  sleeps: number[];
}

/**
 * Registers the hooks every client test file needs: start a fixture and a client on it (sleeps recorded,
 * jitter fixed at 0.5) before the tests, clear the recorded requests and sleeps before each, close both after.
 */
export function useFixtureClient(apiKey?: string): FixtureClient {
  const ctx = { sleeps: [] } as unknown as FixtureClient;
  before(async () => {
    ctx.fx = await startFixture();
    ctx.client = createVenueClient({
      baseUrl: ctx.fx.baseUrl,
      ...(apiKey !== undefined ? { apiKey } : {}),
      sleep: async (ms) => void ctx.sleeps.push(ms),
      random: () => 0.5,
    });
  });
  after(async () => {
    await ctx.client.close();
    await ctx.fx.close();
  });
  beforeEach(() => {
    ctx.sleeps = [];
    ctx.fx.requests.length = 0;
  });
  return ctx;
}
