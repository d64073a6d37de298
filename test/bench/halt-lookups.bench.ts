/**
 * Halt lookups: what the own-orders poll asks of the venue after a halt (or a kill switch, a reconcile)
 * cancels every order of a wide bot. The poll of this tree and of a checkout before it
 * (BOOKMAKER_BASE_TREE, default /work/base) each run against the same fake venue: `--markets` markets
 * (default 2,000) × 4 resting orders, each with `--history` ended orders placed before it (default 0),
 * the streams live, every order cancelled and parked with no create after it (no witness), one of them
 * filled 2 shares just before its cancel; then a poll a second, each stream passing the poll's time,
 * until a poll makes no lookup and reads no more than the sweep's page. Counted: GET /orders/:id, the
 * GET /orders pages, the polls it took, and whether the fill was reported. Request counts, not timing:
 * the machine's load does not change them.
 *
 *   npm run bench -- halt-lookups [--markets 2000] [--history 0]
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { report } from './lib.ts';
import type { Bytes32, VenueOrder } from '../../src/model/order.ts';
import { ordersListClient } from '../support/orders-list-client.ts';
import { settableClock, T0, TRADER, venueOrder } from '../support/venue-order.ts';
import { deltaEvent, streamState } from '../feeds/trade-event.ts';

function arg(name: string, dflt: number): number {
  const i = process.argv.indexOf(`--${name}`);
  const v = i >= 0 ? Number(process.argv[i + 1]) : dflt;
  if (!Number.isInteger(v) || v < 0) throw new Error(`--${name}: expected a whole number ≥ 0`);
  return v;
}
const MARKETS = arg('markets', 2_000);
const HISTORY = arg('history', 0);
const PER_MARKET = 4;
const base = resolve(process.env.BOOKMAKER_BASE_TREE ?? '/work/base');
if (!existsSync(resolve(base, 'src/feeds/own-orders-feed.ts'))) {
  process.stderr.write(`halt-lookups: no base tree at ${base} (set BOOKMAKER_BASE_TREE)\n`);
  process.exit(2);
}

const market = (i: number): Bytes32 => `0x${(i + 1).toString(16).padStart(64, '0')}` as Bytes32;
const nonce = (i: number): Bytes32 => `0x${(i + 1).toString(16).padStart(62, '0')}ff` as Bytes32;

interface Counts {
  gets: number;
  pages: number;
  polls: number;
  fills: number;
}

async function run(tree: string): Promise<Counts> {
  const mod = (p: string) => import(pathToFileURL(resolve(tree, p)).href);
  const { ownOrdersReader } = await mod('src/feeds/own-orders-feed.ts');
  const { BookTouches } = await mod('src/feeds/book-touches.ts');
  const { ParkedCancels } = await mod('src/feeds/parked-cancels.ts');
  const orders: VenueOrder[] = [];
  const add = (o: Partial<VenueOrder>): void => {
    const i = orders.length;
    orders.push(venueOrder({ id: i + 1, nonce: nonce(i), insertedAt: new Date(T0 + i).toISOString(), ...o }));
  };
  for (let m = 0; m < MARKETS; m++)
    for (let j = 0; j < PER_MARKET; j++) {
      for (let h = 0; h < HISTORY; h++) add({ marketId: market(m), status: 'cancelled' });
      add({ marketId: market(m), side: j % 2 ? 1 : 0, price: j % 2 ? 550_000 : 450_000 });
    }
  const c = { gets: 0, pages: 0 };
  const client = {
    orders: {
      ...ordersListClient(orders, { onList: () => void c.pages++, onGet: () => void c.gets++ }),
      async recent() {
        return [];
      },
    },
  };
  const touches = new BookTouches();
  const cancels = new ParkedCancels();
  const clock = settableClock();
  const read = ownOrdersReader({ client, trader: TRADER, clock, touches, cancels });
  const see = (e: Parameters<typeof touches.see>[0]): void => {
    touches.see(e);
    cancels.see(e);
  };
  for (let m = 0; m < MARKETS; m++) see(streamState(market(m), 'live'));
  await read();
  const filled = orders.findIndex((o) => o.status === 'open');
  orders[filled] = { ...orders[filled]!, filledSize: 2_000_000, remainingSize: orders[filled]!.size - 2_000_000, avgFillPrice: orders[filled]!.price };
  for (let i = 0; i < orders.length; i++) {
    if (orders[i]!.status !== 'open') continue;
    orders[i] = { ...orders[i]!, status: 'cancelled' };
    cancels.parked(orders[i]!.nonce, orders[i]!.marketId);
  }
  c.gets = 0;
  c.pages = 0;
  let fills = 0;
  let polls = 0;
  for (; polls < 5_000; ) {
    polls++;
    clock.t += 1_000;
    for (let m = 0; m < MARKETS; m++) see(deltaEvent(market(m), clock.t));
    const g = c.gets;
    const p = c.pages;
    for (const e of await read()) if (e.event.type === 'OrderFilled') fills++;
    if (polls > 5 && c.gets === g && c.pages - p <= 1) break;
  }
  return { gets: c.gets, pages: c.pages, polls, fills };
}

const before = await run(base);
const after = await run(process.cwd());
const requests = (x: Counts): number => x.gets + x.pages;
report(
  [
    ['orders cancelled by the halt', MARKETS * PER_MARKET],
    ['ended orders of history each', HISTORY],
    ['GET /orders/:id (this tree, base)', `${after.gets}, ${before.gets}`],
    ['GET /orders pages (this tree, base)', `${after.pages}, ${before.pages}`],
    ['polls until done (this tree, base)', `${after.polls}, ${before.polls}`],
    ['fill before the cancel reported (this tree, base)', `${after.fills}, ${before.fills}`],
  ],
  {
    name: 'halt-lookups',
    unit: 'requests after the halt',
    value: requests(after),
    baseline: base,
    baselineValue: requests(before),
    ratio: requests(before) / Math.max(1, requests(after)),
    lookups: after.gets,
    baselineLookups: before.gets,
    polls: after.polls,
    baselinePolls: before.polls,
  },
);
