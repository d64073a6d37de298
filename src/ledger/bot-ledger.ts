/**
 * The live bot's ledger glue: everything the runtime does with the ledger, so the start-up phases
 * (src/runtime/phases) keep small blocks.
 *
 *   const bl = await BotLedger.open({ config, clock, logger, trader, venue, client, embedded });
 *   new StateStore(limits, bl.initialState())      // positions and PnL carried on from the books
 *   tradingFeed({ …, seed: bl.catchUp.openOrders })  // fill de-duplication continues where it stopped
 *   kernel options: account: bl.books(), initialRisk: bl.initialRisk(day), onKillLatched: bl.latchKill
 *   bl.latch                                      // the latch read at start (null = clear)
 *   bl.onEvent(e)                                 // every state event (orders, cancels, fills, denials)
 *   bl.startMarks(kernel.account, () => kernel.riskFigures())   // periodic marks
 *   bl.close()
 *
 * The ledger belongs to one account (the wallet on a chain; paper trading is its own account): a
 * file written for another is refused (a ConfigError naming both), never mixed.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { basename, dirname, extname, join } from 'node:path';
import { Bytes32Window } from '../core/bytes32-window.ts';
import type { Clock } from '../core/clock.ts';
import type { Logger } from '../core/logger.ts';
import type { BotConfig } from '../config/types.ts';
import { ConfigError } from '../model/errors.ts';
import type { Address, Bytes32 } from '../model/order.ts';
import { bytes32Of, mustAddress } from '../model/ids.ts';
import type { RiskReason } from '../risk/types.ts';
import type { Account } from '../account/account.ts';
import type { AccountRiskFigures } from '../account/account-risk.ts';
import { fillKey, fillOrigin, fillTerms } from '../account/account-fill.ts';
import type { TradingDay } from '../account/trading-day.ts';
import type { OrderFilled, StateEvent } from '../state/events.ts';
import { emptyMarket, emptyState, type MarketState, type StoreState } from '../state/market-state.ts';
import { PersistentMap } from '../state/persistent-map.ts';
import { FLAT } from '../state/position.ts';
import { accountFromLedger, fillEventsAfter, fillsAfter, lastFillSeq, MARKS_META, replayPositions } from './books.ts';
import {
  CHECKPOINT_EVERY_MS,
  replayBooks,
  saveBooksCheckpoint,
  saveBooksCheckpointInSlices,
  type CheckpointResume,
  type ReplayedBooks,
} from './books-checkpoint.ts';
import { catchUpFills, type CatchUpResult, type CatchUpSource, type VenueOrderStatus } from './catch-up.ts';
import { isDamage, LedgerDamagedError } from './integrity.ts';
import { loadToxicityPool, saveToxicityPool } from './toxicity-pool-checkpoint.ts';
import type { ToxicitySums } from '../state/edge-state.ts';
import { openLedger, type Ledger, type LedgerOrder, type OperatorHolds, type RiskSnapshot } from './ledger.ts';
import { orderEnds, orderEndsOf, type OrderEnds } from './order-ends.ts';
import { NO_FEES, type FeeSpec } from '../engine/fill-fee.ts';
import { baselineOf, hasHistory, HISTORY_SCAN_ORDERS, readVenueHistory, refusal, type HistorySource } from './baseline.ts';
import { existsSync, rmSync, statSync } from 'node:fs';
import { adoptedIntoSlot, isStrangerCancel } from '../orders/orphan-slot.ts';

/**
 * Own nonces isOwn keeps in memory: a cache of the ledger's orders table (and of the nonce tag's
 * test), so a bound costs a lookup, never an answer. It was 100 000: ~11 MB of 66-character
 * strings that took over an hour of soak-memory's quoting (~1,400 orders a minute) to fill, the
 * live heap's growth in that bench's second half. 10 000 is what the nonce source remembers
 * (src/orders/nonces.ts NONCE_MEMORY); both are a Bytes32Window (src/core/bytes32-window.ts), their
 * ~0.5 MB allocated at the start instead of a Set that grew while the window filled.
 */
export const OWN_MEMORY = 10_000;

/**
 * The ledger file for a config: `ledger.path`, else `.bookmaker/<config name>.ledger.sqlite` beside the
 * config (in memory for the embedded demo and `local` configs, see BotLedger.open). Paper trading is an account of its own: its books go to a sibling file with `.paper` before
 * the extension (`live.ledger.paper.sqlite`), so `run --paper` with the live config never touches the
 * live books.
 */
export function ledgerPath(cfg: Pick<BotConfig, 'ledger' | 'file'>, embedded: boolean, paper = false): string {
  let p: string;
  if (cfg.ledger.path) p = cfg.ledger.path;
  // the embedded demo trades a throwaway wallet on a throwaway exchange: nothing to carry over
  else if (embedded || !cfg.file) return ':memory:';
  else p = join(dirname(cfg.file), '.bookmaker', `${basename(cfg.file, extname(cfg.file))}.ledger.sqlite`);
  if (!paper || p === ':memory:') return p;
  const ext = extname(p);
  return `${p.slice(0, p.length - ext.length)}.paper${ext}`;
}

/** A short hash of the config file's bytes (or of the parsed config when there is no file). */
export function configHash(cfg: BotConfig): string {
  const h = createHash('sha256');
  try {
    h.update(cfg.file ? readFileSync(cfg.file) : JSON.stringify(cfg.markets.map((m) => m.select)));
  } catch {
    h.update(cfg.file);
  }
  return h.digest('hex').slice(0, 16);
}

export interface BotLedgerOptions {
  readonly config: BotConfig;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly trader: Address;
  /** the venue's base URL (recorded with each start-up) */
  readonly venue: string;
  /** the chain the account trades on: with the trader, the account a ledger belongs to */
  readonly chain: string;
  readonly client: CatchUpSource & Partial<HistorySource>;
  readonly embedded: boolean;
  /** `run --new-ledger`: a new or empty ledger on a wallet with venue history adopts its holdings as the baseline instead of refusing */
  readonly newLedger?: boolean;
  readonly markets: number;
  /** paper trading: nothing reaches the venue, so there is nothing to catch up */
  readonly paper: boolean;
  /** orders.reconcileScope markets: the markets whose orders are this bot's (see CatchUpOptions.owns) */
  readonly owns?: (marketId: Bytes32) => boolean;
  /** a sharded bot: a sibling shard's order, known by its nonce tag (see CatchUpOptions.sibling) */
  readonly sibling?: (nonce: Bytes32) => boolean;
}

/** The ledger's record of an order the bot submitted or adopted. */
function orderRecord(e: Extract<StateEvent, { type: 'OrderSubmitted' | 'OrderAdopted' }>): LedgerOrder {
  return {
    nonce: e.nonce,
    marketId: e.marketId,
    slot: e.slot,
    outcomeIndex: e.order.outcomeIndex,
    side: e.order.side,
    price: e.order.price,
    size: e.order.size,
    ts: e.ts,
  };
}

/**
 * finalSweep's `closing`: orders whose real status at the venue the stop needs (the cancel-all found
 * them gone without seeing their end, OrderManager.endedAtStop); `read` is told those the sweep read,
 * after their fills are in the ledger and the running books (not told when the sweep failed).
 */
export interface StopClosing {
  readonly nonces: readonly Bytes32[];
  read(orders: readonly VenueOrderStatus[]): void;
}

export class BotLedger {
  readonly ledger: Ledger;
  readonly catchUp: CatchUpResult;
  /** the latch as read at start, then as set or cleared while running */
  latch: RiskSnapshot['latch'];
  private readonly risk0: RiskSnapshot;
  private readonly clock: Clock;
  private readonly log: Logger;
  private readonly denials = new Map<string, number>();
  private stopMarks: (() => void) | null = null;
  private readonly startedAt: number;
  /** the last operator clear this bot knows of (Ledger.lastClearSeq): a higher one came from outside */
  private clearSeq: number;
  /** another process cleared the kill switch in this ledger while this bot ran: its figures stand */
  private clearedOutside = false;

  private constructor(
    ledger: Ledger,
    catchUp: CatchUpResult,
    clock: Clock,
    log: Logger,
    private readonly logger: Logger,
    private readonly paper: boolean,
    private readonly owns?: (marketId: Bytes32) => boolean,
    private readonly sibling?: (nonce: Bytes32) => boolean,
  ) {
    this.ledger = ledger;
    this.catchUp = catchUp;
    this.clock = clock;
    this.log = log;
    this.startedAt = clock.now();
    this.risk0 = ledger.risk();
    this.latch = this.risk0.latch;
    this.clearSeq = ledger.lastClearSeq();
  }

  static async open(o: BotLedgerOptions): Promise<BotLedger> {
    const log = o.logger.child({ component: 'ledger' });
    // a `local` config (the embedded demo, or one pointed at a `bookmaker sim`) trades throwaway
    // wallets on a throwaway exchange: in memory unless ledger.path asks for a file
    const path = ledgerPath(o.config, o.embedded || o.config.venue.kind === 'local', o.paper);
    let ledger: Ledger;
    const existed = path !== ':memory:' && existsSync(path);
    const emptied = existed && statSync(path).size === 0;
    try {
      ledger = openLedger({ path, clock: o.clock, logger: o.logger, flushMs: o.config.ledger.flushMs });
    } catch (e) {
      throw new ConfigError(`ledger ${path}: cannot be opened (${(e as Error).message})`, { cause: e });
    }
    try {
      // the account is the wallet on a chain, not a URL: a venue reached by another address is the same books
      const account = `${mustAddress(o.trader, 'trader')}@${o.chain}${o.paper ? ' (paper)' : ''}`;
      const owner = ledger.meta('account');
      if (owner === null) ledger.setMeta('account', account);
      else if (owner !== account) throw new ConfigError(`ledger ${path} holds the books of ${owner}, not ${account}: set ledger.path to another file`);
      if (!o.paper && path !== ':memory:' && ledger.isFresh() && ledger.baseline() === null && o.client.balance) {
        // a new or emptied ledger: the wallet's venue history is refused or adopted, never silently lost
        // a scoped instance (shards, reconcileScope markets) on a shared wallet: only its markets' history counts
        const h = await readVenueHistory(o.client as HistorySource, o.trader, o.owns ? { owns: o.owns } : {});
        if (h.bounded)
          log.warn(
            { path, ordersRead: HISTORY_SCAN_ORDERS },
            "new ledger: no order of this instance's markets among the wallet's latest orders (other instances' orders): starting new books",
          );
        if (hasHistory(h) && !o.newLedger) {
          ledger.close();
          if (!existed) for (const f of [path, `${path}-wal`, `${path}-shm`]) rmSync(f, { force: true });
          throw refusal(path, o.trader, h, existed || emptied ? 'empty' : 'new');
        }
        const b = await baselineOf(o.client as HistorySource, h, o.clock.now());
        ledger.adoptBaseline(b);
        if (hasHistory(h)) {
          log.warn(
            {
              path,
              holdings: b.holdings.map((x) => ({
                marketId: x.marketId,
                outcomeIndex: x.outcomeIndex,
                shares: Number(x.shares) / 1e6,
                mark: x.mark === null ? null : x.mark / 1e6,
              })),
              collateral: Number(b.collateral) / 1e6,
            },
            'new ledger on a wallet with venue history (--new-ledger): its holdings are adopted at the current marks as the baseline; PnL counts from now',
          );
          for (const x of b.holdings)
            if (x.mark === null)
              log.warn(
                { marketId: x.marketId, outcomeIndex: x.outcomeIndex },
                'no mark for an inherited holding: adopted at cost 0, its value will show as PnL at the first mark',
              );
        }
      } else if (o.newLedger && !ledger.isFresh()) {
        log.warn({ path }, '--new-ledger ignored: this ledger already holds books (it applies only to a new or empty ledger)');
      }
      const catchUp = o.paper
        ? { recorded: 0, shares: 0, ordersRead: 0, openOrders: [], incomplete: false, closing: [] }
        : await catchUpFills({
            client: o.client,
            trader: o.trader,
            ledger,
            clock: o.clock,
            logger: o.logger,
            fees: o.config.ledger.fees,
            ...(o.owns ? { owns: o.owns } : {}),
            ...(o.sibling ? { sibling: o.sibling } : {}),
          });
      const bl = new BotLedger(ledger, catchUp, o.clock, log, o.logger, o.paper, o.owns, o.sibling);
      bl.fees = o.config.ledger.fees ?? NO_FEES;
      ledger.startup(
        {
          configHash: configHash(o.config),
          configFile: o.config.file,
          venue: o.venue,
          trader: mustAddress(o.trader, 'trader'),
          markets: o.markets,
          latched: bl.latch?.reason ?? null,
        },
        catchUp.recorded,
      );
      log.info({ path, caughtUp: catchUp.recorded, latched: bl.latch?.reason ?? null }, 'ledger open');
      if (bl.latch) {
        log.error(
          { reason: bl.latch.reason, detail: bl.latch.detail, since: new Date(bl.latch.at).toISOString() },
          'kill switch latched in an earlier run: not quoting until an operator runs `bookmaker ctl clear-kill --reason TEXT`',
        );
      }
      return bl;
    } catch (e) {
      ledger.close();
      throw e;
    }
  }

  /**
   * The store's first state: every market of the books with its realised PnL, fees and volume, so
   * the account PnL is the books' since inception. The quoted markets also get their position and
   * cost basis (the balance poll then confirms or corrects the holdings); the others are carried
   * flat: the bot reads no balance for them, and a position the books remember in a market long
   * resolved must not count against the account-wide limits forever. Without a mark their open
   * position adds no unrealised PnL either way.
   */
  initialState(quoted: readonly Bytes32[]): StoreState {
    const s = emptyState();
    const q = new Set<string>(quoted);
    let markets = s.markets as PersistentMap<MarketState>;
    let books: ReturnType<typeof replayPositions>;
    try {
      books = this.replay().positions;
    } catch (e) {
      // the open check leaves large tables to `ledger check`; the replay reads every fill page
      if (isDamage(e)) throw new ConfigError(new LedgerDamagedError(this.ledger.path, [`fills: ${(e as Error).message}`]).message, { cause: e });
      throw e;
    }
    for (const [id, p] of books) {
      const position = q.has(id) ? p : { ...FLAT, realised: p.realised, fees: p.fees, volume: p.volume, fills: p.fills };
      // a ledger row's id, normalised where it enters (src/model/ids.ts); one that is no id is damage, not a market
      const key = bytes32Of(id);
      if (key === null)
        throw new ConfigError(new LedgerDamagedError(this.ledger.path, [`fills: market id ${JSON.stringify(id)} is not a 32-byte hex id`]).message);
      markets = markets.set(key, { ...emptyMarket(key), position });
    }
    // the guard's evidence across markets as the last run left it (decaying on from its time)
    return { ...s, markets, toxicityPool: loadToxicityPool(this.ledger, this.log) };
  }

  /**
   * The account's books as the ledger holds them (every recorded fill, the last marks): the kernel's
   * account, so a restart resumes at the PnL it stopped at.
   */
  books(): Account {
    const replayed = this.replay();
    // the account is the kernel's from now on: a later call replays again
    this.replayed = null;
    return accountFromLedger(this.ledger, { replayed });
  }

  /** one replay of the fills for the start (initialState and books), from the books checkpoint */
  private replayed: ReplayedBooks | null = null;

  private replay(): ReplayedBooks {
    // the start writes a new checkpoint when it replayed many fills after the last (books-checkpoint.ts)
    this.replayed ??= replayBooks(this.ledger, { logger: this.logger, save: true });
    return this.replayed;
  }

  /**
   * The kill switch's account figures as the ledger left them (see QuotingKernelOptions.initialRisk).
   * The day's opening PnL carries on within the same trading day; after downtime over a day boundary
   * the day opens at the first account mark recorded in the new day, else at the first PnL the bot
   * sees (never at a mark from an earlier day). After a clear (no figures) it opens at the first PnL.
   */
  initialRisk(day: TradingDay): Partial<AccountRiskFigures> {
    const r = this.risk0;
    const today = day.of(this.clock.now());
    let dayStartPnl: number | undefined;
    if (r.day === today && r.dayStartPnl !== null) dayStartPnl = Number(r.dayStartPnl);
    // no figures at all: a new ledger, or an operator's clear (online or offline) reset them; the
    // day then opens at the first PnL this run sees, not at a mark from before the clear
    else if (r.day !== null) {
      const m = this.ledger.db.prepare('SELECT pnl FROM marks WHERE market_id IS NULL AND ts >= ? ORDER BY id LIMIT 1').get(day.startOf(today)) as
        | { pnl: string }
        | undefined;
      if (m) dayStartPnl = Number(BigInt(m.pnl));
    }
    return {
      peakPnl: r.peakPnl === null ? null : Number(r.peakPnl),
      ...(dayStartPnl !== undefined ? { day: today, dayStartPnl } : {}),
    };
  }

  /** nonces this bookmaker placed or adopted in this run, the newest OWN_MEMORY (a cache: isOwn finds older ones in the ledger) */
  private readonly own = new Bytes32Window(OWN_MEMORY);
  /** nonces isOwn holds in memory now (tests) */
  get ownRemembered(): number {
    return this.own.size;
  }
  /** the fee model for fills the venue states no fee for (`ledger.fees`) */
  fees: FeeSpec = NO_FEES;

  private rememberOwn(nonce: Bytes32): void {
    // a bound: older ones are still found in the ledger (isOwn)
    this.own.add(nonce);
  }

  /**
   * Did this bookmaker place (or adopt) the order? Else it is another trader's on the same wallet (a
   * person, another instance): its fills are 'foreign' (src/feeds/own-orders-feed.ts isOwn).
   */
  readonly isOwn = (nonce: Bytes32): boolean => {
    if (this.own.has(nonce)) return true;
    if (!this.ledger.isTagged(nonce) && !this.ledger.hasOrder(nonce)) return false;
    this.rememberOwn(nonce);
    return true;
  };

  /** orders whose create answer showed fills (they crossed on arrival): the filled size it stated */
  private readonly arrivals = new Map<string, number>();

  private noteArrival(nonce: string, filledSize: number): void {
    this.arrivals.set(nonce, filledSize);
    // a bound: the fills feed reads an order's arrival within a poll or two of its answer
    if (this.arrivals.size > 20_000) this.arrivals.delete(this.arrivals.keys().next().value!);
  }

  /**
   * The filled size an order's create answer stated when it crossed on arrival (the fills feed charges
   * those fills the taker rate, src/feeds/fill-part.ts); undefined when not known (docs/books-and-pnl.md).
   */
  readonly arrival = (nonce: string): number | undefined => this.arrivals.get(nonce);

  /** Record what the bot does and sees. Cheap: a queue push (the writes are batched). */
  onEvent(e: StateEvent): void {
    const l = this.ledger;
    switch (e.type) {
      case 'OrderSubmitted':
        this.rememberOwn(e.nonce);
        l.orderSubmitted(orderRecord(e), e.retry);
        return;
      case 'OrderAdopted':
        // a stranger taken in to be cancelled is not remembered as own: isOwn asks the ledger (its nonce
        // tag, an earlier run's row), so another trader's fills stay 'foreign' (src/orders/orphan-slot.ts)
        if (adoptedIntoSlot(e)) this.rememberOwn(e.nonce);
        l.orderAdopted(orderRecord(e));
        return;
      case 'OrderAccepted':
        if (e.filledOnArrival !== undefined) this.noteArrival(e.nonce, e.filledOnArrival);
        l.orderAnswered(e.nonce, 'accepted', e.duplicate ? 'duplicate' : 'created', e.ts);
        return;
      case 'OrderRejected':
        // a lost answer may still have placed it: only a final refusal is 'rejected'
        l.orderAnswered(
          e.nonce,
          e.mayHaveLanded ? 'unknown' : 'rejected',
          `${e.reason}${e.retryable ? ' (retryable)' : ''}${e.mayHaveLanded ? ' (may have landed)' : ''}`,
          e.ts,
        );
        return;
      case 'CancelSubmitted':
        l.cancel(e.nonce, e.marketId, 'sent', null, e.ts, isStrangerCancel(e));
        return;
      case 'OrderCancelled':
        l.cancel(e.nonce, e.marketId, e.alreadyCancelled ? 'already-cancelled' : 'cancelled', null, e.ts, isStrangerCancel(e));
        // alreadyCancelled says only that nothing was left to cancel (the venue answers so for an order
        // filled, expired, voided or cancelled before, and bookmaker for one it does not know): not the
        // order's end, which comes from the venue (the feed's OrderClosed, the stop's sweep, the next
        // start's catch-up), so a filled order is never ended 'cancelled' on our word (docs/venue.md)
        if (!e.alreadyCancelled) l.orderEnded(e.nonce, 'cancelled', e.ts);
        return;
      case 'CancelFailed':
        l.cancel(e.nonce, e.marketId, 'failed', `${e.reason}${e.retryable ? ' (retryable)' : ''}`, e.ts, isStrangerCancel(e));
        return;
      case 'OrderGone':
        l.orderEnded(e.nonce, 'gone', e.ts);
        return;
      case 'OrderClosed':
        l.orderEnded(e.nonce, e.status, e.ts);
        return;
      case 'OrderFilled': {
        // a fill without a venue identity cannot be de-duplicated: keyed by what makes it unique here
        const fillId = fillKey(e);
        const cum = e.fillId !== undefined ? Number(e.fillId.slice(e.fillId.lastIndexOf(':') + 1)) : NaN;
        l.fill({
          fillId,
          nonce: e.nonce,
          ...fillTerms(e),
          ts: e.ts,
          source: 'feed',
          filled: Number.isSafeInteger(cum) ? cum : null,
          feeSource: e.feeSource ?? 'venue',
          origin: fillOrigin(e),
          orderKind: e.orderKind ?? null,
          notional: e.notional ?? null,
        });
        return;
      }
      case 'MarketMetadataUpdated':
        if (e.payoutYes !== undefined && e.payoutYes !== null) this.resolved(e.marketId, e.payoutYes, e.ts);
        return;
      case 'MarketReleased':
        // no more metadata polls of it: its payout need not be remembered (a later one is one idempotent write)
        this.payouts.delete(e.marketId);
        return;
      case 'QuoteDenied': {
        const k = `${e.marketId}|${e.reason}`;
        this.denials.set(k, (this.denials.get(k) ?? 0) + 1);
        return;
      }
      default:
        return;
    }
  }

  /**
   * At stop, after the last cancel: fills that raced the cancels (the feeds are already closed) are
   * read from the venue and recorded, so the books are exact when the process ends. Orders placed in
   * the last 10 minutes, every unfinished one and the ones found open at start (up to 100 lookups)
   * are read; anything else is completed by the next start's catch-up. The fills it records go into
   * `account` too (the running books), so the stop's last mark and the run report hold them. With
   * `closing` (the orders the cancel-all found gone unseen), those are looked up first and `read` is
   * told their status at the venue. `toStore` is handed the same fills as the feeds report fills
   * (OrderFilled, with the ledger's fill ids), after the books have them and before `read`: the store's
   * position and attribution then hold what the books hold (the store never saw a fill that raced the
   * stop's cancels). Never throws (logged): a stop must not fail on its books.
   */
  async finalSweep(
    client: CatchUpSource,
    trader: Address,
    account?: Account,
    closing?: StopClosing,
    toStore?: (fills: readonly OrderFilled[]) => void,
  ): Promise<number> {
    if (this.paper) return 0;
    let r: CatchUpResult;
    let before = 0;
    try {
      before = lastFillSeq(this.ledger);
      r = await catchUpFills({
        client,
        trader,
        ledger: this.ledger,
        clock: this.clock,
        logger: this.logger,
        since: Math.max(this.startedAt, this.clock.now() - 600_000),
        maxLookups: 100,
        alsoNonces: this.catchUp.openOrders.map((x) => x.nonce),
        ...(closing ? { closing: closing.nonces } : {}),
        fees: this.fees,
        when: 'stop',
        ...(this.owns ? { owns: this.owns } : {}),
        ...(this.sibling ? { sibling: this.sibling } : {}),
      });
      // the running books get what the sweep recorded, before the stop's last mark: the run report
      // and the marks then hold the books a restart rebuilds from the ledger (docs/books-and-pnl.md)
      if (account !== undefined && r.recorded > 0) for (const f of fillsAfter(this.ledger, before)) account.applyFill(f);
    } catch (e) {
      this.log.warn({ err: (e as Error).message }, 'final fills sweep failed; the next start catches up');
      return 0;
    }
    if (toStore !== undefined && r.recorded > 0) {
      try {
        // the store after the books (which know each fill id already): fills first, then the closes
        toStore(fillEventsAfter(this.ledger, before));
      } catch (e) {
        this.log.warn({ err: (e as Error).message }, 'final fills sweep: the store could not take the fills (the books and the ledger hold them)');
      }
    }
    // after the ledger and the books have their fills: the caller closes those orders in the store
    // (fills first, then the close, as the feeds report them)
    closing?.read(r.closing);
    return r.recorded;
  }

  /**
   * payouts recorded by this process, per market still in the bot (a metadata poll repeats a
   * resolution many times); a released market's is forgotten, so rotation does not grow it
   */
  private readonly payouts = new Map<Bytes32, number>();

  /**
   * A market resolved (one YES share pays `payoutYes`, 1e-6 USDC): recorded once, so the books rebuilt
   * from the ledger keep its resolution PnL (src/ledger/books.ts replayResolutions). Never throws.
   */
  resolved(marketId: Bytes32, payoutYes: number, at: number): void {
    if (!Number.isSafeInteger(payoutYes) || payoutYes < 0 || payoutYes > 1_000_000 || this.payouts.get(marketId) === payoutYes) return;
    try {
      this.ledger.resolution(marketId, payoutYes, at);
      this.payouts.set(marketId, payoutYes);
    } catch (err) {
      this.log.warn({ marketId, err: (err as Error).message }, 'ledger: resolution not recorded');
    }
  }

  /** A resolved market's tokens were claimed (its payout, when the claim states one, recorded first). Never throws. */
  claimed(marketId: Bytes32, payoutYes: number | null, at: number): void {
    if (payoutYes !== null) this.resolved(marketId, payoutYes, at);
    try {
      this.ledger.claim(marketId, at);
    } catch (err) {
      this.log.warn({ marketId, err: (err as Error).message }, 'ledger: claim not recorded');
    }
  }

  /** The kill switch fired: latch it in the ledger now (durable before this returns). */
  readonly latchKill = (reason: RiskReason, detail: string, marketId: Bytes32 | null): void => {
    this.ledger.setLatch(reason, detail, marketId); // throws only when neither the ledger nor the latch file took it
    try {
      this.latch = this.ledger.risk().latch;
    } catch {
      this.latch = { reason, detail, at: this.clock.now() }; // the ledger cannot be read: the latch file holds it
    }
  };

  /** Operator clear (bookmaker ctl clear-kill): returns the latch that was cleared, or null. */
  clearLatch(reason: string, source: string): RiskSnapshot['latch'] {
    const was = this.ledger.clearLatch(reason, source);
    this.latch = null;
    // this bot's own clear: its kernel measures from now, and its figures are written again
    this.clearSeq = this.ledger.lastClearSeq();
    this.clearedOutside = false;
    return was;
  }

  /** The operator's halt and pauses still in force: applied at start-up. */
  operatorHolds(): OperatorHolds {
    return this.ledger.operatorHolds();
  }

  /**
   * A mark of every market in the store and of the account, the kill switch's figures and the
   * denials since the last mark, every `config.ledger.markMs` and once more at stop; with `pool`, the
   * account's pooled toxicity saved each time too (the next start's initialState reads it back).
   */
  startMarks(account: Account, figures: () => AccountRiskFigures, everyMs: number, pool?: () => ToxicitySums): () => void {
    const once = (): void => {
      try {
        this.markNow(account, figures());
      } catch (e) {
        // a failed write is logged (throttled) and counted by the ledger itself
        if (this.ledger.failingSince === null) this.log.error({ err: (e as Error).message }, 'ledger mark failed');
      }
      // the account's pooled toxicity with every mark (src/ledger/toxicity-pool-checkpoint.ts)
      if (pool !== undefined && this.ledger.failingSince === null) saveToxicityPool(this.ledger, pool(), this.clock.now(), this.log);
      this.checkpointIfDue();
    };
    let cancel: () => void = () => undefined;
    const loop = (): void => {
      once();
      cancel = this.clock.setTimeout(loop, everyMs);
    };
    cancel = this.clock.setTimeout(loop, everyMs);
    this.stopMarks = () => {
      cancel();
      once();
    };
    return () => {
      this.stopMarks?.();
      this.stopMarks = null;
    };
  }

  /** when the run last looked at the books checkpoint (ms; the open counts: its replay may have written one) */
  private checkpointLookAt: number | null = null;

  /**
   * During a run, from the mark loop (a timer, off the quoting path): at most every
   * CHECKPOINT_EVERY_MS, a new books checkpoint when CHECKPOINT_MIN_TAIL fills or more were recorded
   * after the last one (saveBooksCheckpointInSlices: replayed a few ms per turn of the event loop,
   * one job at a time), so a bot killed after hours replays at most that many
   * at its next start rather than every fill since its start. One SQLite row replaced in one
   * transaction: a kill -9 during the write leaves the previous checkpoint whole. Not while the
   * ledger's writes fail. Returns whether it looked (docs/ledger-operations.md).
   */
  checkpointIfDue(now = this.clock.now()): boolean {
    this.checkpointLookAt ??= now;
    if (now - this.checkpointLookAt < CHECKPOINT_EVERY_MS || this.ledger.failingSince !== null || this.checkpointJob !== null) return false;
    this.checkpointLookAt = now;
    // in slices (saveBooksCheckpointInSlices): a long tail never holds the event loop for more than a few ms
    this.checkpointJob = saveBooksCheckpointInSlices(this.ledger, { logger: this.logger, resume: this.checkpointResume })
      .then(
        (r) => {
          if (r !== null) this.checkpointResume = r;
        },
        (e: unknown) => {
          // its copy may be half-way through the tail: the next one starts from the checkpoint row
          this.checkpointResume = null;
          this.log.warn({ err: (e as Error).message }, 'books checkpoint skipped');
        },
      )
      .finally(() => {
        this.checkpointJob = null;
      });
    return true;
  }

  /** the books the run's last checkpoint wrote: the next one replays on from them */
  private checkpointResume: CheckpointResume | null = null;

  /** the run's books checkpoint in progress (checkpointIfDue), null when none */
  private checkpointJob: Promise<void> | null = null;

  /** Resolves once the books checkpoint in progress, if any, is over (tests, stop). */
  checkpointSettled(): Promise<void> {
    return this.checkpointJob ?? Promise.resolve();
  }

  /**
   * A mark of every market the books hold and of the account, all from the account's figures (the
   * same the kill switch, /metrics and the run report read), the kill switch's figures, and the
   * marks in force (so a restart resumes at the same PnL).
   */
  markNow(account: Account, f: AccountRiskFigures): void {
    const now = this.clock.now();
    const marks: Record<string, [number, number]> = {};
    for (const id of account.marketIds()) {
      const m = account.market(id)!;
      if (m.fills > 0 || m.net !== 0) this.ledger.mark(now, id, m.net, m.realised, m.unrealised);
      if (m.mark2 !== null && m.markedAt !== null && (m.yes !== 0 || m.no !== 0)) marks[id] = [m.mark2, m.markedAt];
    }
    const a = account.figures();
    this.ledger.mark(now, null, 0, a.realised, a.unrealised);
    this.ledger.setMeta(MARKS_META, JSON.stringify(marks));
    for (const [k, n] of this.denials) {
      const [market, reason] = k.split('|') as [Bytes32, string];
      this.ledger.riskEvent(now, market, 'denials', reason, n, null);
    }
    this.denials.clear();
    // an operator clear this bot did not make (another process on this file): its reset figures
    // stand; this bot's in-memory peak and day start must not be written back over them
    if (this.clearedOutside || this.ledger.lastClearSeq() !== this.clearSeq) {
      if (!this.clearedOutside) {
        this.clearedOutside = true;
        this.log.error(
          'the kill switch was cleared in this ledger by another process while this bot runs: its peak and day start are no longer written; restart the bot to measure from the clear',
        );
      }
      return;
    }
    // the peak never goes below what the books say now
    const pnl = a.total;
    const peak = f.peakPnl === null ? pnl : BigInt(f.peakPnl) > pnl ? BigInt(f.peakPnl) : pnl;
    this.ledger.saveRiskFigures(peak, f.day, f.dayStartPnl === null ? null : BigInt(f.dayStartPnl));
  }

  /** A risk event outside the kill switch (a halt: broken invariant or operator), written at once. */
  riskEvent(kind: string, reason: string, detail: string | null, marketId: Bytes32 | null = null): void {
    try {
      this.ledger.riskEvent(this.clock.now(), marketId, kind, reason, 1, detail);
      this.ledger.flush();
    } catch (e) {
      this.log.error({ err: (e as Error).message }, 'recording a risk event failed');
    }
  }

  operatorAction(action: string, market: string | null, reason: string | null, result: string, source = 'admin'): void {
    this.ledger.operatorAction(action, market, reason, source, result);
  }

  /**
   * This run's orders by how they ended (order-ends.ts: those submitted or adopted since it began), the
   * counts `ledger summary --since` shows for the same window; as they stood when the ledger closed once it has.
   */
  orderEndsOfRun(): OrderEnds | null {
    if (this.endsAtClose !== undefined) return this.endsAtClose;
    try {
      this.ledger.flush();
      return orderEnds(this.ledger, { since: this.startedAt });
    } catch (e) {
      this.log.warn({ err: (e as Error).message }, "this run's orders by end could not be read from the ledger");
      return null;
    }
  }

  private endsAtClose: OrderEnds | null | undefined = undefined;

  /**
   * The given orders by how they ended (order-ends.ts orderEndsOf: the count of the run report's `orders`
   * line over those orders): the stop's log of the orders its cancel-all found ended already. null: unread.
   */
  orderEndsOf(nonces: readonly Bytes32[]): OrderEnds | null {
    try {
      this.ledger.flush();
      return orderEndsOf(this.ledger, nonces);
    } catch (e) {
      this.log.warn({ err: (e as Error).message }, 'orders by end could not be read from the ledger');
      return null;
    }
  }

  close(): void {
    this.stopMarks?.();
    this.stopMarks = null;
    // after the stop's sweep wrote the ends it read: the run report's `orders` line (the ledger closes below)
    this.endsAtClose = this.orderEndsOfRun();
    try {
      this.ledger.flush();
      // a clean stop: the fills of this run go into the books checkpoint, so the next start replays few
      if (this.ledger.failingSince === null) saveBooksCheckpoint(this.ledger, { logger: this.logger });
    } catch (e) {
      this.log.warn({ err: (e as Error).message }, 'books checkpoint skipped at stop');
    }
    this.ledger.close();
  }
}
