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
import { bytes32Of } from '../model/ids.ts';
import type { Address, Bytes32 } from '../model/order.ts';
import { BookStreamHub } from './book-stream.ts';
import { checksumOf } from './checksum.ts';
import type { ExchangeServices, ExchangeSettings, ExchangeState, NewMarketInput, OrderVoider, TradingGuard } from './context.ts';
import { missingOperatorApproval } from './migration/install.ts';
import { EngineEventHandler } from './engine-events.ts';
import { FlowTap, type FlowEvent, type FlowTapOptions } from './flow-tap.ts';
import { EngineHost } from './engine-host.ts';
import { FaultInjector, faultProfile, type FaultSettings } from './faults.ts';
import { listen, type HttpServerDeps, type RequestHold, type RunningServer } from './http-server.ts';
import { badRequest, conflict, notFound } from './http-errors.ts';
import { setInternals } from './internals.ts';
import { DEMO_MARKETS, newMarketRecord } from './market-factory.ts';
import { marketStatusEvent } from './market-json.ts';
import { MarketStats } from './market-stats.ts';
import { OrderService } from './order-service.ts';
import { RateLimiter } from './rate-limiter.ts';
import type { ActivityEntry, ApiKeyRecord, MarketRecord, StoredOrder } from './records.ts';
import { ROUTE_MODULES } from './route-modules.ts';
import { ALL_PERMISSIONS, DEFAULT_PERMISSIONS, Router } from './router.ts';
import type { Permission } from './records.ts';
import { decodeState, type SavedState } from './state-file.ts';
import { DurableFiles, type LoadedSnapshot } from './durability/durable-files.ts';
import { ExchangeJournal } from './durability/exchange-journal.ts';
import { replayRecord } from './durability/replay.ts';
import { oracleUpdate } from './oracle.ts';
import { claimPosition } from './claims.ts';
import type { HostStateData } from './engine-host.ts';
import type { EngineStateData } from '../engine/matching-engine.ts';
import { IDS_NORMALISED, normaliseActivity, normaliseMarket, normaliseOrder } from './durability/restore-ids.ts';
import { addressOf, walletOf } from './wire-ids.ts';

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
  /** bytes of request bodies held at once, all connections together (default 32 MiB; a body that does not fit → 503) */
  bodyBytesInFlight?: number;
  /** a body not complete this long after its headers gets 408 (default 5 000 ms) */
  bodyTimeoutMs?: number;
  /** concurrent connections (default 2 048); more are closed at once */
  maxConnections?: number;
  heartbeatMs?: number;
  streamBufferSize?: number;
  /** collateral credited to each API key's wallet on a fresh start (1e-6 USDC; default 10 000 USDC) */
  initialCollateral?: bigint;
  /**
   * `--state FILE`: restored on creation when it exists (FILE is a snapshot of the live state, and
   * FILE.wal.N journal segments hold every change since). From start() on, every acknowledged change
   * is in the journal (fdatasync, group commit) before its answer is sent; a checkpoint (on close(),
   * save(), SIGHUP in `bookmaker sim`, and when the journal passes `checkpointBytes`) writes a new
   * snapshot and drops the journal it covers.
   */
  stateFile?: string;
  /** journal size that triggers a checkpoint (default 64 MiB) */
  checkpointBytes?: number;
  /** fdatasync each journal group (default true; false only for benchmarks of the write path) */
  journalSync?: boolean;
  /** warnings of a restore (a torn journal tail dropped), for logging */
  onWarning?: (message: string) => void;
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
  /**
   * For tests only: hold requests at a stage (src/sim/http-server.ts RequestHold), e.g. a bulk
   * create's answer after the exchange accepted its orders, while the test kills the client; null
   * removes the hold.
   */
  holdRequests(hold: RequestHold | null): void;
  /** checkpoint now: a snapshot of the live state, the journal it covers dropped (no-op without a state file) */
  save(): Promise<void>;
  /** the live state as a snapshot stores it (sections by name) */
  snapshot(): Record<string, unknown>;
  /** journal records replayed by the last restore (0 on a fresh start) */
  readonly restoredRecords: number;
  /** expire due orders now */
  expireNow(): number;
  /** register a timer callback driven by the exchange clock; cleared on close */
  every(ms: number, fn: () => void): void;
  /**
   * The venue's drop copy of some markets for an in-process recorder (./flow-tap.ts): the book of
   * everybody but `exclude` and the incoming taker orders, in the engine's order. Returns the stop function.
   */
  tapFlow(o: FlowTapOptions, sink: (e: FlowEvent) => void): () => void;
}

const DEFAULT_SETTINGS: ExchangeSettings = {
  seed: 42,
  batchLimit: 50,
  bodyLimitBytes: 1_000_000,
  bodyBytesInFlight: 32 * 1024 * 1024,
  bodyTimeoutMs: 5_000,
  maxConnections: 2_048,
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
  if (typeof spec.key !== 'string' || spec.key.length < 1 || spec.key.length > 200 || /\s/.test(spec.key))
    throw new Error('api key: expected 1–200 non-space characters');
  registerSecret(spec.key);
  const perms = spec.perms ?? [...DEFAULT_PERMISSIONS];
  for (const p of perms) if (!ALL_PERMISSIONS.includes(p)) throw new Error(`api key permission '${p}': expected one of ${ALL_PERMISSIONS.join(', ')}`);
  if (spec.wallet !== undefined) {
    const wallet = addressOf(spec.wallet);
    if (wallet === null) throw new Error('api key wallet: expected an address (0x + 40 hex)');
    return { key: spec.key, wallet: checksumOf(wallet), perms };
  }
  const d = demoWallet(seed, spec.key);
  return { key: spec.key, wallet: d.wallet, perms, privateKey: d.privateKey };
}

/** v8 sections of stored orders hold this many orders each (bounded buffers on save and restore). */
const ORDERS_PER_SECTION = 100_000;

export function createLocalExchange(options: LocalExchangeOptions = {}): LocalExchange {
  const journal = new ExchangeJournal(options.clock ?? systemClock);
  const clock = journal.clock;
  const chain = options.chain ?? TESTNET;
  const settings: ExchangeSettings = {
    ...DEFAULT_SETTINGS,
    seed: options.seed ?? DEFAULT_SETTINGS.seed,
    batchLimit: options.batchLimit ?? DEFAULT_SETTINGS.batchLimit,
    bodyLimitBytes: options.bodyLimitBytes ?? DEFAULT_SETTINGS.bodyLimitBytes,
    bodyBytesInFlight: options.bodyBytesInFlight ?? DEFAULT_SETTINGS.bodyBytesInFlight,
    bodyTimeoutMs: options.bodyTimeoutMs ?? DEFAULT_SETTINGS.bodyTimeoutMs,
    maxConnections: options.maxConnections ?? DEFAULT_SETTINGS.maxConnections,
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
  const markets = new Map<Bytes32, MarketRecord>();
  /** by slug, matched case-insensitively (a slug is text, not an id) */
  const slugs = new Map<string, MarketRecord>();
  const slugKey = (slug: string): string => slug.toLowerCase();
  const activity: ActivityEntry[] = [];
  const counters: Record<string, number> = { markets: 0, activity: 0 };
  const ext: Record<string, unknown> = {};
  const tradingGuards: TradingGuard[] = [];
  const orderVoiders: OrderVoider[] = [];

  // the state object is built before the services that close over it
  const services: ExchangeServices = {
    placeOrder: (body, field, caller, now) => orders.place(body, field, caller, now),
    cancelOrder: (body, field, caller, now) => {
      const r = orders.cancel(body, field, caller, now);
      return { trader: r.trader, nonce: r.nonce, alreadyCancelled: r.alreadyCancelled };
    },
    addMarket: (input, now) => journal.service('addMarket', [input, now], () => addMarket(input, now)),
    addActivity: (entry) => {
      const e: ActivityEntry = { ...entry, seq: ++counters.activity! };
      activity.push(e);
      if (activity.length > 120_000) activity.splice(0, 20_000); // bounded; cursors are seqs, so they stay valid
      return e;
    },
    market: (id) => markets.get(id),
    findMarket: (idOrSlug) => {
      const id = bytes32Of(idOrSlug);
      return (id === null ? undefined : markets.get(id)) ?? slugs.get(slugKey(idOrSlug));
    },
    resolveMarket: (idOrSlug, payoutYes, now, evidence = null) =>
      journal.service('resolveMarket', [idOrSlug, payoutYes, now, evidence], () => resolveMarket(idOrSlug, payoutYes, now, evidence)),
    closeMarket: (idOrSlug, now) => journal.service('closeMarket', [idOrSlug, now], () => closeMarket(idOrSlug, now)),
    oracleUpdate: (marketId, now, chance, posts) =>
      journal.service('oracleUpdate', [marketId, now, chance, posts], () => oracleUpdate(state, marketId, now, chance, posts)),
    claimPosition: (wallet, idOrSlug, how, now) =>
      journal.service('claimPosition', [wallet, idOrSlug, how, now], () => claimPosition(state, wallet, idOrSlug, how)),
  };

  // engine events only flow once commands run, by which time `events` exists
  let events: EngineEventHandler | undefined;
  // snapshots store the engine's live state, not its command history: no command log is kept
  const host = new EngineHost(
    (sink) => new MatchingEngine({ sink }),
    (e) => events?.handle(e),
    false,
  );
  host.onEntry = (e) => journal.host(e);
  const state: ExchangeState = {
    settings,
    clock,
    chain,
    keys,
    stores: { markets, orders: [], activity },
    ext,
    tradingGuards,
    orderVoiders,
    services,
    engine: host,
  };
  // every exchange holds the operator approvals (POST /gasless/operator, the funds migration)
  orderVoiders.push(missingOperatorApproval(state));
  const orders = new OrderService(state, host, chain);
  events = new EngineEventHandler(state, hub, stats, host, orders);
  const flowTap = new FlowTap(host, () => clock.now());
  events.tap = flowTap;
  setInternals(state, { orders, hub, stats, faults, events });

  function addMarket(input: NewMarketInput, now: number): MarketRecord {
    const n = ++counters.markets!;
    const m = newMarketRecord(input, settings.seed, n, now, (s) => slugs.has(s));
    if (markets.has(m.id)) throw new Error(`market ${m.id} exists`);
    markets.set(m.id, m);
    slugs.set(slugKey(m.slug), m);
    host.ensureMarket(m.id, { tick: m.tick });
    services.addActivity({ type: 'market_created', marketId: m.id, ts: now, data: { question: m.question, slug: m.slug, creator: checksumOf(m.creator) } });
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
    // the voided orders' level changes first (they are coalesced to a microtask), then the end
    events?.flush();
    hub.endMarket(m.id, marketStatusEvent(m), now);
    return m;
  }

  function closeMarket(idOrSlug: string, now: number): MarketRecord {
    const m = services.findMarket(idOrSlug);
    const idx = m ? host.marketIndex(m.id) : undefined;
    if (!m || idx === undefined) throw notFound(`market ${idOrSlug}`);
    if (m.status !== 'active') throw conflict(`market is ${m.status}`);
    const r = host.setMarketStatus(idx, 'halted');
    if (!r.ok) throw conflict(`cannot close: ${r.message ?? 'refused'}`);
    m.status = 'closed';
    m.resolutionStatus = 'pending';
    m.closedAt = now;
    // the book streams say so at once (they stay open: resting orders can still be cancelled)
    hub.publishStatus(m.id, marketStatusEvent(m), now);
    return m;
  }

  function addKey(rec: ApiKeyRecord): void {
    keys.set(rec.key, rec);
  }

  // ---- fresh start or restore ----
  const router = new Router();
  for (const m of ROUTE_MODULES) m.register(router);
  const files = options.stateFile !== undefined ? new DurableFiles(options.stateFile, { sync: options.journalSync !== false }) : undefined;
  let legacy: SavedState | undefined;
  let restoredRecords = 0;
  if (files) {
    files.checkWritable();
    const loaded = files.load((text) => {
      try {
        legacy = decodeState(text);
      } catch (e) {
        throw new Error(`state file ${options.stateFile}: ${(e as Error).message}`);
      }
    });
    for (const w of loaded.warnings) options.onWarning?.(w);
    if (loaded.snapshot) restoreSnapshot(loaded.snapshot);
    else if (legacy) restoreLegacy(legacy);
    if (loaded.snapshot || legacy || loaded.records.length) {
      // the indices first: replayed requests look orders up by nonce and engine id, as live ones did
      orders.reindex();
      journal.replaying = true;
      journal.files = files;
      try {
        for (const rec of loaded.records) replayRecord(rec, { state, router, journal, host });
      } finally {
        journal.replaying = false;
      }
      restoredRecords = loaded.records.length;
      stats.rebuild(activity);
      // keys given now replace the stored ones (a key not passed again no longer works)
      if (options.apiKeys?.length) keys.clear();
      for (const spec of options.apiKeys ?? []) fundKey(keyRecord(spec, settings.seed));
    } else freshStart();
  } else freshStart();

  function freshStart(): void {
    const now = clock.now();
    const inputs = Array.isArray(options.markets) ? options.markets : DEMO_MARKETS.slice(0, Math.max(0, Math.min(DEMO_MARKETS.length, options.markets ?? 4)));
    for (const input of inputs) addMarket(input, now);
    for (const spec of options.apiKeys ?? []) fundKey(keyRecord(spec, settings.seed));
  }

  function restoreCommon(s: {
    keys: ApiKeyRecord[];
    markets: MarketRecord[];
    activity: ActivityEntry[];
    ext: Record<string, unknown>;
    counters: Record<string, number>;
    ids?: string;
  }): void {
    for (const k of s.keys) addKey(k);
    // ids enter again from the file: markets (few) always normalised, activity unless the file says it is
    for (const m of s.markets) normaliseMarket(m);
    if (s.ids !== IDS_NORMALISED) for (const e of s.activity) normaliseActivity(e);
    for (const m of s.markets) {
      markets.set(m.id, m);
      slugs.set(slugKey(m.slug), m);
    }
    activity.push(...s.activity);
    Object.assign(ext, s.ext);
    Object.assign(counters, s.counters);
  }

  function restoreLegacy(saved: SavedState): void {
    restoreCommon(saved);
    for (const o of saved.orders) {
      normaliseOrder(o);
      state.stores.orders.push(o);
    }
    host.replay(saved.engineLog);
  }

  function restoreSnapshot(snap: LoadedSnapshot): void {
    const meta = snap.sections.get('meta')?.[0] as LiveMeta | undefined;
    const hostData = snap.sections.get('engine')?.[0] as HostStateData | undefined;
    if (!meta || !hostData) throw new Error(`state file ${options.stateFile}: the snapshot lacks its meta or engine section`);
    restoreCommon(meta);
    const from = state.stores.orders.length;
    for (const chunk of snap.sections.get('orders') ?? []) ordersFromColumns(chunk as OrderRows, state.stores.orders);
    if (meta.ids !== IDS_NORMALISED) for (let i = from; i < state.stores.orders.length; i++) normaliseOrder(state.stores.orders[i]!);
    host.loadState(hostData, (d, sink) => MatchingEngine.fromState(d as EngineStateData, { sink }));
  }

  function fundKey(rec: ApiKeyRecord): void {
    addKey(rec);
    const known = host.traderIndex(walletOf(rec)) !== undefined;
    const t = host.ensureTrader(walletOf(rec));
    const amount = options.initialCollateral ?? 10_000_000_000n;
    // a starting balance for a wallet new to the exchange (a restored wallet keeps what it has)
    if (amount > 0n && !known) host.deposit(t, amount);
  }

  // ---- server, timers ----
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
      journal.pin(clock.now());
      try {
        fn();
      } catch (e) {
        options.onError?.(e, 'TIMER', '');
      } finally {
        journal.unpin();
      }
      maybeCheckpoint();
      cancel = clock.setTimeout(tick, ms);
    };
    cancel = clock.setTimeout(tick, ms);
    timers.push(() => cancel());
  }

  const expireNow = (): number => host.expire(clock.now());
  every(options.expirySweepMs ?? 1000, expireNow);

  /** The live state as snapshot sections (shares live objects: serialise before the next change). */
  function sections(): [string, unknown][] {
    const meta: LiveMeta = {
      seed: settings.seed,
      keys: [...keys.values()],
      markets: [...markets.values()],
      activity,
      ext,
      counters: { ...counters },
      ids: IDS_NORMALISED,
    };
    const out: [string, unknown][] = [
      ['meta', meta],
      ['engine', host.exportState((e) => (e as MatchingEngine).exportState())],
    ];
    const all = state.stores.orders;
    for (let i = 0; i < all.length; i += ORDERS_PER_SECTION) out.push(['orders', ordersToColumns(all, i, Math.min(all.length, i + ORDERS_PER_SECTION))]);
    return out;
  }

  function snapshot(): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const [name, value] of sections()) {
      if (name === 'orders') out.orders = [...((out.orders as unknown[]) ?? []), ...(value as unknown[])];
      else out[name] = value;
    }
    return out;
  }

  const checkpoint = (): Promise<void> => {
    if (!files) return Promise.resolve();
    return files.checkpoint(() => ({ header: { savedAt: clock.now() }, sections: sections() }));
  };

  const checkpointBytes = options.checkpointBytes ?? 64 * 1024 * 1024;
  let checkpointRunning = false;
  /** a checkpoint when the journal has grown past the limit (one at a time) */
  function maybeCheckpoint(): void {
    if (!files || !journal.writing || checkpointRunning || files.journalBytes < checkpointBytes) return;
    checkpointRunning = true;
    checkpoint()
      .catch((e) => options.onError?.(e, 'CHECKPOINT', options.stateFile ?? ''))
      .finally(() => {
        checkpointRunning = false;
      });
  }

  const save = (): Promise<void> => checkpoint();

  const deps: HttpServerDeps = {
    state,
    router,
    faults,
    limiter,
    journal,
    afterMutation: maybeCheckpoint,
    hold: null,
    ...(options.onError ? { onError: options.onError } : {}),
  };

  return {
    state,
    faults,
    router,
    hub,
    orders,
    async start(port = 0) {
      if (files && !files.isOpen) {
        // everything done before start (restore, keys, migration seeds, counterparties) is in this
        // snapshot; from here on every change is journalled before it is acknowledged
        await checkpoint();
        journal.files = files;
      }
      running = await listen(deps, port);
      lastPort = running.port;
      return running.baseUrl;
    },
    baseUrl: () => running?.baseUrl,
    tapFlow: (o, sink) => flowTap.open(o, sink),
    async close() {
      if (closed) return;
      closed = true;
      for (const t of timers) t();
      hub.closeAll();
      if (running) await running.close();
      running = undefined;
      if (files) {
        await checkpoint();
        await files.close();
      }
    },
    async restart() {
      faults.count('restart');
      hub.closeAll();
      if (running) await running.close();
      running = await listen(deps, lastPort);
      return running.baseUrl;
    },
    holdRequests(hold) {
      deps.hold = hold;
    },
    save,
    snapshot,
    get restoredRecords() {
      return restoredRecords;
    },
    expireNow,
    every,
  };
}

/** A section of stored orders as rows of values under one field list (no key repeated per order: less than half the bytes). */
interface OrderRows {
  fields: string[];
  rows: unknown[][];
}

function ordersToColumns(all: StoredOrder[], from: number, to: number): OrderRows {
  const fields = Object.keys(all[from]!);
  const rows: unknown[][] = new Array(to - from);
  for (let i = from; i < to; i++) {
    const o = all[i] as unknown as Record<string, unknown>;
    const row = new Array(fields.length);
    for (let f = 0; f < fields.length; f++) row[f] = o[fields[f]!];
    rows[i - from] = row;
  }
  return { fields, rows };
}

function ordersFromColumns(chunk: OrderRows, into: StoredOrder[]): void {
  if (!chunk || !Array.isArray(chunk.fields) || !Array.isArray(chunk.rows)) throw new Error('snapshot: an orders section is not rows of fields');
  const { fields, rows } = chunk;
  for (const row of rows) {
    const o: Record<string, unknown> = {};
    for (let f = 0; f < fields.length; f++) o[fields[f]!] = row[f];
    into.push(o as unknown as StoredOrder);
  }
}

/** The snapshot's `meta` section. */
interface LiveMeta {
  seed: number;
  keys: ApiKeyRecord[];
  markets: MarketRecord[];
  activity: ActivityEntry[];
  ext: Record<string, unknown>;
  counters: Record<string, number>;
  /** IDS_NORMALISED when its ids are in the normal spelling (absent in files written before) */
  ids?: string;
}

/** Fresh bytes32 helper for tests that create markets with fixed ids. */
export function marketIdFor(label: string): Bytes32 {
  return `0x${createHash('sha256').update(label).digest('hex')}` as Bytes32;
}
