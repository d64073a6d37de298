/**
 * `createLocalExchange(options)`: the local exchange, embeddable in-process (tests, `npm start`)
 * and behind `bookmaker sim`. It wires the matching engine, the stores, order entry, the book
 * streams, fault injection, the route table and the HTTP server, and owns saving/restoring state.
 *
 *     const ex = createLocalExchange({ seed: 42, apiKeys: [{ key: 'k1' }] });
 *     const baseUrl = await ex.start();        // http://127.0.0.1:PORT/v2
 *     ...
 *     await ex.close();
 */
import { createHash } from 'node:crypto';
import { systemClock, type Clock } from '../core/clock.ts';
import { TESTNET, type ChainConfig } from '../exchange/chains.ts';
import { addressFromPublicKey } from '../exchange/signing/address.ts';
import { cryptoBackend } from '../exchange/signing/backend.ts';
import { registerSecret } from '../core/logger.ts';
import { MatchingEngine } from '../engine/matching-engine.ts';
import type { Address, Bytes32 } from '../model/order.ts';
import { BookStreamHub } from './book-stream.ts';
import { checksum } from './checksum.ts';
import type { ExchangeServices, ExchangeSettings, ExchangeState, NewMarketInput, TradingGuard } from './context.ts';
import { EngineEventHandler } from './engine-events.ts';
import { EngineHost } from './engine-host.ts';
import { FaultInjector, faultProfile, type FaultSettings } from './faults.ts';
import { listen, type RunningServer } from './http-server.ts';
import { badRequest, conflict, notFound } from './http-errors.ts';
import { setInternals } from './internals.ts';
import { DEMO_MARKETS, newMarketRecord } from './market-factory.ts';
import { MarketStats } from './market-stats.ts';
import { OrderService } from './order-service.ts';
import { RateLimiter } from './rate-limiter.ts';
import type { ActivityEntry, ApiKeyRecord, MarketRecord } from './records.ts';
import { ROUTE_MODULES } from './route-modules.ts';
import { ALL_PERMISSIONS, DEFAULT_PERMISSIONS, Router, type Permission } from './router.ts';
import { readStateFile, writeStateFile, STATE_FILE_VERSION, type SavedState } from './state-file.ts';

export interface ApiKeySpec {
  key: string;
  /** primary wallet; default: a throwaway wallet derived from the seed and the key (its private key is kept for demos) */
  wallet?: string;
  /** default ['read', 'trade'] */
  perms?: Permission[];
}

export interface LocalExchangeOptions {
  seed?: number;
  apiKeys?: ApiKeySpec[];
  /** a profile name (see FAULT_PROFILES) or settings; default off */
  faults?: string | Partial<FaultSettings>;
  /** markets to create on a fresh start: a count of demo markets (default 4) or explicit inputs */
  markets?: number | NewMarketInput[];
  batchLimit?: number;
  /** chain whose contract addresses form the EIP-712 domains (default testnet) */
  chain?: ChainConfig;
  clock?: Clock;
  rateLimit?: { capacity: number; refillPerSecond: number };
  bodyLimitBytes?: number;
  heartbeatMs?: number;
  streamBufferSize?: number;
  /** collateral credited to each API key's wallet on a fresh start (1e-6 USDC; default 10 000 USDC) */
  initialCollateral?: bigint;
  /** `--state FILE`: restored on creation when it exists, saved on close() and save(). The engine's
   * command log (what a restore replays) is only kept when this is set. */
  stateFile?: string;
  /** how often due orders are expired, ms (default 1000; 0 = only on request) */
  expirySweepMs?: number;
  /** unexpected handler errors (bugs), for logging */
  onError?: (err: unknown, method: string, path: string) => void;
}

export interface LocalExchange {
  readonly state: ExchangeState;
  readonly faults: FaultInjector;
  readonly router: Router;
  readonly hub: BookStreamHub;
  readonly orders: OrderService;
  /** listen on 127.0.0.1:port (0 = any) and return the base URL (…/v2) */
  start(port?: number): Promise<string>;
  /** the base URL while listening */
  baseUrl(): string | undefined;
  /** stop timers, end streams, close the server, save state when a state file is set */
  close(): Promise<void>;
  /** fault: close and reopen the HTTP server on the same port; state kept. Counted as 'restart'. */
  restart(): Promise<string>;
  /** write the state file now (no-op without one) */
  save(): void;
  /** the whole state as saved to a file */
  snapshot(): SavedState;
  /** expire due orders now */
  expireNow(): number;
  /** register a timer callback driven by the exchange clock; cleared on close */
  every(ms: number, fn: () => void): void;
}

const DEFAULT_SETTINGS: ExchangeSettings = {
  seed: 42,
  batchLimit: 50,
  bodyLimitBytes: 1_000_000,
  rateLimit: { capacity: 600, refillPerSecond: 300 },
  heartbeatMs: 5_000,
  streamBufferSize: 1_024,
};

/** A throwaway wallet for a key given without one: deterministic from the seed and the key. */
export function demoWallet(seed: number, key: string): { wallet: Address; privateKey: `0x${string}` } {
  const be = cryptoBackend();
  for (let i = 0; ; i++) {
    const pk = createHash('sha256').update(`bookmaker-sim:wallet:${seed}:${key}:${i}`).digest();
    if (!be.ecdsa.isValidPrivateKey(pk)) continue;
    const privateKey = `0x${pk.toString('hex')}` as `0x${string}`;
    registerSecret(privateKey);
    return { wallet: addressFromPublicKey(be.ecdsa.publicKey(pk), be.keccak256), privateKey };
  }
}

function keyRecord(spec: ApiKeySpec, seed: number): ApiKeyRecord {
  if (typeof spec.key !== 'string' || spec.key.length < 1 || spec.key.length > 200 || /\s/.test(spec.key)) throw new Error('api key: expected 1–200 non-space characters');
  registerSecret(spec.key);
  const perms = spec.perms ?? [...DEFAULT_PERMISSIONS];
  for (const p of perms) if (!ALL_PERMISSIONS.includes(p)) throw new Error(`api key permission '${p}': expected one of ${ALL_PERMISSIONS.join(', ')}`);
  if (spec.wallet !== undefined) {
    if (!/^0x[0-9a-fA-F]{40}$/.test(spec.wallet)) throw new Error('api key wallet: expected an address (0x + 40 hex)');
    return { key: spec.key, wallet: checksum(spec.wallet), perms };
  }
  const d = demoWallet(seed, spec.key);
  return { key: spec.key, wallet: d.wallet, perms, privateKey: d.privateKey };
}

export function createLocalExchange(options: LocalExchangeOptions = {}): LocalExchange {
  const clock = options.clock ?? systemClock;
  const chain = options.chain ?? TESTNET;
  const settings: ExchangeSettings = {
    ...DEFAULT_SETTINGS,
    seed: options.seed ?? DEFAULT_SETTINGS.seed,
    batchLimit: options.batchLimit ?? DEFAULT_SETTINGS.batchLimit,
    bodyLimitBytes: options.bodyLimitBytes ?? DEFAULT_SETTINGS.bodyLimitBytes,
    rateLimit: options.rateLimit ?? DEFAULT_SETTINGS.rateLimit,
    heartbeatMs: options.heartbeatMs ?? DEFAULT_SETTINGS.heartbeatMs,
    streamBufferSize: options.streamBufferSize ?? DEFAULT_SETTINGS.streamBufferSize,
  };
  if (!Number.isInteger(settings.batchLimit) || settings.batchLimit < 1) throw new Error('batchLimit: expected a positive integer');
  const faultSettings = typeof options.faults === 'string' ? faultProfile(options.faults) : options.faults;
  const faults = new FaultInjector(faultSettings, settings.seed);
  const stats = new MarketStats();
  const hub = new BookStreamHub({ bufferSize: settings.streamBufferSize, heartbeatMs: settings.heartbeatMs, now: () => clock.now(), faults });

  const keys = new Map<string, ApiKeyRecord>();
  const markets = new Map<string, MarketRecord>();
  const slugs = new Map<string, MarketRecord>();
  const activity: ActivityEntry[] = [];
  const counters: Record<string, number> = { markets: 0, activity: 0 };
  const ext: Record<string, unknown> = {};
  const tradingGuards: TradingGuard[] = [];

  // the state object is built before the services that close over it
  const services: ExchangeServices = {
    placeOrder: (body, field, caller, now) => orders.place(body, field, caller, now),
    cancelOrder: (body, field, caller, now) => {
      const r = orders.cancel(body, field, caller, now);
      return { trader: r.trader, nonce: r.nonce, alreadyCancelled: r.alreadyCancelled };
    },
    addMarket: (input, now) => addMarket(input, now),
    addActivity: (entry) => {
      const e: ActivityEntry = { ...entry, seq: ++counters.activity! };
      activity.push(e);
      if (activity.length > 120_000) activity.splice(0, 20_000); // bounded; cursors are seqs, so they stay valid
      return e;
    },
    findMarket: (idOrSlug) => markets.get(idOrSlug.toLowerCase()) ?? slugs.get(idOrSlug.toLowerCase()),
    resolveMarket: (idOrSlug, payoutYes, now, evidence = null) => resolveMarket(idOrSlug, payoutYes, now, evidence),
  };

  // engine events only flow once commands run, by which time `events` exists
  let events: EngineEventHandler | undefined;
  const host = new EngineHost((sink) => new MatchingEngine({ sink }), (e) => events?.handle(e), options.stateFile !== undefined);
  const state: ExchangeState = { settings, clock, chain, keys, stores: { markets, orders: [], activity }, ext, tradingGuards, services, engine: host };
  const orders = new OrderService(state, host, chain);
  events = new EngineEventHandler(state, hub, stats, host, orders);
  setInternals(state, { orders, hub, stats, faults, events });

  function addMarket(input: NewMarketInput, now: number): MarketRecord {
    const n = ++counters.markets!;
    const m = newMarketRecord(input, settings.seed, n, now, (s) => slugs.has(s));
    if (markets.has(m.id.toLowerCase())) throw new Error(`market ${m.id} exists`);
    markets.set(m.id.toLowerCase(), m);
    slugs.set(m.slug.toLowerCase(), m);
    host.ensureMarket(m.id, { tick: m.tick });
    services.addActivity({ type: 'market_created', marketId: m.id, ts: now, data: { question: m.question, slug: m.slug, creator: m.creator } });
    return m;
  }

  function resolveMarket(idOrSlug: string, payoutYes: number, now: number, evidence: string | null): MarketRecord {
    const m = services.findMarket(idOrSlug);
    const idx = m ? host.marketIndex(m.id) : undefined;
    if (!m || idx === undefined) throw notFound(`market ${idOrSlug}`);
    if (m.status === 'resolved') throw conflict('market already resolved');
    if (!Number.isSafeInteger(payoutYes) || payoutYes < 0 || payoutYes > 1_000_000) throw badRequest('payoutYes', 'expected an integer from 0 to 1000000');
    const r = host.apply({ type: 'resolve', market: idx, payoutYes, nowMs: now }) as { ok: boolean; message?: string };
    if (!r.ok) throw conflict(`cannot resolve: ${r.message ?? 'refused'}`);
    m.status = 'resolved';
    m.resolutionStatus = 'resolved';
    m.resolvedAt = now;
    m.payoutPcts = [(1_000_000 - payoutYes) / 10_000, payoutYes / 10_000];
    m.outcome = payoutYes === 1_000_000 ? 1 : payoutYes === 0 ? 0 : null;
    const outcome = m.outcome === 1 ? 'yes' : m.outcome === 0 ? 'no' : `split ${payoutYes / 10_000}% yes`;
    services.addActivity({ type: 'resolution', marketId: m.id, ts: now, data: { outcome, evidence } });
    return m;
  }

  function addKey(rec: ApiKeyRecord): void {
    keys.set(rec.key, rec);
  }

  // ---- fresh start or restore ----
  const saved = options.stateFile ? readStateFile(options.stateFile) : undefined;
  if (saved) {
    for (const k of saved.keys) addKey(k);
    for (const m of saved.markets) {
      markets.set(m.id.toLowerCase(), m);
      slugs.set(m.slug.toLowerCase(), m);
    }
    state.stores.orders.push(...saved.orders);
    activity.push(...saved.activity);
    Object.assign(ext, saved.ext);
    Object.assign(counters, saved.counters);
    host.replay(saved.engineLog);
    orders.reindex();
    stats.rebuild(activity);
    // keys given now but not in the file are added (with their starting balance)
    for (const spec of options.apiKeys ?? []) if (!keys.has(spec.key)) fundKey(keyRecord(spec, settings.seed));
  } else {
    const now = clock.now();
    const inputs = Array.isArray(options.markets) ? options.markets : DEMO_MARKETS.slice(0, Math.max(0, Math.min(DEMO_MARKETS.length, options.markets ?? 4)));
    for (const input of inputs) addMarket(input, now);
    for (const spec of options.apiKeys ?? []) fundKey(keyRecord(spec, settings.seed));
  }

  function fundKey(rec: ApiKeyRecord): void {
    addKey(rec);
    const t = host.ensureTrader(rec.wallet);
    const amount = options.initialCollateral ?? 10_000_000_000n;
    if (amount > 0n && host.engine.balance(t).collateral === 0n) host.deposit(t, amount);
  }

  // ---- server, timers ----
  const router = new Router();
  for (const m of ROUTE_MODULES) m.register(router);
  const limiter = new RateLimiter(settings.rateLimit.capacity, settings.rateLimit.refillPerSecond);
  let running: RunningServer | undefined;
  let lastPort = 0;
  const timers: (() => void)[] = [];
  let closed = false;

  function every(ms: number, fn: () => void): void {
    if (ms <= 0) return;
    let cancel: () => void = () => undefined;
    const tick = (): void => {
      if (closed) return;
      try {
        fn();
      } catch (e) {
        options.onError?.(e, 'TIMER', '');
      }
      cancel = clock.setTimeout(tick, ms);
    };
    cancel = clock.setTimeout(tick, ms);
    timers.push(() => cancel());
  }

  const expireNow = (): number => host.expire(clock.now());
  every(options.expirySweepMs ?? 1000, expireNow);

  function snapshot(): SavedState {
    return {
      version: STATE_FILE_VERSION,
      seed: settings.seed,
      savedAt: clock.now(),
      keys: [...keys.values()],
      markets: [...markets.values()],
      orders: state.stores.orders,
      activity,
      ext,
      counters: { ...counters },
      engineLog: host.log,
    };
  }

  const save = (): void => {
    if (options.stateFile) writeStateFile(options.stateFile, snapshot());
  };

  const deps = { state, router, faults, limiter, ...(options.onError ? { onError: options.onError } : {}) };

  return {
    state,
    faults,
    router,
    hub,
    orders,
    async start(port = 0) {
      running = await listen(deps, port);
      lastPort = running.port;
      return running.baseUrl;
    },
    baseUrl: () => running?.baseUrl,
    async close() {
      if (closed) return;
      closed = true;
      for (const t of timers) t();
      hub.closeAll();
      if (running) await running.close();
      running = undefined;
      save();
    },
    async restart() {
      faults.count('restart');
      hub.closeAll();
      if (running) await running.close();
      running = await listen(deps, lastPort);
      return running.baseUrl;
    },
    save,
    snapshot,
    expireNow,
    every,
  };
}

/** Fresh bytes32 helper for tests that create markets with fixed ids. */
export function marketIdFor(label: string): Bytes32 {
  return `0x${createHash('sha256').update(label).digest('hex')}` as Bytes32;
}
