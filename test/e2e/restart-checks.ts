/**
 * What the restart tests (restart-money, restart-in-flight) share: run 1 of a bot as a `bookmaker run`
 * child on a ledger file (so it can be killed with SIGKILL), the mover taking the bot's quotes, and the
 * money checks after a restart: the store's position of every market, the books' and a replay of the
 * ledger equal field for field; the holdings and the collateral equal the venue's own balance read.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { replayPositions } from '../../src/ledger/books.ts';
import type { Bytes32 } from '../../src/model/order.ts';
import type { Bot } from '../../src/runtime/bot.ts';
import { FLAT, type PositionState } from '../../src/state/position.ts';
import { BOT_KEY, cli, openOrders, place, setBook, waitFor, yaml, yesTerms, type Child, type Harness } from './harness.ts';
import { readLedgerFile } from './ledger-runs.ts';

/** a position's fields as strings (bigints compare in deepEqual, and print in a failure) */
export const fields = (p: PositionState | null | undefined): Record<string, string> | null =>
  p ? Object.fromEntries(Object.entries(p).map(([k, v]) => [k, String(v)])) : null;

/** The venue's own view of the wallet: collateral, and shares held per `market:outcome` (non-zero). */
export async function venueView(h: Harness): Promise<{ collateral: bigint; holdings: Map<string, bigint> }> {
  const s = await h.bot.client.balance.summary(h.bot.wallet);
  const holdings = new Map<string, bigint>();
  for (const t of s.outcomeTokens) if (t.balance !== 0n) holdings.set(`${t.marketId.toLowerCase()}:${t.outcomeIndex}`, t.balance);
  return { collateral: s.usdc.balance, holdings };
}

/** The ledger's fill rows, by source (0 rows while the file does not exist yet). */
export function ledgerFillRows(file: string): { rows: number; bySource: Record<string, number> } {
  try {
    return readLedgerFile(file, (l) => {
      const bySource: Record<string, number> = {};
      for (const r of l.db.prepare('SELECT source, COUNT(*) AS n FROM fills GROUP BY source').all() as { source: string; n: number }[])
        bySource[r.source] = r.n;
      return { rows: Object.values(bySource).reduce((a, b) => a + b, 0), bySource };
    });
  } catch {
    return { rows: 0, bySource: {} }; // not created yet
  }
}

/** own-orders read requests so far, every kind (bookmaker_own_orders_reads_total) */
export const ownReads = (text: string): number =>
  text
    .split('\n')
    .filter((l) => l.startsWith('bookmaker_own_orders_reads_total{'))
    .reduce((n, l) => n + Number(l.slice(l.lastIndexOf(' ') + 1)), 0);

/**
 * The mover takes `shares` of the bot's bid (sells YES into it) or ask (buys YES from it), IOC, then
 * puts its book back at 0.48/0.52 (its own order at that price was in front of the bot's: the
 * venue's self-trade rule took it out of the book, and the bot quotes only around a two-sided book).
 */
export async function take(h: Harness, m: Bytes32, side: 'bid' | 'ask', shares: number): Promise<void> {
  const q = (await openOrders(h.bot, m)).map(yesTerms).find((y) => y.side === side);
  assert.ok(q, `the bot quotes a ${side} in ${m}`);
  if (side === 'bid') await place(h.mover, { marketId: m, outcomeIndex: 1, side: 1, price: q.price, shares, timeInForce: 1, inventoryMode: 2 });
  else await place(h.mover, { marketId: m, outcomeIndex: 1, side: 0, price: q.price, shares, timeInForce: 1 });
  await setBook(h, m, 480_000, 520_000);
}

/**
 * Run 1: `bookmaker run` in a child on the harness's config (`extra`: as `yaml`'s) with the ledger at `ledger`
 * (`ledgerMore`: more lines of its `ledger:` section, indented by two spaces); returns it and its config file.
 */
export function runChild(h: Harness, dir: string, ledger: string, ledgerMore = '', extra: Parameters<typeof yaml>[1] = {}): { child: Child; file: string } {
  const file = join(dir, 'bot.yaml');
  writeFileSync(file, `${yaml(h, extra)}ledger:\n  path: ${ledger}\n  markSeconds: 1\n${ledgerMore}`);
  const child = cli(['run', '-c', file, '--api-key', BOT_KEY, '--metrics-port', '0', '--log-level', 'warn', '--summary-seconds', '0'], {
    BOOKMAKER_PRIVATE_KEY: h.bot.privateKey,
  });
  return { child, file };
}

/** Until the store's holdings of every market are the venue's (a balance read has the last fill); returns the venue's view then. */
export async function storeHoldsVenue(h: Harness, bot: Bot): Promise<Awaited<ReturnType<typeof venueView>>> {
  let venue = await venueView(h);
  await waitFor(
    'the store holds what the venue holds',
    async () => {
      venue = await venueView(h);
      for (const m of h.markets) {
        const p = bot.store.state.markets.get(m.toLowerCase() as Bytes32)?.position;
        if (BigInt(p?.yes ?? 0) !== (venue.holdings.get(`${m.toLowerCase()}:1`) ?? 0n)) return false;
        if (BigInt(p?.no ?? 0) !== (venue.holdings.get(`${m.toLowerCase()}:0`) ?? 0n)) return false;
      }
      return true;
    },
    30_000,
  );
  return venue;
}

/**
 * The store's position of every market = the books' = a replay of the ledger, field for field; the
 * books' holdings and collateral (the ledger's baseline plus the books' cash) = the venue's.
 */
export async function assertMoneyAgrees(h: Harness, bot: Bot, ledger: string): Promise<void> {
  const venue = await storeHoldsVenue(h, bot);
  const replay = readLedgerFile(ledger, (l) => replayPositions(l));
  for (const m of h.markets) {
    const k = m.toLowerCase() as Bytes32;
    // (a market without fills: flat in the store and the books, absent from the replay)
    const want = fields(replay.get(k) ?? FLAT);
    assert.deepEqual(fields(bot.store.state.markets.get(k)?.position), want, `market ${k}: the store's position = the ledger's replay`);
    assert.deepEqual(fields(bot.kernel.account.positionOf(k) ?? FLAT), want, `market ${k}: the books' position = the ledger's replay`);
  }
  const baseline = readLedgerFile(ledger, (l) => l.baseline());
  assert.ok(baseline, 'the ledger recorded its baseline');
  assert.equal(baseline.collateral + bot.kernel.account.figures().cash, venue.collateral, "the books' collateral = the venue's, to the unit");
  assert.deepEqual(
    bot.kernel.account
      .positions()
      .map((p) => [`${p.marketId}:${p.outcomeIndex}`, BigInt(p.shares)] as const)
      .sort(),
    [...venue.holdings.entries()].sort(),
    "the books' holdings = the venue's",
  );
}

/** At most one open order per market and side at the venue (asserts), over `looks` looks 100 ms apart. */
export async function oncePerSlot(h: Harness, looks: number): Promise<void> {
  for (let i = 0; i < looks; i++) {
    for (const m of h.markets) {
      const ys = (await openOrders(h.bot, m)).map(yesTerms);
      const bids = ys.filter((y) => y.side === 'bid').length;
      const asks = ys.length - bids;
      assert.ok(bids <= 1 && asks <= 1, `two orders for one slot in ${m}: ${bids} bids, ${asks} asks`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}
