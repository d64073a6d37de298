/**
 * The invariants of docs/architecture.md#invariants as pure checks over snapshots, plus the tally that counts every
 * check run and keeps every violation. Each check returns the list of violations it found (empty
 * = held); the orchestrator (run-chaos.ts) decides when to run which.
 *
 * Units as everywhere: prices 1e-6 USDC, sizes 1e-6 shares, times ms.
 */
import type { Bytes32, VenueOrder } from '../model/order.ts';
import { remainingShares } from '../orders/venue-order-shares.ts';

export type InvariantName =
  | 'position-limit'
  | 'notional-limit'
  | 'reconcile-view'
  | 'nonce-unique'
  | 'no-duplicate-quote'
  | 'stall-pulls-quotes'
  | 'no-crash'
  | 'clean-stop'
  | 'restart-adopts'
  | 'no-silent-not-quoting'
  | 'no-order-in-ended-market'
  | 'books-equal-venue';

export const INVARIANT_NAMES: readonly InvariantName[] = [
  'position-limit',
  'notional-limit',
  'reconcile-view',
  'nonce-unique',
  'no-duplicate-quote',
  'stall-pulls-quotes',
  'no-crash',
  'clean-stop',
  'restart-adopts',
  'no-silent-not-quoting',
  'no-order-in-ended-market',
  'books-equal-venue',
];

export interface Violation {
  readonly invariant: InvariantName;
  readonly detail: string;
  readonly atMs: number;
}

/** Counts checks and keeps violations (the first 200 in full; the count is always exact). */
export class InvariantTally {
  readonly checks: Record<InvariantName, number>;
  readonly violationCounts: Record<InvariantName, number>;
  readonly violations: Violation[] = [];

  constructor() {
    this.checks = Object.fromEntries(INVARIANT_NAMES.map((n) => [n, 0])) as Record<InvariantName, number>;
    this.violationCounts = Object.fromEntries(INVARIANT_NAMES.map((n) => [n, 0])) as Record<InvariantName, number>;
  }

  record(invariant: InvariantName, found: readonly string[], atMs: number): void {
    this.checks[invariant]++;
    this.violationCounts[invariant] += found.length;
    for (const detail of found) if (this.violations.length < 200) this.violations.push({ invariant, detail, atMs });
  }

  get totalViolations(): number {
    return Object.values(this.violationCounts).reduce((a, b) => a + b, 0);
  }
}

/** YES-terms side of a venue order: buy YES and sell NO rest as bids, sell YES and buy NO as asks. */
export function yesSide(o: Pick<VenueOrder, 'outcomeIndex' | 'side'>): 'bid' | 'ask' {
  return (o.outcomeIndex === 1) === (o.side === 0) ? 'bid' : 'ask';
}

export interface WorstCase {
  readonly long: number;
  readonly short: number;
}

/** Every open order assumed filled (risk/exposure.ts's rule, from the venue's side). */
export function worstCase(net: number, open: readonly VenueOrder[]): WorstCase {
  let bids = 0;
  let asks = 0;
  for (const o of open) {
    const s = remainingShares(o);
    if (yesSide(o) === 'bid') bids += s;
    else asks += s;
  }
  return { long: net + bids, short: -net + asks };
}

export interface LimitSpec {
  /** per market, 1e-6 shares */
  readonly maxPosition: number;
  /** per market, 1e-6 USDC */
  readonly maxNotional: number;
  /** slack for rounding of budget-sized buys back into shares, 1e-6 shares */
  readonly toleranceShares: number;
}

function byMarket(open: readonly VenueOrder[]): Map<string, VenueOrder[]> {
  const m = new Map<string, VenueOrder[]>();
  for (const o of open) {
    const k = o.marketId;
    const list = m.get(k);
    if (list) list.push(o);
    else m.set(k, [o]);
  }
  return m;
}

/** Position limit per market at worst case, counting every order open at the venue. */
export function positionBreaches(net: ReadonlyMap<string, number>, open: readonly VenueOrder[], limits: LimitSpec): string[] {
  const out: string[] = [];
  const markets = new Set([...net.keys(), ...byMarket(open).keys()]);
  const grouped = byMarket(open);
  for (const m of markets) {
    const orders = grouped.get(m) ?? [];
    const w = worstCase(net.get(m) ?? 0, orders);
    const worst = Math.max(0, w.long, w.short);
    if (worst > limits.maxPosition + limits.toleranceShares) {
      const book = orders.map((o) => `${yesSide(o)} ${remainingShares(o) / 1e6}@${o.outcomeIndex === 1 ? o.price : 1e6 - o.price}`).join(', ');
      out.push(`${m}: worst-case position ${worst / 1e6} shares > limit ${limits.maxPosition / 1e6} (net ${(net.get(m) ?? 0) / 1e6}; open: ${book})`);
    }
  }
  return out;
}

/**
 * Notional limit per market at worst case. The bot values at its own mark, which can lag the venue's
 * by an event, so a breach is only reported when it holds at every mark in [mark − slack, mark + slack].
 */
export function notionalBreaches(
  net: ReadonlyMap<string, number>,
  open: readonly VenueOrder[],
  marks: ReadonlyMap<string, number>,
  limits: LimitSpec,
  markSlack = 50_000,
): string[] {
  const out: string[] = [];
  const grouped = byMarket(open);
  for (const m of new Set([...net.keys(), ...grouped.keys()])) {
    const w = worstCase(net.get(m) ?? 0, grouped.get(m) ?? []);
    const mark = marks.get(m) ?? 500_000;
    const at = (p: number): number => Math.max((Math.max(0, w.long) * p) / 1e6, (Math.max(0, w.short) * (1e6 - p)) / 1e6);
    const least = Math.min(at(Math.max(0, mark - markSlack)), at(Math.min(1e6, mark + markSlack)), at(mark));
    if (least > limits.maxNotional * 1.001 + 1) out.push(`${m}: worst-case notional ${(least / 1e6).toFixed(2)} USDC > limit ${limits.maxNotional / 1e6}`);
  }
  return out;
}

/** Per (market, YES side): more open orders than the strategy has slots means a slot was quoted twice. */
export function overQuoted(open: readonly VenueOrder[], slotsPerSide: number): Set<string> {
  const counts = new Map<string, number>();
  for (const o of open) {
    const k = `${o.marketId}:${yesSide(o)}`;
    counts.set(k, (counts.get(k) ?? 0) + 1);
  }
  return new Set([...counts].filter(([, n]) => n > slotsPerSide).map(([k]) => k));
}

/** Nonces placed more than once (the venue refuses a second one, so this also checks the venue). */
export function reusedNonces(orders: readonly VenueOrder[]): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const o of orders) {
    const k = o.nonce;
    if (seen.has(k)) out.push(`nonce ${o.nonce} placed twice`);
    seen.add(k);
  }
  return out;
}

/** A nonce the bot submitted with a different order than before (same nonce, other body). */
export function nonceBodyConflicts(submitted: Map<Bytes32, string>, nonce: Bytes32, body: string): string | null {
  const prev = submitted.get(nonce);
  if (prev === undefined) {
    submitted.set(nonce, body);
    return null;
  }
  return prev === body ? null : `nonce ${nonce} reused for a different order (${prev} then ${body})`;
}

/** An order as the bot child reports it (ids in normal form: child-messages.ts readChildMessage). */
export interface BotOrderView {
  readonly nonce: Bytes32;
  readonly marketId: Bytes32;
  readonly state: 'pending-create' | 'working' | 'pending-cancel';
  readonly sentAt: number;
}

/**
 * After a reconcile: the bot's open orders equal the venue's, up to what changed after the venue
 * was listed. `cutoff` is the list time minus transit slack; `closedAt` is when the referee first saw
 * each order closed (an upper bound of the real time). Two directions:
 *   - an order open at the venue, placed before the cutoff, that the bot does not track (a leak);
 *   - an order the bot holds as working that the venue closed before the cutoff, or never had.
 */
export function reconcileMismatches(
  bot: readonly BotOrderView[],
  venue: readonly VenueOrder[],
  closedAt: ReadonlyMap<Bytes32, number>,
  cutoff: number,
): string[] {
  const out: string[] = [];
  const tracked = new Map(bot.map((b) => [b.nonce, b]));
  const known = new Map<Bytes32, VenueOrder>(venue.map((o) => [o.nonce, o]));
  for (const o of venue) {
    if (o.status !== 'open') continue;
    const placed = Date.parse(o.insertedAt ?? '');
    if (Number.isFinite(placed) && placed < cutoff && !tracked.has(o.nonce))
      out.push(`venue holds open order ${o.nonce} (placed ${new Date(placed).toISOString()}) the bot does not track`);
  }
  for (const b of bot) {
    if (b.state !== 'working') continue;
    const k = b.nonce;
    const o = known.get(k);
    if (!o) {
      if (b.sentAt < cutoff) out.push(`bot holds working order ${b.nonce} the venue never had`);
      continue;
    }
    const closed = closedAt.get(k);
    if (o.status !== 'open' && closed !== undefined && closed < cutoff)
      out.push(`bot holds working order ${b.nonce} the venue closed (${o.status}) at ${new Date(closed).toISOString()}`);
  }
  return out;
}

/** After kill -9 and restart: every order found open at the kill is now closed or tracked by the new bot. */
export function unsettledAfterRestart(openAtKill: readonly Bytes32[], bot: readonly BotOrderView[], venue: readonly VenueOrder[]): string[] {
  const tracked = new Set(bot.map((b) => b.nonce));
  const status = new Map<Bytes32, VenueOrder['status']>(venue.map((o) => [o.nonce, o.status]));
  return openAtKill.filter((n) => status.get(n) === 'open' && !tracked.has(n)).map((n) => `order ${n} open before the kill was neither adopted nor cancelled`);
}

/**
 * No market left unquoted, one sample: the markets without a live quote of the bot at the venue whose
 * health state names no reason (it says `quoting`, or is not a state the model knows). The referee
 * reports a market only when this holds for a whole window (the bot's view of its orders trails the
 * venue's by a feed poll: a quote just filled is still `quoting` for a moment).
 */
export function silentlyNotQuoting(
  openByMarket: ReadonlyMap<Bytes32, number>,
  health: ReadonlyMap<Bytes32, string>,
  knownStates: ReadonlySet<string>,
): Bytes32[] {
  const out: Bytes32[] = [];
  for (const [market, state] of health) {
    if ((openByMarket.get(market) ?? 0) > 0) continue;
    if (state === 'quoting' || !knownStates.has(state)) out.push(market);
  }
  return out;
}

/** What the rotation check needs of a market: its status and deadline (ms). */
export interface MarketEnd {
  readonly status: string;
  readonly deadline: number;
}

/**
 * No order left in a market that ended: an open order of the bot in a resolved market, or in a market
 * whose deadline passed more than `graceMs` ago (closed, resolution pending: the risk gate pauses
 * quoting before the deadline and rotation retires a closed market, so its quotes must be gone).
 * `markets` is keyed by lower-case id; a market it does not know is not judged.
 */
export function ordersInEndedMarkets(open: readonly VenueOrder[], markets: ReadonlyMap<string, MarketEnd>, now: number, graceMs: number): string[] {
  const out: string[] = [];
  for (const o of open) {
    const m = markets.get(o.marketId);
    if (!m) continue;
    if (m.status === 'resolved') out.push(`order ${o.nonce} open in resolved market ${o.marketId}`);
    else if (now - m.deadline > graceMs)
      out.push(`order ${o.nonce} open in market ${o.marketId} ${now - m.deadline} ms after its deadline (status ${m.status})`);
  }
  return out;
}

/** An account's collateral and every non-zero holding (`marketId:outcomeIndex` → shares), 1e-6 units. */
export interface AccountBooks {
  readonly collateral: bigint;
  readonly holdings: ReadonlyMap<string, bigint>;
}

/**
 * The books equal the venue, one sample: the bot's books (its ledger's baseline plus the fills since:
 * src/ledger/books.ts accountFromLedger, the account of src/account/account.ts) equal the venue's balance to the unit. The referee samples it only when
 * the bot is quiescent: the venue's account has not changed for longer than the bot's fills poll, so
 * every fill is in the books. `roundingMicro` is what the venue's stated average fill prices cannot say
 * (averageRounding): a collateral difference within it is the books holding what an average states;
 * beyond it, either way, or any holding that differs, is a violation.
 */
export function booksMismatches(books: AccountBooks, venue: AccountBooks, roundingMicro = 0n): string[] {
  const out: string[] = [];
  const d = books.collateral - venue.collateral;
  if (d > roundingMicro || -d > roundingMicro)
    out.push(
      `collateral: books ${books.collateral} vs venue ${venue.collateral} (1e-6 USDC, diff ${d}${roundingMicro > 0n ? `; the averages' rounding allows ${roundingMicro}` : ''})`,
    );
  for (const k of [...new Set([...books.holdings.keys(), ...venue.holdings.keys()])].sort()) {
    const b = books.holdings.get(k) ?? 0n;
    const v = venue.holdings.get(k) ?? 0n;
    if (b !== v) out.push(`${k}: books ${b} vs venue ${v} shares (1e-6)`);
  }
  return out;
}

/**
 * How far the books' cash may lie from the venue's because the venue states an order's fills only as
 * an average price in 1e-6 units (1e-6 USDC): for each order whose collateral does not divide by its
 * shares (the average is rounded), a unit per share filled and one more (docs/books-and-pnl.md, "Price").
 * Orders whose average is exact, a maker's at its limit among them, allow nothing.
 */
export function averageRounding(orders: readonly { readonly filledShares: number; readonly filledCollateral: number }[]): bigint {
  let out = 0n;
  for (const o of orders) {
    if (o.filledShares <= 0 || (BigInt(o.filledCollateral) * 1_000_000n) % BigInt(o.filledShares) === 0n) continue;
    out += BigInt(Math.ceil(o.filledShares / 1_000_000) + 1);
  }
  return out;
}

/** A fill the stop's final sweep recorded (src/ledger/bot-ledger.ts finalSweep): its order and shares (1e-6). */
export interface SweptFill {
  readonly nonce: Bytes32;
  readonly size: number;
}

/**
 * The books held every fill while the bot ran, not only after its stop: a fill the stop's final sweep
 * had to record, of an order the venue had closed (`closedAt`, when the referee first saw it so) while
 * the running bot then completed at least `minPolls` fills polls (`polls`: when each was reported), is
 * one its fills feed never recorded, so the books lacked it for the rest of the run. An order still open
 * at the stop, or closed too shortly before it, raced the stop's cancels: the sweep is there for it.
 * A part under one share is left alone (the feed and the sweep may split a crossed V2 buy's shares
 * differently by a rounding).
 */
export function missedByLiveFeed(swept: readonly SweptFill[], closedAt: ReadonlyMap<Bytes32, number>, polls: readonly number[], minPolls: number): string[] {
  const out: string[] = [];
  for (const f of swept) {
    const closed = closedAt.get(f.nonce);
    if (closed === undefined || f.size < 1_000_000) continue;
    const after = polls.filter((t) => t > closed).length;
    if (after >= minPolls)
      out.push(`order ${f.nonce}: ${f.size / 1e6} share(s) recorded only by the stop's final sweep, ${after} fills polls after the venue closed it`);
  }
  return out;
}

/** A silent stall of one market's book stream as the referee saw it (times ms, the referee's clock). */
export interface StallEpisode {
  readonly market: Bytes32;
  /** the first sample that found every live subscriber of the market stalled */
  readonly since: number;
  /** the first sample that found the stall over, or null while it lasts */
  readonly endedAt: number | null;
}

/** What a stall's verdict waits for: the bot's silence limit, a wall-time floor after it, and fills polls after it. */
export interface StallRule {
  /** the bot's maxStreamSilence: its guard trips this long after its last stream event, at the latest `since` + limitMs */
  readonly limitMs: number;
  /** never judged before `since` + limitMs + graceMs (the old wall-time deadline, now a floor) */
  readonly graceMs: number;
  /** fills polls the bot must complete after `since` + limitMs before it is judged */
  readonly minPolls: number;
}

/**
 * stall-pulls-quotes, one sample: during a silent stall the bot's quotes in that market must be pulled.
 * The deadline is counted in what the bot could do, not in wall time alone: the verdict waits until the
 * bot completed `minPolls` fills polls (`polls`: when each was reported) after its silence limit ran out
 * at `since` + limitMs, and until the wall-time floor limitMs + graceMs. A completed poll is a turn of
 * the bot's loop and a round trip through the venue, so a bot starved of CPU (or a venue slowed with it)
 * is given the turns it needs to notice the stall and cancel; a bot that never pulls keeps polling and
 * fails all the same. Returns null while not yet judged, else the violations (empty = held):
 *   - while the stall lasts: every order of the market still open;
 *   - once it is over (the bot reconnected, the exchange restarted): the orders placed before the limit
 *     that are still open (the bot may quote again on its new stream); a stall over before the floor
 *     held (there was no silent stream left to quote on).
 */
export function stallVerdict(e: StallEpisode, open: readonly VenueOrder[], polls: readonly number[], now: number, rule: StallRule): string[] | null {
  const pullBy = e.since + rule.limitMs;
  if (e.endedAt !== null && e.endedAt - e.since < rule.limitMs + rule.graceMs) return [];
  if (now - e.since < rule.limitMs + rule.graceMs) return null;
  const after = polls.filter((t) => t > pullBy).length;
  if (after < rule.minPolls) return null;
  const left = open.filter((o) => o.marketId === e.market && (e.endedAt === null || Date.parse(o.insertedAt) < pullBy));
  if (left.length === 0) return [];
  const when = e.endedAt === null ? `${now - e.since} ms into a silent stall` : `after a silent stall of ${e.endedAt - e.since} ms (placed before its limit)`;
  return [`${e.market}: ${left.length} order(s) still open ${when}, ${after} fills polls of the bot after its ${rule.limitMs} ms silence limit`];
}

/**
 * Whether the bot had time to see a state of the venue that has not changed since `since`: `quietMs` of wall
 * time and `minPolls` completed fills polls after it (`polls`: when each was reported; with two, the second
 * began after the first ended, so it read the state as it is). A bot starved of CPU polls later, and is
 * judged later, not wrongly (books-equal-venue).
 */
export function quietFor(since: number, now: number, polls: readonly number[], quietMs: number, minPolls: number): boolean {
  if (now - since < quietMs) return false;
  let after = 0;
  for (let i = polls.length - 1; i >= 0 && polls[i]! > since; i--) after++;
  return after >= minPolls;
}
