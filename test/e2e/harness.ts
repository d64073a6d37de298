/**
 * End-to-end harness: an in-process local exchange over real HTTP (no counterparties, so books only
 * move when a test moves them), a "mover" account that places real signed orders to shape the book
 * and take the bot's quotes, and the bot itself started with `startBot` against the exchange's URL.
 * Everything binds 127.0.0.1 on port 0; `close()` stops the bot and the exchange.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before } from 'node:test';
import { silentLogger } from '../../src/core/logger.ts';
import { parseConfigText } from '../../src/config/load-config.ts';
import type { BotConfig } from '../../src/config/types.ts';
import { TESTNET } from '../../src/exchange/chains.ts';
import { createSigner, type Signer } from '../../src/exchange/signing/signer.ts';
import { createVenueClient, type VenueClient } from '../../src/exchange/venue-client.ts';
import type { Bytes32, LimitOrder, VenueOrder } from '../../src/model/order.ts';
import { startBot, type Bot, type BotOptions } from '../../src/runtime/bot.ts';
import type { HeldRequest } from '../../src/sim/http-server.ts';
import type { FaultSettings } from '../../src/sim/faults.ts';
import { createLocalExchange, type LocalExchange } from '../../src/sim/local-exchange.ts';
import { cliArgs } from '../support/cli.ts';

export const BOT_KEY = 'e2e-bot-key';
export const MOVER_KEY = 'e2e-mover-key';

export interface Account {
  key: string;
  wallet: `0x${string}`;
  privateKey: `0x${string}`;
  signer: Signer;
  client: VenueClient;
}

export interface Harness {
  ex: LocalExchange;
  baseUrl: string;
  bot: Account;
  mover: Account;
  markets: Bytes32[];
  close(): Promise<void>;
}

export async function startExchange(opts: { markets?: number; seed?: number; faults?: Partial<FaultSettings>; heartbeatMs?: number } = {}): Promise<Harness> {
  const ex = createLocalExchange({
    seed: opts.seed ?? 7,
    markets: opts.markets ?? 2,
    apiKeys: [{ key: BOT_KEY }, { key: MOVER_KEY }],
    heartbeatMs: opts.heartbeatMs ?? 500,
    expirySweepMs: 0,
    rateLimit: { capacity: 10_000, refillPerSecond: 10_000 },
    ...(opts.faults ? { faults: opts.faults } : {}),
  });
  const baseUrl = await ex.start(0);
  const account = (key: string): Account => {
    const rec = ex.state.keys.get(key)!;
    const signer = createSigner({ privateKey: rec.privateKey!, chain: TESTNET });
    return {
      key,
      wallet: rec.wallet,
      privateKey: rec.privateKey! as `0x${string}`,
      signer,
      client: createVenueClient({ baseUrl, chain: TESTNET, apiKey: key, retry: { maxAttempts: 2 } }),
    };
  };
  const bot = account(BOT_KEY);
  const mover = account(MOVER_KEY);
  const markets = [...ex.state.stores.markets.values()].map((m) => m.id as Bytes32);
  return {
    ex,
    baseUrl,
    bot,
    mover,
    markets,
    async close() {
      bot.client.close();
      mover.client.close();
      await ex.close();
    },
  };
}

/**
 * One exchange for a whole test file: `startExchange` of `o.markets` markets (two by default), every
 * book held by the mover at `o.book` (0.48/0.52 by default), and a temp folder, handed to `use` before
 * the file's first test (it may start more: a config file, a bot). After the last test, what `use`
 * returned runs (stop the bot), then the exchange closes and the folder goes.
 *
 *   let h: Harness; let bot: Bot;
 *   exchangeForFile({}, async (x) => { h = x; bot = await startTestBot(h, await config(h)); return () => bot.stop(); });
 */
export function exchangeForFile(
  o: { markets?: number; book?: readonly [number, number] },
  use: (h: Harness, dir: string) => void | Promise<void | (() => Promise<unknown>)>,
): void {
  let h: Harness | undefined;
  let dir: string | undefined;
  let stop: void | (() => Promise<unknown>);
  before(async () => {
    h = await startExchange({ markets: o.markets ?? 2 });
    const [bid, ask] = o.book ?? [480_000, 520_000];
    for (const m of h.markets) await setBook(h, m, bid, ask);
    dir = mkdtempSync(join(tmpdir(), 'bookmaker-e2e-'));
    stop = await use(h, dir);
  });
  after(async () => {
    if (stop) await stop();
    await h?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });
}

/** A bot config for the harness: fast intervals, one band of 10 shares each side at 2¢ from the fair price. */
/** `account` is the body of the `account:` section (its lines indented by two spaces), when given; `strategyName` replaces `bands` (give its `strategy` params too). */
export function yaml(
  h: Harness,
  extra: { risk?: string; orders?: string; markets?: string; strategy?: string; strategyName?: string; account?: string } = {},
): string {
  return `
venue:
  chain: testnet
  baseUrl: ${h.baseUrl}
defaults:
  strategy:
    name: ${extra.strategyName ?? 'bands'}
    params:
${
  extra.strategy ??
  `      fair: mid
      bands:
        - { minMargin: 0.01, targetMargin: 0.02, maxMargin: 0.03, size: 10 }`
}
  risk:
${
  extra.risk ??
  `    maxPosition: 100
    maxNotional: 100
    maxOrderSize: 50
    maxBookAgeSeconds: 30
    maxStreamSilenceSeconds: 3`
}
markets:
${extra.markets ?? h.markets.map((m) => `  - id: "${m}"`).join('\n')}
orders:
  priceTolerance: 0
  sizeTolerance: 0.1
  requoteIntervalSeconds: 0.05
  reconcileIntervalSeconds: 2
  inFlightTimeoutSeconds: 2
${extra.orders ?? ''}
feeds:
  bookDepth: 10
  balancePollSeconds: 0.5
  activityPollSeconds: 1
  oraclePollSeconds: 5
  streamIdleTimeoutSeconds: 2
  bookPollSeconds: 0.5
metrics:
  port: 0
${extra.account ? `account:\n${extra.account}\n` : ''}`;
}

export async function config(h: Harness, extra: Parameters<typeof yaml>[1] = {}): Promise<BotConfig> {
  return parseConfigText(yaml(h, extra), '', { env: {} });
}

/** The lopsided strategy (strategies/lopsided) for `yaml`: the mid as its estimate, quotes half a cent from it rounded away to the tick, 5 shares. */
export const LOPSIDED = { strategyName: 'lopsided', strategy: '      halfSpread: 0.005\n      size: 5\n      maxPQ: 0.5\n      smoothSeconds: 0' };

/** The risk limits of the tests that lose money on purpose: 100 shares, 1000 USDC, books up to a minute old. */
export const LOSS_RISK = '    maxPosition: 100\n    maxNotional: 1000\n    maxBookAgeSeconds: 60';

/** The harness's bot config (`yaml`) with a ledger at `path` marking every second; `ledger` adds lines (two spaces in) to its section. */
export async function ledgerConfig(h: Harness, path: string, extra: Parameters<typeof yaml>[1] & { ledger?: string } = {}): Promise<BotConfig> {
  const { ledger, ...rest } = extra;
  return parseConfigText(`${yaml(h, rest)}ledger:\n  path: ${path}\n  markSeconds: 1\n${ledger ?? ''}`, '', { env: {} });
}

/**
 * `body` on a fresh exchange of `markets` markets (two by default) whose books the mover holds at
 * 0.48/0.52, with the path of a ledger file in a folder of its own (`dir`, or a new temp folder); the
 * exchange is closed and the folder removed (or `o.removeDir(dir)`) after, whatever the body did.
 */
export async function onLedgerExchange(
  body: (h: Harness, ledger: string, dir: string) => Promise<void>,
  o: { markets?: number; dir?: string; removeDir?: (dir: string) => void } = {},
): Promise<void> {
  const h = await startExchange({ markets: o.markets ?? 2 });
  const dir = o.dir ?? mkdtempSync(join(tmpdir(), 'bookmaker-ledger-'));
  try {
    for (const m of h.markets) await setBook(h, m, 480_000, 520_000);
    await body(h, join(dir, 'books.sqlite'), dir);
  } finally {
    await h.close();
    if (o.removeDir) o.removeDir(dir);
    else rmSync(dir, { recursive: true, force: true });
  }
}

export async function startTestBot(h: Harness, cfg: BotConfig, more: Partial<BotOptions> = {}): Promise<Bot> {
  return startBot({
    config: cfg,
    logger: silentLogger,
    apiKey: BOT_KEY,
    env: { BOOKMAKER_PRIVATE_KEY: h.bot.privateKey },
    metricsPort: 0,
    warmupMs: 3_000,
    ...more,
  });
}

/** Poll until `cond` holds (checked every 50 ms); throws with `what` after `ms`. Never a pass/fail on timing. */
/** The bot's /metrics text (asserts a 200). */
export async function scrapeMetrics(bot: { metricsUrl: string | null }): Promise<string> {
  const r = await fetch(`${bot.metricsUrl}/metrics`);
  if (r.status !== 200) throw new Error(`GET ${bot.metricsUrl}/metrics: ${r.status}`);
  return r.text();
}

/** The value of one unlabelled series (or one exact `name{labels}`) in a /metrics text; NaN when absent. */
export function metricValue(text: string, series: string): number {
  const line = text.split('\n').find((l) => l.startsWith(series + ' '));
  return line ? Number(line.slice(series.length + 1)) : NaN;
}

export async function waitFor(what: string, cond: () => boolean | Promise<boolean>, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  for (;;) {
    if (await cond()) return;
    if (Date.now() > end) throw new Error(`timed out waiting for: ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export async function openOrders(a: Account, marketId?: Bytes32): Promise<VenueOrder[]> {
  const out: VenueOrder[] = [];
  for await (const o of a.client.orders.iterate({ trader: a.wallet, status: ['open'], limit: 100, ...(marketId ? { marketId } : {}) })) out.push(o);
  return out;
}

/** Every order of the account's wallet at the venue, any status (an Account, or anything with a client and a wallet: a `bookmaker sim` child's). */
export async function allOrders(a: Pick<Account, 'client' | 'wallet'>): Promise<VenueOrder[]> {
  const out: VenueOrder[] = [];
  for await (const o of a.client.orders.iterate({ trader: a.wallet, limit: 100 })) out.push(o);
  return out;
}

/** Place a signed order from an account (prices in 1e-6 USDC, sizes in shares). */
export async function place(a: Account, o: Omit<LimitOrder, 'size'> & { shares: number }): Promise<VenueOrder | null> {
  const { shares, ...rest } = o;
  const body = a.signer.signOrder({ ...rest, size: Math.round(shares * 1e6) });
  return (await a.client.orders.create(body)).order;
}

export async function cancelAllOf(a: Account, marketId?: Bytes32): Promise<void> {
  for (const o of await openOrders(a, marketId)) await a.client.orders.cancel(a.signer.signCancel(o.nonce));
}

/** The mover rests a YES bid and ask so the book's mid is (bid + ask) / 2. */
export async function setBook(h: Harness, marketId: Bytes32, bid: number, ask: number, shares = 100): Promise<void> {
  await cancelAllOf(h.mover, marketId);
  await place(h.mover, { marketId, outcomeIndex: 1, side: 0, price: bid, shares });
  await place(h.mover, { marketId, outcomeIndex: 1, side: 1, price: ask, shares, inventoryMode: 2 });
}

/**
 * The mover moves its YES quote on `side` of `marketId` (as setBook rests it) to `price`, 100 shares: the new
 * quote first, then the old one goes, so the book is never one-sided.
 */
export async function moveMoverQuote(h: Harness, marketId: Bytes32, side: 'bid' | 'ask', price: number): Promise<void> {
  const old = (await openOrders(h.mover, marketId)).find((v) => yesTerms(v).side === side);
  if (!old) throw new Error(`the mover rests no ${side} in ${marketId}`);
  await place(
    h.mover,
    side === 'bid' ? { marketId, outcomeIndex: 1, side: 0, price, shares: 100 } : { marketId, outcomeIndex: 1, side: 1, price, shares: 100, inventoryMode: 2 },
  );
  await h.mover.client.orders.cancel(h.mover.signer.signCancel(old.nonce));
}

/** YES-terms view of an open order: bids are YES buys or NO sells, asks YES sells or NO buys. */
export function yesTerms(o: VenueOrder): { side: 'bid' | 'ask'; price: number } {
  if (o.outcomeIndex === 1) return { side: o.side === 0 ? 'bid' : 'ask', price: o.price };
  return { side: o.side === 0 ? 'ask' : 'bid', price: 1_000_000 - o.price };
}

/** `p`, or a rejection after `ms` (the timer is cleared either way, so the test process can exit). */
export async function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let t: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([p, new Promise<T>((_, rej) => (t = setTimeout(() => rej(new Error(what)), ms)))]);
  } finally {
    clearTimeout(t);
  }
}

const ROOT = new URL('../../', import.meta.url).pathname;

/** The CLI in a child process (cwd = repo root), stdout and stderr collected together. */
export interface Child {
  proc: ChildProcess;
  out: () => string;
  exit: Promise<number | null>;
}

export function cli(args: string[], env: NodeJS.ProcessEnv = {}): Child {
  const proc = spawn(process.execPath, cliArgs(args), {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  proc.stdout!.on('data', (b: Buffer) => (out += b.toString()));
  proc.stderr!.on('data', (b: Buffer) => (out += b.toString()));
  const exit = new Promise<number | null>((r) => proc.on('exit', (code) => r(code)));
  return { proc, out: () => out, exit };
}

/** Every market of the exchange has the bot's two quotes at the venue (default wait 15 s). */
export async function waitQuoting(h: Harness, ms?: number): Promise<void> {
  await waitFor(
    'quotes in every market',
    async () => {
      for (const m of h.markets) if ((await openOrders(h.bot, m)).length < 2) return false;
      return true;
    },
    ms,
  );
}

/** Once quoting: the bot buys 10 YES at 0.48 in market 0 and the market drops 20¢, a 2 USDC loss. */
export async function loseTwoDollars(h: Harness, bot: Bot): Promise<void> {
  await waitQuoting(h);
  const m = h.markets[0]!;
  await place(h.mover, { marketId: m, outcomeIndex: 1, side: 1, price: 480_000, shares: 10, timeInForce: 1, inventoryMode: 2 });
  await waitFor('fill seen', () => (bot.store.state.markets.get(m.toLowerCase())?.position.net ?? 0) > 0);
  await setBook(h, m, 260_000, 300_000);
}

/**
 * Once the bot quotes every market, the mover sells it `shares` YES into its bid in `m` (IOC); returns
 * once the books hold them. The claims tests' first run (claimed-while-down, -unfollowed, claimed-while-running,
 * claimed-while-running-unfollowed): a position to resolve and claim.
 */
export async function boughtYes(h: Harness, bot: Bot, m: Bytes32, shares: number): Promise<void> {
  await waitQuoting(h, 60_000);
  const bid = (await openOrders(h.bot, m)).map(yesTerms).find((o) => o.side === 'bid');
  if (!bid) throw new Error(`the bot quotes no bid in ${m}`);
  await place(h.mover, { marketId: m, outcomeIndex: 1, side: 1, price: bid.price, shares, timeInForce: 1, inventoryMode: 2 });
  const k = m.toLowerCase() as Bytes32;
  await waitFor(`the bot holds ${shares} YES in ${m}`, () => bot.kernel.account.market(k)?.yes === shares * 1_000_000, 30_000);
}

/** The `markets:` body of a rotating bot: every market the venue lists, re-read each second. */
export const ROTATING = `  refreshSeconds: 1
  select:
    - all: true`;

/**
 * The mover sells the bot `shares` YES into its bid in `m` (IOC); returns once the books hold them. Unlike
 * boughtYes it waits for a bid in `m` alone (the retired-market tests' second market, after boughtYes's fill).
 */
export async function sellInto(h: Harness, bot: Bot, m: Bytes32, shares: number): Promise<void> {
  let bid: { price: number } | undefined;
  await waitFor(`a bid in ${m}`, async () => (bid = (await openOrders(h.bot, m)).map(yesTerms).find((o) => o.side === 'bid')) !== undefined, 30_000);
  await place(h.mover, { marketId: m, outcomeIndex: 1, side: 1, price: bid!.price, shares, timeInForce: 1, inventoryMode: 2 });
  const k = m.toLowerCase() as Bytes32;
  await waitFor(`the bot holds ${shares} YES in ${m}`, () => bot.kernel.account.market(k)?.yes === shares * 1_000_000, 30_000);
}

/**
 * Hold the bot's lists of its open orders once its stop is cancelling every order (its feeds are closed by
 * then), before they run: `held` collects them; `release` lets them run. The caller ends the hold
 * (`h.ex.holdRequests(null)`) and releases in its `finally`.
 */
function holdStopOrderLists(h: Harness, bot: Bot): { held: HeldRequest[]; release: () => void } {
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  const held: HeldRequest[] = [];
  h.ex.holdRequests((r) => {
    if (r.method !== 'GET' || r.path !== '/orders' || r.stage !== 'before' || r.trader.toLowerCase() !== h.bot.wallet.toLowerCase()) return undefined;
    if (!bot.stopProgress()?.step.startsWith('cancelling every order')) return undefined;
    held.push(r);
    return released;
  });
  return { held, release };
}

/**
 * The stop-race tests' start (stop-cancel-fill; stop-fill-race, stop-swept-fill by stopRacingAFill): a bot on a ledger with no periodic
 * reconcile (it could meet the order the test fills first: the stop's cancel-all alone must), quoting
 * every market; its bid in market 0.
 */
export async function quotingForStop(h: Harness, ledger: string): Promise<{ bot: Bot; m0: Bytes32; bid: VenueOrder }> {
  const base = await ledgerConfig(h, ledger);
  const bot = await startTestBot(h, { ...base, orders: { ...base.orders, reconcileIntervalMs: 3_600_000 } });
  try {
    await waitQuoting(h, 60_000);
    const m0 = h.markets[0]!.toLowerCase() as Bytes32;
    const bid = (await openOrders(h.bot, m0)).find((o) => yesTerms(o).side === 'bid');
    if (!bid) throw new Error('the bot quotes no bid in market 0');
    return { bot, m0, bid };
  } catch (e) {
    await bot.stop();
    throw e;
  }
}

/**
 * The race of stop-fill-race and stop-swept-fill: quotingForStop's bot stops with its cancel-all's first list of
 * open orders held (holdStopOrderLists) until the mover has taken the whole of its bid in market 0 (10 shares,
 * IOC: its feeds are closed by then, none reports the fill), then the list runs; returns once the stop ended,
 * asserting it ended cleanly. `beforeStop` runs on the quoting bot just before its stop. Whatever fails, the
 * hold is ended and the bot stopped before this returns or throws.
 */
export async function stopRacingAFill(
  h: Harness,
  ledger: string,
  beforeStop?: (q: { bot: Bot; m0: Bytes32; bid: VenueOrder }) => void,
): Promise<{ bot: Bot; m0: Bytes32; bid: VenueOrder }> {
  const q = await quotingForStop(h, ledger);
  const { bot, m0, bid } = q;
  let stopping: Promise<number> | null = null;
  const { held, release } = holdStopOrderLists(h, bot);
  try {
    beforeStop?.(q);
    stopping = bot.stop();
    await waitFor("the cancel-all's list of open orders is held", () => held.length > 0, 60_000);
    await place(h.mover, { marketId: m0, outcomeIndex: 1, side: 1, price: yesTerms(bid).price, shares: 10, timeInForce: 1, inventoryMode: 2 });
    h.ex.holdRequests(null);
    release();
    assert.equal(await stopping, 0, 'the stop ends cleanly');
    stopping = null;
    return q;
  } finally {
    h.ex.holdRequests(null);
    release();
    // a failure before the stop ended still stops the bot (once stopped, stop() is the same stop)
    await (stopping ?? bot.stop());
  }
}
