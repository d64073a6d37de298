/**
 * `bookmaker book <marketId> [--outcome yes|no] [--depth N] [--watch] [--chain] [--base-url] [--json]`
 *
 * Prints a market's order book (prices in cents, sizes in shares). With --watch it follows the book stream
 * (src/exchange/stream/book-stream.ts, with its resync and polling fallback): on a terminal the ladder is
 * redrawn in place; otherwise one line per update (or one JSON object per event with --json). Ctrl-C exits
 * cleanly (stream closed, exit code 0).
 *
 * `runBook(args, io)` is the testable body; the default export wires it to the process.
 */
import type { CommandSpec, ParsedArgs } from '../args.ts';
import { BadInputError } from '../../model/errors.ts';
import type { BookSnapshot } from '../../model/book.ts';
import type { Bytes32, OutcomeIndex } from '../../model/order.ts';
import type { BookEvent } from '../../model/stream.ts';
import { scaledToDecimal } from '../../model/units.ts';
import { L2Book } from '../../core/l2-book.ts';
import { createLogger, registerSecret, silentLogger } from '../../core/logger.ts';
import { createVenueClient } from '../../exchange/venue-client.ts';
import { chainByName } from '../../exchange/chains.ts';
import { createBookStream } from '../../exchange/stream/book-stream.ts';
import { venueSnapshotFetcher } from '../../exchange/stream/venue-snapshot-fetcher.ts';
import type { BookPriceUnits } from '../../model/book.ts';

export interface BookIO {
  out: { write(s: string): unknown };
  err: { write(s: string): unknown };
  /** redraw in place (a terminal) rather than one line per update */
  tty: boolean;
  /** aborting ends --watch (the command wires SIGINT/SIGTERM to it) */
  signal?: AbortSignal;
}

const options: CommandSpec['options'] = {
  outcome: { type: 'string', choices: ['yes', 'no'], default: 'yes', description: 'outcome view of the book' },
  depth: { type: 'number', default: 20, arg: 'N', description: 'levels per side, 1-100' },
  watch: { type: 'boolean', short: 'w', description: 'follow the live book from the stream (Ctrl-C to stop)' },
  chain: { type: 'string', choices: ['mainnet', 'testnet'], default: 'mainnet', description: 'venue chain' },
  'base-url': { type: 'string', arg: 'URL', description: 'any venue base, e.g. http://127.0.0.1:8787/v2 (overrides --chain)' },
  'api-key': { type: 'string', arg: 'KEY', description: 'API key (default: BOOKMAKER_API_KEY)' },
  json: { type: 'boolean', description: 'JSON output (with --watch: one object per event)' },
  'price-units': { type: 'string', choices: ['auto', 'cents', 'micro', 'dollars'], default: 'auto', description: "units of the venue's book prices" },
  duration: { type: 'duration', arg: 'SECONDS', description: 'with --watch: stop after this long' },
  verbose: { type: 'boolean', short: 'v', description: 'log stream diagnostics to stderr' },
};

const command: CommandSpec = {
  name: 'book',
  summary: "show a market's order book (optionally live from the stream)",
  usage: 'bookmaker book <marketId> [--outcome yes|no] [--depth N] [--watch] [--chain mainnet|testnet] [--base-url URL] [--json]',
  description: 'Prices are shown in cents and sizes in shares. --watch streams the book (SSE, with resync and a polling fallback).',
  positionals: ['marketId'],
  options,
  async run(args) {
    const ac = new AbortController();
    const stop = (): void => ac.abort();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    try {
      return await runBook(args, { out: process.stdout, err: process.stderr, tty: Boolean(process.stdout.isTTY), signal: ac.signal });
    } finally {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
    }
  },
};
export default command;

export interface BookArgs {
  marketId: string;
  outcomeIndex: OutcomeIndex;
  depth: number;
  watch: boolean;
  json: boolean;
  baseUrl: string | undefined;
  chain: string;
  apiKey: string | undefined;
  priceUnits: BookPriceUnits;
  durationS: number | undefined;
  verbose: boolean;
}

/** The command's checks of its arguments, before any request (exported for flag-only checks of README commands). */
export function readBookArgs(args: ParsedArgs): BookArgs {
  const o = args.options;
  if (args.positionals.length !== 1) throw new BadInputError('marketId', 'exactly one market id or slug', args.positionals.join(' ') || undefined);
  const marketId = args.positionals[0]!;
  if (!/^(0x[0-9a-fA-F]{64}|[A-Za-z0-9][A-Za-z0-9_-]{0,199})$/.test(marketId))
    throw new BadInputError('marketId', 'a 0x market hash (64 hex digits) or a slug', marketId);
  const depth = o.depth as number;
  if (!Number.isInteger(depth) || depth < 1 || depth > 100) throw new BadInputError('--depth', 'an integer from 1 to 100', depth);
  const baseUrl = o['base-url'] as string | undefined;
  if (baseUrl !== undefined && !/^https?:\/\/[^\s]+$/.test(baseUrl)) throw new BadInputError('--base-url', 'an http(s) URL', baseUrl);
  const apiKey = (o['api-key'] as string | undefined) ?? process.env.BOOKMAKER_API_KEY ?? undefined;
  return {
    marketId,
    outcomeIndex: o.outcome === 'no' ? 0 : 1,
    depth,
    watch: o.watch === true,
    json: o.json === true,
    baseUrl,
    chain: o.chain as string,
    apiKey: apiKey || undefined,
    priceUnits: o['price-units'] as BookPriceUnits,
    durationS: o.duration as number | undefined,
    verbose: o.verbose === true,
  };
}

export async function runBook(args: ParsedArgs, io: BookIO): Promise<number> {
  const a = readBookArgs(args);
  registerSecret(a.apiKey);
  const client = createVenueClient({
    chain: chainByName(a.chain),
    ...(a.baseUrl ? { baseUrl: a.baseUrl } : {}),
    ...(a.apiKey ? { apiKey: a.apiKey } : {}),
    priceUnits: a.priceUnits,
  });
  try {
    const fetchSnapshot = venueSnapshotFetcher(client, a.marketId, a.outcomeIndex, a.depth);
    if (!a.watch) {
      const r = await fetchSnapshot();
      if (r.status !== 200) throw new Error('unexpected 304 to an unconditional request');
      const book = new L2Book({ tick: 1 });
      book.applySnapshot(r.book);
      io.out.write(a.json ? JSON.stringify(bookJson(r.book, book)) + '\n' : renderLadder(book, ladderHeader(a, r.book.venueTs, undefined), a.depth));
      return 0;
    }
    // Fail fast on an unknown market or a bad venue: the stream itself would retry forever. The
    // snapshot names the market's id, which the stream subscribes by (a slug resolved here).
    const first = await fetchSnapshot();
    if (first.status !== 200) throw new Error('unexpected 304 to an unconditional request');
    await watch(a, first.book.marketId, client.baseUrl, fetchSnapshot, io);
    return 0;
  } finally {
    await client.close();
  }
}

/** Follow the stream until the signal aborts or --duration passes. */
async function watch(a: BookArgs, marketId: Bytes32, baseUrl: string, fetchSnapshot: ReturnType<typeof venueSnapshotFetcher>, io: BookIO): Promise<void> {
  const stream = createBookStream({
    baseUrl,
    marketId,
    outcomeIndex: a.outcomeIndex,
    depth: a.depth,
    ...(a.apiKey ? { apiKey: a.apiKey } : {}),
    priceUnits: a.priceUnits,
    fetchSnapshot,
    logger: a.verbose ? createLogger({ level: 'debug', destination: process.stderr }) : silentLogger,
  });
  const book = new L2Book({ tick: 1 });
  const view: WatchView = { state: '', seq: undefined, venueTs: 0, lastTrade: undefined };
  let lastDraw = 0;
  let pending: NodeJS.Timeout | undefined;
  // On a terminal, redraw at most ~10 times a second: a busy book would otherwise flood the screen.
  const draw = (): void => {
    pending = undefined;
    lastDraw = Date.now();
    io.out.write('\x1b[H\x1b[2J' + renderLadder(book, ladderHeader(a, view.venueTs, view), a.depth));
  };
  const onEvent = (e: BookEvent): void => {
    if (e.type === 'status') {
      const changed = e.state !== view.state;
      view.state = e.state;
      if (a.json) io.out.write(JSON.stringify(e) + '\n');
      // keep-alive repeats of the same state are for machines, not for a person reading the lines
      else if (!io.tty && changed) io.err.write(`status ${e.state}${e.reason ? ` (${e.reason})` : ''}\n`);
    } else {
      applyEvent(book, e, view);
      if (a.json) io.out.write(JSON.stringify(eventJson(e, book)) + '\n');
      else if (!io.tty) io.out.write(updateLine(e, book) + '\n');
    }
    // Status changes redraw too, so "connecting" / "polling" show before (or without) a book.
    if (io.tty && !a.json && !pending) {
      const wait = Math.max(0, 100 - (Date.now() - lastDraw));
      pending = setTimeout(draw, wait);
    }
  };
  await new Promise<void>((resolve) => {
    const sub = stream.events$.subscribe({ next: onEvent, error: () => resolve(), complete: () => resolve() });
    let timer: NodeJS.Timeout | undefined;
    const finish = (): void => {
      sub.unsubscribe();
      if (timer) clearTimeout(timer);
      if (pending) clearTimeout(pending);
      io.signal?.removeEventListener('abort', finish);
      resolve();
    };
    if (a.durationS !== undefined) timer = setTimeout(finish, a.durationS * 1000);
    if (io.signal?.aborted) finish();
    else io.signal?.addEventListener('abort', finish, { once: true });
  });
  if (io.tty && !a.json) io.out.write('\n');
}

interface WatchView {
  state: string;
  seq: number | undefined;
  venueTs: number;
  lastTrade: { price: number; size: number; takerSide: string } | undefined;
  /** the market's venue status once the stream has said it (event: status) */
  market?: string;
}

function applyEvent(book: L2Book, e: Exclude<BookEvent, { type: 'status' }>, view: WatchView): void {
  view.seq = e.seq;
  if (e.type === 'snapshot') {
    book.applySnapshot(e.book);
    view.venueTs = e.book.venueTs;
  } else if (e.type === 'delta') {
    book.applyLevels('bid', e.bids);
    book.applyLevels('ask', e.asks);
    view.venueTs = e.venueTs;
  } else if (e.type === 'trade') {
    view.lastTrade = { price: e.price, size: e.size, takerSide: e.takerSide };
    view.venueTs = e.venueTs;
  } else {
    // the market's venue status: shown in the header (and its own line), the book is unchanged
    view.market = e.status;
    view.venueTs = e.venueTs;
  }
}

/** Price units → cents text (45.5 for 455000). */
export function cents(price: number): string {
  return scaledToDecimal(price, 4);
}

/** Price units → cents with at least two decimals, so a ladder column lines up (44.50 over 45.00). */
function centsCol(price: number): string {
  const t = cents(price);
  const dot = t.indexOf('.');
  if (dot < 0) return t + '.00';
  return t.length - dot - 1 < 2 ? t + '0' : t;
}

/** Size units → shares text, trimmed (2.5 for 2500000). */
export function shares(size: number): string {
  return scaledToDecimal(size, 6);
}

function ladderHeader(a: BookArgs, venueTs: number, view: WatchView | undefined): string {
  const outcome = a.outcomeIndex === 1 ? 'YES' : 'NO';
  const parts = [`market ${a.marketId}`, `outcome ${outcome}`];
  if (view) parts.push(`stream ${view.state}`, `seq ${view.seq ?? '-'}`);
  if (view?.market) parts.push(`market status ${view.market}`);
  if (venueTs > 0) parts.push(new Date(venueTs).toISOString());
  let h = parts.join('  ');
  if (view?.lastTrade) h += `\nlast trade ${cents(view.lastTrade.price)}¢ × ${shares(view.lastTrade.size)} (taker ${view.lastTrade.takerSide})`;
  return h;
}

/**
 * The ladder: asks above (highest first), bids below (best first), a spread line between, in cents and
 * shares. Pure, so it can be tested without a terminal.
 */
export function renderLadder(book: L2Book, header: string, depth: number): string {
  const asks = book.levels('ask', depth).reverse();
  const bids = book.levels('bid', depth);
  const w = 14;
  const lines = [header, `${'BID'.padStart(w)}  ${'PRICE ¢'.padStart(9)}  ${'ASK'.padEnd(w)}`];
  for (const l of asks) lines.push(`${''.padStart(w)}  ${centsCol(l.price).padStart(9)}  ${shares(l.size).padEnd(w)}`);
  lines.push(spreadLine(book));
  for (const l of bids) lines.push(`${shares(l.size).padStart(w)}  ${centsCol(l.price).padStart(9)}  ${''.padEnd(w)}`);
  if (asks.length === 0 && bids.length === 0) lines.push('(empty book)');
  return lines.join('\n') + '\n';
}

function spreadLine(book: L2Book): string {
  const spread = book.spread();
  if (spread < 0) return `${'-'.repeat(10)} one side empty ${'-'.repeat(10)}`;
  const mp = book.microprice();
  return `${'-'.repeat(6)} spread ${cents(spread)}¢  mid ${(book.mid() / 10_000).toFixed(2)}¢  micro ${(mp / 10_000).toFixed(2)}¢ ${'-'.repeat(6)}`;
}

function top(book: L2Book): string {
  const bb = book.bestBid();
  const ba = book.bestAsk();
  return `best ${bb < 0 ? '-' : cents(bb)} / ${ba < 0 ? '-' : cents(ba)}`;
}

/** One line per update, for pipes and logs. */
export function updateLine(e: Exclude<BookEvent, { type: 'status' }>, book: L2Book): string {
  if (e.type === 'snapshot') return `seq ${e.seq} snapshot (${e.source}) ${e.book.bids.length} bids ${e.book.asks.length} asks  ${top(book)}`;
  if (e.type === 'trade') return `seq ${e.seq} trade ${cents(e.price)}¢ × ${shares(e.size)} taker ${e.takerSide}  ${top(book)}`;
  if (e.type === 'market-status')
    return `seq ${e.seq} market ${e.status}${e.payoutYes !== null ? ` (a YES share pays ${cents(e.payoutYes)}¢)` : ''}  ${top(book)}`;
  const ch = [...e.bids.map((l) => `bid ${cents(l.price)}=${shares(l.size)}`), ...e.asks.map((l) => `ask ${cents(l.price)}=${shares(l.size)}`)];
  return `seq ${e.seq} delta ${ch.join(' ')}  ${top(book)}`;
}

function bookJson(snap: BookSnapshot, book: L2Book): Record<string, unknown> {
  return {
    ...snap,
    bids: book.levels('bid'),
    asks: book.levels('ask'),
    bestBid: book.bestBid() < 0 ? null : book.bestBid(),
    bestAsk: book.bestAsk() < 0 ? null : book.bestAsk(),
    microprice: Number.isNaN(book.microprice()) ? null : Math.round(book.microprice()),
  };
}

function eventJson(e: Exclude<BookEvent, { type: 'status' }>, book: L2Book): Record<string, unknown> {
  return { ...e, bestBid: book.bestBid() < 0 ? null : book.bestBid(), bestAsk: book.bestAsk() < 0 ? null : book.bestAsk() };
}
