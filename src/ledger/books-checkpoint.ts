/**
 * The books checkpoint (docs/ledger-operations.md "The books checkpoint"): the account's books as
 * the recorded fills leave them up to one fill, kept in the ledger, so a start or `ledger summary`
 * replays only the fills recorded after it instead of every fill since the ledger began.
 *
 *   const r = replayBooks(ledger, { logger, save: true })
 *   r.account     // the Account after the baseline and every fill (before the saved marks), as a full replay gives it
 *   r.positions   // every market's position in record order (replayPositions)
 *   r.tail        // fills replayed after the checkpoint (all of them without one)
 *   r.checkpoint  // 'used', 'none', or why one was ignored
 *   saveBooksCheckpoint(ledger, { logger })  // at a clean stop: a new checkpoint when the tail is long
 *
 * What a checkpoint holds: every field of the account (src/account/account-snapshot.ts: whatever the
 * Account keeps, bigints as decimal text) and the record-order positions, after the baseline and the
 * fills up to `seq`; what it covers (`seq`, the number of fills up to it, the id of the fill at
 * `seq`, the number of baseline rows); the account's shape when written; a SHA-256 of the state.
 *
 * Finished markets are folded (foldIdle): a market idle for FOLD_IDLE_MS of venue time is kept as its
 * figures alone (Account.foldKept: no kept fills, one fill id), listed in the state's `folded`, so the
 * checkpoint of a bot that rotates markets grows by a small record per finished market, not by its
 * book. A replay from it rebuilds a folded market's book from its recorded fills before it applies the
 * market's next fill (unfoldSteps, Account.replaceBook): a start from the checkpoint and the fills
 * after it gives what a replay of every fill gives, to the unit, a late fill of a folded market
 * included (docs/ledger-operations.md, "Finished markets are folded").
 *
 * A checkpoint is used only when all of these hold now: the digest matches the state, the shape is
 * this bookmaker's Account, the fills up to `seq` are as many as it covered and the fill at `seq` is
 * the same, and the baseline is unchanged. Otherwise it is ignored (logged, with the reason) and
 * every fill is replayed: the result is the same either way, a damaged or stale checkpoint only
 * costs time. A checkpoint is written (one row, replaced, in one transaction: a kill during the
 * write leaves the previous one) at a start whose replay went through `minTail` fills or more after
 * it (or had none), every CHECKPOINT_EVERY_MS during a run and at a clean stop when that many were
 * recorded since: never on the quoting path. It is a cache of what the fills say, never a record of its own:
 * `bookmaker ledger check` and a backup carry it, and deleting it loses nothing.
 */
import { createHash } from 'node:crypto';
import { Account, type AccountFill, type DetachedBook } from '../account/account.ts';
import {
  bookFromText,
  bookText,
  restoreAccount,
  restoreValue,
  snapshotAccount,
  snapshotAccountPieces,
  snapshotMapText,
  snapshotValue,
  type AccountSnapshot,
} from '../account/account-snapshot.ts';
import { silentLogger, type Logger } from '../core/logger.ts';
import type { Bytes32, OutcomeIndex, SideValue } from '../model/order.ts';
import { applyFill, FLAT, type PositionState } from '../state/position.ts';
import { baselinePositions } from './baseline.ts';
import type { Ledger } from './ledger.ts';

/** write a new checkpoint once the replay after the last one passes this many fills */
export const CHECKPOINT_MIN_TAIL = 1_000;
/** during a run, how often the bot looks whether a new checkpoint is due (src/ledger/bot-ledger.ts checkpointIfDue), ms */
export const CHECKPOINT_EVERY_MS = 5 * 60_000;
/**
 * A market whose newest fill is this much older (venue time) than the books' newest is folded in the
 * checkpoint it is written into (foldIdle): an hour, far beyond the feeds' 10 minutes of re-delivery
 * and the account's 15 minutes of re-ordering (src/account/account.ts), so no fill the running bot
 * receives sorts before a folded fill (docs/ledger-operations.md, "Finished markets are folded").
 */
export const FOLD_IDLE_MS = 60 * 60_000;
/**
 * What a checkpoint with folded markets adds to the account's shape (row and state): an older
 * bookmaker, which would not rebuild a folded market before its next fill, ignores it.
 */
const FOLDED_SHAPE = '+folded';

export interface ReplayedBooks {
  /** the books after the baseline and every recorded fill, before the saved marks */
  readonly account: Account;
  /** every market's position, the fills applied in record order */
  readonly positions: Map<string, PositionState>;
  /** the last fill applied (its seq; 0: none) */
  readonly seq: number;
  /** fills replayed after the checkpoint (every fill without one) */
  readonly tail: number;
  /** 'used', 'none', or why the checkpoint was ignored */
  readonly checkpoint: string;
}

/** A row of the fills table as the replays read it. */
export interface FillRow {
  seq: number;
  fill_id: string;
  /** normal form, as the ledger writes it (ledger.ts) */
  market_id: Bytes32;
  outcome: number;
  side: number;
  price: number;
  size: number;
  fee: number;
  ts: number;
  fee_source?: string;
  origin?: string;
  order_kind?: number | null;
  notional?: number | null;
}

interface CheckpointRow {
  seq: number;
  fills: number;
  last_fill_id: string | null;
  baseline: number;
  shape: string;
  digest: string;
  state: string;
}

interface CheckpointState {
  readonly account: AccountSnapshot;
  readonly positions: { readonly strings: readonly string[]; readonly value: never };
  /** the markets folded in it (foldIdle), each rebuilt from its fills before its next one (unfold) */
  readonly folded?: readonly string[];
}

/** An account being replayed, the record-order positions and the markets its checkpoint folded. */
interface Books {
  account: Account;
  positions: Map<string, PositionState>;
  folded: Set<string>;
}

const sha256 = (s: string): string => createHash('sha256').update(s).digest('hex');

function hasTable(ledger: Ledger): boolean {
  return ledger.db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'books_checkpoint'").get() !== undefined;
}

const baselineRows = (ledger: Ledger): number => (ledger.db.prepare('SELECT COUNT(*) AS n FROM baseline').get() as { n: number }).n;

/** Fills recorded up to `seq`: all of them less those after it (a count over an index, then over the tail's rows). */
function fillsUpTo(ledger: Ledger, seq: number): number {
  const all = (ledger.db.prepare('SELECT COUNT(*) AS n FROM fills').get() as { n: number }).n;
  const after = (ledger.db.prepare('SELECT COUNT(*) AS n FROM fills WHERE seq > ?').get(seq) as { n: number }).n;
  return all - after;
}

/** The checkpoint's state when it is valid now; else why not. */
function readCheckpoint(ledger: Ledger): ({ row: CheckpointRow } & Books) | string {
  if (!hasTable(ledger)) return 'none';
  const row = ledger.db.prepare('SELECT seq, fills, last_fill_id, baseline, shape, digest, state FROM books_checkpoint WHERE id = 1').get() as
    | CheckpointRow
    | undefined;
  if (row === undefined) return 'none';
  if (typeof row.state !== 'string' || sha256(row.state) !== row.digest) return 'its digest does not match its state (damaged)';
  if (fillsUpTo(ledger, row.seq) !== row.fills)
    return `the fills it covers changed (${row.fills} up to fill ${row.seq} then, ${fillsUpTo(ledger, row.seq)} now)`;
  if (row.seq > 0) {
    const at = ledger.db.prepare('SELECT fill_id FROM fills WHERE seq = ?').get(row.seq) as { fill_id: string } | undefined;
    if (at?.fill_id !== row.last_fill_id) return `the fill it ends at is not the one it covered (${row.last_fill_id} then, ${at?.fill_id ?? 'none'} now)`;
  }
  if (baselineRows(ledger) !== row.baseline) return 'the baseline changed since it was written';
  try {
    const s = JSON.parse(row.state) as CheckpointState;
    if (s.account?.shape !== row.shape) return 'a damaged checkpoint (its shape does not match its state)';
    // written with folded markets (this bookmaker), or by one that folded none
    const marked = row.shape.endsWith(FOLDED_SHAPE);
    const account = restoreAccount(marked ? { ...s.account, shape: row.shape.slice(0, -FOLDED_SHAPE.length) } : s.account);
    const positions = restoreValue(s.positions);
    if (!(positions instanceof Map)) return 'a damaged checkpoint (no positions)';
    const folded = marked ? s.folded : [];
    if (!Array.isArray(folded) || !folded.every((x) => typeof x === 'string' && account.market(x as Bytes32) !== null))
      return 'a damaged checkpoint (its folded markets)';
    return { row, account, positions: positions as Map<string, PositionState>, folded: new Set(folded) };
  } catch (e) {
    return `it cannot be read by this bookmaker (${(e as Error).message})`;
  }
}

/** The checkpoint's coverage alone (no state read): its seq, or null without one. */
function checkpointSeq(ledger: Ledger): number | null {
  if (!hasTable(ledger)) return null;
  const r = ledger.db.prepare('SELECT seq FROM books_checkpoint WHERE id = 1').get() as { seq: number } | undefined;
  return r?.seq ?? null;
}

function writeCheckpoint(ledger: Ledger, r: ReplayedBooks, folded: Set<string>, log: Logger): void {
  const t0 = performance.now();
  try {
    foldIdle(r.account, folded);
    const snap = snapshotAccount(r.account);
    const account = { ...snap, shape: snap.shape + FOLDED_SHAPE };
    const state = JSON.stringify({ account, positions: snapshotValue(r.positions), folded: [...folded] });
    writeRow(ledger, r.seq, account.shape, state, sha256(state), log, t0, folded.size);
  } catch (e) {
    // a cache: the next start replays from the older checkpoint (or every fill)
    log.warn({ err: (e as Error).message }, 'books checkpoint could not be written (the next start replays more fills)');
  }
}

/** The checkpoint row, replaced in one statement (a kill during it leaves the previous row whole). */
function writeRow(ledger: Ledger, seq: number, shape: string, state: string, digest: string, log: Logger, t0: number, folded: number): void {
  try {
    const lastId =
      seq > 0 ? ((ledger.db.prepare('SELECT fill_id FROM fills WHERE seq = ?').get(seq) as { fill_id: string } | undefined)?.fill_id ?? null) : null;
    ledger.db
      .prepare(
        'INSERT OR REPLACE INTO books_checkpoint (id, seq, fills, last_fill_id, baseline, shape, digest, state, written_at) VALUES (1, ?, ?, ?, ?, ?, ?, ?, ?)',
      )
      .run(seq, fillsUpTo(ledger, seq), lastId, baselineRows(ledger), shape, digest, state, Date.now());
    log.info({ seq, bytes: state.length, folded, ms: Math.round(performance.now() - t0) }, 'books checkpoint written');
  } catch (e) {
    log.warn({ err: (e as Error).message }, 'books checkpoint could not be written (the next start replays more fills)');
  }
}

/** The order's kind as the fill recorded it (how the venue settled a sale: without inventory it mints), or undefined. */
const kindOf = (r: FillRow): 0 | 1 | 2 | undefined => (r.order_kind === 0 || r.order_kind === 1 || r.order_kind === 2 ? r.order_kind : undefined);

/** A recorded fill as a fill of the books (every replay of the ledger's fills reads them through this). */
export function accountFillOf(r: FillRow): AccountFill {
  const orderKind = kindOf(r);
  const f: { -readonly [K in keyof AccountFill]: AccountFill[K] } = {
    fillId: r.fill_id,
    marketId: r.market_id,
    outcomeIndex: r.outcome as OutcomeIndex,
    side: r.side as SideValue,
    price: r.price,
    size: r.size,
    fee: r.fee,
    feeSource: r.fee_source === 'venue' ? 'venue' : 'model',
    ts: r.ts,
    origin: r.origin === 'foreign' ? 'foreign' : 'own',
  };
  // added in place, not spread: `{ ...f, notional }` gave each fill without a kind a hidden class of
  // its own (~500 bytes more a fill, kept as long as the books keep the fill: the run's books
  // checkpoint copy in src/ledger/bot-ledger.ts held ~600 bytes a fill for ~180 in the live books)
  if (orderKind !== undefined) f.orderKind = orderKind;
  if (typeof r.notional === 'number') f.notional = r.notional;
  return f;
}

/**
 * One recorded fill into the books and the record-order positions (every replay applies them through
 * this), after its market's folded book is rebuilt when the checkpoint folded it (sync: unfoldSteps run
 * through at once).
 */
function applyRow(ledger: Ledger, books: Books, r: FillRow): void {
  if (books.folded.has(r.market_id)) for (const _ of unfoldSteps(ledger, books, r.market_id, r.seq));
  applyFolded(books, r);
}

function applyFolded(books: Books, r: FillRow): void {
  const f = accountFillOf(r);
  books.account.applyFill(f);
  books.positions.set(r.market_id, applyFill(books.positions.get(r.market_id) ?? FLAT, f));
}

/**
 * Fold every market whose newest kept fill is FOLD_IDLE_MS or more older than the newest of all
 * (Account.foldKept: its kept fills into its base state, its figures unchanged); each joins `folded`.
 */
function foldIdle(account: Account, folded: Set<string>, ids: Iterable<Bytes32> = account.marketIds(), newestElsewhere = -Infinity): void {
  let newest = newestElsewhere;
  const last: [Bytes32, number][] = [];
  for (const id of ids) {
    const t = account.newestKeptTs(id);
    if (t === null) continue;
    last.push([id, t]);
    if (t > newest) newest = t;
  }
  // one fill id kept (the fewest a book's memory holds): no fill of the ledger comes twice (its ids are
  // unique), and none the running bot is given is an hour old
  for (const [id, t] of last) if (t <= newest - FOLD_IDLE_MS && account.foldKept(id, 1)) folded.add(id);
}

/** fills read per query while a folded market is rebuilt (a turn of the sliced checkpoint between batches) */
const UNFOLD_ROWS = 64;
const FILL_COLUMNS = 'seq, fill_id, market_id, outcome, side, price, size, fee, ts, fee_source, origin, order_kind, notional';

/**
 * A market the checkpoint folded, about to take its fill at record `before`: its book is replaced by
 * a replay of its baseline and its fills before that one (Account.replaceBook), the book a replay of
 * every fill holds for it then, so the fill is re-ordered among its market's kept fills as it is there.
 * Yields between batches of UNFOLD_ROWS fills (the sliced checkpoint's turns).
 */
function* unfoldSteps(ledger: Ledger, books: Books, marketId: string, before: number): Generator<void> {
  const market = marketId as Bytes32;
  const a = new Account();
  const b = ledger.baseline();
  const held = b?.holdings.filter((h) => h.marketId === market) ?? [];
  if (b && held.length > 0)
    a.adoptBaseline(
      held.map((h) => ({ marketId: h.marketId, outcomeIndex: h.outcomeIndex === 1 ? 1 : 0, shares: Number(h.shares), mark: h.mark ?? 0 })),
      b.at,
    );
  // the market's records from its index (no scan of the others), then read by record a batch at a time
  const seqs = ledger.db.prepare('SELECT seq FROM fills WHERE market_id = ? AND seq < ? ORDER BY seq').pluck().all(market, before) as number[];
  const bySeq = ledger.db.prepare(`SELECT ${FILL_COLUMNS} FROM fills WHERE seq IN (${'?,'.repeat(UNFOLD_ROWS - 1)}?) ORDER BY seq`);
  for (let i = 0; i < seqs.length; i += UNFOLD_ROWS) {
    const chunk = seqs.slice(i, i + UNFOLD_ROWS);
    // (padded with a record that is none)
    while (chunk.length < UNFOLD_ROWS) chunk.push(-1);
    for (const r of bySeq.all(...chunk) as FillRow[]) a.applyFill(accountFillOf(r));
    yield;
  }
  books.account.replaceBook(market, a);
  books.folded.delete(marketId);
}

/** The baseline and every fill from the start (no checkpoint). */
function fromStart(ledger: Ledger): Books {
  const account = new Account();
  const b = ledger.baseline();
  if (b)
    account.adoptBaseline(
      b.holdings.map((h) => ({ marketId: h.marketId, outcomeIndex: h.outcomeIndex === 1 ? 1 : 0, shares: Number(h.shares), mark: h.mark ?? 0 })),
      b.at,
    );
  return { account, positions: baselinePositions(b), folded: new Set() };
}

export interface ReplayOptions {
  readonly logger?: Logger;
  /** write a new checkpoint when the replay went through `minTail` fills after the last one (a writable ledger only) */
  readonly save?: boolean;
  /** default CHECKPOINT_MIN_TAIL */
  readonly minTail?: number;
  /** ignore any checkpoint: replay every fill (tests, `ledger check`) */
  readonly full?: boolean;
  /** only the fills before this time, ms (no checkpoint: it covers fills by record order, not time) */
  readonly until?: number;
}

/** The books from the checkpoint and the fills after it (or from every fill): see the file's head. */
export function replayBooks(ledger: Ledger, o: ReplayOptions = {}): ReplayedBooks {
  const log = (o.logger ?? silentLogger).child({ component: 'ledger' });
  const cp = o.full || o.until !== undefined ? 'none' : readCheckpoint(ledger);
  let start: Books;
  let seq = 0;
  let checkpoint: string;
  if (typeof cp === 'string') {
    checkpoint = cp;
    if (cp !== 'none') log.warn({ path: ledger.path, why: cp }, 'books checkpoint ignored: replaying every fill');
    start = fromStart(ledger);
  } else {
    checkpoint = 'used';
    start = cp;
    seq = cp.row.seq;
  }
  const { account, positions } = start;
  let tail = 0;
  const stmt = ledger.db.prepare(
    `SELECT seq, fill_id, market_id, outcome, side, price, size, fee, ts, fee_source, origin, order_kind, notional FROM fills WHERE seq > ? ${o.until !== undefined ? 'AND ts < ?' : ''} ORDER BY seq`,
  );
  for (const r of (o.until !== undefined ? stmt.iterate(seq, o.until) : stmt.iterate(seq)) as IterableIterator<FillRow>) {
    applyRow(ledger, start, r);
    seq = r.seq;
    tail++;
  }
  const out: ReplayedBooks = { account, positions, seq, tail, checkpoint };
  const minTail = o.minTail ?? CHECKPOINT_MIN_TAIL;
  if (o.save && o.until === undefined && !ledger.db.readonly && (tail >= minTail || (checkpoint !== 'used' && tail > 0)))
    writeCheckpoint(ledger, out, start.folded, log);
  return out;
}

/**
 * At a clean stop: a new checkpoint when `minTail` fills or more were recorded after the last one
 * (the replay from it costs what those fills cost, once, here rather than at the next start).
 */
export function saveBooksCheckpoint(ledger: Ledger, o: { logger?: Logger; minTail?: number } = {}): void {
  if (ledger.db.readonly || !ledger.db.open) return;
  const minTail = o.minTail ?? CHECKPOINT_MIN_TAIL;
  const seq = checkpointSeq(ledger) ?? 0;
  const after = (ledger.db.prepare('SELECT COUNT(*) AS n FROM fills WHERE seq > ?').get(seq) as { n: number }).n;
  if (after < minTail) return;
  replayBooks(ledger, { ...o, save: true, minTail });
}

/** fills read per query of a sliced checkpoint (its turn ends at the first batch past SLICE_MS) */
const SLICE_ROWS = 64;
/** the most a sliced checkpoint keeps the event loop per turn (roughly: it checks after each batch or market), ms */
export const SLICE_MS = 2;

const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * A market of the run's checkpoint copy idle this long (venue time, its newest kept fill against the
 * books' newest; folded ones at once) is written out of memory after a checkpoint (spilled): its book
 * and position go into a table of the ledger connection's own (TEMP: on disk in SQLite's temporary
 * file, gone when the connection closes, seen by no other process), and come back when the market
 * trades again, when the next checkpoint folds it, and one at a time while that checkpoint is encoded.
 */
export const SPILL_IDLE_MS = CHECKPOINT_EVERY_MS;

/**
 * Where each market of the run's checkpoint copy is: every market its books and its positions ever
 * held, in their order (the order a replay of every fill gives them, which the checkpoint is written
 * in), true when written out to the spill table. All that the copy keeps in memory of a spilled market:
 * its id (one string for both maps) and two map entries (test/ledger/books-checkpoint-spill.test.ts).
 */
export interface SpillOrder {
  readonly books: Map<string, boolean>;
  readonly positions: Map<string, boolean>;
}

/** What a sliced checkpoint replayed up to, kept by its caller so the next one starts there (no read of the row). */
export interface CheckpointResume {
  readonly seq: number;
  readonly baseline: number;
  /** the markets still in memory (the others spilled: `order`) */
  readonly account: Account;
  readonly positions: Map<string, PositionState>;
  /** the markets it folded (still folded in `account`, or spilled) */
  readonly folded: Set<string>;
  /** every market in order, and which are spilled (absent: none spilled, an older caller's) */
  readonly order?: SpillOrder;
}

export interface SlicedCheckpointOptions {
  readonly logger?: Logger;
  /** default CHECKPOINT_MIN_TAIL */
  readonly minTail?: number;
  /** default SLICE_MS */
  readonly sliceMs?: number;
  /** how a turn ends (default: setImmediate) */
  readonly pause?: () => Promise<void>;
  /** the books the last sliced checkpoint of this process wrote: used when the ledger's checkpoint is still that one */
  readonly resume?: CheckpointResume | null;
  /** spill markets idle this long after writing (default SPILL_IDLE_MS; Infinity: none) */
  readonly spillIdleMs?: number;
}

const SPILL_TABLE = 'CREATE TEMP TABLE IF NOT EXISTS books_spill (market_id TEXT PRIMARY KEY, book TEXT, pos TEXT, newest INTEGER)';

/** The spill table, created on first use; `clear`: emptied (a copy begun afresh: nothing spilled is its). */
function spillTable(ledger: Ledger, clear: boolean): void {
  ledger.db.exec(SPILL_TABLE);
  if (clear) ledger.db.exec('DELETE FROM temp.books_spill');
}

interface SpillRow {
  book: string | null;
  pos: string | null;
}
const spilledRow = (ledger: Ledger, id: string): SpillRow | undefined =>
  ledger.db.prepare('SELECT book, pos FROM temp.books_spill WHERE market_id = ?').get(id) as SpillRow | undefined;

function missingSpill(id: string): Error {
  return new Error(`the books checkpoint copy lost market ${id} (not in its spill table)`);
}

/** A spilled market's book and position back in memory (before its next fill, or its fold). */
function unspill(ledger: Ledger, books: Books, order: SpillOrder, id: string): void {
  if (order.books.get(id) !== true && order.positions.get(id) !== true) return;
  const row = spilledRow(ledger, id);
  if (row === undefined) throw missingSpill(id);
  if (row.book !== null) {
    books.account.attachBook(id as Bytes32, bookFromText(row.book));
    order.books.set(id, false);
  }
  if (row.pos !== null) {
    books.positions.set(id, restoreValue(JSON.parse(row.pos) as Parameters<typeof restoreValue>[0]) as PositionState);
    order.positions.set(id, false);
  }
  ledger.db.prepare('DELETE FROM temp.books_spill WHERE market_id = ?').run(id);
}

/** The order of a copy whose markets are all in memory. */
function orderOf(books: Books): SpillOrder {
  return {
    books: new Map(books.account.marketIds().map((id) => [id, false])),
    positions: new Map([...books.positions.keys()].map((id) => [id, false])),
  };
}

/**
 * During a run: saveBooksCheckpoint in slices, so no turn of the event loop replays, encodes or
 * hashes more than about SLICE_MS of work (a five-minute tail of 100,000 fills replayed and written
 * at once blocked the loop for seconds). The books start from `resume` when the ledger's checkpoint
 * is still the one it describes (nothing to read back), else from the checkpoint row (one turn:
 * its parse) or every fill; the fills up to the last one recorded when it begins are replayed a
 * batch of SLICE_ROWS per query (no statement is held open across turns, so the ledger keeps
 * writing in between); the books are then encoded a market at a time and hashed piece by piece,
 * and the row is written as saveBooksCheckpoint writes it (one row, replaced, in one transaction:
 * a kill -9 at any point leaves the previous one whole). The books it holds are those of the fills
 * up to that last one, whatever was recorded meanwhile (the next checkpoint, or the next start's
 * replay, takes those). Stops without writing when the ledger is closed meanwhile or another
 * checkpoint was written. Resolves the books it wrote (the next call's `resume`), or null.
 *
 * The books it resolves hold in memory only the markets that traded in the last SPILL_IDLE_MS: the
 * others are spilled (SPILL_IDLE_MS), so the copy does not grow with every market the bot ever
 * traded (it held ~1 KB a market folded, several with kept fills, for as long as the process ran).
 * The checkpoint it writes is the one it would write with every market in memory, byte for byte.
 */
export async function saveBooksCheckpointInSlices(ledger: Ledger, o: SlicedCheckpointOptions = {}): Promise<CheckpointResume | null> {
  if (ledger.db.readonly || !ledger.db.open) return null;
  const log = (o.logger ?? silentLogger).child({ component: 'ledger' });
  const minTail = o.minTail ?? CHECKPOINT_MIN_TAIL;
  const sliceMs = o.sliceMs ?? SLICE_MS;
  const pause = o.pause ?? nextTurn;
  const spillIdleMs = o.spillIdleMs ?? SPILL_IDLE_MS;
  const from = checkpointSeq(ledger) ?? 0;
  const after = (ledger.db.prepare('SELECT COUNT(*) AS n FROM fills WHERE seq > ?').get(from) as { n: number }).n;
  if (after < minTail) return null;
  const end = (ledger.db.prepare('SELECT MAX(seq) AS s FROM fills').get() as { s: number | null }).s ?? 0;
  const baseline = baselineRows(ledger);
  let start: Books;
  let seq = 0;
  let order: SpillOrder;
  const r = o.resume;
  if (r && r.seq === from && r.baseline === baseline) {
    start = r;
    seq = r.seq;
    if (r.order === undefined) spillTable(ledger, true);
    order = r.order ?? orderOf(r);
  } else {
    const cp = readCheckpoint(ledger);
    if (typeof cp === 'string') {
      if (cp !== 'none') log.warn({ path: ledger.path, why: cp }, 'books checkpoint ignored: replaying every fill');
      start = fromStart(ledger);
    } else {
      start = cp;
      seq = cp.row.seq;
    }
    // (what an earlier copy of this connection spilled is not this one's)
    spillTable(ledger, true);
    order = orderOf(start);
  }
  const { account, positions } = start;
  let turn = performance.now();
  const step = async (): Promise<void> => {
    if (performance.now() - turn < sliceMs) return;
    await pause();
    turn = performance.now();
  };
  // a stop may close the ledger at any await (its own checkpoint is then written synchronously)
  const closed = (): boolean => !ledger.db.open;
  for (;;) {
    await step();
    if (closed()) return null;
    const rows = ledger.db
      .prepare(
        'SELECT seq, fill_id, market_id, outcome, side, price, size, fee, ts, fee_source, origin, order_kind, notional FROM fills WHERE seq > ? AND seq <= ? ORDER BY seq LIMIT ?',
      )
      .all(seq, end, SLICE_ROWS) as FillRow[];
    if (rows.length === 0) break;
    for (const row of rows) {
      const id = row.market_id;
      // a spilled market's book back first (as it was), then as any other
      unspill(ledger, start, order, id);
      // a folded market's fill: its book rebuilt from its fills first, a batch a turn at most
      if (start.folded.has(id))
        for (const _ of unfoldSteps(ledger, start, id, row.seq)) {
          await step();
          if (closed()) return null;
        }
      applyFolded(start, row);
      // a market new to the copy joins the order as it joins the maps (last)
      if (!order.books.has(id)) order.books.set(id, false);
      if (!order.positions.has(id)) order.positions.set(id, false);
    }
    seq = rows[rows.length - 1]!.seq;
  }
  const t0 = performance.now();
  // the markets foldIdle folds now, spilled ones included (back in memory for it), in the books' order
  const resident = (): Bytes32[] => [...order.books].flatMap(([id, out]) => (out ? [] : [id as Bytes32]));
  const spilledNewest = (ledger.db.prepare('SELECT MAX(newest) AS t FROM temp.books_spill').get() as { t: number | null }).t;
  let newest = spilledNewest ?? -Infinity;
  for (const id of account.marketIds()) newest = Math.max(newest, account.newestKeptTs(id) ?? -Infinity);
  const toFold = ledger.db
    .prepare('SELECT market_id FROM temp.books_spill WHERE newest <= ?')
    .pluck()
    .all(newest - FOLD_IDLE_MS) as string[];
  for (const id of toFold) unspill(ledger, start, order, id);
  foldIdle(account, start.folded, resident(), newest);
  const books = async function* (): AsyncGenerator<readonly [string, DetachedBook]> {
    for (const [id, out] of order.books) {
      if (!out) yield [id, account.peekBook(id as Bytes32)!];
      else {
        const row = spilledRow(ledger, id);
        if (row?.book == null) throw missingSpill(id);
        yield [id, bookFromText(row.book)];
      }
    }
  };
  const positionEntries = async function* (): AsyncGenerator<readonly [string, PositionState]> {
    for (const [id, out] of order.positions) {
      if (!out) yield [id, positions.get(id)!];
      else {
        const row = spilledRow(ledger, id);
        if (row?.pos == null) throw missingSpill(id);
        yield [id, restoreValue(JSON.parse(row.pos) as Parameters<typeof restoreValue>[0]) as PositionState];
      }
    }
  };
  const snap = await snapshotAccountPieces(account, step, books());
  if (closed()) return null;
  const positionsText = await snapshotMapText(positionEntries(), step);
  if (closed()) return null;
  // the shape marked as one with folded markets, in the snapshot's first piece as in the row (see readCheckpoint)
  const shape = snap.shape + FOLDED_SHAPE;
  const head = `{"shape":${JSON.stringify(snap.shape)},`;
  if (!snap.pieces[0]!.startsWith(head)) throw new Error('the books snapshot does not begin with its shape');
  const first = `{"shape":${JSON.stringify(shape)},${snap.pieces[0]!.slice(head.length)}`;
  const folded = [...start.folded];
  const pieces = ['{"account":', first, ...snap.pieces.slice(1), ',"positions":', positionsText, ',"folded":', JSON.stringify(folded), '}'];
  const hash = createHash('sha256');
  for (const p of pieces) {
    hash.update(p);
    await step();
    if (closed()) return null;
  }
  if (ledger.db.readonly || (checkpointSeq(ledger) ?? 0) !== from) return null; // another checkpoint meanwhile: never go back
  const state = pieces.join('');
  writeRow(ledger, seq, shape, state, hash.digest('hex'), log, t0, folded.length);
  // the markets idle for spillIdleMs out of memory: the copy keeps the ones still trading
  if (Number.isFinite(spillIdleMs)) {
    const put = ledger.db.prepare('INSERT OR REPLACE INTO temp.books_spill (market_id, book, pos, newest) VALUES (?, ?, ?, ?)');
    const spill = (id: string): boolean => {
      const bookIn = order.books.get(id) === false;
      const posIn = order.positions.get(id) === false;
      if (!bookIn && !posIn) return false;
      const t = bookIn ? account.newestKeptTs(id as Bytes32) : null;
      if (t !== null && t > newest - spillIdleMs) return false;
      const book = bookIn ? account.detachBook(id as Bytes32)! : null;
      const pos = posIn ? positions.get(id)! : null;
      put.run(id, book === null ? null : bookText(book), pos === null ? null : JSON.stringify(snapshotValue(pos)), t);
      if (bookIn) order.books.set(id, true);
      if (posIn) {
        positions.delete(id);
        order.positions.set(id, true);
      }
      return true;
    };
    // (a market has a position whenever it has a book; the second pass is for one that would not)
    for (const id of order.positions.keys()) {
      if (!spill(id)) continue;
      await step();
      if (closed()) return null;
    }
    for (const id of order.books.keys()) {
      if (order.positions.has(id) || !spill(id)) continue;
      await step();
      if (closed()) return null;
    }
  }
  // the books go on from here at the next call (they are this function's own replay, never the live account)
  return { seq, baseline, account, positions, folded: start.folded, order };
}
