/**
 * The ledger's orders by how they ended: the one count behind `bookmaker ledger summary` (rows `orderEnds` and
 * `ordersAdopted`) and the run report's `orders` line (this run's orders: those submitted or adopted since it began).
 *
 *   orderEnds(ledger, { since?, market? })  → { orders, adopted, ended: { cancelled: 64, filled: 10 }, rejected, unended }
 *   orderEndsText(o)                         → "74 (adopted 2): cancelled 64, filled 10; rejected 0, not ended 0"
 *                                               (+ "; strangers cancelled 1 (cancels sent 1, found with no record 1)" when any)
 *   orderEndsOf(ledger, nonces)              → the same count over those orders (the stop's log of the orders found ended)
 *
 * An order is in the window when it was submitted in it or adopted into a quote slot in it (`adopted_at`,
 * the last adoption: an order an earlier run placed and this run found at the venue is this run's too).
 * `adopted`: of those, the ones adopted in the window, whatever their end since: the count
 * `bookmaker_orders_adopted_total` makes of the same adoptions while the bot runs (one test,
 * src/orders/orphan-slot.ts adoptedIntoSlot: a stranger taken in to be cancelled is no adoption).
 * `ended` is each ended order's end as recorded: 'cancelled' when a cancel of ours was answered so, else the
 * venue's status as read (filled, expired, voided, cancelled), 'gone' or 'not-found' (docs/operating.md,
 * "Stopping"). `rejected`: refused at create, never placed. `unended`: no end recorded yet (open at the
 * venue, or its end still to be read: the next start's catch-up reads it).
 *
 * Strangers (src/orders/orphan-slot.ts: open orders reconciliation found at the venue that this run neither
 * placed nor adopted, and cancelled) are no orders of this bot: their rows (`stranger_at`, schema version 6)
 * are left out of every count above and counted in `strangers` with the cancels sent for them
 * (`cancels.stranger`): `strangers.cancelled` is the count `bookmaker_strangers_cancelled_total` makes of
 * the same cancels while the bot runs (one test, src/orders/orphan-slot.ts isStrangerCancel).
 */
import type { Ledger } from './ledger.ts';
import type { Bytes32 } from '../model/order.ts';
import { andFilter } from './filter-sql.ts';

export interface OrderEnds {
  /** orders recorded (submitted or adopted) in the window */
  readonly orders: number;
  /** of them, the orders adopted into a quote slot in the window (ended since or not) */
  readonly adopted: number;
  /** ended orders by their end, names sorted */
  readonly ended: Readonly<Record<string, number>>;
  readonly rejected: number;
  readonly unended: number;
  /** strangers, apart from the counts above (see StrangerCounts) */
  readonly strangers: StrangerCounts;
}

/** Strangers the bot cancelled (the orders no count of OrderEnds holds). */
export interface StrangerCounts {
  /** rows the ledger wrote for strangers in the window (`stranger_at`: no record of them before, another trader's or a crash's) */
  readonly orders: number;
  /** cancels sent for strangers in the window (an earlier run's order taken in as one included) */
  readonly cancelsSent: number;
  /** of those cancels, the ones the venue answered cancelled (not `alreadyCancelled`): strangers this bot cancelled */
  readonly cancelled: number;
}

const NO_STRANGERS: StrangerCounts = { orders: 0, cancelsSent: 0, cancelled: 0 };

/** The ledger's orders submitted (or adopted) since `since` (ms, inclusive), in `market` if given, by end. */
export function orderEnds(ledger: Pick<Ledger, 'db'>, f: { readonly since?: number; readonly market?: Bytes32 } = {}): OrderEnds {
  const parts: string[] = [];
  const args: unknown[] = [];
  if (f.since !== undefined) {
    // submitted in the window, or adopted in it (an earlier run's order found at the venue)
    parts.push('(submitted_at >= ? OR adopted_at >= ?)');
    args.push(f.since, f.since);
  }
  if (f.market !== undefined) {
    parts.push('market_id = ?');
    args.push(f.market);
  }
  const and = parts.map((p) => ` AND ${p}`).join('');
  // without a window, two passes over indexes alone (no table page read): every order by status
  // (orders_counts), the unended ones by status (orders_unended); an ended order's status is its end
  const count = (sql: string) => new Map((ledger.db.prepare(sql).all(...args) as { status: string; n: number }[]).map((r) => [r.status, r.n] as const));
  const all = count(`SELECT status, COUNT(*) AS n FROM orders ${parts.length ? `WHERE ${parts.join(' AND ')}` : ''} GROUP BY status`);
  const open = count(`SELECT status, COUNT(*) AS n FROM orders WHERE ended_at IS NULL${and} GROUP BY status`);
  // the adopted ones (orders_adopted, a partial index of the few adopted rows)
  const adoptedIn = andFilter(f, 'adopted_at');
  const adopted = (ledger.db.prepare(`SELECT COUNT(*) AS n FROM orders WHERE adopted_at IS NOT NULL${adoptedIn.sql}`).get(...adoptedIn.args) as { n: number })
    .n;
  // the strangers' rows among those counted (orders_strangers, a partial index of the few stranger rows),
  // taken out of the counts by status: the two passes above stay on their indexes
  const strangersBy = (more: string) =>
    count(`SELECT status, COUNT(*) AS n FROM orders INDEXED BY orders_strangers WHERE stranger_at IS NOT NULL${more}${and} GROUP BY status`);
  const strangerAll = strangersBy('');
  const strangerOpen = strangersBy(' AND ended_at IS NULL');
  let strangerRows = 0;
  for (const n of strangerAll.values()) strangerRows += n;
  return tally(less(all, strangerAll), less(open, strangerOpen), adopted, { orders: strangerRows, ...strangerCancels(ledger, f) });
}

/** `a` less `b`, by status. */
function less(a: ReadonlyMap<string, number>, b: ReadonlyMap<string, number>): Map<string, number> {
  const out = new Map(a);
  for (const [k, n] of b) out.set(k, (out.get(k) ?? 0) - n);
  return out;
}

/** The strangers' cancels sent, and answered cancelled, in the window (cancels_stranger: only stranger rows). */
function strangerCancels(ledger: Pick<Ledger, 'db'>, f: { readonly since?: number; readonly market?: Bytes32 }): Omit<StrangerCounts, 'orders'> {
  const within = andFilter(f);
  const sql = `SELECT COALESCE(SUM(result = 'sent'), 0) AS sent, COALESCE(SUM(result = 'cancelled'), 0) AS cancelled
             FROM cancels INDEXED BY cancels_stranger WHERE stranger IS NOT NULL${within.sql}`;
  const r = ledger.db.prepare(sql).get(...within.args) as { sent: number; cancelled: number };
  return { cancelsSent: r.sent, cancelled: r.cancelled };
}

/** Orders by status, the unended ones by status, and the adopted ones, as OrderEnds. */
function tally(all: ReadonlyMap<string, number>, open: ReadonlyMap<string, number>, adopted: number, strangers: StrangerCounts): OrderEnds {
  const ended: Record<string, number> = {};
  let orders = 0;
  let rejected = 0;
  let unended = 0;
  for (const status of [...all.keys()].sort()) {
    const n = all.get(status)!;
    const notEnded = open.get(status) ?? 0;
    if (n === 0) continue;
    orders += n;
    if (n > notEnded) ended[status] = n - notEnded;
    if (status === 'rejected') rejected += notEnded;
    else unended += notEnded;
  }
  return { orders, adopted, ended, rejected, unended, strangers };
}

/**
 * The same count over the given orders (by nonce; one the ledger does not hold is not counted): the stop's
 * log of the orders its cancel-all found ended already (src/runtime/closed-at-stop.ts) says how they ended
 * as the run report's `orders` line counts them.
 */
export function orderEndsOf(ledger: Pick<Ledger, 'db'>, nonces: readonly Bytes32[]): OrderEnds {
  const all = new Map<string, number>();
  const open = new Map<string, number>();
  let adopted = 0;
  let strangers = 0;
  const unique = [...new Set(nonces)];
  // a bounded number of parameters per statement
  for (let i = 0; i < unique.length; i += 500) {
    const chunk = unique.slice(i, i + 500);
    const rows = ledger.db
      .prepare(
        `SELECT status, ended_at IS NULL AS unended, adopted_at IS NOT NULL AS adopted, stranger_at IS NOT NULL AS stranger, COUNT(*) AS n FROM orders
         WHERE nonce IN (${chunk.map(() => '?').join(', ')}) GROUP BY 1, 2, 3, 4`,
      )
      .all(...chunk) as { status: string; unended: number; adopted: number; stranger: number; n: number }[];
    for (const r of rows) {
      if (r.stranger) {
        strangers += r.n;
        continue;
      }
      all.set(r.status, (all.get(r.status) ?? 0) + r.n);
      if (r.unended) open.set(r.status, (open.get(r.status) ?? 0) + r.n);
      if (r.adopted) adopted += r.n;
    }
  }
  return tally(all, open, adopted, strangers === 0 ? NO_STRANGERS : { ...NO_STRANGERS, orders: strangers });
}

/** The counts as one line shows them (the run report, `ledger summary`). */
export function orderEndsText(o: OrderEnds): string {
  const ends = Object.entries(o.ended).map(([k, n]) => `${k} ${n}`);
  const adopted = o.adopted > 0 ? ` (adopted ${o.adopted})` : '';
  const x = o.strangers;
  const strangers = x.orders + x.cancelsSent > 0 ? `; strangers ${strangersText(x)}` : '';
  return `${o.orders}${adopted}: ${ends.length ? ends.join(', ') : 'none ended'}; rejected ${o.rejected}, not ended ${o.unended}${strangers}`;
}

/** The strangers' counts as `ledger summary`'s `strangers` row and the run report's orders line show them. */
export function strangersText(x: StrangerCounts): string {
  return `cancelled ${x.cancelled} (cancels sent ${x.cancelsSent}, found with no record ${x.orders})`;
}
