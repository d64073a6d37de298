/**
 * The ledger's SQLite schema. One file per trading account: every order sent and the
 * venue's answer, every cancel, every fill (keyed by its venue identity, so a fill is recorded once),
 * position and PnL marks, risk events, start-ups, operator actions, and the risk state that must
 * outlive the process (the kill-switch latch, the PnL peak, the UTC day's opening PnL).
 *
 * Units as everywhere (src/model/units.ts): prices 1e-6 USDC, sizes 1e-6 shares, money 1e-6 USDC,
 * times ms since the epoch. Money that can exceed 2^53 (marks, volume) is stored as TEXT decimal
 * integers, read back as bigint. `PRAGMA user_version` is the schema version; `migrate` brings an
 * older file up to date in one transaction and refuses a newer one.
 */
import type Database from 'better-sqlite3';

export const SCHEMA_VERSION = 6;

const V1 = `
CREATE TABLE IF NOT EXISTS meta (
  key   TEXT PRIMARY KEY,
  value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS startups (
  id          INTEGER PRIMARY KEY,
  ts          INTEGER NOT NULL,
  config_hash TEXT NOT NULL,
  config_file TEXT NOT NULL,
  venue       TEXT NOT NULL,
  trader      TEXT NOT NULL,
  markets     INTEGER NOT NULL,
  latched     TEXT,
  caught_up   INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS orders (
  nonce        TEXT PRIMARY KEY,
  market_id    TEXT NOT NULL,
  slot         TEXT NOT NULL,
  outcome      INTEGER NOT NULL,
  side         INTEGER NOT NULL,
  price        INTEGER NOT NULL,
  size         INTEGER NOT NULL,
  submitted_at INTEGER NOT NULL,
  sends        INTEGER NOT NULL DEFAULT 1,
  status       TEXT NOT NULL,
  answer       TEXT,
  answered_at  INTEGER,
  ended_at     INTEGER
);
CREATE INDEX IF NOT EXISTS orders_market_ts ON orders (market_id, submitted_at);
CREATE INDEX IF NOT EXISTS orders_ts ON orders (submitted_at);
CREATE TABLE IF NOT EXISTS cancels (
  id        INTEGER PRIMARY KEY,
  nonce     TEXT NOT NULL,
  market_id TEXT NOT NULL,
  ts        INTEGER NOT NULL,
  result    TEXT NOT NULL,
  detail    TEXT
);
CREATE INDEX IF NOT EXISTS cancels_nonce ON cancels (nonce);
CREATE TABLE IF NOT EXISTS fills (
  seq       INTEGER PRIMARY KEY,
  fill_id   TEXT NOT NULL UNIQUE,
  nonce     TEXT,
  market_id TEXT NOT NULL,
  outcome   INTEGER NOT NULL,
  side      INTEGER NOT NULL,
  price     INTEGER NOT NULL,
  size      INTEGER NOT NULL,
  fee       INTEGER NOT NULL,
  ts        INTEGER NOT NULL,
  source    TEXT NOT NULL,
  filled    INTEGER
);
CREATE INDEX IF NOT EXISTS fills_market_ts ON fills (market_id, ts);
CREATE INDEX IF NOT EXISTS fills_ts ON fills (ts);
CREATE INDEX IF NOT EXISTS fills_nonce ON fills (nonce);
-- an order's filled shares when the ledger first met it (fills from before the ledger existed)
CREATE TABLE IF NOT EXISTS fill_baselines (
  nonce  TEXT PRIMARY KEY,
  filled INTEGER NOT NULL,
  ts     INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS marks (
  id         INTEGER PRIMARY KEY,
  ts         INTEGER NOT NULL,
  market_id  TEXT,
  net        INTEGER NOT NULL,
  realised   TEXT NOT NULL,
  unrealised TEXT NOT NULL,
  pnl        TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS marks_ts ON marks (ts);
CREATE TABLE IF NOT EXISTS risk_events (
  id        INTEGER PRIMARY KEY,
  ts        INTEGER NOT NULL,
  market_id TEXT,
  kind      TEXT NOT NULL,
  reason    TEXT NOT NULL,
  count     INTEGER NOT NULL DEFAULT 1,
  detail    TEXT
);
CREATE INDEX IF NOT EXISTS risk_events_ts ON risk_events (ts);
CREATE TABLE IF NOT EXISTS operator_actions (
  id      INTEGER PRIMARY KEY,
  ts      INTEGER NOT NULL,
  action  TEXT NOT NULL,
  market  TEXT,
  reason  TEXT,
  source  TEXT NOT NULL,
  result  TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS risk_state (
  id             INTEGER PRIMARY KEY CHECK (id = 1),
  latch_reason   TEXT,
  latch_detail   TEXT,
  latch_at       INTEGER,
  peak_pnl       TEXT,
  day            INTEGER,
  day_start_pnl  TEXT,
  updated_at     INTEGER NOT NULL
);
INSERT OR IGNORE INTO risk_state (id, updated_at) VALUES (1, 0);
`;

/**
 * Version 2 (venue truth): each fill says where its fee came from (`fee_source`: 'venue'
 * when the venue or the engine stated it, 'model' when the configured fee model computed it) and
 * whose order it was (`origin`: 'own' = placed by this bookmaker, 'foreign' = another instance or a
 * person trading the same wallet). Fills recorded before the upgrade were fee 0, bot orders: they are
 * marked 'model' (nothing stated them) and 'own'. `baseline` holds the inherited inventory adopted at
 * the first start of a ledger on a wallet with history: each holding, the mark it was adopted at,
 * and when (`kind` 'collateral' rows hold the collateral balance then, `outcome` -1).
 */
const V2 = `
ALTER TABLE fills ADD COLUMN fee_source TEXT NOT NULL DEFAULT 'model';
ALTER TABLE fills ADD COLUMN origin TEXT NOT NULL DEFAULT 'own';
CREATE TABLE IF NOT EXISTS baseline (
  id         INTEGER PRIMARY KEY,
  kind       TEXT NOT NULL,
  market_id  TEXT,
  outcome    INTEGER NOT NULL,
  shares     TEXT NOT NULL,
  mark       INTEGER,
  marked_at  INTEGER NOT NULL
);
`;

/**
 * Version 3: each fill keeps its order's kind when known (`order_kind`: 0 buy, 1 sale
 * from inventory, 2 sale without inventory, which mints a complete set per share whatever is held;
 * NULL: unknown, recorded before), so the books settle a sale as the venue did. `resolutions` holds each market the bot saw
 * resolve (the payout of one YES share, 1e-6 USDC, and when) and when its tokens were claimed, so the
 * books rebuilt from the ledger keep a resolved market's PnL realised at its payout and its claimed
 * payout in the cash (src/ledger/books.ts replayResolutions).
 */
const V3 = `
ALTER TABLE fills ADD COLUMN order_kind INTEGER;
CREATE TABLE IF NOT EXISTS resolutions (
  market_id    TEXT PRIMARY KEY,
  payout_yes   INTEGER NOT NULL,
  resolved_at  INTEGER NOT NULL,
  claimed_at   INTEGER
);
`;

/**
 * Version 4: a fill that is a part of an order filled at several prices keeps its collateral
 * (`notional`: in its own outcome's terms, 1e-6 USDC), derived from the change of the order's filled
 * size and average fill price between two reads, so the order's parts add up to what the venue states
 * for the whole order (docs/books-and-pnl.md, "Price"). NULL: price × size, as before.
 */
const V4 = `
ALTER TABLE fills ADD COLUMN notional INTEGER;
`;

/**
 * Version 5: when an order was last adopted into a quote slot by reconciliation (`adopted_at`, ms; NULL:
 * never), so `ledger summary`'s ordersAdopted and the run report count an adopted order after it ends
 * (its status then is its end, no longer 'adopted') and count an order an earlier run placed and this one
 * adopted (its row kept the earlier run's status). Rows from before: a row the adoption inserted (no
 * send, sends 0) into a quote slot (not an `orphan:` one, src/orders/orphan-slot.ts) was adopted at its
 * submitted_at, the adoption's time; an adoption of an order the ledger already held left no mark, so it
 * stays uncounted.
 */
const V5 = `
ALTER TABLE orders ADD COLUMN adopted_at INTEGER;
UPDATE orders SET adopted_at = submitted_at WHERE sends = 0 AND slot NOT LIKE 'orphan:%';
`;

/**
 * Version 6: strangers apart from this bot's orders (src/orders/orphan-slot.ts). `orders.stranger_at`
 * (ms; NULL: not a stranger): the row was written for an open order reconciliation found at the venue
 * with no record of it here (another trader's on the wallet, or a crash's, its record lost) and took in
 * only to cancel it; such a row is no order of this bot (order-ends.ts counts it apart, `hasOrder` is
 * false for it, so its fills are 'foreign' unless its nonce carries this ledger's tag). An adoption into
 * a quote slot later clears it. `cancels.stranger` (1; NULL: not): a cancel record of an order the bot
 * was cancelling as a stranger (an earlier run's order it no longer wanted included). Rows from before: a
 * row the stranger path inserted (an `orphan:` slot, never adopted since) is a stranger found at its
 * submitted_at, and the cancels of such rows are strangers' cancels; a cancel of an earlier run's order
 * taken in as a stranger left no mark, so it stays counted as the bot's.
 */
const V6 = `
ALTER TABLE orders ADD COLUMN stranger_at INTEGER;
ALTER TABLE cancels ADD COLUMN stranger INTEGER;
UPDATE orders SET stranger_at = submitted_at WHERE slot LIKE 'orphan:%' AND adopted_at IS NULL;
UPDATE cancels SET stranger = 1 WHERE nonce IN (SELECT nonce FROM orders WHERE stranger_at IS NOT NULL);
`;

/**
 * Indexes for every start-up query and for the prune, created on every writable open
 * (`IF NOT EXISTS`: a no-op once there; on a large ledger from before them the first open builds them
 * once). Kept apart from the versioned schema: they change no table, so an older bookmaker reads a
 * file that has them.
 *   orders_unended   the catch-up's unended orders (partial: only rows with ended_at NULL)
 *   marks_market     the last mark of the account / of a market (rowid is the index's last column)
 *   cancels_ts       the prune by age; cancels_result: the summary's count of cancels sent
 *   fills_nonce_size the catch-up's filled shares per order, read from the index alone
 *   orders_counts    `ledger summary`'s order counts, read from the index alone (a tenth of the table's pages)
 *   fills_origin     the summary's foreign fills (a few rows, not every fill)
 *   fills_fee_source the summary's fees by who stated them, read from the index alone
 *   orders_adopted   the orders adopted in a window (order-ends.ts; partial: only adopted rows)
 *   orders_strangers the strangers' rows (order-ends.ts; partial: only stranger rows)
 *   cancels_stranger the strangers' cancels (order-ends.ts; partial: only stranger rows)
 */
export const INDEXES = `
CREATE INDEX IF NOT EXISTS orders_unended ON orders (status) WHERE ended_at IS NULL;
CREATE INDEX IF NOT EXISTS marks_market ON marks (market_id);
CREATE INDEX IF NOT EXISTS cancels_ts ON cancels (ts);
CREATE INDEX IF NOT EXISTS cancels_result ON cancels (result);
CREATE INDEX IF NOT EXISTS fills_nonce_size ON fills (nonce, size);
CREATE INDEX IF NOT EXISTS orders_counts ON orders (status, answer, sends);
CREATE INDEX IF NOT EXISTS fills_origin ON fills (origin);
CREATE INDEX IF NOT EXISTS fills_fee_source ON fills (fee_source, fee);
CREATE INDEX IF NOT EXISTS orders_adopted ON orders (adopted_at) WHERE adopted_at IS NOT NULL;
CREATE INDEX IF NOT EXISTS orders_strangers ON orders (stranger_at) WHERE stranger_at IS NOT NULL;
CREATE INDEX IF NOT EXISTS cancels_stranger ON cancels (ts) WHERE stranger IS NOT NULL;
`;

/**
 * The books checkpoint (src/ledger/books-checkpoint.ts): one row, the account's books up to one fill,
 * so a start replays only the fills after it. A cache of what the fills say, created on every
 * writable open like INDEXES (an older bookmaker ignores it).
 */
export const CHECKPOINT_TABLE = `
CREATE TABLE IF NOT EXISTS books_checkpoint (
  id           INTEGER PRIMARY KEY CHECK (id = 1),
  seq          INTEGER NOT NULL,
  fills        INTEGER NOT NULL,
  last_fill_id TEXT,
  baseline     INTEGER NOT NULL,
  shape        TEXT NOT NULL,
  digest       TEXT NOT NULL,
  state        TEXT NOT NULL,
  written_at   INTEGER NOT NULL
);
`;

/**
 * The account's pooled toxicity (src/ledger/toxicity-pool-checkpoint.ts): one row, the guard's
 * evidence across markets at the last mark, so a restart keeps it. A cache like the books
 * checkpoint, created on every writable open (an older bookmaker ignores it).
 */
export const TOXICITY_POOL_TABLE = `
CREATE TABLE IF NOT EXISTS toxicity_pool (
  id         INTEGER PRIMARY KEY CHECK (id = 1),
  state      TEXT NOT NULL,
  written_at INTEGER NOT NULL
);
`;

/**
 * The claims tracker's claimable markets (src/ledger/claimable-since.ts): per market the venue lists
 * claimable, when this bot first saw it so and its payout, so a restart keeps the overdue clock (24 h
 * since first seen, not since the process started) and the overdue markets need no record in memory.
 * Created on every writable open like the checkpoints (an older bookmaker ignores it).
 */
export const CLAIMABLE_TABLE = `
CREATE TABLE IF NOT EXISTS claimable_since (
  market_id  TEXT PRIMARY KEY,
  since      INTEGER NOT NULL,
  payout_yes INTEGER
);
`;

/** How many of INDEXES the file lacks (0 on a new file: it has no tables yet). */
export function missingIndexes(db: Database.Database): number {
  const names = [...INDEXES.matchAll(/CREATE INDEX IF NOT EXISTS (\w+)/g)].map((m) => m[1]!);
  const have = new Set((db.prepare("SELECT name FROM sqlite_master WHERE type = 'index'").all() as { name: string }[]).map((r) => r.name));
  const tables = (db.prepare("SELECT COUNT(*) AS n FROM sqlite_master WHERE type = 'table'").get() as { n: number }).n;
  return tables === 0 ? 0 : names.filter((n) => !have.has(n)).length;
}

/** Create or upgrade the schema; a file written by a newer bookmaker is refused, never rewritten. */
export function migrate(db: Database.Database): void {
  const version = db.pragma('user_version', { simple: true }) as number;
  if (version > SCHEMA_VERSION) throw new Error(`ledger schema version ${version} is newer than this bookmaker understands (${SCHEMA_VERSION})`);
  if (version < SCHEMA_VERSION) {
    db.transaction(() => {
      if (version < 1) db.exec(V1);
      if (version < 2) db.exec(V2);
      if (version < 3) db.exec(V3);
      if (version < 4) db.exec(V4);
      if (version < 5) db.exec(V5);
      if (version < 6) db.exec(V6);
      db.pragma(`user_version = ${SCHEMA_VERSION}`);
    })();
  }
  db.exec(INDEXES);
  db.exec(CHECKPOINT_TABLE);
  db.exec(TOXICITY_POOL_TABLE);
  db.exec(CLAIMABLE_TABLE);
}
