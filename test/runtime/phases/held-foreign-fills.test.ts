/**
 * The ledger's route during start-up (src/runtime/phases/core.ts HeldForeignFills): another trader's fills
 * wait until the start-up checks pass, then go in, in order, with this bot's fills that came after the
 * first held one (so the ledger's record order is the order the store and the books took them); a start
 * refused for that trader drops theirs; everything else goes straight through.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { asyncScheduler } from 'rxjs';
import { accountFromLedger, ledgerSummary, pnlByMarket, replayPositions } from '../../../src/ledger/books.ts';
import type { Address, Bytes32 } from '../../../src/model/order.ts';
import { HeldForeignFills } from '../../../src/runtime/phases/core.ts';
import type { StateEvent } from '../../../src/state/events.ts';
import { openBotLedger } from '../../support/bot-ledger.ts';

const M = `0x${'11'.repeat(32)}` as Bytes32;
const fill = (n: number, origin: 'own' | 'foreign'): StateEvent =>
  ({
    type: 'OrderFilled',
    marketId: M,
    nonce: `0x${String(n).padStart(64, '0')}` as Bytes32,
    outcomeIndex: 1,
    side: 0,
    price: 500_000,
    size: 1_000_000,
    fee: 0,
    ts: n,
    origin,
  }) as StateEvent;

function route(): { held: HeldForeignFills; written: number[] } {
  const written: number[] = [];
  return { held: new HeldForeignFills({ onEvent: (e: StateEvent) => void written.push((e as { ts: number }).ts) }), written };
}

test('foreign fills wait for the checks with the fills after them, then go in, in the order they came; fills before and later ones go straight in', () => {
  const { held, written } = route();
  held.onEvent(fill(0, 'own'));
  held.onEvent(fill(1, 'foreign'));
  held.onEvent(fill(2, 'own'));
  held.onEvent(fill(3, 'foreign'));
  assert.deepEqual(written, [0]);
  held.release(true);
  assert.deepEqual(written, [0, 1, 2, 3]);
  held.onEvent(fill(4, 'foreign'));
  held.release(true); // a second release (the stop's) writes nothing twice
  assert.deepEqual(written, [0, 1, 2, 3, 4]);
});

test("a start refused for the other trader drops their fills (this bot's own are written), and a later release writes none of them", () => {
  const { held, written } = route();
  held.onEvent(fill(1, 'foreign'));
  held.onEvent(fill(2, 'own'));
  held.release(false);
  held.release(true);
  assert.deepEqual(written, [2]);
});

const clock = { now: () => 1_800_000_000_000, scheduler: asyncScheduler, setTimeout: () => () => undefined };
const TRADER = `0x${'ab'.repeat(20)}` as Address;

/** A fill event of market M at second `s` (venue time), buying or selling YES. */
const at = (s: number, origin: 'own' | 'foreign', side: 0 | 1, price: number, size: number): StateEvent =>
  ({
    type: 'OrderFilled',
    marketId: M,
    nonce: `0x${(origin === 'own' ? 1 : 2).toString(16).padStart(64, '0')}` as Bytes32,
    fillId: `${origin}:${s}`,
    outcomeIndex: 1,
    side,
    price,
    size,
    fee: 1_000,
    ts: 1_800_000_000_000 + s * 1_000,
    origin,
  }) as StateEvent;

/** The figures a ledger's reader and a restart read: positions the store starts from, the books, the summary. */
async function ledgerFigures(dir: string, name: string, events: readonly StateEvent[], hold: boolean): Promise<unknown> {
  const bl = await openBotLedger({ path: join(dir, `${name}.sqlite`), clock, trader: TRADER });
  const route = hold ? new HeldForeignFills(bl) : bl;
  for (const e of events) route.onEvent(e);
  if (route instanceof HeldForeignFills) route.release(true);
  bl.ledger.flush();
  const l = bl.ledger;
  const a = accountFromLedger(l);
  const out = {
    positions: replayPositions(l),
    store: bl.initialState([M]).markets.get(M)?.position,
    books: a.figures(),
    market: a.market(M),
    late: a.late,
    pnl: pnlByMarket(l),
    summary: { ...ledgerSummary(l), startups: 0 },
  };
  bl.close();
  return out;
}

test("a foreign fill held at start-up gives the figures of the same fills recorded in the venue's order (before: written after this bot's own, the positions a restart starts from and, past the books' re-ordering window, the books had another average cost)", async () => {
  const dir = mkdtempSync(join(tmpdir(), 'bm-held-'));
  try {
    // this bot buys, another trader on the wallet sells (held until the checks pass), this bot buys
    // on for 20 minutes: every figure that depends on order (average cost, realised PnL) sees the sale first
    const fills = [at(0, 'own', 0, 400_000, 10_000_000), at(10, 'foreign', 1, 500_000, 5_000_000)];
    for (let k = 1; k <= 40; k++) fills.push(at(10 + k * 30, 'own', k % 3 === 0 ? 1 : 0, 600_000 - k * 1_000, 2_000_000));
    const held = await ledgerFigures(dir, 'held', fills, true);
    const inOrder = await ledgerFigures(dir, 'in-order', fills, false);
    assert.deepStrictEqual(held, inOrder);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
